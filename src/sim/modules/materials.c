/*
 * What the materials ask of every step, as a module: each relaxed material's (zeta, delta) inside the
 * stability region at the run's time step (the formulations note, sec. 3.4), once, at the first step's
 * start, before any other module's hooks (the joints module checks the joints' relaxation the same way);
 * and after the collision, before any other module sees the contacts, seed 004's Hertzian contacts that carry
 * no force this step leave the list. The materials themselves are the bodies' (include/talus/bodies.h); this
 * module owns only the knowledge that they were checked.
 */
#include "../modules.h"

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

/* TALUS_HOOK_AFTER_COLLIDE: the slack Hertzian contacts out (geometry/relaxation.c, by their warm starts too); one
   with a shape that has no radius of curvature (a box's corners) stops the run on every rank, naming the body of
   lowest id: reduced as id * TALUS_NSHAPES + shape */
static PetscErrorCode MaterialsDropSlackHertz(TalusSim sim, void *state)
{
  TalusSimModuleView v;
  PetscInt           flat;

  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleView(sim, &TalusMaterialsModule, &v, &state));
  if (!TalusContactsDropSlackHertz(v.b, v.dt, v.contacts, &flat)) PetscFunctionReturn(0);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &flat, 1, MPIU_INT, MPI_MIN, v.comm));
  PetscCheck(flat == PETSC_MAX_INT, v.comm, PETSC_ERR_USER_INPUT,
             "body %" PetscInt_FMT " is a %s in a Hertzian contact (a material with a compliance modulus): Hertz's "
             "law needs a radius of curvature, which a %s's contact points do not have: give the %s a linear "
             "(stiffness) or rigid material",
             flat / TALUS_NSHAPES, TalusShapeTable[flat % TALUS_NSHAPES].name,
             TalusShapeTable[flat % TALUS_NSHAPES].name, TalusShapeTable[flat % TALUS_NSHAPES].name);
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusMaterialsModule = {
  .name       = "materials",
  .state_size = sizeof(Materials),
  .hook = {[TALUS_HOOK_BEFORE_GHOSTS] = MaterialsCheckRelaxation, [TALUS_HOOK_AFTER_COLLIDE] = MaterialsDropSlackHertz},
};
