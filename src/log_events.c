/* The log events of talus's phases (include/talus/sim.h), registered by TalusRegisterAll (talus.c) and
   timed by the layers below it: defined here, below every layer, so that none calls up for them. */
#include <talus/sim.h>

PetscLogEvent TALUS_EventCollide, TALUS_EventAssemble, TALUS_EventSolve, TALUS_EventIntegrate, TALUS_EventOutput,
  TALUS_EventCheckpointWrite, TALUS_EventCheckpointRead, TALUS_EventSceneGenerate, TALUS_EventScenePlacement,
  TALUS_EventDistribute;
