#include "check.h"

int test_failures = 0, test_checks = 0;

int TestSummary(const char *name)
{
  PetscPrintf(PETSC_COMM_WORLD, "%s: %d checks, %d failed\n", name, test_checks, test_failures);
  return test_failures ? 1 : 0;
}

PetscErrorCode TestGetBody(TalusSim sim, PetscInt id, TalusBodyRecord *rec)
{
  TalusBodyRecord *all;
  PetscInt         n;

  PetscFunctionBegin;
  PetscCall(TalusSimGatherBodies(sim, &n, &all));
  for (PetscInt k = 0; k < n; k++)
    if (all[k].id == id) *rec = all[k];
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

PetscErrorCode TestNewSim(MPI_Comm comm, const PetscReal g[3], PetscReal h, PetscReal envelope, PetscReal mu,
                          PetscReal gatol, TalusSim *sim)
{
  TalusBodies *b;
  TalusCCP     ccp;
  Tao          tao;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscCall(TalusSimSetTimeStep(*sim, h));
  PetscCall(TalusSimSetEnvelope(*sim, envelope));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAddMaterial(b, "m", mu, 1000.0, NULL));
  PetscCall(TalusSimGetCCP(*sim, &ccp));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetTolerances(tao, gatol, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 200000));
  PetscFunctionReturn(0);
}
