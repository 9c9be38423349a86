/*
 * The registration of talus's own modules (include/talus/module.h), by TalusRegisterAll: a new
 * module is its file and one line here. The order is the order of their hooks within a step.
 */
#include "../modules.h"

PetscErrorCode TalusSimRegisterModules(void)
{
  PetscFunctionBegin;
  PetscCall(TalusSimModuleRegister(&TalusMaterialsModule));
  PetscCall(TalusSimModuleRegister(&TalusTablesModule));
  PetscCall(TalusSimModuleRegister(&TalusJointsModule));
  PetscCall(TalusSimModuleRegister(&TalusDrivesModule));
  PetscCall(TalusSimModuleRegister(&TalusPlanarModule));
  PetscCall(TalusSimModuleRegister(&TalusWatchesModule));
  PetscCall(TalusSimModuleRegister(&TalusRigModule));
  PetscFunctionReturn(0);
}
