/*
 * FCLib "local" frictional contact problems (Acary et al., INRIA RT-0444, 2014) read and written
 * with parallel HDF5, in the layout libfclib writes:
 *   /fclib_local/W/{m,n,nz,nzmax,p,i,x}   nz = -1 compressed columns, -2 compressed rows,
 *                                         >= 0 triplets (i rows, p columns, nz entries)
 *   /fclib_local/vectors/{q,mu}           q has 3 entries per contact, mu one
 *   /fclib_local/spacedim                 3
 * W is distributed over the ranks by whole contacts (3 rows each) and assembled with COO
 * assembly, which routes entries read on one rank to the rank that owns their row.
 * libfclib itself is not linked: its serial HDF5 clashes with the MPI build talus uses.
 */
#include "h5io.h"
#include <unistd.h>

#define FCLibCheck(comm, local_ok, ...) TalusH5Check(comm, local_ok, __VA_ARGS__)
#define H5Call(comm, call, ...)         TalusH5Check(comm, (call) >= 0, __VA_ARGS__)

typedef struct {
  MPI_Comm    comm;
  const char *filename;
  hid_t       file;
  hid_t       xfer; /* collective transfer property list */
} FCLibFile;

static hid_t PetscIntH5Type(void)
{
  return sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
}

static PetscErrorCode FCLibOpen(MPI_Comm comm, const char filename[], PetscBool create, FCLibFile *f)
{
  hid_t fapl;

  PetscFunctionBegin;
  f->comm     = comm;
  f->filename = filename;
  /* talus reports its own errors; HDF5's stack dumps would bury them */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (!create) {
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
  if (create) f->file = H5Fcreate(filename, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  else f->file = H5Fopen(filename, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  FCLibCheck(comm, f->file >= 0, "%s: cannot %s the HDF5 file", filename, create ? "create" : "open");
  f->xfer = H5Pcreate(H5P_DATASET_XFER);
  H5Call(comm, H5Pset_dxpl_mpio(f->xfer, H5FD_MPIO_COLLECTIVE), "%s: cannot set collective transfers", filename);
  PetscFunctionReturn(0);
}

static PetscErrorCode FCLibClose(FCLibFile *f)
{
  PetscFunctionBegin;
  H5Pclose(f->xfer);
  H5Call(f->comm, H5Fclose(f->file), "%s: error closing the file (disk full?)", f->filename);
  PetscFunctionReturn(0);
}

static PetscBool FCLibExists(FCLibFile *f, const char path[])
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

/* Number of elements of a dataset (1 for a scalar dataspace); errors if it is missing. */
static PetscErrorCode FCLibLength(FCLibFile *f, const char path[], PetscInt *len)
{
  hid_t    dset, space;
  hssize_t npoints = -1;

  PetscFunctionBegin;
  FCLibCheck(f->comm, FCLibExists(f, path), "%s: missing dataset %s (is this an FCLib local problem?)", f->filename,
             path);
  dset = H5Dopen2(f->file, path, H5P_DEFAULT);
  FCLibCheck(f->comm, dset >= 0, "%s: %s is not a dataset", f->filename, path);
  space = H5Dget_space(dset);
  if (space >= 0) npoints = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  H5Dclose(dset);
  FCLibCheck(f->comm, npoints >= 0, "%s: cannot read the size of %s", f->filename, path);
  *len = (PetscInt)npoints;
  PetscFunctionReturn(0);
}

/* Collective read of elements [start, start + count) of a 1D (or scalar) dataset, converted to memtype. */
static PetscErrorCode FCLibReadSlice(FCLibFile *f, const char path[], hid_t memtype, PetscInt start, PetscInt count,
                                     void *buf)
{
  hid_t   dset, filespace, memspace;
  hsize_t offset = (hsize_t)start, n = (hsize_t)count, one = 1;
  herr_t  err;

  PetscFunctionBegin;
  dset      = H5Dopen2(f->file, path, H5P_DEFAULT);
  filespace = H5Dget_space(dset);
  memspace  = H5Screate_simple(1, count > 0 ? &n : &one, NULL);
  if (count > 0) {
    if (H5Sget_simple_extent_ndims(filespace) > 0)
      H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &offset, NULL, &n, NULL);
  } else {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  }
  err = H5Dread(dset, memtype, memspace, filespace, f->xfer, buf);
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Dclose(dset);
  H5Call(f->comm, err, "%s: cannot read %s (damaged file or wrong type)", f->filename, path);
  PetscFunctionReturn(0);
}

static PetscErrorCode FCLibReadScalarInt(FCLibFile *f, const char path[], PetscInt *value)
{
  PetscInt len;

  PetscFunctionBegin;
  PetscCall(FCLibLength(f, path, &len));
  FCLibCheck(f->comm, len == 1, "%s: %s should hold one integer, it holds %" PetscInt_FMT " values", f->filename, path,
             len);
  PetscCall(FCLibReadSlice(f, path, PetscIntH5Type(), 0, 1, value));
  PetscFunctionReturn(0);
}

static PetscErrorCode FCLibReadVec(FCLibFile *f, const char path[], PetscInt local, PetscInt global, const char what[],
                                   Vec *v)
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

static PetscBool AllFinite(Vec v)
{
  const PetscScalar *a;
  PetscInt           n;
  PetscBool          ok = PETSC_TRUE;

  VecGetLocalSize(v, &n);
  VecGetArrayRead(v, &a);
  for (PetscInt k = 0; k < n; k++)
    if (PetscIsInfOrNanScalar(a[k])) ok = PETSC_FALSE;
  VecRestoreArrayRead(v, &a);
  return ok;
}

/*
 * Reads this rank's share of W's entries as COO triplets. The share is a slice of compressed
 * rows (CSR), of compressed columns (CSC) or of the triplet list; COO assembly moves every entry
 * to the owner of its row.
 */
static PetscErrorCode FCLibReadWEntries(FCLibFile *f, PetscInt nz, PetscInt m, PetscInt n, PetscInt slice_start,
                                        PetscInt slice_end, PetscInt *ncoo, PetscInt **coo_i, PetscInt **coo_j,
                                        PetscScalar **coo_v)
{
  PetscInt  len_p, len_i, len_x, estart, eend, count;
  PetscInt *ptr = NULL, *idx;
  PetscBool ok  = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(FCLibLength(f, "/fclib_local/W/p", &len_p));
  PetscCall(FCLibLength(f, "/fclib_local/W/i", &len_i));
  PetscCall(FCLibLength(f, "/fclib_local/W/x", &len_x));
  FCLibCheck(f->comm, len_i == len_x, "%s: W/i has %" PetscInt_FMT " entries but W/x has %" PetscInt_FMT, f->filename,
             len_i, len_x);
  if (nz < 0) {
    const PetscInt nptr = (nz == -2 ? m : n) + 1;
    FCLibCheck(f->comm, len_p == nptr,
               "%s: W/p has %" PetscInt_FMT " entries, a compressed %s matrix of this size needs %" PetscInt_FMT,
               f->filename, len_p, nz == -2 ? "row" : "column", nptr);
    PetscCall(PetscMalloc1(slice_end - slice_start + 1, &ptr));
    PetscCall(FCLibReadSlice(f, "/fclib_local/W/p", PetscIntH5Type(), slice_start, slice_end - slice_start + 1, ptr));
    for (PetscInt k = 0; k < slice_end - slice_start; k++)
      if (ptr[k] > ptr[k + 1]) ok = PETSC_FALSE;
    if (ptr[0] < 0 || ptr[slice_end - slice_start] > len_i) ok = PETSC_FALSE;
    FCLibCheck(f->comm, ok, "%s: W/p is not a valid list of compressed %s pointers", f->filename,
               nz == -2 ? "row" : "column");
    estart = ptr[0];
    eend   = ptr[slice_end - slice_start];
  } else {
    FCLibCheck(f->comm, len_p >= nz && len_i >= nz,
               "%s: W has nz = %" PetscInt_FMT " triplets but W/p or W/i is shorter", f->filename, nz);
    estart = slice_start;
    eend   = slice_end;
  }
  count = eend - estart;
  PetscCall(PetscMalloc3(count, coo_i, count, coo_j, count, coo_v));
  PetscCall(PetscMalloc1(count, &idx));
  PetscCall(FCLibReadSlice(f, "/fclib_local/W/i", PetscIntH5Type(), estart, count, idx));
  PetscCall(FCLibReadSlice(f, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, estart, count, *coo_v));
  if (nz >= 0) PetscCall(FCLibReadSlice(f, "/fclib_local/W/p", PetscIntH5Type(), estart, count, *coo_j));
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
  }
  PetscCall(PetscFree(idx));
  PetscCall(PetscFree(ptr));
  FCLibCheck(f->comm, ok,
             "%s: W has an index outside its %" PetscInt_FMT " x %" PetscInt_FMT " shape or a NaN/Inf value",
             f->filename, m, n);
  *ncoo = count;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibRead(MPI_Comm comm, const char filename[], TalusFCLibProblem *prob)
{
  FCLibFile    f;
  PetscInt     spacedim, m, n, nz, nc, nc_local, c_start, slice_start, slice_end, ncoo = 0;
  PetscInt    *coo_i, *coo_j;
  PetscScalar *coo_v;
  PetscReal    mu_min;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(prob, sizeof(*prob)));
  PetscCall(PetscLogEventBegin(TALUS_EventRead, 0, 0, 0, 0));
  PetscCall(FCLibOpen(comm, filename, PETSC_FALSE, &f));
  if (!FCLibExists(&f, "/fclib_local")) {
    PetscBool global = FCLibExists(&f, "/fclib_global");
    PetscCall(FCLibClose(&f));
    PetscCheck(
      !global, comm, PETSC_ERR_SUP,
      "%s: holds an FCLib global problem (M, H, ...); talus ccp reads the local form (/fclib_local with W, q, mu)",
      filename);
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s: not an FCLib problem (no /fclib_local group)", filename);
  }
  PetscCall(FCLibReadScalarInt(&f, "/fclib_local/spacedim", &spacedim));
  FCLibCheck(comm, spacedim == 3,
             "%s: spacedim is %" PetscInt_FMT "; talus solves 3D contact problems (spacedim 3) only", filename,
             spacedim);
  PetscCall(FCLibReadScalarInt(&f, "/fclib_local/W/m", &m));
  PetscCall(FCLibReadScalarInt(&f, "/fclib_local/W/n", &n));
  PetscCall(FCLibReadScalarInt(&f, "/fclib_local/W/nz", &nz));
  FCLibCheck(comm, m == n, "%s: W is %" PetscInt_FMT " x %" PetscInt_FMT "; the Delassus operator must be square",
             filename, m, n);
  FCLibCheck(comm, nz >= -2,
             "%s: W/nz = %" PetscInt_FMT
             " is not a known storage (-1 compressed columns, -2 compressed rows, >= 0 triplets)",
             filename, nz);
  PetscCall(FCLibLength(&f, "/fclib_local/vectors/mu", &nc));
  FCLibCheck(comm, m == 3 * nc,
             "%s: W is %" PetscInt_FMT " x %" PetscInt_FMT " but mu has %" PetscInt_FMT
             " contacts, which need a %" PetscInt_FMT " x %" PetscInt_FMT " W",
             filename, m, n, nc, 3 * nc, 3 * nc);

  nc_local = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(comm, &nc_local, &nc));
  PetscCallMPI(MPI_Scan(&nc_local, &c_start, 1, MPIU_INT, MPI_SUM, comm));
  c_start -= nc_local;

  PetscCall(FCLibReadVec(&f, "/fclib_local/vectors/q", 3 * nc_local, 3 * nc, "3 per contact", &prob->q));
  PetscCall(FCLibReadVec(&f, "/fclib_local/vectors/mu", nc_local, nc, "1 per contact", &prob->mu));
  FCLibCheck(comm, AllFinite(prob->q), "%s: q holds NaN or Inf", filename);
  FCLibCheck(comm, AllFinite(prob->mu), "%s: mu holds NaN or Inf", filename);
  if (nc > 0) {
    PetscCall(VecMin(prob->mu, NULL, &mu_min));
    PetscCheck(mu_min >= 0.0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: negative friction coefficient mu = %g", filename,
               (double)mu_min);
  }

  if (nz < 0) { /* compressed rows or columns: slice the compressed dimension like the contacts */
    slice_start = 3 * c_start;
    slice_end   = 3 * (c_start + nc_local);
  } else { /* triplets: an even split of the list */
    PetscInt local = PETSC_DECIDE, total = nz;
    PetscCall(PetscSplitOwnership(comm, &local, &total));
    PetscCallMPI(MPI_Scan(&local, &slice_end, 1, MPIU_INT, MPI_SUM, comm));
    slice_start = slice_end - local;
  }
  PetscCall(FCLibReadWEntries(&f, nz, m, n, slice_start, slice_end, &ncoo, &coo_i, &coo_j, &coo_v));
  PetscCall(FCLibClose(&f));

  PetscCall(TalusMatCreateCOO(comm, 3 * nc_local, 3 * nc_local, m, n, ncoo, coo_i, coo_j, coo_v, ADD_VALUES, &prob->W));
  PetscCall(PetscFree3(coo_i, coo_j, coo_v));
  prob->ncontacts = nc;
  PetscCall(PetscLogEventEnd(TALUS_EventRead, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibProblemDestroy(TalusFCLibProblem *prob)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&prob->W));
  PetscCall(VecDestroy(&prob->q));
  PetscCall(VecDestroy(&prob->mu));
  prob->ncontacts = 0;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------- writing */

static PetscErrorCode FCLibCreateGroup(FCLibFile *f, const char path[])
{
  hid_t g;

  PetscFunctionBegin;
  g = H5Gcreate2(f->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FCLibCheck(f->comm, g >= 0, "%s: cannot create group %s", f->filename, path);
  H5Gclose(g);
  PetscFunctionReturn(0);
}

/* Creates a 1D dataset of `total` elements and writes this rank's [start, start + count) collectively. */
static PetscErrorCode FCLibWriteSlice(FCLibFile *f, const char path[], hid_t filetype, hid_t memtype, PetscInt total,
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
  err = H5Dwrite(dset, memtype, memspace, filespace, f->xfer, buf);
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Dclose(dset);
  H5Call(f->comm, err, "%s: cannot write %s (disk full?)", f->filename, path);
  PetscFunctionReturn(0);
}

static PetscErrorCode FCLibWriteScalarInt(FCLibFile *f, const char path[], PetscInt value)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(f->comm, &rank));
  PetscCall(FCLibWriteSlice(f, path, H5T_STD_I32LE, PetscIntH5Type(), 1, 0, rank == 0 ? 1 : 0, &value));
  PetscFunctionReturn(0);
}

