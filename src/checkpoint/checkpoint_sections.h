/* The sections of the checkpoint file (checkpoint_file.c: bodies, contacts, the header) that have files
   of their own: checkpoint_links.c (joints, prescribed motions, loads, springs, planar, tables) and
   checkpoint_materials.c; private to the three. */
#ifndef TALUS_CHECKPOINT_SECTIONS_H
#define TALUS_CHECKPOINT_SECTIONS_H
#include "../io/h5io.h"
#include <talus/math3.h>
#include <talus/checkpoint.h>

/* finite and at most TALUS_LARGEST_INPUT in magnitude, as a scene's numbers (false for NaN) */
static inline PetscBool TalusAllFinite(const PetscReal *v, int n)
{
  for (int d = 0; d < n; d++)
    if (!(PetscAbsReal(v[d]) <= TALUS_LARGEST_INPUT)) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The links read from a checkpoint (every rank holds them all); counts in TalusCheckpointInfo. */
typedef struct {
  TalusJoint            *joints;
  PetscReal             *joint_impulse;
  TalusPrescribedMotion *prescribed;
  TalusLoad             *loads;
  TalusSpring           *springs;
  TalusPlanar           *planar;
  TalusTable            *tables; /* their data point into table_values */
  PetscReal             *table_values;
} TalusCheckpointLinks;

PETSC_INTERN PetscErrorCode TalusCheckpointWriteLinks(TalusH5Writer *, TalusSim);
/* checkpoint_materials.c: the materials group and names (rank 0 writes) */
PETSC_INTERN PetscErrorCode TalusCheckpointWriteMaterials(TalusH5Writer *, const TalusBodies *);
/* The materials (every rank reads them whole) and the pair friction table (NULL when the file has
   none), checked as strictly as a scene's: faults go to the reader, and then both are NULL. */
PETSC_INTERN PetscErrorCode TalusCheckpointReadMaterials(TalusH5Reader *, const TalusCheckpointInfo *,
                                                         TalusMaterial **materials, PetscReal **mu_pair);
PETSC_INTERN PetscErrorCode TalusCheckpointReadLinks(TalusH5Reader *, const TalusCheckpointInfo *,
                                                     TalusCheckpointLinks *);
PETSC_INTERN PetscErrorCode TalusCheckpointLinksDestroy(TalusCheckpointLinks *);

#endif
