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
/* A simulator for the mechanism tests: gravity g, time step h, contact envelope, one material of
   friction mu (density 1000), apgd to gatol (at most 200,000 iterations). */
PetscErrorCode TestNewSim(MPI_Comm, const PetscReal g[3], PetscReal h, PetscReal envelope, PetscReal mu,
                          PetscReal gatol, TalusSim *);

/* Prints the summary and gives the process exit status. */
int TestSummary(const char *name);

#endif
