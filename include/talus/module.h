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
  TALUS_HOOK_BEFORE_GHOSTS,   /* the bodies are on their owners, the ghosts not yet copied (at the step's start) */
  TALUS_HOOK_AFTER_COLLIDE,   /* the contacts and the joints' rows of the step are known, the ghosts built */
  TALUS_HOOK_AFTER_SOLVE,     /* the impulses are applied and shared: velocities and reactions of the step */
  TALUS_HOOK_AFTER_INTEGRATE, /* the free bodies have moved to t + h; the clock has not advanced */
  TALUS_HOOK_END_OF_STEP,     /* time and step count advanced, the step's figures reduced; before migration */
  TALUS_NHOOKS
} TalusSimHook;

/* The matrix-free step's body space as its builder makes it (src/sim/modules.h) */
typedef struct _TalusSimBodySpace TalusSimBodySpace;
/* A module's section of a checkpoint file being written or read (src/io/h5section.h) */
typedef struct _TalusModuleSection TalusModuleSection;

typedef struct {
  const char *name;       /* unique among the modules */
  size_t      state_size; /* bytes of its state in each simulation, zeroed when the simulation is made */
  /* sets its state's defaults when the state is made (zeroed first), or NULL */
  PetscErrorCode (*create)(TalusSim, void *state);
  /* reads its options, inside TalusSimSetFromOptions's options block (PetscOptionsReal(...), etc., with this
     PetscOptionsObject: -help lists them with the simulation's), or NULL */
  PetscErrorCode (*set_from_options)(TalusSim, void *state, PetscOptionItems *PetscOptionsObject);
  /* frees what its state holds when the simulation is destroyed (the state itself is freed by talus); or NULL */
  PetscErrorCode (*destroy)(TalusSim, void *state);
  /* each hook, or NULL: called collectively on every rank of the simulation */
  PetscErrorCode (*hook[TALUS_NHOOKS])(TalusSim, void *state);
  /* its share of the potential energy (collective; summed over the modules in their order), or NULL */
  PetscErrorCode (*energy)(TalusSim, void *state, PetscReal *energy);
  /* the bodies its links join at any distance, as (keeper, other) pairs: the keeper's rank needs the
     other as a ghost; with pairs NULL only their count *n (the same on every rank), or NULL */
  PetscErrorCode (*links)(TalusSim, void *state, PetscInt *n, PetscInt (*pairs)[2]);
  /* what of it names body id, for messages ("spring 3"; left empty if nothing does), or NULL */
  PetscErrorCode (*describe)(TalusSim, void *state, PetscInt id, char what[], size_t size);
  /* the matrix-free B's body space, twice a step: once every owned body's free velocity and M^-1 record
     are in place (space->B NULL), and once B is made; a module that changes bodies' M^-1 (planar
     bodies) does it here. The assembled builder calls it with space->assembled alone: a module that
     needs the body space refuses then. Or NULL */
  PetscErrorCode (*body_space)(TalusSim, void *state, const TalusSimBodySpace *space);
  /* its section of a checkpoint (docs/checkpoint-format.md), or NULL: write puts its state into the file
     being written (collective, between steps); read takes it back into a new simulation, before the bodies
     are restored, and checks it as strictly as a scene: a fault goes to the file's reader (TalusH5Fault),
     the restart stops naming the file, and nothing of the faulty section is kept */
  PetscErrorCode (*checkpoint_write)(TalusSim, void *state, TalusModuleSection *);
  PetscErrorCode (*checkpoint_read)(TalusSim, void *state, TalusModuleSection *);
  /* its table of figures (docs/outputs.md), or NULL: a CSV file in the run's directory, a row after every step,
     its first column the time t (a restart drops the rows after its checkpoint's time and appends). table_name:
     the file's name, or NULL when this simulation has nothing for it (a scene without joints); table_row: the
     header line (header true) or this step's row, each with its newline, printed to file (rank 0's file; NULL on
     the other ranks: the call is collective) */
  PetscErrorCode (*table_name)(TalusSim, void *state, const char **name);
  PetscErrorCode (*table_row)(TalusSim, void *state, FILE *file, PetscBool header);
} TalusSimModuleOps;

/* Registers talus's own modules (TalusRegisterAll calls it; src/sim/modules/modules.c) */
PETSC_EXTERN PetscErrorCode TalusSimRegisterModules(void);
/* Registers a module (the record must outlive the program: a static one); a name given twice is refused. */
PETSC_EXTERN PetscErrorCode TalusSimModuleRegister(const TalusSimModuleOps *);
/* The module's state in this simulation (made zeroed on first use); the module must be registered. */
PETSC_EXTERN PetscErrorCode TalusSimGetModuleState(TalusSim, const TalusSimModuleOps *, void **state);

/* Every module's checkpoint section, in the modules' order (the checkpoint file's writer and reader call them;
   collective) */
PETSC_EXTERN PetscErrorCode TalusSimModulesCheckpointWrite(TalusSim, TalusModuleSection *);
PETSC_EXTERN PetscErrorCode TalusSimModulesCheckpointRead(TalusSim, TalusModuleSection *);

/* The modules' tables in this simulation (the modules' order): table k's file name, NULL for k at or past their
   count; table k's header (header true) or this step's row, to file (rank 0's, NULL on the others; collective) */
PETSC_EXTERN PetscErrorCode TalusSimModulesGetTable(TalusSim, PetscInt k, const char **name);
PETSC_EXTERN PetscErrorCode TalusSimModulesWriteTable(TalusSim, PetscInt k, FILE *file, PetscBool header);

#endif
