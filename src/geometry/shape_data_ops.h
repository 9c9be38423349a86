/* The shape table's operations of the shapes described by an entry of include/talus/shape_data.h (a hull, a
   compound): shape_data.c's, for shapes.c's table; size[0] is the entry's number. */
#ifndef TALUS_SHAPE_DATA_OPS_H
#define TALUS_SHAPE_DATA_OPS_H
#include <talus/shape_data.h>

PETSC_INTERN void TalusDescribedMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3]);
PETSC_INTERN PetscReal   TalusDescribedRadius(const PetscReal size[3]);
PETSC_INTERN void        TalusDescribedGlyph(const PetscReal size[3], PetscReal extent[3]);
PETSC_INTERN PetscInt    TalusCompoundGlyphParts(const PetscReal size[3], PetscInt i, TalusShape *shape,
                                                 PetscReal psize[3], PetscReal position[3], PetscReal q[4]);
PETSC_INTERN void        TalusHullMesh(const PetscReal size[3], PetscInt *nv, const PetscReal **v, PetscInt *nt,
                                       const PetscInt **t);
PETSC_INTERN const char *TalusHullCheck(const PetscReal size[3]);
PETSC_INTERN const char *TalusCompoundCheck(const PetscReal size[3]);
PETSC_INTERN void        TalusHullSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3]);
PETSC_INTERN PetscInt    TalusHullSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol,
                                             PetscReal p[][3], PetscInt id[]);

#endif
