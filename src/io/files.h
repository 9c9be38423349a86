/* Small file-system helpers (files.c). */
#ifndef TALUS_FILES_H
#define TALUS_FILES_H
#include <talus.h>

/* mkdir -p on rank 0; a failure stops every rank (collective). */
PETSC_INTERN PetscErrorCode TalusMakeDirectory(MPI_Comm, const char dir[]);
/* fsync of a file or a directory (so a rename in it is durable): 0 or an errno. */
PETSC_INTERN int       TalusSyncPath(const char path[]);
PETSC_INTERN PetscBool TalusPathExists(const char path[]);
/*
 * Collective: an error unless the file system of dir has about bytes free (rank 0's statvfs and rank
 * 0's bytes, so that every rank comes to the same verdict; none where statvfs cannot tell). Called
 * before a collective HDF5 write: parallel HDF5 that meets a full disk inside H5Fclose's metadata
 * flush can leave the ranks in different collective calls (a hang no agreement afterwards can undo),
 * so the room is checked before the first byte is written.
 */
PETSC_INTERN PetscErrorCode TalusRequireFreeSpace(MPI_Comm, const char dir[], double bytes, const char what[]);

#endif
