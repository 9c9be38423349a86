#include "check.h"

int test_failures = 0, test_checks = 0;

int TestSummary(const char *name)
{
  PetscPrintf(PETSC_COMM_WORLD, "%s: %d checks, %d failed\n", name, test_checks, test_failures);
  return test_failures ? 1 : 0;
}
