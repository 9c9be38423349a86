/* Small file-system helpers shared by the outputs and the checkpoints (see files.h). */
#define _DEFAULT_SOURCE
#include "files.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* mkdir -p, on rank 0; the verdict is shared so every rank stops together */
PetscErrorCode TalusMakeDirectory(MPI_Comm comm, const char dir[])
{
  char        path[PETSC_MAX_PATH_LEN];
  int         err = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrncpy(path, dir, sizeof(path)));
  if (rank == 0)
    for (char *p = path + 1;; p++) {
      const char c = *p;
      if (c == '/' || c == 0) {
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
          err = errno;
          break;
        }
        *p = c;
      }
      if (!c) break;
    }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_OPEN, "cannot create the directory %s: %s", path, strerror(err));
  PetscFunctionReturn(0);
}

int TalusSyncPath(const char path[])
{
  int fd = open(path, O_RDONLY), err = 0;
  if (fd < 0) return errno;
  if (fsync(fd) != 0) err = errno;
  close(fd);
  return err;
}

PetscBool TalusPathExists(const char path[])
{
  struct stat st;
  return (PetscBool)(stat(path, &st) == 0);
}

PetscErrorCode TalusRequireFreeSpace(MPI_Comm comm, const char dir[], double bytes, const char what[])
{
  double         room[2] = {-1.0, bytes}; /* free (-1: unknown), needed: rank 0's, so that every rank agrees */
  PetscMPIInt    rank;
  struct statvfs fs;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && statvfs(dir, &fs) == 0) room[0] = (double)fs.f_bavail * (double)fs.f_frsize;
  PetscCallMPI(MPI_Bcast(room, 2, MPI_DOUBLE, 0, comm));
  PetscCheck(room[0] < 0.0 || room[0] >= room[1], comm, PETSC_ERR_FILE_WRITE,
             "not enough room in %s for %s: it needs about %.2f MB and %.2f MB are free", dir, what, room[1] / 1e6,
             room[0] / 1e6);
  PetscFunctionReturn(0);
}
