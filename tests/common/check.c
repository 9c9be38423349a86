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
