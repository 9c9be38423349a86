/* Scene files (YAML): see docs/scene-format.md. */
#ifndef TALUS_SCENE_H
#define TALUS_SCENE_H
#include <talus/sim.h>

typedef struct {
  char      name[256];                /* the scene's name: names the output directory */
  char      file[PETSC_MAX_PATH_LEN]; /* the YAML file it came from (kept whole in checkpoints) */
  PetscReal domain_min[3], domain_max[3];
  PetscReal overlap_tolerance; /* largest overlap allowed between bodies at the start (m) */
} TalusScene;

/* Reads FILE into sim (bodies, materials, gravity, dt, end time, envelope) and inserts its
   options: block into the options database (the command line wins). Errors name FILE:LINE. */
PETSC_EXTERN PetscErrorCode TalusSceneLoad(MPI_Comm, const char file[], TalusSim, TalusScene *);

#endif
