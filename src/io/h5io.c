/*
 * One layer for the HDF5 files talus writes and reads in parallel (checkpoints; the outputs), with
 * one error idiom. Writing: every HDF5 failure is noted on the rank that met it (TalusH5Note) and
 * the ranks agree on the outcome after each piece (TalusH5Agree, collective), so no rank goes on
 * into a collective call the others left. Reading: faults are noted (TalusH5Fault), reads after a
 * fault are skipped, and TalusH5Verdict raises one collective error with the first fault found.
 * Datasets carry a checksum of their values (TalusH5WriteDataset, TalusH5WriteTable), summed over
 * the ranks' slices so that any number of ranks can write or read them.
 */
#define _DEFAULT_SOURCE /* posix_fadvise */
#include "h5io.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The innermost message of HDF5's error stack: what actually went wrong. */
static herr_t InnermostError(unsigned n, const H5E_error2_t *e, void *ctx)
{
  if (e->desc && e->desc[0] && !((char *)ctx)[0])
    PetscStrncpy((char *)ctx, e->desc, 256); /* the walk starts at the innermost */
  return 0;
}

void TalusH5ErrorMessage(char what[256])
{
  what[0] = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, InnermostError, what);
  if (!what[0]) PetscStrncpy(what, "HDF5 error", 256);
}

/*
 * HDF5's metadata cache grows to 32 MB by default and keeps every object's header while it fits. A parallel flush
 * visits every entry the cache holds (H5C_set_slist_enabled, then rank 0's candidate list), so with every frame's
 * group and datasets kept, each frame's flush cost more than the last. Held at 256 KB, which still holds more than
 * a frame's metadata (a few KB whatever the number of bodies: the datasets are contiguous), the double pendulum's
 * run took 2.5-3.3 s, not 3.4-4.3 s (500 frames), and 13.6-14.4 s, not 15.7-24.3 s (5,000 frames). Entries that
 * leave it are clean after the last flush; one needed again is read back.
 */
hid_t TalusH5GrowingFileAccess(MPI_Comm comm)
{
  hid_t               fapl  = H5Pcreate(H5P_FILE_ACCESS);
  H5AC_cache_config_t cache = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};

  if (fapl < 0) return fapl; /* H5Fcreate or H5Fopen fails with it, and the caller says so */
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  if (H5Pget_mdc_config(fapl, &cache) >= 0) {
    cache.set_initial_size = 1;
    cache.initial_size = cache.min_size = cache.max_size = 262144;
    cache.incr_mode = H5C_incr__off, cache.flash_incr_mode = H5C_flash_incr__off, cache.decr_mode = H5C_decr__off;
    H5Pset_mdc_config(fapl, &cache); /* a refusal leaves HDF5's default: slower, the same file */
  }
  return fapl;
}

PetscErrorCode TalusH5WriterInit(TalusH5Writer *w, MPI_Comm comm, const char kind[], hid_t file)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(w, sizeof(*w)));
  w->comm = comm, w->kind = kind, w->file = file;
  PetscCallMPI(MPI_Comm_rank(comm, &w->rank));
  PetscCallMPI(MPI_Comm_size(comm, &w->size));
  PetscFunctionReturn(0);
}

void TalusH5Note(TalusH5Writer *w, herr_t e, const char what[])
{
  if (e < 0 && w->err >= 0) {
    w->err = e;
    PetscStrncpy(w->what, what, sizeof(w->what));
    TalusH5ErrorMessage(w->detail); /* now: the next HDF5 call clears the error stack */
  }
}

PetscErrorCode TalusH5Agree(TalusH5Writer *w, const char path[])
{
  int bad = w->err < 0, anybad;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, w->comm));
  PetscCheck(!anybad, w->comm, PETSC_ERR_FILE_WRITE, "cannot write %s %s%s%s%s%s (disk full or not writable?)", w->kind,
             path, bad ? ": " : "", bad ? w->what : "", bad ? ": " : "", bad ? w->detail : "");
  PetscFunctionReturn(0);
}

static hid_t FileType(TalusH5Values v)
{
  return v == TALUS_H5_INT ? H5T_STD_I64LE : v == TALUS_H5_REAL ? H5T_IEEE_F64LE : H5T_STD_U8LE;
}

static hid_t MemoryType(TalusH5Values v)
{
  return v == TALUS_H5_INT ? H5T_NATIVE_INT64 : v == TALUS_H5_REAL ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UCHAR;
}

