/*
 * A material's or a joint's `relaxation:` (docs/relaxation.md): seed 003's relaxed rows, {delta, zeta}
 * or {delta, restitution} (zeta from eq. 104), checked against the stability region at the scene's
 * time step; and its `compliance:` (docs/compliance.md): seed 004's {stiffness, damping}, and for a
 * material the grid of an elastic foundation or, instead of the stiffness, the modulus E* of Hertz
 * contact (sec. 6.4). Each mistake
 * at its FILE:LINE.
 */
#include "scene_reader.h"
#include <talus/relaxation.h>

static const char *const relaxation_keys[] = {"delta", "zeta", "restitution", NULL};
static const char *const compliance_keys[] = {"stiffness", "damping", NULL};
static const char *const material_keys[]   = {"stiffness", "modulus", "damping", "grid", NULL};

PetscErrorCode SceneReadCompliance(SceneReader *r, yaml_node_t *node, PetscReal *stiffness, PetscReal *damping,
                                   PetscInt *grid, PetscReal *modulus)
{
  yaml_node_t *v;
  PetscReal    K = 0.0, B = 0.0;

  PetscFunctionBegin;
  if (node->type != YAML_MAPPING_NODE)
    SceneError(r, node, "compliance must be a mapping {stiffness, damping%s}, got %s",
               grid ? ", grid} or {modulus, damping" : "", SceneNodeKind(node));
  PetscCall(SceneCheckKeys(r, node, "compliance", grid ? material_keys : compliance_keys));
  if (modulus) *modulus = 0.0;
  if (modulus && (v = SceneLookup(r, node, "modulus"))) { /* Hertz (seed 004 eq. 121): instead of a stiffness */
    PetscCall(SceneGetNumber(r, v, "modulus", modulus));
    if (!(*modulus > 0.0 && *modulus < PETSC_INFINITY))
      SceneError(r, v, "modulus must be positive (Pa), got %g", (double)*modulus);
    if (SceneLookup(r, node, "stiffness") || SceneLookup(r, node, "grid"))
      SceneError(r, v, "Hertz contact (modulus) has no stiffness and no foundation grid: give modulus or stiffness");
  }
  if (grid && (v = SceneLookup(r, node, "grid"))) {
    PetscReal n;
    PetscCall(SceneGetNumber(r, v, "grid", &n));
    if (!(n >= 1 && n <= TALUS_MAX_FOUNDATION_GRID && n == PetscFloorReal(n)))
      SceneError(r, v, "grid must be a whole number of points per side, 1 to %d, got %g", TALUS_MAX_FOUNDATION_GRID,
                 (double)n);
    *grid = (PetscInt)n;
  } else if (grid) *grid = 0;
  if (!modulus || *modulus == 0.0) {
    if (!SceneLookup(r, node, "stiffness") && modulus)
      SceneError(r, node, "compliance needs a stiffness (N/m; linear) or a modulus (Pa; Hertz)");
    PetscCall(SceneRequireKey(r, node, "stiffness", "compliance", &v));
    PetscCall(SceneGetNumber(r, v, "stiffness", &K));
    if (!(K > 0.0 && K < PETSC_INFINITY)) SceneError(r, v, "stiffness must be positive (N/m), got %g", (double)K);
  }
  if ((v = SceneLookup(r, node, "damping"))) {
    PetscCall(SceneGetNumber(r, v, "damping", &B));
    if (!(B >= 0.0 && B < PETSC_INFINITY)) SceneError(r, v, "damping must be >= 0 (N s/m), got %g", (double)B);
  }
  *stiffness = K, *damping = B;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadRelaxation(SceneReader *r, yaml_node_t *node, TalusSim sim, PetscReal *zeta_out,
                                   PetscReal *delta_out)
{
  yaml_node_t *v;
  PetscReal    delta, zeta = 0.5, e, h;

  PetscFunctionBegin;
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &h));
  if (node->type != YAML_MAPPING_NODE)
    SceneError(r, node, "relaxation must be a mapping {delta, zeta} or {delta, restitution}, got %s",
               SceneNodeKind(node));
  PetscCall(SceneCheckKeys(r, node, "relaxation", relaxation_keys));
  PetscCall(SceneRequireKey(r, node, "delta", "relaxation", &v));
  PetscCall(SceneGetNumber(r, v, "delta", &delta));
  if (!(delta > 0.0 && delta < PETSC_INFINITY))
    SceneError(r, v, "delta must be a positive time (s), got %g", (double)delta);
  if (SceneLookup(r, node, "zeta") && SceneLookup(r, node, "restitution"))
    SceneError(r, node, "relaxation takes zeta or restitution, not both");
  if ((v = SceneLookup(r, node, "zeta"))) {
    PetscCall(SceneGetNumber(r, v, "zeta", &zeta));
    if (!(zeta >= 0.0 && zeta < PETSC_INFINITY)) SceneError(r, v, "zeta must be >= 0, got %g", (double)zeta);
  }
  if ((v = SceneLookup(r, node, "restitution"))) {
    PetscCall(SceneGetNumber(r, v, "restitution", &e));
    if (!(e > 0.0 && e <= 1.0)) SceneError(r, v, "restitution must be in (0, 1], got %g", (double)e);
    zeta = TalusDampingOfRestitution(e);
  }
  if (!TalusRelaxationStable(zeta, delta, h))
    SceneError(r, node,
               "relaxation zeta = %g, delta = %g s is unstable at time_step %g s: (h/delta)^2 + 4 zeta h/delta must be "
               "< 4 and zeta h/delta < 1 (delta > %g s at this zeta)",
               (double)zeta, (double)delta, (double)h, (double)TalusRelaxationMinDelta(zeta, h));
  *zeta_out = zeta, *delta_out = delta;
  PetscFunctionReturn(0);
}

PetscErrorCode SceneReadRelaxations(SceneReader *r, yaml_node_t *materials, TalusSim sim)
{
  TalusBodies *b;
  PetscInt     m = 0;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  for (yaml_node_item_t *it = materials->data.sequence.items.start; it < materials->data.sequence.items.top;
       it++, m++) {
    yaml_node_t *map = yaml_document_get_node(&r->doc, *it), *node;
    PetscReal    zeta, delta;
    if ((node = SceneLookup(r, map, "relaxation"))) {
      PetscCall(SceneReadRelaxation(r, node, sim, &zeta, &delta));
      PetscCall(TalusBodiesSetMaterialRelaxation(b, m, zeta, delta));
    }
    if ((node = SceneLookup(r, map, "compliance"))) {
      PetscReal K, B, modulus;
      PetscInt  grid;
      PetscCall(SceneReadCompliance(r, node, &K, &B, &grid, &modulus));
      if (b->materials[m].delta > 0.0)
        SceneError(r, node, "a material's contacts are relaxed (seed 003) or compliant (seed 004), not both");
      if (modulus > 0.0) PetscCall(TalusBodiesSetMaterialHertz(b, m, modulus, B));
      else {
        PetscCall(TalusBodiesSetMaterialCompliance(b, m, K, B));
        PetscCall(TalusBodiesSetMaterialFoundation(b, m, grid));
      }
    }
  }
  PetscFunctionReturn(0);
}
