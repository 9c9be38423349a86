/*
 * Messages that list the choices of an option naming a type (-ccp_problem, -tao_type, a KSP's -pc_type),
 * for the solver layer's types and their attachments.
 */
#include "ccp_impl.h"

PetscErrorCode TalusFunctionListNames(PetscFunctionList list, char names[], size_t size)
{
  const char **array;
  int          n;

  PetscFunctionBegin;
  names[0] = 0;
  PetscCall(PetscFunctionListGet(list, &array, &n));
  for (int i = 0; i < n; i++) {
    if (!array[i] || !array[i][0]) continue; /* PETSc 3.18's list ends with an empty entry */
    if (names[0]) PetscCall(PetscStrlcat(names, ", ", size));
    PetscCall(PetscStrlcat(names, array[i], size));
  }
  PetscCall(PetscFree(array));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckTypeOption(MPI_Comm comm, const char prefix[], const char option[], PetscFunctionList list)
{
  char      value[256], names[4096];
  PetscBool set;
  void (*create)(void);

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, prefix, option, value, sizeof(value), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(list, value, &create));
  if (create) PetscFunctionReturn(0);
  PetscCall(TalusFunctionListNames(list, names, sizeof(names)));
  SETERRQ(comm, PETSC_ERR_USER_INPUT, "-%s%s %s is not known: use one of %s", prefix ? prefix : "", option + 1, value,
          names);
}
