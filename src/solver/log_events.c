/* The solver layer's log events (include/talus.h), registered by TalusSolverRegisterAll (register.c) and
   timed by the solvers: defined here, so that no solver calls up into the file that registers it. */
#include <talus.h>

PetscLogEvent TALUS_EventProject, TALUS_EventAPGDStep, TALUS_EventAPGDTest, TALUS_EventRead;