static PetscErrorCode FCLibWriteVec(FCLibFile *f, const char path[], Vec v)
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

/*
 * Writes the compressed rows of A as W/p (row pointers), W/i (column indices), W/x. Written for
 * A = W this is FCLib's CSR (nz = -2); for A = W^T it is W's CSC (nz = -1).
 */
static PetscErrorCode FCLibWriteCompressed(FCLibFile *f, Mat A)
{
  PetscInt     rstart, rend, M, nnz_local, offset, total, k = 0;
  PetscInt    *ptr, *idx;
  PetscScalar *val;
  PetscMPIInt  rank, size;

  PetscFunctionBegin;
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
  PetscCall(FCLibWriteSlice(f, "/fclib_local/W/p", H5T_STD_I32LE, PetscIntH5Type(), M + 1, rstart,
                            (rend - rstart) + (rank == size - 1 ? 1 : 0), ptr));
  PetscCall(FCLibWriteSlice(f, "/fclib_local/W/i", H5T_STD_I32LE, PetscIntH5Type(), total, offset, nnz_local, idx));
  PetscCall(FCLibWriteSlice(f, "/fclib_local/W/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, total, offset, nnz_local, val));
  PetscCall(FCLibWriteScalarInt(f, "/fclib_local/W/nzmax", total));
  PetscCall(PetscFree3(ptr, idx, val));
  PetscFunctionReturn(0);
}

/* Triplets: i = rows, p = columns (CSparse's convention, which libfclib follows). */
static PetscErrorCode FCLibWriteTriplets(FCLibFile *f, Mat A)
{
  PetscInt     rstart, rend, nnz_local, offset, total, k = 0;
  PetscInt    *rows, *cols_out;
  PetscScalar *val;

  PetscFunctionBegin;
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
  PetscCall(FCLibWriteSlice(f, "/fclib_local/W/i", H5T_STD_I32LE, PetscIntH5Type(), total, offset, nnz_local, rows));
  PetscCall(
    FCLibWriteSlice(f, "/fclib_local/W/p", H5T_STD_I32LE, PetscIntH5Type(), total, offset, nnz_local, cols_out));
  PetscCall(FCLibWriteSlice(f, "/fclib_local/W/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, total, offset, nnz_local, val));
  PetscCall(FCLibWriteScalarInt(f, "/fclib_local/W/nzmax", total));
  PetscCall(FCLibWriteScalarInt(f, "/fclib_local/W/nz", total));
  PetscCall(PetscFree3(rows, cols_out, val));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibWrite(const char filename[], const TalusFCLibProblem *prob, TalusFCLibStorage storage)
{
  FCLibFile f;
  MPI_Comm  comm = PetscObjectComm((PetscObject)prob->W);
  PetscInt  M, N;

  PetscFunctionBegin;
  PetscCall(FCLibOpen(comm, filename, PETSC_TRUE, &f));
  PetscCall(FCLibCreateGroup(&f, "/fclib_local"));
  PetscCall(FCLibCreateGroup(&f, "/fclib_local/W"));
  PetscCall(FCLibCreateGroup(&f, "/fclib_local/vectors"));
  PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/spacedim", 3));
  PetscCall(MatGetSize(prob->W, &M, &N));
  PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/W/m", M));
  PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/W/n", N));
  if (storage == TALUS_FCLIB_CSR) {
    PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/W/nz", -2));
    PetscCall(FCLibWriteCompressed(&f, prob->W));
  } else if (storage == TALUS_FCLIB_CSC) {
    Mat Wt;
    PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/W/nz", -1));
    PetscCall(MatTranspose(prob->W, MAT_INITIAL_MATRIX, &Wt));
    PetscCall(FCLibWriteCompressed(&f, Wt));
    PetscCall(MatDestroy(&Wt));
  } else {
    PetscCall(FCLibWriteTriplets(&f, prob->W));
  }
  PetscCall(FCLibWriteVec(&f, "/fclib_local/vectors/q", prob->q));
  PetscCall(FCLibWriteVec(&f, "/fclib_local/vectors/mu", prob->mu));
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}

/* The layout of libfclib's fclib_write_solution for a local problem: /solution/r and /solution/u. */
PetscErrorCode TalusFCLibWriteSolution(const char filename[], Vec r, Vec u)
{
  FCLibFile f;

  PetscFunctionBegin;
  PetscCall(FCLibOpen(PetscObjectComm((PetscObject)r), filename, PETSC_TRUE, &f));
  PetscCall(FCLibCreateGroup(&f, "/solution"));
  PetscCall(FCLibWriteVec(&f, "/solution/r", r));
  PetscCall(FCLibWriteVec(&f, "/solution/u", u));
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}