/*
 * The per-dataset checksum: the sum, modulo 2^64, over the values of a bijective mix of (value
 * bits, index in the dataset). Any single changed value changes it; values in the wrong place
 * change it; and the sums of the slices that ranks write or read add up to the whole dataset's
 * whatever their number. One multiply and two shifts per value: about 1 ns per 8 bytes.
 */
static uint64_t ChecksumPart(TalusH5Values v, const void *buf, uint64_t first, uint64_t n)
{
  uint64_t sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    uint64_t x = v == TALUS_H5_BYTES ? ((const unsigned char *)buf)[k] : ((const uint64_t *)buf)[k];
    x ^= (first + k + 1) * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    x ^= x >> 32;
    sum += x;
  }
  return sum;
}

/* Tables move through a buffer of this many rows (256 KiB for 4 values a row), reused block after block. */
#define BLOCK_ROWS 8192

/* One dataset being written or read in blocks of rows, with the running checksum of the values. */
typedef struct {
  hid_t         dset, fspace;
  TalusH5Values v;
  int           width;
  uint64_t      sum;
} Column;

/* Creates dataset name: `total` rows of `width` values (collective). */
static void ColumnCreate(TalusH5Writer *w, hid_t loc, const char name[], TalusH5Values v, PetscInt total, int width,
                         Column *c)
{
  hsize_t dims[2] = {(hsize_t)total, (hsize_t)width};

  c->v = v, c->width = width, c->sum = 0;
  c->fspace = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL);
  c->dset   = H5Dcreate2(loc, name, FileType(v), c->fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, c->dset, name);
}

/* Rows [first, first + rows) from buf, as one contiguous block (independent MPI-IO: no two-phase shuffling). */
static void ColumnWrite(TalusH5Writer *w, Column *c, const char name[], PetscInt first, PetscInt rows, const void *buf)
{
  hsize_t start[2] = {(hsize_t)first, 0}, block[2] = {(hsize_t)rows, (hsize_t)c->width}, mem = (hsize_t)rows * c->width;
  hid_t   mspace, xfer;

  c->sum += ChecksumPart(c->v, buf, (uint64_t)first * c->width, (uint64_t)rows * c->width);
  if (c->dset < 0 || rows == 0) return;
  mspace = H5Screate_simple(1, &mem, NULL);
  xfer   = H5Pcreate(H5P_DATASET_XFER);
  H5Sselect_hyperslab(c->fspace, H5S_SELECT_SET, start, NULL, block, NULL);
  H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
  TalusH5Note(w, H5Dwrite(c->dset, MemoryType(c->v), mspace, c->fspace, xfer, buf), name);
  H5Sclose(mspace);
  H5Pclose(xfer);
}

/* The whole dataset's checksum (the ranks' parts summed) as its attribute "checksum"; closes it (collective). */
static PetscErrorCode ColumnClose(TalusH5Writer *w, Column *c, const char name[])
{
  uint64_t sum;
  hid_t    attr, space;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&c->sum, &sum, 1, MPI_UINT64_T, MPI_SUM, w->comm));
  if (c->dset >= 0) {
    space = H5Screate(H5S_SCALAR);
    attr  = H5Acreate2(c->dset, "checksum", H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    TalusH5Note(w, attr, name);
    if (attr >= 0) {
      TalusH5Note(w, H5Awrite(attr, H5T_NATIVE_UINT64, &sum), name);
      H5Aclose(attr);
    }
    H5Sclose(space);
    H5Dclose(c->dset);
  }
  H5Sclose(c->fspace);
  PetscFunctionReturn(0);
}

/* A dataset whose rows [offset, offset + count) this rank holds in buf (collective). */
PetscErrorCode TalusH5WriteDataset(TalusH5Writer *w, hid_t loc, const char name[], TalusH5Values v, PetscInt total,
                                   int width, PetscInt offset, PetscInt count, const void *buf)
{
  Column c;

  PetscFunctionBegin;
  ColumnCreate(w, loc, name, v, total, width, &c);
  ColumnWrite(w, &c, name, offset, count, buf);
  PetscCall(ColumnClose(w, &c, name));
  PetscFunctionReturn(0);
}

