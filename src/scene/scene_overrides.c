/*
 * A scene's overrides, `-set PATH=VALUE` (docs/scene-format.md, "Overrides"): each changes one value of
 * the scene's YAML document before the scene is read, so the value meets the same checks as one
 * written in the file, and a mistake in it is reported as "-set PATH=VALUE: what is wrong" instead of
 * FILE:LINE. PATH is keys joined by dots from the top of the scene; a list's entry is its index, or
 * its name when it has one (materials.rough.mu, generators.0.lattice.count). VALUE is YAML (0.3,
 * [20, 20, 10], {delta: 0.02}). A missing last key is added (the reader then checks that it is one);
 * anything else missing, or a value of another kind than the one it replaces (a list for a number,
 * a word for a number), is an error that names the path.
 */
#include "scene_reader.h"
#include <jansson.h>

/* The node at id of doc, copied (with its children) into the scene's document; their marks say which
   override they came from. Returns the new node's id, 0 when libyaml fails. */
static int CopyNode(yaml_document_t *dst, yaml_document_t *src, int id, size_t line)
{
  yaml_node_t *n = yaml_document_get_node(src, id);
  int          copy;

  switch (n->type) {
  case YAML_SCALAR_NODE:
    copy = yaml_document_add_scalar(dst, NULL, n->data.scalar.value, (int)n->data.scalar.length,
                                    YAML_PLAIN_SCALAR_STYLE);
    break;
  case YAML_SEQUENCE_NODE:
    copy = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
    for (yaml_node_item_t *it = n->data.sequence.items.start; copy && it < n->data.sequence.items.top; it++) {
      const int item = CopyNode(dst, src, *it, line);
      if (!item || !yaml_document_append_sequence_item(dst, copy, item)) copy = 0;
    }
    break;
  case YAML_MAPPING_NODE:
    copy = yaml_document_add_mapping(dst, NULL, YAML_FLOW_MAPPING_STYLE);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; copy && p < n->data.mapping.pairs.top; p++) {
      const int key = CopyNode(dst, src, p->key, line), value = CopyNode(dst, src, p->value, line);
      if (!key || !value || !yaml_document_append_mapping_pair(dst, copy, key, value)) copy = 0;
    }
    break;
  default:
    copy = 0;
  }
  if (copy) yaml_document_get_node(dst, copy)->start_mark.line = line;
  return copy;
}

/* "a number", "true or false", or NULL (any word) for a scalar's text */
static const char *ScalarKind(const char s[])
{
  char *end;

  if (!strcmp(s, "true") || !strcmp(s, "false")) return "true or false";
  (void)strtod(s, &end);
  return end != s && *end == 0 ? "a number" : NULL;
}

/* The entry of list `node` that component c names: its index, or the entry whose name: is c */
static int ListEntry(yaml_document_t *doc, yaml_node_t *node, const char c[])
{
  const int n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
  char     *end;
  long      k = strtol(c, &end, 10);

  if (end != c && *end == 0) return k >= 0 && k < n ? node->data.sequence.items.start[k] : 0;
  for (int i = 0; i < n; i++) {
    yaml_node_t *entry = yaml_document_get_node(doc, node->data.sequence.items.start[i]);
    if (entry->type != YAML_MAPPING_NODE) continue;
    for (yaml_node_pair_t *p = entry->data.mapping.pairs.start; p < entry->data.mapping.pairs.top; p++) {
      yaml_node_t *key = yaml_document_get_node(doc, p->key), *value = yaml_document_get_node(doc, p->value);
      if (key->type == YAML_SCALAR_NODE && value->type == YAML_SCALAR_NODE &&
          !strcmp((const char *)key->data.scalar.value, "name") && !strcmp((const char *)value->data.scalar.value, c))
        return node->data.sequence.items.start[i];
    }
  }
  return 0;
}

/* The pair of mapping `node` whose key is c, or NULL */
static yaml_node_pair_t *MappingPair(yaml_document_t *doc, yaml_node_t *node, const char c[])
{
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *key = yaml_document_get_node(doc, p->key);
    if (key->type == YAML_SCALAR_NODE && !strcmp((const char *)key->data.scalar.value, c)) return p;
  }
  return NULL;
}

