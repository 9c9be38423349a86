/*
 * Registration of what the solver layer adds to PETSc: the Tao types "apgd" and "nbgs", the contact problem's
 * variants, the Tao types that can solve it, and the solver's log events. A new variant or solver
 * attachment is one line here.
 */
#include "ccp_impl.h"

PetscLogEvent TALUS_EventProject, TALUS_EventAPGDStep, TALUS_EventAPGDTest, TALUS_EventRead;

static PetscBool solver_registered = PETSC_FALSE;

/* Undoes TalusSolverRegisterAll, from PetscFinalize (as TaoFinalizePackage does for TAO's lists). */
static PetscErrorCode TalusSolverFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&TalusCCPList));
  PetscCall(TalusCCPSolverListDestroy());
  solver_registered = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSolverRegisterAll(void)
{
  PetscClassId      classid;
  const char *const bound_types[] = {TAOBLMVM, TAOBQNLS, TAOBNCG};

  PetscFunctionBegin;
  if (solver_registered) PetscFunctionReturn(0);
  solver_registered = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(TalusSolverFinalizePackage));
  PetscCall(TaoRegister(TAOAPGD, TaoCreate_APGD));
  PetscCall(TaoRegister(TAONBGS, TaoCreate_NBGS));
  PetscCall(TaoRegister(TAOIPM, TaoCreate_IPM));
  PetscCall(TaoRegister(TAONEWTONCCP, TaoCreate_NewtonCCP));
  PetscCall(TalusCCPRegister(TALUSCCPRELAXED, TalusCCPCreate_Relaxed));
  PetscCall(TalusCCPRegister(TALUSCCPCOULOMB, TalusCCPCreate_Coulomb));
  PetscCall(TalusCCPSolverRegister(TAOAPGD, TalusCCPAttach_APGD));
  PetscCall(TalusCCPSolverRegister(TAONBGS, TalusCCPAttach_NBGS));
  PetscCall(TalusCCPSolverRegister(TAOIPM, TalusCCPAttach_IPM));
  PetscCall(TalusCCPSolverRegister(TAONEWTONCCP, TalusCCPAttach_NewtonCCP));
  /* TAO's bound-constrained types that solve the frictionless problems (tests/mpi/test_ccp_solvers.c) */
  for (size_t i = 0; i < sizeof(bound_types) / sizeof(bound_types[0]); i++)
    PetscCall(TalusCCPSolverRegister(bound_types[i], TalusCCPAttach_Bounds));
  PetscCall(PetscClassIdRegister("talus solver", &classid));
  PetscCall(PetscLogEventRegister("TalusProject", classid, &TALUS_EventProject));
  PetscCall(PetscLogEventRegister("APGDStep", classid, &TALUS_EventAPGDStep));
  PetscCall(PetscLogEventRegister("APGDTest", classid, &TALUS_EventAPGDTest));
  PetscCall(PetscLogEventRegister("TalusRead", classid, &TALUS_EventRead));
  PetscFunctionReturn(0);
}