/* Copies field f of rows [0, n) to (pack) or from (unpack) buf, as 64-bit integers or doubles. */
static void Transpose(const TalusH5Field *f, char *rows, size_t row_bytes, PetscInt n, void *buf, PetscBool pack)
{
  for (PetscInt r = 0; r < n; r++) {
    char *row = rows + r * row_bytes + f->offset;
    for (int k = 0; k < f->width; k++) {
      const PetscInt at = r * f->width + k;
      if (f->integer && pack) ((PetscInt64 *)buf)[at] = ((PetscInt *)row)[k];
      else if (f->integer) ((PetscInt *)row)[k] = (PetscInt)((PetscInt64 *)buf)[at];
      else if (pack) ((double *)buf)[at] = ((PetscReal *)row)[k];
      else ((PetscReal *)row)[k] = ((double *)buf)[at];
    }
  }
}

/*
 * A table of rows (records of row_bytes bytes described by fields): one dataset per field. Rows go
 * out a block at a time, every field of a block while its rows are in cache (row-major records to
 * column datasets), through one small buffer.
 */
PetscErrorCode TalusH5WriteTable(TalusH5Writer *w, const char group_name[], const TalusH5Field *fields, int nfields,
                                 size_t row_bytes, PetscInt total, PetscInt offset, PetscInt count, const void *rows)
{
  hid_t   group = H5Gcreate2(w->file, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  void   *buf;
  Column *c;

  PetscFunctionBegin;
  TalusH5Note(w, group, group_name);
  PetscCall(PetscMalloc2(8 * 4 * (size_t)BLOCK_ROWS, &buf, nfields, &c));
  for (int f = 0; f < nfields; f++)
    ColumnCreate(w, group, fields[f].name, fields[f].integer ? TALUS_H5_INT : TALUS_H5_REAL, total, fields[f].width,
                 &c[f]);
  for (PetscInt b0 = 0; b0 < count; b0 += BLOCK_ROWS) {
    const PetscInt nb = PetscMin(BLOCK_ROWS, count - b0);
    for (int f = 0; f < nfields; f++) {
      Transpose(&fields[f], (char *)rows + b0 * row_bytes, row_bytes, nb, buf, PETSC_TRUE);
      ColumnWrite(w, &c[f], fields[f].name, offset + b0, nb, buf);
    }
  }
  for (int f = 0; f < nfields; f++) PetscCall(ColumnClose(w, &c[f], fields[f].name));
  if (group >= 0) H5Gclose(group);
  PetscCall(PetscFree2(buf, c));
  PetscFunctionReturn(0);
}

void TalusH5WriteAttribute(TalusH5Writer *w, hid_t loc, const char name[], PetscBool integer, int n, const void *value)
{
  hsize_t dims  = (hsize_t)n;
  hid_t   space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dims, NULL);
  hid_t   attr  = H5Acreate2(loc, name, integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, attr, name);
  if (attr >= 0) {
    if (integer) {
      PetscInt64 v[4];
      for (int k = 0; k < n && k < 4; k++) v[k] = ((const PetscInt *)value)[k];
      TalusH5Note(w, H5Awrite(attr, H5T_NATIVE_INT64, v), name);
    } else TalusH5Note(w, H5Awrite(attr, H5T_NATIVE_DOUBLE, value), name);
    H5Aclose(attr);
  }
  H5Sclose(space);
}

void TalusH5WriteStringAttribute(TalusH5Writer *w, hid_t loc, const char name[], const char value[])
{
  hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr;
  H5Tset_size(type, strlen(value) + 1);
  attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  TalusH5Note(w, attr, name);
  if (attr >= 0) {
    TalusH5Note(w, H5Awrite(attr, type, value), name);
    H5Aclose(attr);
  }
  H5Sclose(space);
  H5Tclose(type);
}

