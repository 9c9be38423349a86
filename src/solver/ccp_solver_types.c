/*
 * The solvers of contact problems, one record each (TalusCCPSolverType, include/talus.h): the Tao
 * type, how it takes a TalusCCP, what it needs of N and whether a scene's problem is scaled for it.
 * register.c registers talus's; TalusCCPSetUp finds the record of the type the Tao has, and the
 * simulator asks it which form of N to build. Nothing outside this registry names a solver type.
 */
#include "ccp_impl.h"

#define MAX_SOLVER_TYPES 32

static TalusCCPSolverType solver_types[MAX_SOLVER_TYPES];
static PetscInt           nsolver_types = 0;

PetscErrorCode TalusCCPSolverTypeRegister(const TalusCCPSolverType *type)
{
  const TalusCCPSolverType *known;

  PetscFunctionBegin;
  PetscCheck(type && type->name && type->attach, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "A solver type needs its name and its attachment to a TalusCCP");
  if (type->create) PetscCall(TaoRegister(type->name, type->create));
  PetscCall(TalusCCPSolverTypeFind(type->name, &known));
  if (known) {
    solver_types[known - solver_types] = *type;
    PetscFunctionReturn(0);
  }
  PetscCheck(nsolver_types < MAX_SOLVER_TYPES, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Too many solver types (%d): raise MAX_SOLVER_TYPES in ccp_solver_types.c", MAX_SOLVER_TYPES);
  solver_types[nsolver_types++] = *type;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSolverTypeFind(const char name[], const TalusCCPSolverType **type)
{
  PetscFunctionBegin;
  *type = NULL;
  for (PetscInt i = 0; name && i < nsolver_types; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(solver_types[i].name, name, &same));
    if (same) {
      *type = &solver_types[i];
      break;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSolverTypeNames(char names[], size_t size)
{
  PetscFunctionBegin;
  names[0] = 0;
  for (PetscInt i = 0; i < nsolver_types; i++) {
    if (names[0]) PetscCall(PetscStrlcat(names, ", ", size));
    PetscCall(PetscStrlcat(names, solver_types[i].name, size));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSolverTypesDestroy(void)
{
  PetscFunctionBegin;
  nsolver_types = 0;
  PetscFunctionReturn(0);
}
