/*
 * Registration of what the solver layer adds to PETSc: the contact problem's variants, its solvers (their
 * Tao types with them), and the solver's log events. A new variant or solver is one line here.
 */
#include "ccp_impl.h"

static PetscBool solver_registered = PETSC_FALSE;

/* The solvers of contact problems, one record each: Tao type, constructor, the refusals its options decide,
   attachment, what it needs of N, whether a scene's problem is scaled for it, whether it pivots (exact, no
   tolerance). TAO's bound-constrained types solve the frictionless problems (tests/mpi/test_ccp_solvers.c). */
// clang-format off
static const TalusCCPSolverType solver_types[] = {
  /* Tao type     constructor           the options' refusals  attachment
                  what it needs of N            scaled       pivoting */
  {TAOAPGD,       TaoCreate_APGD,       NULL,                  TalusCCPAttach_APGD,
                  TALUS_CCP_OPERATOR,           PETSC_TRUE,  PETSC_FALSE},
  {TAONBGS,       TaoCreate_NBGS,       TalusCCPCheck_NBGS,    TalusCCPAttach_NBGS,
                  TALUS_CCP_OPERATOR,           PETSC_FALSE, PETSC_FALSE},
  {TAOIPM,        TaoCreate_IPM,        TalusCCPRefuseScaling, TalusCCPAttach_IPM,
                  TALUS_CCP_OPERATOR_ASSEMBLED, PETSC_FALSE, PETSC_FALSE},
  {TAONEWTONCCP,  TaoCreate_NewtonCCP,  TalusCCPCheck_NewtonCCP, TalusCCPAttach_NewtonCCP,
                  TALUS_CCP_OPERATOR_FACTORS,   PETSC_FALSE, PETSC_FALSE},
  {TAOFACETEDLCP, TaoCreate_FacetedLCP, TalusCCPCheck_FacetedLCP, TalusCCPAttach_FacetedLCP,
                  TALUS_CCP_OPERATOR_ASSEMBLED, PETSC_FALSE, PETSC_TRUE },
  {TAOBLMVM,      NULL,                 NULL,                  TalusCCPAttach_Bounds,
                  TALUS_CCP_OPERATOR,           PETSC_FALSE, PETSC_FALSE},
  {TAOBQNLS,      NULL,                 NULL,                  TalusCCPAttach_Bounds,
                  TALUS_CCP_OPERATOR,           PETSC_FALSE, PETSC_FALSE},
  {TAOBNCG,       NULL,                 NULL,                  TalusCCPAttach_Bounds,
                  TALUS_CCP_OPERATOR,           PETSC_FALSE, PETSC_FALSE},
};
// clang-format on

/* Undoes TalusSolverRegisterAll, from PetscFinalize (as TaoFinalizePackage does for TAO's lists). */
static PetscErrorCode TalusSolverFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&TalusCCPList));
  PetscCall(TalusCCPSolverTypesDestroy());
  solver_registered = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSolverRegisterAll(void)
{
  PetscClassId classid;

  PetscFunctionBegin;
  if (solver_registered) PetscFunctionReturn(0);
  solver_registered = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(TalusSolverFinalizePackage));
  PetscCall(TalusCCPRegister(TALUSCCPRELAXED, TalusCCPCreate_Relaxed));
  PetscCall(TalusCCPRegister(TALUSCCPCOULOMB, TalusCCPCreate_Coulomb));
  PetscCall(TalusCCPRegister(TALUSCCPLCP, TalusCCPCreate_FacetedLCP));
  for (size_t i = 0; i < sizeof(solver_types) / sizeof(solver_types[0]); i++)
    PetscCall(TalusCCPSolverTypeRegister(&solver_types[i]));
  PetscCall(PetscClassIdRegister("talus solver", &classid));
  PetscCall(PetscLogEventRegister("TalusProject", classid, &TALUS_EventProject));
  PetscCall(PetscLogEventRegister("APGDStep", classid, &TALUS_EventAPGDStep));
  PetscCall(PetscLogEventRegister("APGDTest", classid, &TALUS_EventAPGDTest));
  PetscCall(PetscLogEventRegister("TalusRead", classid, &TALUS_EventRead));
  PetscFunctionReturn(0);
}