/* A text (the scene, the options) as a checksummed dataset of bytes, written by rank 0. */
PetscErrorCode TalusH5WriteText(TalusH5Writer *w, const char name[], const char text[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(
    TalusH5WriteDataset(w, w->file, name, TALUS_H5_BYTES, (PetscInt)len, 1, 0, w->rank == 0 ? (PetscInt)len : 0, text));
  PetscFunctionReturn(0);
}

void TalusH5Fault(TalusH5Reader *r, const char fmt[], const char detail[])
{
  if (r->bad) return;
  r->bad = 1;
  snprintf(r->fault, sizeof(r->fault), fmt, detail);
}

void TalusH5Close(TalusH5Reader *r)
{
  if (r->file >= 0) H5Fclose(r->file);
  if (r->fd >= 0) close(r->fd);
  r->file = -1, r->fd = -1;
}

/* Every rank learns whether any met a fault; the error message (with the first fault found on
   the lowest rank that has one, and the reader's hint, e.g. the previous checkpoint to try) is the
   same everywhere. */
PetscErrorCode TalusH5Verdict(TalusH5Reader *r)
{
  struct {
    int bad, rank;
  } local                            = {r->bad, r->bad ? r->rank : r->size}, first;
  char hint[PETSC_MAX_PATH_LEN + 64] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&local.rank, &first.rank, 1, MPI_INT, MPI_MIN, r->comm));
  if (first.rank == r->size) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(r->fault, sizeof(r->fault), MPI_CHAR, first.rank, r->comm));
  TalusH5Close(r);
  if (r->rank == 0 && r->hint) r->hint(r->path, hint, sizeof(hint));
  PetscCallMPI(MPI_Bcast(hint, sizeof(hint), MPI_CHAR, 0, r->comm));
  SETERRQ(r->comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: %s%s", r->action, r->path, r->fault, hint);
}

PetscErrorCode TalusH5Open(TalusH5Reader *r)
{
  int   exists = 0;
  hid_t fapl;
  char  detail[256];

  PetscFunctionBegin;
  r->file = -1, r->fd = -1;
  if (r->rank == 0) {
    struct stat st;
    exists = access(r->path, R_OK) == 0 ? 1 : -errno;
    if (exists == 1 && stat(r->path, &st) == 0 && S_ISDIR(st.st_mode)) exists = -EISDIR; /* before MPI-IO reads it */
  }
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, r->comm));
  if (exists != 1) TalusH5Fault(r, "%s", strerror(-exists));
  r->bad = exists != 1;
  if (exists == 1) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, r->comm,
                     MPI_INFO_NULL); /* metadata read independently: a rank that met a fault may skip reads */
    r->file = H5Fopen(r->path, H5F_ACC_RDONLY, fapl);
    if (r->file < 0) TalusH5ErrorMessage(detail); /* before any other call clears HDF5's error stack */
    r->fd = r->file >= 0 ? open(r->path, O_RDONLY) : -1;
    H5Pclose(fapl);
    if (r->file < 0) { TalusH5Fault(r, "not a readable HDF5 file (truncated or damaged?): %s", detail); }
  }
  PetscCall(TalusH5Verdict(r));
  PetscFunctionReturn(0);
}

void TalusH5ReadAttribute(TalusH5Reader *r, hid_t loc, const char name[], PetscBool integer, int n, void *value)
{
  hid_t    attr;
  hssize_t npoints;
  char     detail[256];

  if (r->bad) return;
  if (H5Aexists(loc, name) <= 0) {
    char what[320];
    snprintf(what, sizeof(what), "no attribute %s: not a %s, or a damaged one", name, r->kind);
    TalusH5Fault(r, "%s", what);
    return;
  }
  attr = H5Aopen(loc, name, H5P_DEFAULT);
  if (attr < 0) {
    TalusH5ErrorMessage(detail);
    TalusH5Fault(r, "damaged header: %s", detail);
    return;
  }
  {
    hid_t space = H5Aget_space(attr);
    npoints     = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
  }
  if (npoints != n) TalusH5Fault(r, "attribute %s has the wrong size", name);
  else if (integer) {
    PetscInt64 v[4];
    if (H5Aread(attr, H5T_NATIVE_INT64, v) < 0) TalusH5Fault(r, "cannot read attribute %s", name);
    for (int k = 0; k < n && k < 4; k++) ((PetscInt *)value)[k] = (PetscInt)v[k];
  } else if (H5Aread(attr, H5T_NATIVE_DOUBLE, value) < 0) TalusH5Fault(r, "cannot read attribute %s", name);
  H5Aclose(attr);
}

