/* The table of include/talus/shape_data.h as shape_data_build.c makes its entries: shape_data.c's. */
#ifndef TALUS_SHAPE_DATA_IMPL_H
#define TALUS_SHAPE_DATA_IMPL_H
#include <talus/shape_data.h>

/* the entry of this shape whose ngiven x per given numbers are these, or -1 */
PETSC_INTERN PetscInt TalusShapeDataFind(TalusShape, PetscInt ngiven, const PetscReal given[], PetscInt per);
/* a new entry after the last, its arrays allocated (3 n vertices or n parts; per x ngiven given numbers), not yet
   counted; registers the table's release at PetscFinalize on first use */
PETSC_INTERN PetscErrorCode TalusShapeDataAppend(TalusShape, PetscInt n, PetscInt ngiven, PetscInt per,
                                                 TalusShapeData **entry);
/* the appended entry counted (its number in *index), or dropped (*index -1) */
PETSC_INTERN PetscErrorCode TalusShapeDataKeep(TalusShapeData *, PetscBool keep, PetscInt *index);
/* the moments (volume, first, second about the given origin) that the parts' sum counts more than once where they
   overlap (compound_overlap.c): the union's are the sum's less these */
PETSC_INTERN PetscErrorCode TalusCompoundOverlap(PetscInt n, const TalusShapePart part[], PetscReal *volume,
                                                 PetscReal first[3], PetscReal S[9]);

#endif