/* Override k ("PATH=VALUE") applied to the document */
static PetscErrorCode ApplyOne(SceneReader *r, PetscInt k)
{
  const char     *text = r->override[k], *eq = strchr(text, '=');
  char            path[512], *c, *next;
  yaml_parser_t   parser;
  yaml_document_t value;
  yaml_node_t    *root;
  int             id   = 1, copy; /* libyaml numbers nodes from 1: the root is the first */
  const size_t    line = SCENE_OVERRIDE_LINE + (size_t)k;

  PetscFunctionBegin;
  PetscCheck(eq && eq > text && (size_t)(eq - text) < sizeof(path), r->comm, PETSC_ERR_USER_INPUT,
             "-set %s: give PATH=VALUE, PATH keys joined by dots (materials.rough.mu=0.3)", text);
  PetscCall(PetscStrncpy(path, text, (size_t)(eq - text) + 1));
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)eq + 1, strlen(eq + 1));
  if (!yaml_parser_load(&parser, &value)) {
    yaml_parser_delete(&parser);
    SETERRQ(r->comm, PETSC_ERR_USER_INPUT, "-set %s: the value is not valid YAML", text);
  }
  yaml_parser_delete(&parser);
  root = yaml_document_get_root_node(&value);
  if (!root) {
    yaml_document_delete(&value);
    SETERRQ(r->comm, PETSC_ERR_USER_INPUT, "-set %s: no value after '='", text);
  }
  copy = CopyNode(&r->doc, &value, 1, line);
  yaml_document_delete(&value);
  PetscCheck(copy, r->comm, PETSC_ERR_MEM, "-set %s: out of memory copying the value", text);
  for (c = path; c; c = next) {
    yaml_node_t      *node = yaml_document_get_node(&r->doc, id), *made = yaml_document_get_node(&r->doc, copy);
    yaml_node_pair_t *pair = NULL;
    int               child;
    if ((next = strchr(c, '.'))) *next++ = 0;
    PetscCheck(c[0], r->comm, PETSC_ERR_USER_INPUT, "-set %s: an empty key in the path", text);
    if (node->type == YAML_MAPPING_NODE) {
      pair  = MappingPair(&r->doc, node, c);
      child = pair ? pair->value : 0;
    } else if (node->type == YAML_SEQUENCE_NODE) child = ListEntry(&r->doc, node, c);
    else SETERRQ(r->comm, PETSC_ERR_USER_INPUT, "-set %s: \"%s\" is inside a value, not a list or a mapping", text, c);
    if (!child && !next && node->type == YAML_MAPPING_NODE) { /* a new key: the reader checks it is one */
      const int key = yaml_document_add_scalar(&r->doc, NULL, (yaml_char_t *)c, -1, YAML_PLAIN_SCALAR_STYLE);
      PetscCheck(key && yaml_document_append_mapping_pair(&r->doc, id, key, copy), r->comm, PETSC_ERR_MEM,
                 "-set %s: out of memory", text);
      yaml_document_get_node(&r->doc, key)->start_mark.line = line;
      break;
    }
    PetscCheck(child, r->comm, PETSC_ERR_USER_INPUT, "-set %s: the scene has no \"%s\" there (%s)", text, c,
               node->type == YAML_SEQUENCE_NODE ? "an entry is its index from 0, or its name" : "no such key");
    if (next) {
      id = child;
      continue;
    }
    { /* the last key: the value takes the old one's place, if it is of its kind */
      yaml_node_t *old  = yaml_document_get_node(&r->doc, child);
      const char  *want = old->type == YAML_SCALAR_NODE ? ScalarKind((const char *)old->data.scalar.value)
                                                        : SceneNodeKind(old);
      const char  *got  = made->type == YAML_SCALAR_NODE ? ScalarKind((const char *)made->data.scalar.value)
                                                         : SceneNodeKind(made);
      PetscCheck(old->type == made->type && (!want || (got && !strcmp(want, got))), r->comm, PETSC_ERR_USER_INPUT,
                 "-set %s: the scene has %s there, the value is %s", text, want ? want : "a word",
                 got ? got : (made->type == YAML_SCALAR_NODE ? "a word" : SceneNodeKind(made)));
      if (pair) pair->value = copy;
      else
        for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
          if (*it == child) *it = copy;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SceneApplyOverrides(SceneReader *r, const char overrides[], char kept[], size_t size)
{
  char *all;

  PetscFunctionBegin;
  r->noverrides = 0, r->override = NULL;
  if (!overrides || !overrides[0]) PetscFunctionReturn(0);
  PetscCheck(strlen(overrides) < size, r->comm, PETSC_ERR_USER_INPUT,
             "the -set overrides take %zu characters, more than the %zu a scene keeps", strlen(overrides), size - 1);
  PetscCall(PetscStrncpy(kept, overrides, size));
  PetscCall(PetscStrallocpy(overrides, &all)); /* its lines, each a string: r->override[0] owns them */
  PetscCall(PetscMalloc1(strlen(all) + 1, &r->override));
  for (char *line = all; line && *line; r->noverrides++) {
    char *end                  = strchr(line, '\n');
    r->override[r->noverrides] = line;
    if (end) *end = 0;
    line = end ? end + 1 : NULL;
  }
  if (!r->noverrides) PetscCall(PetscFree(all));
  for (PetscInt k = 0; k < r->noverrides; k++) PetscCall(ApplyOne(r, k));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneDestroyOverrides(SceneReader *r)
{
  PetscFunctionBegin;
  if (r->noverrides) PetscCall(PetscFree(r->override[0]));
  PetscCall(PetscFree(r->override));
  r->noverrides = 0;
  PetscFunctionReturn(0);
}

/* A scalar as JSON: a number, true or false, or the text */
static json_t *ScalarJSON(const char s[])
{
  const char *kind = ScalarKind(s);

  if (!kind) return json_string(s);
  if (!strcmp(kind, "a number")) return json_real(strtod(s, NULL));
  return json_boolean(!strcmp(s, "true"));
}

static json_t *NodeJSON(yaml_document_t *doc, yaml_node_t *n)
{
  json_t *j;

  switch (n->type) {
  case YAML_SCALAR_NODE:
    return ScalarJSON((const char *)n->data.scalar.value);
  case YAML_SEQUENCE_NODE:
    j = json_array();
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
      json_array_append_new(j, NodeJSON(doc, yaml_document_get_node(doc, *it)));
    return j;
  case YAML_MAPPING_NODE:
    j = json_object();
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
      yaml_node_t *key = yaml_document_get_node(doc, p->key);
      if (key->type == YAML_SCALAR_NODE)
        json_object_set_new(j, (const char *)key->data.scalar.value,
                            NodeJSON(doc, yaml_document_get_node(doc, p->value)));
    }
    return j;
  default:
    return json_null();
  }
}

json_t *SceneOverridesJSON(const char overrides[])
{
  json_t     *all  = json_object();
  const char *line = overrides;

  while (line && *line) {
    const char     *end = strchr(line, '\n'), *eq = strchr(line, '=');
    const size_t    len = end ? (size_t)(end - line) : strlen(line);
    char            path[512], text[4096];
    yaml_parser_t   parser;
    yaml_document_t doc;
    if (eq && eq < line + len && (size_t)(eq - line) < sizeof(path) && len < sizeof(text)) {
      memcpy(path, line, (size_t)(eq - line)), path[eq - line]                                 = 0;
      memcpy(text, eq + 1, len - (size_t)(eq - line) - 1), text[len - (size_t)(eq - line) - 1] = 0;
      yaml_parser_initialize(&parser);
      yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
      if (yaml_parser_load(&parser, &doc)) {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        json_object_set_new(all, path, root ? NodeJSON(&doc, root) : json_string(text));
        yaml_document_delete(&doc);
      } else json_object_set_new(all, path, json_string(text));
      yaml_parser_delete(&parser);
    }
    line = end ? end + 1 : NULL;
  }
  return all;
}