void TalusH5ReadStringAttribute(TalusH5Reader *r, hid_t loc, const char name[], char value[], size_t len)
{
  hid_t attr, type, mem;

  value[0] = 0;
  if (r->bad) return;
  if (H5Aexists(loc, name) <= 0) {
    char what[320];
    snprintf(what, sizeof(what), "no attribute %s: not a %s", name, r->kind);
    TalusH5Fault(r, "%s", what);
    return;
  }
  attr = H5Aopen(loc, name, H5P_DEFAULT);
  type = attr >= 0 ? H5Aget_type(attr) : -1;
  if (type < 0 || H5Tget_class(type) != H5T_STRING || H5Tget_size(type) >= len)
    TalusH5Fault(r, "attribute %s is not a short string", name);
  else {
    mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, len);
    if (H5Aread(attr, mem, value) < 0) TalusH5Fault(r, "cannot read attribute %s", name);
    H5Tclose(mem);
  }
  if (type >= 0) H5Tclose(type);
  if (attr >= 0) H5Aclose(attr);
}

/* Opens dataset name, which must hold `total` rows of `width` values. */
static void ColumnOpen(TalusH5Reader *r, const char name[], TalusH5Values v, PetscInt total, int width, Column *c)
{
  hsize_t dims[2] = {0, 1};
  int     ndims;
  char    what[320];

  c->v = v, c->width = width, c->sum = 0, c->fspace = -1;
  c->dset = r->bad ? -1 : H5Dopen2(r->file, name, H5P_DEFAULT);
  if (r->bad) return;
  if (c->dset < 0) {
    TalusH5Fault(r, "dataset %s is missing", name);
    return;
  }
  c->fspace = H5Dget_space(c->dset);
  ndims     = H5Sget_simple_extent_dims(c->fspace, dims, NULL);
  if (ndims < 1 || dims[0] != (hsize_t)total || (ndims == 2 ? dims[1] : 1) != (hsize_t)width) {
    snprintf(what, sizeof(what), "%s has %llu x %llu values, the header says %" PetscInt_FMT " x %d", name,
             (unsigned long long)dims[0], (unsigned long long)(ndims == 2 ? dims[1] : 1), total, width);
    TalusH5Fault(r, "%s", what);
  }
}

/* Rows [first, first + rows) into buf (independent MPI-IO). */
static void ColumnRead(TalusH5Reader *r, Column *c, const char name[], PetscInt first, PetscInt rows, void *buf)
{
  hsize_t start[2] = {(hsize_t)first, 0}, block[2] = {(hsize_t)rows, (hsize_t)c->width}, mem = (hsize_t)rows * c->width;
  hid_t   mspace, xfer;
  char    detail[256], what[320];

  if (r->bad || rows == 0) return;
  mspace = H5Screate_simple(1, &mem, NULL);
  xfer   = H5Pcreate(H5P_DATASET_XFER);
  H5Sselect_hyperslab(c->fspace, H5S_SELECT_SET, start, NULL, block, NULL);
  H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
  if (H5Dread(c->dset, MemoryType(c->v), mspace, c->fspace, xfer, buf) < 0) {
    TalusH5ErrorMessage(detail);
    snprintf(what, sizeof(what), "%s cannot be read (%s)", name, detail);
    TalusH5Fault(r, "%s", what);
  } else c->sum += ChecksumPart(c->v, buf, (uint64_t)first * c->width, (uint64_t)rows * c->width);
  H5Sclose(mspace);
  H5Pclose(xfer);
}

/*
 * Compares what was read with the stored checksum: this rank's part alone when it read the whole
 * dataset, the sum of all ranks' parts (collective) when each read a slice. Closes the dataset.
 */
static PetscErrorCode ColumnCheck(TalusH5Reader *r, Column *c, const char name[], PetscBool sliced)
{
  uint64_t expected = 0, part[2] = {c->sum, 0}; /* checksum of what was read, ranks with a fault */
  hid_t    attr = -1;

  PetscFunctionBegin;
  if (!r->bad &&
      ((attr = H5Aopen(c->dset, "checksum", H5P_DEFAULT)) < 0 || H5Aread(attr, H5T_NATIVE_UINT64, &expected) < 0))
    TalusH5Fault(r, "%s has no readable checksum", name);
  if (attr >= 0) H5Aclose(attr);
  if (c->fspace >= 0) H5Sclose(c->fspace);
  if (c->dset >= 0) H5Dclose(c->dset);
  part[1] = (uint64_t)r->bad;
  if (sliced) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, part, 2, MPI_UINT64_T, MPI_SUM, r->comm));
  if (!part[1] && part[0] != expected) TalusH5Fault(r, "%s is damaged (checksum mismatch)", name);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusH5ReadDataset(TalusH5Reader *r, const char name[], TalusH5Values v, PetscInt total, int width,
                                  PetscInt offset, PetscInt count, void *buf, PetscBool sliced)
{
  Column c;

  PetscFunctionBegin;
  ColumnOpen(r, name, v, total, width, &c);
  ColumnRead(r, &c, name, offset, count, buf);
  PetscCall(ColumnCheck(r, &c, name, sliced));
  PetscFunctionReturn(0);
}

