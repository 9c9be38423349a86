/*
 * The FCLib file layer (fclib_file.h): collective parallel HDF5 access to FCLib problems, their
 * datasets by slices and their sparse matrices in libfclib's layout.
 * libfclib itself is not linked: its serial HDF5 clashes with the MPI build talus uses.
 */
#include "fclib_file.h"
#include <unistd.h>

hid_t FCLibIntType(void)
{
  return sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
}

PetscErrorCode FCLibOpen(MPI_Comm comm, const char filename[], FCLibMode mode, FCLibFile *f)
{
  hid_t fapl;

  PetscFunctionBegin;
  f->comm     = comm;
  f->filename = filename;
  /* talus reports its own errors; HDF5's stack dumps would bury them */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (mode != FCLIB_CREATE) {
    PetscMPIInt rank;
    int         status = 0; /* 0 readable HDF5, 1 missing or unreadable, 2 not HDF5 */
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      if (access(filename, R_OK) != 0) status = 1;
      else if (H5Fis_hdf5(filename) <= 0) status = 2;
    }
    PetscCallMPI(MPI_Bcast(&status, 1, MPI_INT, 0, comm));
    PetscCheck(status != 1, comm, PETSC_ERR_FILE_OPEN, "%s: cannot open the file (missing or not readable)", filename);
    PetscCheck(status != 2, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: not an HDF5 file", filename);
  }
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Call(comm, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "%s: cannot set up MPI-IO access", filename);
  if (mode == FCLIB_CREATE) f->file = H5Fcreate(filename, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  else f->file = H5Fopen(filename, mode == FCLIB_APPEND ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  FCLibCheck(comm, f->file >= 0, "%s: cannot %s the HDF5 file", filename, mode == FCLIB_CREATE ? "create" : "open");
  f->xfer = H5Pcreate(H5P_DATASET_XFER);
  H5Call(comm, H5Pset_dxpl_mpio(f->xfer, H5FD_MPIO_COLLECTIVE), "%s: cannot set collective transfers", filename);
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibClose(FCLibFile *f)
{
  PetscFunctionBegin;
  H5Pclose(f->xfer);
  H5Call(f->comm, H5Fclose(f->file), "%s: error closing the file (disk full?)", f->filename);
  PetscFunctionReturn(0);
}

PetscBool FCLibExists(FCLibFile *f, const char path[])
{
  /* H5Lexists needs every parent to exist: test each prefix of the path */
  char   buf[256];
  size_t len = strlen(path);

  if (len >= sizeof(buf)) return PETSC_FALSE;
  for (size_t k = 1; k <= len; k++) {
    if (k == len || path[k] == '/') {
      memcpy(buf, path, k);
      buf[k] = 0;
      if (H5Lexists(f->file, buf, H5P_DEFAULT) <= 0) return PETSC_FALSE;
    }
  }
  return PETSC_TRUE;
}

/* The dataset at path, opened (close with H5Dclose); errors naming it if it is missing or not a dataset. */
static PetscErrorCode OpenDataset(FCLibFile *f, const char path[], hid_t *dset)
{
  PetscFunctionBegin;
  FCLibCheck(f->comm, FCLibExists(f, path), "%s: missing dataset %s (is this an FCLib problem?)", f->filename, path);
  *dset = H5Dopen2(f->file, path, H5P_DEFAULT);
  FCLibCheck(f->comm, *dset >= 0, "%s: %s is not a dataset", f->filename, path);
  PetscFunctionReturn(0);
}

/* Number of elements of a dataset (1 for a scalar dataspace); errors if it is missing. */
PetscErrorCode FCLibLength(FCLibFile *f, const char path[], PetscInt *len)
{
  hid_t    dset, space;
  hssize_t npoints = -1;

  PetscFunctionBegin;
  PetscCall(OpenDataset(f, path, &dset));
  space = H5Dget_space(dset);
  if (space >= 0) npoints = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  H5Dclose(dset);
  FCLibCheck(f->comm, npoints >= 0, "%s: cannot read the size of %s", f->filename, path);
  *len = (PetscInt)npoints;
  PetscFunctionReturn(0);
}

/* Collective read of elements [start, start + count) of a 1D (or scalar) dataset, converted to memtype. */
PetscErrorCode FCLibReadSlice(FCLibFile *f, const char path[], hid_t memtype, PetscInt start, PetscInt count, void *buf)
{
  hid_t   dset, filespace, memspace;
  hsize_t offset = (hsize_t)start, n = (hsize_t)count, one = 1;
  herr_t  err;

  PetscFunctionBegin;
  dset      = H5Dopen2(f->file, path, H5P_DEFAULT);
  filespace = H5Dget_space(dset);
  memspace  = H5Screate_simple(1, count > 0 ? &n : &one, NULL);
  {
    /* a vector may be stored as an N-D array with one dimension of length above 1 ((n, 1), (1, n): as
       MATLAB and some writers do); the slice is taken along that dimension */
    hsize_t   dims[H5S_MAX_RANK], at[H5S_MAX_RANK], len[H5S_MAX_RANK];
    const int ndims = H5Sget_simple_extent_ndims(filespace);
    int       along = ndims - 1, long_dims = 0;
    if (ndims > 1 && H5Sget_simple_extent_dims(filespace, dims, NULL) == ndims)
      for (int d = 0; d < ndims; d++)
        if (dims[d] > 1) along = d, long_dims++;
    if (long_dims > 1) {
      H5Sclose(memspace);
      H5Sclose(filespace);
      H5Dclose(dset);
      SETERRQ(f->comm, PETSC_ERR_FILE_UNEXPECTED,
              "%s: %s is a %d-dimensional array with %d dimensions longer than 1, not a vector", f->filename, path,
              ndims, long_dims);
    }
    if (count > 0 && ndims > 1) {
      for (int d = 0; d < ndims; d++) at[d] = d == along ? offset : 0, len[d] = d == along ? n : 1;
      H5Sselect_hyperslab(filespace, H5S_SELECT_SET, at, NULL, len, NULL);
    } else if (count > 0 && ndims == 1) H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &offset, NULL, &n, NULL);
  }
  if (count <= 0) {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  }
  /* an empty dataset (a problem with no contacts) has nothing to read, on any rank */
  err = H5Sget_simple_extent_npoints(filespace) == 0 ? 0 : H5Dread(dset, memtype, memspace, filespace, f->xfer, buf);
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Dclose(dset);
  H5Call(f->comm, err, "%s: cannot read %s (damaged file or wrong type)", f->filename, path);
  PetscFunctionReturn(0);
}

/* An integer field (a size, nz, an index list) as FCLib writes it: an integer type in a scalar or 1-D
   dataspace. HDF5 would convert a float (2.5 to 2) or read a 2-D array's first row without a word. */
PetscErrorCode FCLibCheckIntegers(FCLibFile *f, const char path[])
{
  hid_t       dset, type, space;
  H5T_class_t cls  = H5T_NO_CLASS;
  int         rank = -1;

  PetscFunctionBegin;
  PetscCall(OpenDataset(f, path, &dset));
  type  = H5Dget_type(dset);
  space = H5Dget_space(dset);
  if (type >= 0) cls = H5Tget_class(type);
  if (space >= 0) rank = H5Sget_simple_extent_ndims(space);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(dset);
  FCLibCheck(f->comm, cls == H5T_INTEGER,
             "%s: %s is stored as %s, not as integers (FCLib stores sizes and indices as int)", f->filename, path,
             cls == H5T_FLOAT ? "floating point" : "a type that is not a number");
  FCLibCheck(f->comm, rank == 0 || rank == 1,
             "%s: %s is a %d-dimensional array; FCLib stores it as a 1-D integer array", f->filename, path, rank);
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibReadScalarInt(FCLibFile *f, const char path[], PetscInt *value)
{
  PetscInt   len;
  PetscInt64 wide = 0;

  PetscFunctionBegin;
  PetscCall(FCLibCheckIntegers(f, path));
  PetscCall(FCLibLength(f, path, &len));
  FCLibCheck(f->comm, len == 1, "%s: %s should hold one integer, it holds %" PetscInt_FMT " values", f->filename, path,
             len);
  /* read 64 bits wide, so that a size this build's PetscInt cannot hold is named as stored, not clamped */
  PetscCall(FCLibReadSlice(f, path, H5T_NATIVE_INT64, 0, 1, &wide));
  FCLibCheck(f->comm, wide >= PETSC_MIN_INT && wide <= PETSC_MAX_INT,
             "%s: %s = %" PetscInt64_FMT " is beyond this build's %d-bit indices (PETSc with 64-bit indices reads it)",
             f->filename, path, wide, (int)(8 * sizeof(PetscInt)));
  *value = (PetscInt)wide;
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibReadVec(FCLibFile *f, const char path[], PetscInt local, PetscInt global, const char what[], Vec *v)
{
  PetscInt     len, start;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(FCLibLength(f, path, &len));
  FCLibCheck(f->comm, len == global, "%s: %s has %" PetscInt_FMT " entries, expected %" PetscInt_FMT " (%s)",
             f->filename, path, len, global, what);
  PetscCall(VecCreateMPI(f->comm, local, global, v));
  PetscCall(VecGetOwnershipRange(*v, &start, NULL));
  PetscCall(VecGetArray(*v, &a));
  PetscCall(FCLibReadSlice(f, path, H5T_NATIVE_DOUBLE, start, local, a));
  PetscCall(VecRestoreArray(*v, &a));
  PetscFunctionReturn(0);
}

/* The largest |entry| of v's local part; NaN if an entry is NaN */
static PetscReal LocalLargestMagnitude(Vec v)
{
  const PetscScalar *a;
  PetscInt           n;
  PetscReal          largest = 0.0;

  VecGetLocalSize(v, &n);
  VecGetArrayRead(v, &a);
  for (PetscInt k = 0; k < n && !PetscIsNanReal(largest); k++) {
    const PetscReal x = PetscAbsScalar(a[k]);
    if (PetscIsNanReal(x) || x > largest) largest = x; /* PetscMax(largest, NaN) would keep largest */
  }
  VecRestoreArrayRead(v, &a);
  return largest;
}

PetscBool FCLibAllFinite(Vec v)
{
  return (PetscBool)!PetscIsInfOrNanReal(LocalLargestMagnitude(v));
}

PetscBool FCLibAllModest(Vec v)
{
  return (PetscBool) !(LocalLargestMagnitude(v) > FCLIB_LARGEST);
}

/* group/name, and the short name used in messages (W/p for /fclib_local/W/p) */
static void MatrixPath(const char group[], const char name[], char path[], size_t size, const char **shortname)
{
  const char *slash = strrchr(group, '/');
  PetscSNPrintf(path, size, "%s/%s", group, name);
  *shortname = path + (slash ? (slash - group) + 1 : 0);
}

/*
 * This rank's share of a matrix's entries as COO triplets. The share is a slice of compressed rows
 * (CSR), of compressed columns (CSC) or of the triplet list; COO assembly moves every entry to the
 * owner of its row.
 */
PetscErrorCode FCLibReadMatrixEntries(FCLibFile *f, const char group[], PetscInt nz, PetscInt m, PetscInt n,
                                      PetscInt slice_start, PetscInt slice_end, PetscInt *ncoo, PetscInt **coo_i,
                                      PetscInt **coo_j, PetscScalar **coo_v)
{
  PetscInt    len_p, len_i, len_x, estart, eend, count;
  PetscInt   *ptr = NULL, *idx;
  PetscBool   ok = PETSC_TRUE, modest = PETSC_TRUE;
  char        path_p[256], path_i[256], path_x[256];
  const char *Wp, *Wi, *Wx, *name = strrchr(group, '/') ? strrchr(group, '/') + 1 : group;

  PetscFunctionBegin;
  MatrixPath(group, "p", path_p, sizeof(path_p), &Wp);
  MatrixPath(group, "i", path_i, sizeof(path_i), &Wi);
  MatrixPath(group, "x", path_x, sizeof(path_x), &Wx);
  PetscCall(FCLibCheckIntegers(f, path_p));
  PetscCall(FCLibCheckIntegers(f, path_i));
  PetscCall(FCLibLength(f, path_p, &len_p));
  PetscCall(FCLibLength(f, path_i, &len_i));
  PetscCall(FCLibLength(f, path_x, &len_x));
  FCLibCheck(f->comm, len_i == len_x, "%s: %s has %" PetscInt_FMT " entries but %s has %" PetscInt_FMT, f->filename, Wi,
             len_i, Wx, len_x);
  if (nz < 0) {
    const PetscInt nptr = (nz == -2 ? m : n) + 1;
    FCLibCheck(f->comm, len_p == nptr,
               "%s: %s has %" PetscInt_FMT " entries, a compressed %s matrix of this size needs %" PetscInt_FMT,
               f->filename, Wp, len_p, nz == -2 ? "row" : "column", nptr);
    PetscCall(PetscMalloc1(slice_end - slice_start + 1, &ptr));
    PetscCall(FCLibReadSlice(f, path_p, FCLibIntType(), slice_start, slice_end - slice_start + 1, ptr));
    for (PetscInt k = 0; k < slice_end - slice_start; k++)
      if (ptr[k] > ptr[k + 1]) ok = PETSC_FALSE;
    if (ptr[0] < 0 || ptr[slice_end - slice_start] > len_i) ok = PETSC_FALSE;
    FCLibCheck(f->comm, ok, "%s: %s is not a valid list of compressed %s pointers", f->filename, Wp,
               nz == -2 ? "row" : "column");
    estart = ptr[0];
    eend   = ptr[slice_end - slice_start];
  } else {
    FCLibCheck(f->comm, len_p >= nz && len_i >= nz,
               "%s: %s has nz = %" PetscInt_FMT " triplets but %s or %s is shorter", f->filename, name, nz, Wp, Wi);
    estart = slice_start;
    eend   = slice_end;
  }
  count = eend - estart;
  PetscCall(PetscMalloc3(count, coo_i, count, coo_j, count, coo_v));
  PetscCall(PetscMalloc1(count, &idx));
  PetscCall(FCLibReadSlice(f, path_i, FCLibIntType(), estart, count, idx));
  PetscCall(FCLibReadSlice(f, path_x, H5T_NATIVE_DOUBLE, estart, count, *coo_v));
  if (nz >= 0) PetscCall(FCLibReadSlice(f, path_p, FCLibIntType(), estart, count, *coo_j));
  for (PetscInt k = 0; k < count; k++) {
    if (nz == -2) { /* idx holds column indices; the row is the compressed dimension */
      (*coo_j)[k] = idx[k];
    } else {
      (*coo_i)[k] = idx[k];
    }
  }
  if (nz < 0) {
    for (PetscInt s = 0; s < slice_end - slice_start; s++)
      for (PetscInt k = ptr[s] - estart; k < ptr[s + 1] - estart; k++) {
        if (nz == -2) (*coo_i)[k] = slice_start + s;
        else (*coo_j)[k] = slice_start + s;
      }
  }
  for (PetscInt k = 0; k < count; k++) {
    if ((*coo_i)[k] < 0 || (*coo_i)[k] >= m || (*coo_j)[k] < 0 || (*coo_j)[k] >= n) ok = PETSC_FALSE;
    if (PetscIsInfOrNanScalar((*coo_v)[k])) ok = PETSC_FALSE;
    if (PetscAbsScalar((*coo_v)[k]) > FCLIB_LARGEST) modest = PETSC_FALSE;
  }
  PetscCall(PetscFree(idx));
  PetscCall(PetscFree(ptr));
  FCLibCheck(f->comm, ok,
             "%s: %s has an index outside its %" PetscInt_FMT " x %" PetscInt_FMT " shape or a NaN/Inf value",
             f->filename, name, m, n);
  FCLibCheck(f->comm, modest, "%s: %s has a value beyond %g, where the solver's products overflow", f->filename, name,
             FCLIB_LARGEST);
  *ncoo = count;
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibReadMatrixShape(FCLibFile *f, const char group[], PetscInt *m, PetscInt *n, PetscInt *nz)
{
  char        path[256];
  const char *name = strrchr(group, '/') ? strrchr(group, '/') + 1 : group;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/m", group));
  PetscCall(FCLibReadScalarInt(f, path, m));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/n", group));
  PetscCall(FCLibReadScalarInt(f, path, n));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/nz", group));
  PetscCall(FCLibReadScalarInt(f, path, nz));
  FCLibCheck(f->comm, *m >= 0 && *n >= 0, "%s: %s is %" PetscInt_FMT " x %" PetscInt_FMT, f->filename, name, *m, *n);
  FCLibCheck(f->comm, *nz >= -2,
             "%s: %s/nz = %" PetscInt_FMT
             " is not a known storage (-1 compressed columns, -2 compressed rows, >= 0 triplets)",
             f->filename, name, *nz);
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibReadMatrix(FCLibFile *f, const char group[], PetscInt mlocal, PetscInt nlocal, Mat *A)
{
  PetscInt     m, n, nz, local = PETSC_DECIDE, total, slice_end, ncoo;
  PetscInt    *coo_i, *coo_j;
  PetscScalar *coo_v;

  PetscFunctionBegin;
  PetscCall(FCLibReadMatrixShape(f, group, &m, &n, &nz));
  total = nz == -2 ? m : (nz == -1 ? n : nz);
  PetscCall(PetscSplitOwnership(f->comm, &local, &total));
  PetscCallMPI(MPI_Scan(&local, &slice_end, 1, MPIU_INT, MPI_SUM, f->comm));
  PetscCall(FCLibReadMatrixEntries(f, group, nz, m, n, slice_end - local, slice_end, &ncoo, &coo_i, &coo_j, &coo_v));
  PetscCall(TalusMatCreateCOO(f->comm, mlocal, nlocal, m, n, ncoo, coo_i, coo_j, coo_v, ADD_VALUES, A));
  PetscCall(PetscFree3(coo_i, coo_j, coo_v));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------- writing */

PetscErrorCode FCLibCreateGroup(FCLibFile *f, const char path[])
{
  hid_t g;

  PetscFunctionBegin;
  g = H5Gcreate2(f->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FCLibCheck(f->comm, g >= 0, "%s: cannot create group %s", f->filename, path);
  H5Gclose(g);
  PetscFunctionReturn(0);
}

/* Creates a 1D dataset of `total` elements and writes this rank's [start, start + count) collectively. */
PetscErrorCode FCLibWriteSlice(FCLibFile *f, const char path[], hid_t filetype, hid_t memtype, PetscInt total,
                               PetscInt start, PetscInt count, const void *buf)
{
  hid_t   dset, filespace, memspace;
  hsize_t dims = (hsize_t)total, offset = (hsize_t)start, n = (hsize_t)count, one = 1;
  herr_t  err;

  PetscFunctionBegin;
  filespace = H5Screate_simple(1, &dims, NULL);
  dset      = H5Dcreate2(f->file, path, filetype, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FCLibCheck(f->comm, dset >= 0, "%s: cannot create dataset %s", f->filename, path);
  memspace = H5Screate_simple(1, count > 0 ? &n : &one, NULL);
  if (count > 0) H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &offset, NULL, &n, NULL);
  else {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  }
  /* an empty dataset (a problem with no contacts) is complete once created: HDF5 refuses to write an
     empty selection of it */
  err = total == 0 ? 0 : H5Dwrite(dset, memtype, memspace, filespace, f->xfer, buf);
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Dclose(dset);
  H5Call(f->comm, err, "%s: cannot write %s (disk full?)", f->filename, path);
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibWriteScalarInt(FCLibFile *f, const char path[], PetscInt value)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(f->comm, &rank));
  PetscCall(FCLibWriteSlice(f, path, H5T_STD_I32LE, FCLibIntType(), 1, 0, rank == 0 ? 1 : 0, &value));
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibWriteVec(FCLibFile *f, const char path[], Vec v)
{
  PetscInt           start, n, N;
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &start, NULL));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(FCLibWriteSlice(f, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, start, n, a));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(0);
}

/* This rank's nonzeros of A, where they start in the global row-major list, and the total. */
static PetscErrorCode CountRowEntries(MPI_Comm comm, Mat A, PetscInt *local, PetscInt *offset, PetscInt *total)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  *local = 0;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt ncols;
    PetscCall(MatGetRow(A, row, &ncols, NULL, NULL));
    *local += ncols;
    PetscCall(MatRestoreRow(A, row, &ncols, NULL, NULL));
  }
  PetscCallMPI(MPI_Scan(local, offset, 1, MPIU_INT, MPI_SUM, comm));
  *offset -= *local;
  PetscCall(MPIU_Allreduce(local, total, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(0);
}

/* The paths of a matrix's datasets in group (each 256 characters) */
static PetscErrorCode WritePaths(const char group[], char path_p[], char path_i[], char path_x[], char path_nzmax[],
                                 char path_nz[])
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path_p, 256, "%s/p", group));
  PetscCall(PetscSNPrintf(path_i, 256, "%s/i", group));
  PetscCall(PetscSNPrintf(path_x, 256, "%s/x", group));
  PetscCall(PetscSNPrintf(path_nzmax, 256, "%s/nzmax", group));
  if (path_nz) PetscCall(PetscSNPrintf(path_nz, 256, "%s/nz", group));
  PetscFunctionReturn(0);
}

/*
 * Writes the compressed rows of A as group/p (row pointers), group/i (column indices), group/x.
 * Written for A = W this is FCLib's CSR (nz = -2); for A = W^T it is W's CSC (nz = -1).
 */
static PetscErrorCode FCLibWriteCompressed(FCLibFile *f, const char group[], Mat A)
{
  char         path_p[256], path_i[256], path_x[256], path_nzmax[256];
  PetscInt     rstart, rend, M, nnz_local, offset, total, k = 0;
  PetscInt    *ptr, *idx;
  PetscScalar *val;
  PetscMPIInt  rank, size;

  PetscFunctionBegin;
  PetscCall(WritePaths(group, path_p, path_i, path_x, path_nzmax, NULL));
  PetscCallMPI(MPI_Comm_rank(f->comm, &rank));
  PetscCallMPI(MPI_Comm_size(f->comm, &size));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(CountRowEntries(f->comm, A, &nnz_local, &offset, &total));
  PetscCall(PetscMalloc3(rend - rstart + 1, &ptr, nnz_local, &idx, nnz_local, &val));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    ptr[row - rstart] = offset + k;
    PetscCall(MatGetRow(A, row, &ncols, &cols, &vals));
    for (PetscInt c = 0; c < ncols; c++, k++) {
      idx[k] = cols[c];
      val[k] = vals[c];
    }
    PetscCall(MatRestoreRow(A, row, &ncols, &cols, &vals));
  }
  ptr[rend - rstart] = total; /* the closing pointer, written by the last rank only */
  PetscCall(FCLibWriteSlice(f, path_p, H5T_STD_I32LE, FCLibIntType(), M + 1, rstart,
                            (rend - rstart) + (rank == size - 1 ? 1 : 0), ptr));
  PetscCall(FCLibWriteSlice(f, path_i, H5T_STD_I32LE, FCLibIntType(), total, offset, nnz_local, idx));
  PetscCall(FCLibWriteSlice(f, path_x, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, total, offset, nnz_local, val));
  PetscCall(FCLibWriteScalarInt(f, path_nzmax, total));
  PetscCall(PetscFree3(ptr, idx, val));
  PetscFunctionReturn(0);
}

/* Triplets: i = rows, p = columns (CSparse's convention, which libfclib follows). */
static PetscErrorCode FCLibWriteTriplets(FCLibFile *f, const char group[], Mat A)
{
  char         path_p[256], path_i[256], path_x[256], path_nzmax[256], path_nz[256];
  PetscInt     rstart, rend, nnz_local, offset, total, k = 0;
  PetscInt    *rows, *cols_out;
  PetscScalar *val;

  PetscFunctionBegin;
  PetscCall(WritePaths(group, path_p, path_i, path_x, path_nzmax, path_nz));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(CountRowEntries(f->comm, A, &nnz_local, &offset, &total));
  PetscCall(PetscMalloc3(nnz_local, &rows, nnz_local, &cols_out, nnz_local, &val));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, row, &ncols, &cols, &vals));
    for (PetscInt c = 0; c < ncols; c++, k++) {
      rows[k]     = row;
      cols_out[k] = cols[c];
      val[k]      = vals[c];
    }
    PetscCall(MatRestoreRow(A, row, &ncols, &cols, &vals));
  }
  PetscCall(FCLibWriteSlice(f, path_i, H5T_STD_I32LE, FCLibIntType(), total, offset, nnz_local, rows));
  PetscCall(FCLibWriteSlice(f, path_p, H5T_STD_I32LE, FCLibIntType(), total, offset, nnz_local, cols_out));
  PetscCall(FCLibWriteSlice(f, path_x, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, total, offset, nnz_local, val));
  PetscCall(FCLibWriteScalarInt(f, path_nzmax, total));
  PetscCall(FCLibWriteScalarInt(f, path_nz, total));
  PetscCall(PetscFree3(rows, cols_out, val));
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibWriteMatrix(FCLibFile *f, const char group[], Mat A, TalusFCLibStorage storage)
{
  PetscInt m, n;
  char     path[256];

  PetscFunctionBegin;
  PetscCall(FCLibCreateGroup(f, group));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/m", group));
  PetscCall(FCLibWriteScalarInt(f, path, m));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/n", group));
  PetscCall(FCLibWriteScalarInt(f, path, n));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/nz", group));
  if (storage == TALUS_FCLIB_CSR) {
    PetscCall(FCLibWriteScalarInt(f, path, -2));
    PetscCall(FCLibWriteCompressed(f, group, A));
  } else if (storage == TALUS_FCLIB_CSC) {
    Mat At;
    PetscCall(FCLibWriteScalarInt(f, path, -1));
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
    PetscCall(FCLibWriteCompressed(f, group, At));
    PetscCall(MatDestroy(&At));
  } else {
    PetscCall(FCLibWriteTriplets(f, group, A));
  }
  PetscFunctionReturn(0);
}
