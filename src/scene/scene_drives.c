/*
 * A scene's drives (docs/scene-format.md, docs/mechanisms.md): a body's prescribed motion, a
 * fixed body's surface velocity and a moving body's plane (keys of the body), the forces: and
 * springs: lists. Mistakes are
 * FILE:LINE, the explicit spring's stability among them.
 */
#include "scene_reader.h"

static const char *const motion_keys[] = {"velocity",         "amplitude", "frequency", "phase",
                                          "angular_velocity", "table",     NULL};
static const char *const planar_keys[] = {"normal", NULL};
static const char *const force_keys[]  = {"body",  "force",       "torque",       "point",
                                          "frame", "force_table", "torque_table", NULL};
static const char *const spring_keys[] = {"bodies",      "points",       "stiffness", "damping",
                                          "rest_length", "damping_mode", NULL};

static PetscErrorCode RequireMapping(SceneReader *r, yaml_node_t *node, const char what[])
{
  PetscFunctionBegin;
  if (node->type != YAML_MAPPING_NODE) SceneError(r, node, "%s must be a mapping, got %s", what, SceneNodeKind(node));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadBodyDrive(SceneReader *r, yaml_node_t *map, PetscInt id, TalusSim sim)
{
  yaml_node_t *node, *fixed;

  PetscFunctionBegin;
  if ((node = SceneLookup(r, map, "motion"))) {
    TalusPrescribedMotion m = {.body = id};
    PetscBool             f = PETSC_TRUE;
    if ((fixed = SceneLookup(r, map, "fixed"))) PetscCall(SceneGetBool(r, fixed, "fixed", &f));
    if (!f) SceneError(r, fixed, "a body with a motion has its pose prescribed: it is fixed (leave fixed out)");
    PetscCall(RequireMapping(r, node, "motion"));
    PetscCall(SceneCheckKeys(r, node, "a motion", motion_keys));
    PetscCall(SceneOptionalVector(r, node, "velocity", m.velocity));
    PetscCall(SceneOptionalVector(r, node, "amplitude", m.amplitude));
    PetscCall(SceneOptionalNumber(r, node, "frequency", &m.frequency));
    PetscCall(SceneOptionalNumber(r, node, "phase", &m.phase));
    PetscCall(SceneOptionalVector(r, node, "angular_velocity", m.angular_velocity));
    PetscCall(SceneOptionalTable(r, node, "table", 3, sim, &m.table));
    if (SceneLookup(r, map, "velocity") || SceneLookup(r, map, "angular_velocity"))
      SceneError(r, node, "a body with a motion takes its velocity from it: leave velocity and angular_velocity out");
    if (SceneLookup(r, map, "surface_velocity"))
      SceneError(r, node, "a body has a motion or a surface velocity, not both");
    PetscCall(TalusSimAddPrescribedMotion(sim, &m));
  }
  if ((node = SceneLookup(r, map, "surface_velocity"))) {
    TalusBodies    *b;
    PetscReal       v[3];
    const PetscReal w[3] = {0, 0, 0};
    PetscCall(TalusSimGetBodies(sim, &b));
    PetscCall(SceneGetVector(r, node, "surface_velocity", 3, v));
    if (!b->fixed[id]) SceneError(r, node, "surface_velocity is for fixed bodies and planes (a conveyor belt)");
    if (!TalusBodiesIsFinite(b, id) && PetscAbsReal(TalusDot3(v, &b->size[3 * id])) > 1e-12 * TalusNorm3(v))
      SceneError(r, node, "a plane's surface velocity must lie in the plane (normal to its normal)");
    PetscCall(TalusSimSetSurfaceVelocity(sim, id, v, w));
  }
  if ((node = SceneLookup(r, map, "planar"))) {
    TalusBodies *b;
    yaml_node_t *normal;
    PetscReal    n[3];
    PetscCall(TalusSimGetBodies(sim, &b));
    PetscCall(RequireMapping(r, node, "planar"));
    PetscCall(SceneCheckKeys(r, node, "planar", planar_keys));
    if (!(normal = SceneLookup(r, node, "normal")))
      SceneError(r, node, "planar needs the plane's normal: {normal: [x, y, z]}");
    PetscCall(SceneGetVector(r, normal, "normal", 3, n));
    if (!TalusBodiesIsFinite(b, id) || b->fixed[id])
      SceneError(r, node, "planar is for moving bodies (not planes, fixed or prescribed bodies)");
    if (!(TalusNorm3(n) > 0.0)) SceneError(r, normal, "the plane's normal has zero length");
    PetscCall(TalusSimAddPlanar(sim, id, n));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadBodyDrives(SceneReader *r, yaml_node_t *bodies, TalusSim sim)
{
  PetscInt id = 0;

  PetscFunctionBegin;
  for (yaml_node_item_t *it = bodies->data.sequence.items.start; it < bodies->data.sequence.items.top; it++, id++)
    PetscCall(ReadBodyDrive(r, yaml_document_get_node(&r->doc, *it), id, sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadForce(SceneReader *r, yaml_node_t *map, void *ctx)
{
  TalusSim     sim  = (TalusSim)ctx;
  TalusLoad    load = {0};
  yaml_node_t *node;
  TalusBodies *b;

  PetscFunctionBegin;
  PetscCall(RequireMapping(r, map, "a force"));
  PetscCall(SceneCheckKeys(r, map, "a force", force_keys));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(SceneRequireKey(r, map, "body", "a force", &node));
  PetscCall(SceneBodyRef(r, node, &load.body));
  if (load.body == TALUS_WORLD || b->fixed[load.body]) SceneError(r, node, "a force acts on a body that moves");
  PetscCall(SceneOptionalVector(r, map, "force", load.force));
  PetscCall(SceneOptionalVector(r, map, "torque", load.torque));
  PetscCall(SceneOptionalVector(r, map, "point", load.point));
  PetscCall(SceneOptionalTable(r, map, "force_table", 3, sim, &load.force_table));
  PetscCall(SceneOptionalTable(r, map, "torque_table", 3, sim, &load.torque_table));
  if (!SceneLookup(r, map, "force") && !SceneLookup(r, map, "torque") && !load.force_table && !load.torque_table)
    SceneError(r, map, "a force needs force:, torque:, force_table: or torque_table:");
  if ((node = SceneLookup(r, map, "frame"))) {
    const char *frame;
    PetscCall(SceneGetString(r, node, "frame", &frame));
    if (!strcmp(frame, "body")) load.body_frame = 1;
    else if (strcmp(frame, "world")) SceneError(r, node, "frame must be world or body, got \"%s\"", frame);
  }
  PetscCall(TalusSimAddLoad(sim, &load));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadForces(SceneReader *r, yaml_node_t *list, TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(SceneReadList(r, list, "forces", ReadForce, sim));
  PetscFunctionReturn(0);
}

/* a list of exactly two of something */
static PetscErrorCode Pair(SceneReader *r, yaml_node_t *node, const char what[], yaml_node_t *item[2])
{
  PetscFunctionBegin;
  if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top - node->data.sequence.items.start != 2)
    SceneError(r, node, "%s must be a list of two", what);
  for (int k = 0; k < 2; k++) item[k] = yaml_document_get_node(&r->doc, node->data.sequence.items.start[k]);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadSpring(SceneReader *r, yaml_node_t *map, void *ctx)
{
  TalusSim     sim = (TalusSim)ctx;
  TalusSpring  s   = {.rest_length = -1.0};
  PetscReal    points[2][3], dt, stability, d[3];
  yaml_node_t *node, *item[2];
  TalusBodies *b;
  PetscInt     k[2] = {-1, -1};

  PetscFunctionBegin;
  PetscCall(RequireMapping(r, map, "a spring"));
  PetscCall(SceneCheckKeys(r, map, "a spring", spring_keys));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(SceneRequireKey(r, map, "bodies", "a spring", &node));
  PetscCall(Pair(r, node, "bodies ([A, B], each a body's name, its id or world)", item));
  for (int end = 0; end < 2; end++) {
    PetscCall(SceneBodyRef(r, item[end], &s.body[end]));
    if (s.body[end] != TALUS_WORLD) k[end] = s.body[end];
  }
  if (s.body[0] == s.body[1]) SceneError(r, node, "a spring's two ends must be on different bodies");
  if (!((k[0] >= 0 && !b->fixed[k[0]]) || (k[1] >= 0 && !b->fixed[k[1]])))
    SceneError(r, node, "neither end of the spring is on a body that moves");
  PetscCall(SceneRequireKey(r, map, "points", "a spring", &node));
  PetscCall(Pair(r, node, "points ([[x, y, z], [x, y, z]], the ends in the world at the start)", item));
  for (int end = 0; end < 2; end++) PetscCall(SceneGetVector(r, item[end], "a spring's end", 3, points[end]));
  PetscCall(SceneRequireKey(r, map, "stiffness", "a spring", &node));
  PetscCall(SceneGetNumber(r, node, "stiffness", &s.stiffness));
  if (s.stiffness < 0.0) SceneError(r, node, "stiffness must be >= 0 (N/m), got %g", (double)s.stiffness);
  if ((node = SceneLookup(r, map, "damping"))) {
    PetscCall(SceneGetNumber(r, node, "damping", &s.damping));
    if (s.damping < 0.0) SceneError(r, node, "damping must be >= 0 (N s/m), got %g", (double)s.damping);
  }
  for (int e = 0; e < 3; e++) d[e] = points[1][e] - points[0][e];
  s.rest_length = TalusNorm3(d); /* default: at rest as placed */
  if ((node = SceneLookup(r, map, "rest_length"))) {
    PetscCall(SceneGetNumber(r, node, "rest_length", &s.rest_length));
    if (s.rest_length < 0.0) SceneError(r, node, "rest_length must be >= 0 (m), got %g", (double)s.rest_length);
  }
  if ((node = SceneLookup(r, map, "damping_mode"))) {
    const char *mode;
    PetscCall(SceneGetString(r, node, "damping_mode", &mode));
    if (!strcmp(mode, "axial")) s.axial_damping = 1;
    else if (strcmp(mode, "full"))
      SceneError(r, node, "damping_mode must be full (the relative velocity, seed 002 eq. 85) or axial, got \"%s\"",
                 mode);
  }
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &dt));
  PetscCall(TalusSimCheckSpring(sim, &s, points, &stability));
  if (!(stability < 4.0))
    SceneError(r, map,
               "the explicit spring (K = %g N/m, C = %g N s/m) is unstable at the scene's time step %g s: h^2 K / m + "
               "2 h C / m = %.3g with m its effective mass must be below 4 (a smaller time_step, a softer spring)",
               (double)s.stiffness, (double)s.damping, (double)dt, (double)stability);
  PetscCall(TalusSimAddSpring(sim, &s, points, &stability));
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadSprings(SceneReader *r, yaml_node_t *list, TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(SceneReadList(r, list, "springs", ReadSpring, sim));
  PetscFunctionReturn(0);
}
