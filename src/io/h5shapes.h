/* The hull and compound descriptions (include/talus/shape_data.h) in an HDF5 file (h5shapes.c): a checkpoint's,
   and a bodies_file's when it is one. */
#ifndef TALUS_H5SHAPES_H
#define TALUS_H5SHAPES_H
#include "h5section.h"

/* every description, written whole by rank 0 (nothing when there is none) */
PETSC_EXTERN PetscErrorCode TalusH5WriteShapeData(TalusModuleSection *);
/* read and added again on every rank (collective): map[e] the number here of the file's entry e (n of them; map
   NULL when the file has none); faults go to the reader */
PETSC_EXTERN PetscErrorCode TalusH5ReadShapeData(TalusModuleSection *, PetscInt *n, PetscInt **map);

/* a body's stored number of its description (size[0]) as the number here, through map (n entries): PETSC_FALSE,
   and left as it is, when the file has no such entry */
static inline PetscBool TalusH5MapShapeNumber(PetscInt n, const PetscInt map[], PetscReal *number)
{
  const PetscReal e = *number;

  if (!(e >= 0 && e < n && e == PetscFloorReal(e))) return PETSC_FALSE;
  *number = (PetscReal)map[(PetscInt)e];
  return PETSC_TRUE;
}

#endif
