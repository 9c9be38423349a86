/* The drives module's state (drives.c), shared with its checkpoint section (drives_section.c) alone. */
#ifndef TALUS_DRIVES_IMPL_H
#define TALUS_DRIVES_IMPL_H
#include "../modules.h"

/* the drives, the same on every rank; the arrays grow one by one by the Add functions */
typedef struct {
  PetscInt               nprescribed, nloads, nsprings;
  TalusPrescribedMotion *prescribed;
  TalusLoad             *loads;
  TalusSpring           *springs;
  PetscBool              springs_checked; /* their stability at this run's time step */
} Drives;

/* The checkpoint section (drives_section.c): the drives written, and read back into a simulation without them */
PETSC_INTERN PetscErrorCode TalusDrivesCheckpointWrite(TalusSim, void *state, TalusModuleSection *);
PETSC_INTERN PetscErrorCode TalusDrivesCheckpointRead(TalusSim, void *state, TalusModuleSection *);

#endif
