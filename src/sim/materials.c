/*
 * The materials' checks as a module: each relaxed material's (zeta, delta) inside the stability region
 * at the run's time step (the formulations note, sec. 3.4), once, at the first step's start, before any
 * other module's hooks (the joints module checks the joints' relaxation the same way). The materials
 * themselves are the bodies' (include/talus/bodies.h); this module owns only the knowledge that they
 * were checked.
 */
#include "modules.h"

typedef struct {
  PetscBool checked;
} Materials;

/* TALUS_HOOK_BEFORE_GHOSTS */
static PetscErrorCode MaterialsCheckRelaxation(TalusSim sim, void *state)
{
  Materials         *m = (Materials *)state;
  TalusSimModuleView v;

  PetscFunctionBegin;
  if (m->checked) PetscFunctionReturn(0);
  PetscCall(TalusSimGetModuleView(sim, &TalusMaterialsModule, &v, &state));
  for (PetscInt k = 0; k < v.b->nmaterials; k++) {
    const TalusMaterial *mat = &v.b->materials[k];
    PetscCheck(mat->delta == 0.0 || TalusRelaxationStable(mat->zeta, mat->delta, v.dt), v.comm, PETSC_ERR_USER_INPUT,
               "material %s: the contact relaxation zeta = %g, delta = %g s is unstable at the time step h = %g s "
               "(it needs (h/delta)^2 + 4 zeta h/delta < 4 and zeta h/delta < 1: delta > %g s at this zeta)",
               mat->name, (double)mat->zeta, (double)mat->delta, (double)v.dt,
               (double)TalusRelaxationMinDelta(mat->zeta, v.dt));
  }
  m->checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusMaterialsModule = {
  .name       = "materials",
  .state_size = sizeof(Materials),
  .hook       = {[TALUS_HOOK_BEFORE_GHOSTS] = MaterialsCheckRelaxation},
};