/*
 * Asks the kernel to start reading this rank's rows of a column now (posix_fadvise WILLNEED on
 * their byte range: contiguous datasets have a file address): the table is then read block by
 * block from 12 places of the file at once, which sequential readahead serves less well (about
 * 10 % faster reads of a 10^6-body checkpoint from the disk, docs/notes/2026-11-performance-records.md).
 */
static void Prefetch(TalusH5Reader *r, Column *c, PetscInt first, PetscInt rows)
{
  haddr_t at;

  if (r->bad || r->fd < 0 || c->dset < 0 || rows == 0 || (at = H5Dget_offset(c->dset)) == HADDR_UNDEF) return;
  (void)posix_fadvise(r->fd, (off_t)(at + (haddr_t)first * c->width * 8), (off_t)rows * c->width * 8,
                      POSIX_FADV_WILLNEED);
}

/* Every field of a table, a block of rows at a time (as TalusH5WriteTable); every field is checked even
   after a fault, since the checks of sliced tables are collective. */
PetscErrorCode TalusH5ReadTable(TalusH5Reader *r, const char group[], const TalusH5Field *fields, int nfields,
                                size_t row_bytes, PetscInt total, PetscInt offset, PetscInt count, void *rows,
                                PetscBool sliced)
{
  void   *buf;
  char    name[128];
  Column *c;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(8 * 4 * (size_t)BLOCK_ROWS, &buf, nfields, &c));
  for (int f = 0; f < nfields; f++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s/%s", group, fields[f].name));
    ColumnOpen(r, name, fields[f].integer ? TALUS_H5_INT : TALUS_H5_REAL, total, fields[f].width, &c[f]);
    Prefetch(r, &c[f], offset, count);
  }
  for (PetscInt b0 = 0; b0 < count && !r->bad; b0 += BLOCK_ROWS) {
    const PetscInt nb = PetscMin(BLOCK_ROWS, count - b0);
    for (int f = 0; f < nfields && !r->bad; f++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s/%s", group, fields[f].name));
      ColumnRead(r, &c[f], name, offset + b0, nb, buf);
      if (!r->bad) Transpose(&fields[f], (char *)rows + b0 * row_bytes, row_bytes, nb, buf, PETSC_FALSE);
    }
  }
  for (int f = 0; f < nfields; f++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s/%s", group, fields[f].name));
    PetscCall(ColumnCheck(r, &c[f], name, sliced));
  }
  PetscCall(PetscFree2(buf, c));
  PetscFunctionReturn(0);
}

/* A text dataset, whole, on every rank (NUL-terminated; free with PetscFree). */
PetscErrorCode TalusH5ReadText(TalusH5Reader *r, const char name[], char **text)
{
  hid_t    dset;
  hssize_t n = 0;

  PetscFunctionBegin;
  if (!r->bad && (dset = H5Dopen2(r->file, name, H5P_DEFAULT)) >= 0) {
    hid_t space = H5Dget_space(dset);
    n           = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    H5Dclose(dset);
  }
  PetscCall(PetscCalloc1(PetscMax(n, 0) + 1, text));
  PetscCall(TalusH5ReadDataset(r, name, TALUS_H5_BYTES, (PetscInt)n, 1, 0, (PetscInt)n, *text, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* The header's counts against the datasets' lengths, before anything is allocated from them (a header
   claiming 2e9 bodies allocated 384 GB first). */
void TalusH5CheckExtent(TalusH5Reader *r, const char name[], PetscInt expected)
{
  hid_t   dset, space;
  hsize_t dims[2] = {0, 0};

  if (r->bad) return;
  dset = H5Dopen2(r->file, name, H5P_DEFAULT);
  if (dset < 0) {
    TalusH5Fault(r, "the dataset %s is missing", name);
    return;
  }
  space = H5Dget_space(dset);
  if (H5Sget_simple_extent_ndims(space) < 1 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
      dims[0] != (hsize_t)expected)
    TalusH5Fault(r, "the dataset %s does not have the header's number of rows", name);
  H5Sclose(space);
  H5Dclose(dset);
}
