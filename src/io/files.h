/* Small file-system helpers (files.c). */
#ifndef TALUS_FILES_H
#define TALUS_FILES_H
#include <talus.h>

/* mkdir -p on rank 0; a failure stops every rank (collective). */
PETSC_INTERN PetscErrorCode TalusMakeDirectory(MPI_Comm, const char dir[]);
/* fsync of a file or a directory (so a rename in it is durable): 0 or an errno. */
PETSC_INTERN int       TalusSyncPath(const char path[]);
PETSC_INTERN PetscBool TalusPathExists(const char path[]);

#endif
