/* Minimal assertions for the C tests: count failures, print each on rank 0, exit non-zero at the end. */
#ifndef TALUS_TEST_CHECK_H
#define TALUS_TEST_CHECK_H
#include <talus/checkpoint.h>
#include <talus/output.h>

extern int test_failures, test_checks;

#define CHECK(cond, ...) \
  do { \
    test_checks++; \
    if (!(cond)) { \
      test_failures++; \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s:%d: ", __FILE__, __LINE__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n")); \
    } \
  } while (0)

/* Body id's record from whichever rank owns it (collective). */
PetscErrorCode TestGetBody(TalusSim, PetscInt id, TalusBodyRecord *);

/* Prints the summary and gives the process exit status. */
int TestSummary(const char *name);

#endif
