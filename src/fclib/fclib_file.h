/*
 * Private to the FCLib readers and writers (fclib_io.c: the local form, fclib_global.c: the global
 * form): one FCLib file opened for collective parallel HDF5 access, its datasets read and written
 * by slices, and its sparse matrices (a group with m, n, nz, nzmax, p, i, x in libfclib's layout:
 * nz = -1 compressed columns, -2 compressed rows, >= 0 triplets with i rows and p columns, the
 * convention of CSparse that libfclib follows).
 */
#ifndef TALUS_FCLIB_FILE_H
#define TALUS_FCLIB_FILE_H
#include <talus.h>
#include "../io/h5io.h"

#define FCLibCheck(comm, local_ok, ...) TalusH5Check(comm, local_ok, __VA_ARGS__)
#define H5Call(comm, call, ...)         TalusH5Check(comm, (call) >= 0, __VA_ARGS__)

typedef struct {
  MPI_Comm    comm;
  const char *filename;
  hid_t       file;
  hid_t       xfer; /* collective transfer property list */
} FCLibFile;

typedef enum {
  FCLIB_READ,   /* an existing file, read only */
  FCLIB_CREATE, /* a new file (an existing one is replaced) */
  FCLIB_APPEND  /* an existing file, to add groups to */
} FCLibMode;

PETSC_INTERN hid_t          FCLibIntType(void);
PETSC_INTERN PetscErrorCode FCLibOpen(MPI_Comm, const char filename[], FCLibMode, FCLibFile *);
PETSC_INTERN PetscErrorCode FCLibClose(FCLibFile *);
PETSC_INTERN PetscBool      FCLibExists(FCLibFile *, const char path[]);

/* Reading: the length of a dataset (an error if it is missing), a slice of it, one integer, a Vec. */
PETSC_INTERN PetscErrorCode FCLibLength(FCLibFile *, const char path[], PetscInt *len);
PETSC_INTERN PetscErrorCode FCLibReadSlice(FCLibFile *, const char path[], hid_t memtype, PetscInt start,
                                           PetscInt count, void *buf);
PETSC_INTERN PetscErrorCode FCLibCheckIntegers(FCLibFile *, const char path[]);
PETSC_INTERN PetscErrorCode FCLibReadScalarInt(FCLibFile *, const char path[], PetscInt *value);
PETSC_INTERN PetscErrorCode FCLibReadVec(FCLibFile *, const char path[], PetscInt local, PetscInt global,
                                         const char what[], Vec *v);
PETSC_INTERN PetscBool      FCLibAllFinite(Vec);
/* Values beyond this are refused: the solvers' products of W and r would overflow (and no contact
   problem in SI units comes near it). */
#define FCLIB_LARGEST 1e150
/* No entry beyond FCLIB_LARGEST in magnitude (this rank's part). */
PETSC_INTERN PetscBool FCLibAllModest(Vec);
/* The shape and storage of the matrix in group (m, n, nz), checked. */
PETSC_INTERN PetscErrorCode FCLibReadMatrixShape(FCLibFile *, const char group[], PetscInt *m, PetscInt *n,
                                                 PetscInt *nz);
/* This rank's share of a matrix's entries as COO triplets: the compressed rows or columns
   [slice_start, slice_end), or that range of the triplet list. */
PETSC_INTERN PetscErrorCode FCLibReadMatrixEntries(FCLibFile *, const char group[], PetscInt nz, PetscInt m, PetscInt n,
                                                   PetscInt slice_start, PetscInt slice_end, PetscInt *ncoo,
                                                   PetscInt **coo_i, PetscInt **coo_j, PetscScalar **coo_v);
/* The matrix in group as an MPIAIJ matrix with the given local sizes (PETSC_DECIDE allowed): the
   compressed dimension, or the triplet list, split evenly over the ranks. */
PETSC_INTERN PetscErrorCode FCLibReadMatrix(FCLibFile *, const char group[], PetscInt mlocal, PetscInt nlocal, Mat *A);

/* Writing: a group, a slice of a new dataset, one integer, a Vec, a matrix in a new group. */
PETSC_INTERN PetscErrorCode FCLibCreateGroup(FCLibFile *, const char path[]);
PETSC_INTERN PetscErrorCode FCLibWriteSlice(FCLibFile *, const char path[], hid_t filetype, hid_t memtype,
                                            PetscInt total, PetscInt start, PetscInt count, const void *buf);
PETSC_INTERN PetscErrorCode FCLibWriteScalarInt(FCLibFile *, const char path[], PetscInt value);
PETSC_INTERN PetscErrorCode FCLibWriteVec(FCLibFile *, const char path[], Vec);
PETSC_INTERN PetscErrorCode FCLibWriteMatrix(FCLibFile *, const char group[], Mat, TalusFCLibStorage);

/* The global form of the open file, reduced to the local one (fclib_global.c). */
PETSC_INTERN PetscErrorCode FCLibReadGlobal(FCLibFile *, TalusFCLibProblem *);

#endif
