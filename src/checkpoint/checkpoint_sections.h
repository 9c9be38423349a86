/* The core's sections of the checkpoint file that have a file of their own besides checkpoint_file.c (the
   header, bodies, contacts): checkpoint_materials.c; private to the two. The modules' sections (joints,
   drives, tables, planar bodies) are the modules' own (include/talus/module.h, src/io/h5section.h). */
#ifndef TALUS_CHECKPOINT_SECTIONS_H
#define TALUS_CHECKPOINT_SECTIONS_H
#include "../io/h5section.h" /* TalusAllFinite; the modules' sections */
#include "../io/h5shapes.h"  /* the hull and compound descriptions */
#include <talus/math3.h>
#include <talus/checkpoint.h>
#include <talus/module.h>

/* checkpoint_materials.c: the materials group and names (rank 0 writes) */
PETSC_INTERN PetscErrorCode TalusCheckpointWriteMaterials(TalusH5Writer *, const TalusBodies *);
/* The materials (every rank reads them whole) and the pair friction table (NULL when the file has
   none), checked as strictly as a scene's: faults go to the reader, and then both are NULL. */
PETSC_INTERN PetscErrorCode TalusCheckpointReadMaterials(TalusH5Reader *, const TalusCheckpointInfo *,
                                                         TalusMaterial **materials, PetscReal **mu_pair);

#endif
