/*
 * Simulator features as modules (after LAMMPS's fixes): a module is one record of operations,
 * registered once by name, with its own state in every simulation and hooks that the step calls at
 * fixed points, in the order the modules were registered. talus's own (the tables of time, the
 * probes' watches) are registered by TalusRegisterAll; a program or a test registers its own the
 * same way, before it creates a simulation (docs/development.md, "A new module").
 */
#ifndef TALUS_MODULE_H
#define TALUS_MODULE_H
#include <talus/sim.h>

/* The points of a step (TalusSimStep, src/sim/step.c) where modules are called, in their order */
typedef enum {
  TALUS_HOOK_AFTER_COLLIDE, /* the contacts and the joints' rows of the step are known, the ghosts built */
  TALUS_HOOK_AFTER_SOLVE,   /* the impulses are applied and shared: velocities and reactions of the step */
  TALUS_HOOK_END_OF_STEP,   /* the bodies have moved, time and step count advanced; before migration */
  TALUS_NHOOKS
} TalusSimHook;

typedef struct {
  const char *name;       /* unique among the modules */
  size_t      state_size; /* bytes of its state in each simulation, zeroed when the simulation is made */
  /* frees what its state holds when the simulation is destroyed (the state itself is freed by talus); or NULL */
  PetscErrorCode (*destroy)(TalusSim, void *state);
  /* each hook, or NULL: called collectively on every rank of the simulation */
  PetscErrorCode (*hook[TALUS_NHOOKS])(TalusSim, void *state);
} TalusSimModuleOps;

/* Registers talus's own modules (TalusRegisterAll calls it; src/sim/modules.c) */
PETSC_EXTERN PetscErrorCode TalusSimRegisterModules(void);
/* Registers a module (the record must outlive the program: a static one); a name given twice is refused. */
PETSC_EXTERN PetscErrorCode TalusSimModuleRegister(const TalusSimModuleOps *);
/* The module's state in this simulation (made zeroed on first use); the module must be registered. */
PETSC_EXTERN PetscErrorCode TalusSimGetModuleState(TalusSim, const TalusSimModuleOps *, void **state);

#endif
