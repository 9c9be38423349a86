/* A module's section of a checkpoint (the checkpoint ops of include/talus/module.h): what a module's
   checkpoint_write and checkpoint_read get, and the few calls a section is made of (h5section.c).
   Every rank holds a module's data whole (the links, the tables), so rank 0 writes it and every rank
   reads it all, checked as strictly as a scene is. */
#ifndef TALUS_H5SECTION_H
#define TALUS_H5SECTION_H
#include "h5io.h"
#include <talus/scene.h> /* TALUS_LARGEST_INPUT, TALUS_WORLD */

/* The file being written (w) or read (r; the other is NULL). When read: the file's format version
   (a section added in a later version is absent from older files), the scene's finite bodies and the
   bound of its body ids (those, planes and removed bodies: every stored id is below it). */
typedef struct _TalusModuleSection TalusModuleSection;
struct _TalusModuleSection {
  TalusH5Writer *w;
  TalusH5Reader *r;
  PetscInt       version, nfinite, max_id;
};

/* finite and at most TALUS_LARGEST_INPUT in magnitude, as a scene's numbers (false for NaN) */
static inline PetscBool TalusAllFinite(const PetscReal *v, int n)
{
  for (int d = 0; d < n; d++)
    if (!(PetscAbsReal(v[d]) <= TALUS_LARGEST_INPUT)) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Whether the file has name at its root (an attribute, a dataset or a group): a module registered after a file
   was written finds no section of its own there and keeps its defaults */
PETSC_EXTERN PetscBool TalusSectionHas(TalusModuleSection *, const char name[]);
/* A count kept as an attribute of the file's root (talus info shows it): written on every checkpoint;
   read as 0 from a file older than version `added`, a fault if outside [0, max]. */
PETSC_EXTERN void TalusSectionWriteCount(TalusModuleSection *, const char name[], PetscInt n);
PETSC_EXTERN void TalusSectionReadCount(TalusModuleSection *, const char name[], PetscInt added, PetscInt max,
                                        PetscInt *n);
/* n records (row_bytes each, the first nfields of fields) that every rank holds alike: rank 0 writes
   them as the group `group`, nothing when n is 0 (collective) */
PETSC_EXTERN PetscErrorCode TalusSectionWriteRecords(TalusModuleSection *, const char group[],
                                                     const TalusH5Field fields[], int nfields, size_t row_bytes,
                                                     PetscInt n, const void *rows);
/* ... and read back whole on every rank: *rows allocated zeroed (fields not stored stay 0; free with
   PetscFree), NULL when n is 0; the group's length must be n */
PETSC_EXTERN PetscErrorCode TalusSectionReadRecords(TalusModuleSection *, const char group[],
                                                    const TalusH5Field fields[], int nfields, size_t row_bytes,
                                                    PetscInt n, void **rows);
/* A body id as stored: below the file's bound, or TALUS_WORLD where `world` allows it */
static inline PetscBool TalusSectionIdValid(const TalusModuleSection *s, PetscInt id, PetscBool world)
{
  return (PetscBool)((id >= 0 && id < s->max_id) || (world && id == TALUS_WORLD));
}

/* what a link whose table handle the tables module refuses (TalusSimTableFault) is called */
#define TALUS_SECTION_TABLE_FAULT "a link names a table that is not stored, or one of the wrong width"

#endif
