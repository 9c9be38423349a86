/* Scene files (YAML): see docs/scene-format.md. */
#ifndef TALUS_SCENE_H
#define TALUS_SCENE_H
#include <talus/sim.h>

/* The largest magnitude a scene's or a checkpoint's number may have: beyond it the step's products
   (m v^2, |g| h^2 / r, N r) overflow to Inf, and no physical quantity in SI units comes near it. */
#define TALUS_LARGEST_INPUT 1e100

#define TALUS_SCENE_OVERRIDES_LEN 4096

typedef struct {
  char      name[256];                /* the scene's name: names the output directory */
  char      file[PETSC_MAX_PATH_LEN]; /* the YAML file it came from (kept whole in checkpoints) */
  PetscReal domain_min[3], domain_max[3];
  PetscReal overlap_tolerance;                    /* largest overlap allowed between bodies at the start (m) */
  char      overrides[TALUS_SCENE_OVERRIDES_LEN]; /* the -set PATH=VALUE it was read with, one a line */
} TalusScene;

/* Reads FILE into sim (bodies, materials, gravity, dt, end time, envelope) and inserts its
   options: block into the options database (the command line wins). overrides (NULL: none) are
   "PATH=VALUE" lines, each changing one value of the file before it is read (talus -set;
   docs/scene-format.md). Errors name FILE:LINE, or the override. */
PETSC_EXTERN PetscErrorCode TalusSceneLoad(MPI_Comm, const char file[], const char overrides[], TalusSim, TalusScene *);
/* The same from the scene's text (a campaign job keeps it), file naming it in messages and naming the
   scene (and so its output directory) unless the text has a name: */
PETSC_EXTERN PetscErrorCode TalusSceneLoadText(MPI_Comm, const char file[], const char text[], const char overrides[],
                                               TalusSim, TalusScene *);
/* Every check of TalusSceneLoadText without making the bodies: generators are counted, not made, and
   bodies_file's rows counted, not read; the memory the scene needs is not checked, as the ranks that
   will run it are not known (talus submit keeps what passes). Listed bodies are checked against
   each other only. */
PETSC_EXTERN PetscErrorCode TalusSceneCheckText(MPI_Comm, const char file[], const char text[], const char overrides[],
                                                TalusScene *);
/* A scene file's text, read by rank 0 and given to every rank (collective; free with PetscFree) */
PETSC_EXTERN PetscErrorCode TalusSceneReadText(MPI_Comm, const char file[], char **text);

#endif
