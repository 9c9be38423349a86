/*
 * Bodies' names, and a scene's joints: list (docs/scene-format.md, docs/mechanisms.md). A body's
 * name is registered as it is read and looked up by joints, forces and springs. Each joint names
 * its two bodies (a body's name, its id, or world), the point it holds in the world at the start (or two points for
 * a distance joint), its axis where its type has one, for drivers the motion they prescribe, and for
 * limits their range (lower, upper).
 * Every mistake is FILE:LINE, including the ones only the bodies' poses reveal (a joint between two
 * fixed bodies), which TalusSimCheckJoint finds.
 */
#include "scene_reader.h"

static const char *const joint_keys[]  = {"type",   "bodies",     "point",      "points", "axis",  "length",
                                          "motion", "relaxation", "compliance", "lower",  "upper", NULL};
static const char *const motion_keys[] = {"offset", "rate", "amplitude", "frequency", "phase", "table", NULL};

/* A body's name (joints refer to it): unique, not "world", not a number (an id is one) */
PetscErrorCode SceneReadBodyName(SceneReader *r, yaml_node_t *map, PetscInt id)
{
  yaml_node_t *node = SceneLookup(r, map, "name");
  const char  *name;
  char        *end;

  PetscFunctionBegin;
  if (!node) PetscFunctionReturn(0);
  PetscCall(SceneGetString(r, node, "name", &name));
  (void)strtod(name, &end);
  if (!name[0] || strlen(name) >= sizeof(r->names->entry[0].name) || !strcmp(name, "world") || *end == 0)
    SceneError(r, node, "a body's name must be 1 to %d characters, not \"world\" and not a number, got \"%.64s\"",
               (int)sizeof(r->names->entry[0].name) - 1, name);
  for (PetscInt k = 0; k < r->names->n; k++)
    if (!strcmp(r->names->entry[k].name, name)) SceneError(r, node, "two bodies are named \"%s\"", name);
  PetscCall(PetscRealloc(sizeof(r->names->entry[0]) * (r->names->n + 1), &r->names->entry));
  PetscCall(PetscStrncpy(r->names->entry[r->names->n].name, name, sizeof(r->names->entry[0].name)));
  r->names->entry[r->names->n++].id = id;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneBodyRef(SceneReader *r, yaml_node_t *node, PetscInt *id)
{
  const char *s;
  char       *end;
  double      x;

  PetscFunctionBegin;
  if (node->type != YAML_SCALAR_NODE)
    SceneError(r, node, "a joint's body is a name, an id or world, got %s", SceneNodeKind(node));
  s = (const char *)node->data.scalar.value;
  if (!strcmp(s, "world")) {
    *id = TALUS_WORLD;
    PetscFunctionReturn(0);
  }
  x = strtod(s, &end);
  if (end != s && *end == 0) {
    if (x != PetscFloorReal(x) || x < 0 || x >= r->nlisted)
      SceneError(r, node,
                 "body id %s: the bodies listed under bodies: have ids 0 to %" PetscInt_FMT
                 " (a generator's spheres cannot be named: list the body instead)",
                 s, r->nlisted - 1);
    *id = (PetscInt)x;
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < r->names->n; k++)
    if (!strcmp(r->names->entry[k].name, s)) {
      *id = r->names->entry[k].id;
      PetscFunctionReturn(0);
    }
  SceneError(r, node, "no body is named \"%s\" (give a body name: %s, or use its id or world)", s, s);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadMotion(SceneReader *r, yaml_node_t *map, TalusSim sim, TalusMotion *m)
{
  PetscFunctionBegin;
  if (map->type != YAML_MAPPING_NODE)
    SceneError(r, map, "motion must be a mapping {offset, rate, amplitude, frequency, phase, table}, got %s",
               SceneNodeKind(map));
  PetscCall(SceneCheckKeys(r, map, "a motion", motion_keys));
  PetscCall(SceneOptionalNumber(r, map, "offset", &m->offset));
  PetscCall(SceneOptionalNumber(r, map, "rate", &m->rate));
  PetscCall(SceneOptionalNumber(r, map, "amplitude", &m->amplitude));
  PetscCall(SceneOptionalNumber(r, map, "frequency", &m->frequency));
  PetscCall(SceneOptionalNumber(r, map, "phase", &m->phase));
  PetscCall(SceneOptionalTable(r, map, "table", 1, sim, &m->table));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadJoint(SceneReader *r, yaml_node_t *map, void *ctx)
{
  TalusSim       sim  = (TalusSim)ctx;
  TalusJointSpec spec = {.length = -1.0};
  yaml_node_t   *node;
  const char    *name, *why;
  char           types[160];
  TalusBodies   *b;

  PetscFunctionBegin;
  if (map->type != YAML_MAPPING_NODE) SceneError(r, map, "a joint must be a mapping, got %s", SceneNodeKind(map));
  PetscCall(SceneCheckKeys(r, map, "a joint", joint_keys));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusJointTypeList(types, sizeof(types)));
  PetscCall(SceneRequireKey(r, map, "type", "a joint", &node));
  PetscCall(SceneGetString(r, node, "type", &name));
  if (!TalusJointTypeFromName(name, &spec.type))
    SceneError(r, node, "unknown joint type \"%s\" (expected %s)", name, types);

  PetscCall(SceneRequireKey(r, map, "bodies", "a joint", &node));
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 2)
    SceneError(r, node, "bodies must be a list of two: [A, B], each a body's name, its id or world");
  for (int side = 0; side < 2; side++)
    PetscCall(
      SceneBodyRef(r, yaml_document_get_node(&r->doc, node->data.sequence.items.start[side]), &spec.body[side]));
  if (spec.body[0] == spec.body[1])
    SceneError(r, node, "a joint's two bodies must differ (a body and the world, or two bodies)");

  if ((node = SceneLookup(r, map, "points"))) {
    if (spec.type != TALUS_JOINT_DISTANCE)
      SceneError(r, node, "points (one on each body) is for distance joints; a %s joint holds one point: point", name);
    if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 2)
      SceneError(r, node, "points must be a list of two points [[x, y, z], [x, y, z]]");
    for (int side = 0; side < 2; side++)
      PetscCall(SceneGetVector(r, yaml_document_get_node(&r->doc, node->data.sequence.items.start[side]), "a point", 3,
                               spec.point[side]));
    if (SceneLookup(r, map, "point")) SceneError(r, node, "give point or points, not both");
  } else {
    PetscCall(SceneRequireKey(r, map, "point", "a joint", &node));
    PetscCall(SceneGetVector(r, node, "point", 3, spec.point[0]));
    for (int d = 0; d < 3; d++) spec.point[1][d] = spec.point[0][d];
    if (spec.type == TALUS_JOINT_DISTANCE && !SceneLookup(r, map, "length"))
      SceneError(r, node, "a distance joint with one point needs a length (or give points: one on each body)");
  }

  if ((node = SceneLookup(r, map, "axis"))) {
    if (!TalusJointTypeHasAxis(spec.type)) SceneError(r, node, "a %s joint has no axis", name);
    PetscCall(SceneGetVector(r, node, "axis", 3, spec.axis));
    if (!(TalusNorm3(spec.axis) > 0.0)) SceneError(r, node, "the axis must not be zero");
  } else if (TalusJointTypeHasAxis(spec.type))
    SceneError(r, map, "a %s joint needs an axis: [x, y, z]%s", name,
               spec.type == TALUS_JOINT_PLANAR_PIN ? " (the normal of its plane)" : "");

  if ((node = SceneLookup(r, map, "length"))) {
    if (spec.type != TALUS_JOINT_DISTANCE) SceneError(r, node, "length is for distance joints");
    PetscCall(SceneGetNumber(r, node, "length", &spec.length));
    if (!(spec.length > 0.0)) SceneError(r, node, "length must be positive, got %g", (double)spec.length);
  }

  if ((node = SceneLookup(r, map, "motion"))) {
    if (!TalusJointTypeIsDriver(spec.type))
      SceneError(r, node, "motion is for drivers (angle_driver, linear_driver), not a %s joint", name);
    PetscCall(ReadMotion(r, node, sim, &spec.motion));
  } else if (TalusJointTypeIsDriver(spec.type))
    SceneError(r, map, "a %s needs a motion: {rate: ..., amplitude: ..., frequency: ...}", name);
  for (int end = 0; end < 2; end++) {
    const char *key = end ? "upper" : "lower";
    PetscReal  *x   = end ? &spec.upper : &spec.lower;
    if ((node = SceneLookup(r, map, key))) {
      if (!TalusJointTypeIsLimit(spec.type))
        SceneError(r, node, "%s is for limits (angle_limit, linear_limit), not a %s joint", key, name);
      PetscCall(SceneGetNumber(r, node, key, x));
    } else if (TalusJointTypeIsLimit(spec.type))
      SceneError(r, map, "a %s needs lower and upper: the range of its %s", name,
                 spec.type == TALUS_JOINT_ANGLE_LIMIT ? "angle (rad, within [-pi, pi])" : "displacement (m)");
  }
  if ((node = SceneLookup(r, map, "relaxation"))) PetscCall(SceneReadRelaxation(r, node, sim, &spec.zeta, &spec.delta));
  if ((node = SceneLookup(r, map, "compliance"))) {
    if (spec.delta > 0.0)
      SceneError(r, node, "a joint's rows are relaxed (seed 003) or compliant (seed 004), not both");
    PetscCall(SceneReadCompliance(r, node, &spec.stiffness, &spec.damping, NULL, NULL));
  }

  PetscCall(TalusSimCheckJoint(sim, &spec, &why));
  if (why) SceneError(r, map, "this %s joint cannot be: %s", name, why);
  PetscCall(TalusSimAddJoint(sim, &spec, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadJoints(SceneReader *r, yaml_node_t *list, TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(SceneReadList(r, list, "joints", ReadJoint, sim));
  PetscFunctionReturn(0);
}
