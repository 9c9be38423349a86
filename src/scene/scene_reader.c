/* Typed access to a scene's YAML document (libyaml's document API keeps every node's line), each
   mistake an error "FILE:LINE: what is wrong" (scene_reader.h). */
#include "scene_reader.h"

/* The -set line an overridden node came from (its line is SCENE_OVERRIDE_LINE + k): SceneError's "-set ..." */
const char *SceneOverrideOf(SceneReader *r, yaml_node_t *node)
{
  const size_t k = node->start_mark.line - SCENE_OVERRIDE_LINE;
  return k < (size_t)r->noverrides ? r->override[k] : "?";
}

const char *SceneNodeKind(yaml_node_t *node)
{
  switch (node->type) {
  case YAML_SCALAR_NODE:
    return "a scalar";
  case YAML_SEQUENCE_NODE:
    return "a list";
  case YAML_MAPPING_NODE:
    return "a mapping";
  default:
    return "nothing";
  }
}

PetscErrorCode SceneGetNumber(SceneReader *r, yaml_node_t *node, const char what[], PetscReal *value)
{
  char *end;

  PetscFunctionBegin;
  if (node->type != YAML_SCALAR_NODE) SceneError(r, node, "%s must be a number, got %s", what, SceneNodeKind(node));
  *value = strtod((const char *)node->data.scalar.value, &end);
  if (end == (char *)node->data.scalar.value || *end != 0 || PetscIsInfOrNanReal(*value))
    SceneError(r, node, "%s must be a finite number, got \"%s\"", what, (const char *)node->data.scalar.value);
  if (PetscAbsReal(*value) > TALUS_LARGEST_INPUT)
    SceneError(r, node, "%s = %s is beyond %g in magnitude, which talus cannot simulate (the step's products overflow)",
               what, (const char *)node->data.scalar.value, TALUS_LARGEST_INPUT);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneGetInt(SceneReader *r, yaml_node_t *node, const char what[], PetscInt *value)
{
  PetscReal x;

  PetscFunctionBegin;
  PetscCall(SceneGetNumber(r, node, what, &x));
  if (x != PetscFloorReal(x) || PetscAbsReal(x) > 1e9)
    SceneError(r, node, "%s must be an integer, got %g", what, (double)x);
  *value = (PetscInt)x;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneGetBool(SceneReader *r, yaml_node_t *node, const char what[], PetscBool *value)
{
  const char *s;

  PetscFunctionBegin;
  if (node->type != YAML_SCALAR_NODE)
    SceneError(r, node, "%s must be true or false, got %s", what, SceneNodeKind(node));
  s = (const char *)node->data.scalar.value;
  if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) *value = PETSC_TRUE;
  else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off")) *value = PETSC_FALSE;
  else SceneError(r, node, "%s must be true or false, got \"%s\"", what, s);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneGetString(SceneReader *r, yaml_node_t *node, const char what[], const char **value)
{
  PetscFunctionBegin;
  if (node->type != YAML_SCALAR_NODE) SceneError(r, node, "%s must be a name, got %s", what, SceneNodeKind(node));
  *value = (const char *)node->data.scalar.value;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneGetVector(SceneReader *r, yaml_node_t *node, const char what[], PetscInt n, PetscReal *v)
{
  PetscInt k = 0;

  PetscFunctionBegin;
  if (node->type != YAML_SEQUENCE_NODE)
    SceneError(r, node, "%s must be a list of %" PetscInt_FMT " numbers, got %s", what, n, SceneNodeKind(node));
  for (yaml_node_item_t *item = node->data.sequence.items.start; item < node->data.sequence.items.top; item++, k++) {
    if (k < n) PetscCall(SceneGetNumber(r, yaml_document_get_node(&r->doc, *item), what, &v[k]));
  }
  if (k != n) SceneError(r, node, "%s must have %" PetscInt_FMT " numbers, it has %" PetscInt_FMT, what, n, k);
  PetscFunctionReturn(0);
}

/* Checks that every key of a mapping is one of `allowed` (NULL-terminated). */
PetscErrorCode SceneCheckKeys(SceneReader *r, yaml_node_t *map, const char what[], const char *const allowed[])
{
  PetscFunctionBegin;
  if (map->type != YAML_MAPPING_NODE)
    SceneError(r, map, "%s must be a mapping (key: value), got %s", what, SceneNodeKind(map));
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *key       = yaml_document_get_node(&r->doc, p->key);
    PetscBool    ok        = PETSC_FALSE;
    char         list[512] = "";
    if (key->type != YAML_SCALAR_NODE) SceneError(r, key, "keys of %s must be names", what);
    for (PetscInt a = 0; allowed[a]; a++) {
      if (!strcmp((const char *)key->data.scalar.value, allowed[a])) ok = PETSC_TRUE;
      PetscCall(PetscStrlcat(list, a ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, allowed[a], sizeof(list)));
    }
    if (!ok)
      SceneError(r, key, "unknown key \"%s\" in %s (expected one of: %s)", (const char *)key->data.scalar.value, what,
                 list);
  }
  PetscFunctionReturn(0);
}

yaml_node_t *SceneLookup(SceneReader *r, yaml_node_t *map, const char key[])
{
  if (!map || map->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&r->doc, p->key);
    if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
      return yaml_document_get_node(&r->doc, p->value);
  }
  return NULL;
}

PetscErrorCode SceneRequireKey(SceneReader *r, yaml_node_t *map, const char key[], const char what[],
                               yaml_node_t **value)
{
  PetscFunctionBegin;
  *value = SceneLookup(r, map, key);
  if (!*value) SceneError(r, map, "%s needs \"%s\"", what, key);
  PetscFunctionReturn(0);
}

PetscErrorCode SceneOptionalNumber(SceneReader *r, yaml_node_t *map, const char key[], PetscReal *value)
{
  yaml_node_t *node = SceneLookup(r, map, key);

  PetscFunctionBegin;
  if (node) PetscCall(SceneGetNumber(r, node, key, value));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneOptionalVector(SceneReader *r, yaml_node_t *map, const char key[], PetscReal v[3])
{
  yaml_node_t *node = SceneLookup(r, map, key);

  PetscFunctionBegin;
  if (node) PetscCall(SceneGetVector(r, node, key, 3, v));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadList(SceneReader *r, yaml_node_t *list, const char what[],
                             PetscErrorCode (*read)(SceneReader *, yaml_node_t *, void *), void *ctx)
{
  PetscFunctionBegin;
  if (list->type != YAML_SEQUENCE_NODE) SceneError(r, list, "%s must be a list, got %s", what, SceneNodeKind(list));
  for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++)
    PetscCall(read(r, yaml_document_get_node(&r->doc, *it), ctx));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneOptionalTable(SceneReader *r, yaml_node_t *map, const char key[], PetscInt columns, TalusSim sim,
                                  PetscInt *handle)
{
  yaml_node_t *node = SceneLookup(r, map, key);
  PetscReal   *data;
  PetscInt     n = 0, w = columns + 1;
  char         what[96];

  PetscFunctionBegin;
  *handle = 0;
  if (!node) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(what, sizeof(what), "a point of %s ([t%s])", key, columns == 1 ? ", value" : ", x, y, z"));
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start < 2)
    SceneError(r, node, "%s must be a list of at least two points [t%s], times increasing", key,
               columns == 1 ? ", value" : ", x, y, z");
  PetscCall(PetscMalloc1(w * (node->data.sequence.items.top - node->data.sequence.items.start), &data));
  for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, n++) {
    yaml_node_t *row = yaml_document_get_node(&r->doc, *it);
    PetscCall(SceneGetVector(r, row, what, w, &data[w * n]));
    if (n > 0 && !(data[w * n] > data[w * (n - 1)]))
      SceneError(r, row, "the times of %s must increase: %g after %g", key, (double)data[w * n],
                 (double)data[w * (n - 1)]);
  }
  PetscCall(TalusSimAddTable(sim, columns, n, data, handle));
  PetscCall(PetscFree(data));
  PetscFunctionReturn(0);
}
