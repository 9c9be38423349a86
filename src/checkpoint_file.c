/*
 * The checkpoint file (docs/checkpoint-format.md): one HDF5 file written collectively with MPI-IO.
 * Finite bodies are rows in global-id order (row = slot, rows of removed bodies hold id -1): each
 * rank sends its bodies to the rank that writes their contiguous slice of rows, so every dataset
 * is written as one contiguous block per rank. Every dataset carries a checksum of its values
 * (ChecksumPart) and the file uses the 1.10 format, whose object headers (the attributes) carry
 * checksums too: damage anywhere is detected on read. (HDF5's Fletcher32 filter would need
 * chunked datasets, which parallel HDF5 1.10 writes only collectively, at a third of the speed.)
 */
#define _DEFAULT_SOURCE /* realpath, scandir, strtok_r */
#include "sim_impl.h"
#include <talus/checkpoint.h>
#include <hdf5.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <limits.h>
#include <dirent.h>
#include <time.h>

/* A body as stored: its record and the rank that owned it when the file was written. */
typedef struct {
  TalusBodyRecord body;
  PetscInt        rank;
} BodyRow;

/* A warm-start impulse as stored: also the slot of the body that keeps it and the writing rank. */
typedef struct {
  TalusContactHistory h;
  PetscInt            rank, owner_slot;
} ContactRow;

typedef struct {
  const char *name;
  PetscBool   integer;
  int         width;
  size_t      offset;
} Field;

#define BODY_INT(name, member)            {name, PETSC_TRUE, 1, offsetof(BodyRow, member)}
#define BODY_REAL(name, member, width)    {name, PETSC_FALSE, width, offsetof(BodyRow, member)}
static const Field body_fields[] = {
  BODY_INT("id", body.id),
  BODY_INT("shape", body.shape),
  BODY_INT("material", body.material),
  BODY_INT("fixed", body.fixed),
  BODY_INT("rank", rank),
  BODY_REAL("size", body.size, 3),
  BODY_REAL("mass", body.mass, 1),
  BODY_REAL("inertia", body.inertia, 3),
  BODY_REAL("position", body.position, 3),
  BODY_REAL("quaternion", body.quaternion, 4),
  BODY_REAL("velocity", body.velocity, 3),
  BODY_REAL("omega", body.omega, 3),
};
#define CONTACT_INT(name, member) {name, PETSC_TRUE, 1, offsetof(ContactRow, member)}
static const Field contact_fields[] = {
  CONTACT_INT("id_a", h.id_a),
  CONTACT_INT("id_b", h.id_b),
  CONTACT_INT("feature", h.feature),
  CONTACT_INT("owner", h.owner),
  CONTACT_INT("owner_slot", owner_slot),
  CONTACT_INT("rank", rank),
  {"impulse", PETSC_FALSE, 3, offsetof(ContactRow, h.impulse)},
};
#define NFIELDS(f) ((int)(sizeof(f) / sizeof((f)[0])))

/* Options that describe one job, not the run: never stored, never restored. */
static const char *const job_options[] = {"-restart", "-walltime", "-walltime_margin", "-help", "-h", "-checkpoint_test_kill", NULL};

/* ------------------------------------------------------------------------------ helpers */

/* The first `count` of n rows in contiguous slices over P ranks: rank r gets [lo(r), lo(r + 1)). */
static PetscInt SliceStart(PetscInt n, PetscMPIInt P, PetscMPIInt r)
{
  return (PetscInt)(((PetscInt64)n * r) / P);
}

static PetscMPIInt SliceRank(PetscInt n, PetscMPIInt P, PetscInt row)
{
  PetscMPIInt r = (PetscMPIInt)(((PetscInt64)(row + 1) * P - 1) / PetscMax(n, 1));
  while (r > 0 && SliceStart(n, P, r) > row) r--;
  while (r < P - 1 && SliceStart(n, P, r + 1) <= row) r++;
  return r;
}

/* The innermost message of HDF5's error stack: what actually went wrong. */
static herr_t InnermostError(unsigned n, const H5E_error2_t *e, void *ctx)
{
  if (e->desc && e->desc[0] && !((char *)ctx)[0]) PetscStrncpy((char *)ctx, e->desc, 256); /* the walk starts at the innermost */
  return 0;
}

static void HDF5Error(char what[256])
{
  what[0] = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, InnermostError, what);
  if (!what[0]) PetscStrncpy(what, "HDF5 error", 256);
}

/* mkdir-free dirname of a path, into dir */
static void DirectoryOf(const char path[], char dir[], size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash) PetscStrncpy(dir, ".", len);
  else {
    size_t n = (size_t)(slash - path);
    if (n >= len) n = len - 1;
    memcpy(dir, path, n);
    dir[n] = 0;
    if (!n) PetscStrncpy(dir, "/", len);
  }
}

/*
 * The newest checkpoint in path's directory older than path itself (ckpt-<step>.h5 names; last.h5
 * is resolved first): what to try when path is damaged. Empty when there is none.
 */
static void PreviousCheckpoint(const char path[], char previous[], size_t len)
{
  char          dir[PETSC_MAX_PATH_LEN], real[PETSC_MAX_PATH_LEN], *base;
  long          step = -1, best = -1, s;
  struct dirent **list = NULL;
  int           n;

  previous[0] = 0;
  if (!realpath(path, real)) PetscStrncpy(real, path, sizeof(real));
  base = strrchr(real, '/');
  base = base ? base + 1 : real;
  if (sscanf(base, "ckpt-%ld.h5", &step) != 1) step = LONG_MAX;
  DirectoryOf(real, dir, sizeof(dir));
  n = scandir(dir, &list, NULL, alphasort);
  for (int k = 0; k < n; k++) {
    char tail[8] = "";
    if (sscanf(list[k]->d_name, "ckpt-%ld%7s", &s, tail) == 2 && !strcmp(tail, ".h5") && s < step && s > best) {
      if (snprintf(previous, len, "%s/%s", dir, list[k]->d_name) < (int)len) best = s;
      else previous[0] = 0;
    }
    free(list[k]);
  }
  free(list);
}

/*
 * TalusDecompExchange, except when no rank sends anything away (one rank; bodies already on the
 * rank that writes their rows; a restart whose slices are where the bodies belong): then the
 * items stay as they are, *recv = items, with neither the copy nor the fresh memory (2.5 ms per
 * MB here) of an exchange. Free *recv only when it is not items. Collective.
 */
static PetscErrorCode ExchangeUnlessLocal(TalusSim sim, PetscInt n, const PetscMPIInt dest[], size_t bytes, void *items, PetscInt *nrecv, void **recv)
{
  PetscInt k, stays, all_stay;

  PetscFunctionBegin;
  for (k = 0; k < n && dest[k] == sim->rank; k++) {}
  stays = k == n;
  PetscCall(MPIU_Allreduce(&stays, &all_stay, 1, MPIU_INT, MPI_MIN, sim->comm));
  if (all_stay) *recv = items, *nrecv = n;
  else PetscCall(TalusDecompExchange(sim->decomp, n, dest, bytes, items, nrecv, recv));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------ writing */

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  hid_t       file;
  herr_t      err;   /* first failure on this rank, checked collectively after each piece */
  char        what[256], detail[256];
} Writer;

static void Note(Writer *w, herr_t e, const char what[])
{
  if (e < 0 && w->err >= 0) {
    w->err = e;
    PetscStrncpy(w->what, what, sizeof(w->what));
    HDF5Error(w->detail); /* now: the next HDF5 call clears the error stack */
  }
}

static PetscErrorCode Agree(Writer *w, const char path[])
{
  int bad = w->err < 0, anybad;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, w->comm));
  PetscCheck(!anybad, w->comm, PETSC_ERR_FILE_WRITE, "cannot write checkpoint %s%s%s%s%s (disk full or not writable?)", path, bad ? ": " : "", bad ? w->what : "", bad ? ": " : "", bad ? w->detail : "");
  PetscFunctionReturn(0);
}

/* How values are stored: 64-bit integers, doubles, or bytes (texts). */
typedef enum {
  VALUES_INT,
  VALUES_REAL,
  VALUES_BYTES
} Values;

static hid_t FileType(Values v)
{
  return v == VALUES_INT ? H5T_STD_I64LE : v == VALUES_REAL ? H5T_IEEE_F64LE : H5T_STD_U8LE;
}

static hid_t MemoryType(Values v)
{
  return v == VALUES_INT ? H5T_NATIVE_INT64 : v == VALUES_REAL ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UCHAR;
}

/*
 * The per-dataset checksum: the sum, modulo 2^64, over the values of a bijective mix of (value
 * bits, index in the dataset). Any single changed value changes it; values in the wrong place
 * change it; and the sums of the slices that ranks write or read add up to the whole dataset's
 * whatever their number. One multiply and two shifts per value: about 1 ns per 8 bytes.
 */
static uint64_t ChecksumPart(Values v, const void *buf, uint64_t first, uint64_t n)
{
  uint64_t sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    uint64_t x = v == VALUES_BYTES ? ((const unsigned char *)buf)[k] : ((const uint64_t *)buf)[k];
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
  hid_t    dset, fspace;
  Values   v;
  int      width;
  uint64_t sum;
} Column;

/* Creates dataset name: `total` rows of `width` values (collective). */
static void ColumnCreate(Writer *w, hid_t loc, const char name[], Values v, PetscInt total, int width, Column *c)
{
  hsize_t dims[2] = {(hsize_t)total, (hsize_t)width};

  c->v = v, c->width = width, c->sum = 0;
  c->fspace = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL);
  c->dset   = H5Dcreate2(loc, name, FileType(v), c->fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  Note(w, c->dset, name);
}

/* Rows [first, first + rows) from buf, as one contiguous block (independent MPI-IO: no two-phase shuffling). */
static void ColumnWrite(Writer *w, Column *c, const char name[], PetscInt first, PetscInt rows, const void *buf)
{
  hsize_t start[2] = {(hsize_t)first, 0}, block[2] = {(hsize_t)rows, (hsize_t)c->width}, mem = (hsize_t)rows * c->width;
  hid_t   mspace, xfer;

  c->sum += ChecksumPart(c->v, buf, (uint64_t)first * c->width, (uint64_t)rows * c->width);
  if (c->dset < 0 || rows == 0) return;
  mspace = H5Screate_simple(1, &mem, NULL);
  xfer   = H5Pcreate(H5P_DATASET_XFER);
  H5Sselect_hyperslab(c->fspace, H5S_SELECT_SET, start, NULL, block, NULL);
  H5Pset_dxpl_mpio(xfer, H5FD_MPIO_INDEPENDENT);
  Note(w, H5Dwrite(c->dset, MemoryType(c->v), mspace, c->fspace, xfer, buf), name);
  H5Sclose(mspace);
  H5Pclose(xfer);
}

/* The whole dataset's checksum (the ranks' parts summed) as its attribute "checksum"; closes it (collective). */
static PetscErrorCode ColumnClose(Writer *w, Column *c, const char name[])
{
  uint64_t sum;
  hid_t    attr, space;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&c->sum, &sum, 1, MPI_UINT64_T, MPI_SUM, w->comm));
  if (c->dset >= 0) {
    space = H5Screate(H5S_SCALAR);
    attr  = H5Acreate2(c->dset, "checksum", H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    Note(w, attr, name);
    if (attr >= 0) {
      Note(w, H5Awrite(attr, H5T_NATIVE_UINT64, &sum), name);
      H5Aclose(attr);
    }
    H5Sclose(space);
    H5Dclose(c->dset);
  }
  H5Sclose(c->fspace);
  PetscFunctionReturn(0);
}

/* A dataset whose rows [offset, offset + count) this rank holds in buf (collective). */
static PetscErrorCode WriteDataset(Writer *w, hid_t loc, const char name[], Values v, PetscInt total, int width, PetscInt offset, PetscInt count, const void *buf)
{
  Column c;

  PetscFunctionBegin;
  ColumnCreate(w, loc, name, v, total, width, &c);
  ColumnWrite(w, &c, name, offset, count, buf);
  PetscCall(ColumnClose(w, &c, name));
  PetscFunctionReturn(0);
}

/* Copies field f of rows [0, n) to (pack) or from (unpack) buf, as 64-bit integers or doubles. */
static void Transpose(const Field *f, char *rows, size_t row_bytes, PetscInt n, void *buf, PetscBool pack)
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
static PetscErrorCode WriteTable(Writer *w, const char group_name[], const Field *fields, int nfields, size_t row_bytes, PetscInt total, PetscInt offset, PetscInt count, const void *rows)
{
  hid_t   group = H5Gcreate2(w->file, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  void   *buf;
  Column *c;

  PetscFunctionBegin;
  Note(w, group, group_name);
  PetscCall(PetscMalloc2(8 * 4 * (size_t)BLOCK_ROWS, &buf, nfields, &c));
  for (int f = 0; f < nfields; f++) ColumnCreate(w, group, fields[f].name, fields[f].integer ? VALUES_INT : VALUES_REAL, total, fields[f].width, &c[f]);
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

static void WriteAttribute(Writer *w, const char name[], PetscBool integer, int n, const void *value)
{
  hsize_t dims = (hsize_t)n;
  hid_t   space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dims, NULL);
  hid_t   attr  = H5Acreate2(w->file, name, integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  Note(w, attr, name);
  if (attr >= 0) {
    if (integer) {
      PetscInt64 v[4];
      for (int k = 0; k < n && k < 4; k++) v[k] = ((const PetscInt *)value)[k];
      Note(w, H5Awrite(attr, H5T_NATIVE_INT64, v), name);
    } else Note(w, H5Awrite(attr, H5T_NATIVE_DOUBLE, value), name);
    H5Aclose(attr);
  }
  H5Sclose(space);
}

static void WriteStringAttribute(Writer *w, const char name[], const char value[])
{
  hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr;
  H5Tset_size(type, strlen(value) + 1);
  attr = H5Acreate2(w->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  Note(w, attr, name);
  if (attr >= 0) {
    Note(w, H5Awrite(attr, type, value), name);
    H5Aclose(attr);
  }
  H5Sclose(space);
  H5Tclose(type);
}

/* A text (the scene, the options) as a checksummed dataset of bytes, written by rank 0. */
static PetscErrorCode WriteText(Writer *w, const char name[], const char text[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(WriteDataset(w, w->file, name, VALUES_BYTES, (PetscInt)len, 1, 0, w->rank == 0 ? (PetscInt)len : 0, text));
  PetscFunctionReturn(0);
}

static PetscBool IsNumber(const char s[])
{
  char *end;
  (void)strtod(s, &end);
  return (PetscBool)(end != s && *end == 0);
}

static PetscBool IsJobOption(const char name[])
{
  for (int k = 0; job_options[k]; k++)
    if (!strcmp(name, job_options[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*
 * Walks "-name [value] -name [value] ..." (PetscOptionsGetAll's format; a token starting with '-'
 * is a value when it is a number), calling fn(name, value or NULL, ctx).
 */
static PetscErrorCode ForEachOption(const char options[], PetscErrorCode (*fn)(const char *, const char *, void *), void *ctx)
{
  char *copy, *tok[2] = {NULL, NULL}, *save = NULL, *t;

  PetscFunctionBegin;
  PetscCall(PetscStrallocpy(options, &copy));
  for (t = strtok_r(copy, " \t\n", &save);; t = strtok_r(NULL, " \t\n", &save)) {
    const PetscBool is_name = (PetscBool)(t && t[0] == '-' && !IsNumber(t));
    if (!t || is_name) {
      if (tok[0]) PetscCall(fn(tok[0], tok[1], ctx));
      tok[0] = t, tok[1] = NULL;
      if (!t) break;
    } else if (tok[0] && !tok[1]) tok[1] = t;
  }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(0);
}

typedef struct {
  char  *buf;
  size_t len, cap;
} Text;

static PetscErrorCode KeepRunOption(const char name[], const char value[], void *ctx)
{
  Text  *t    = (Text *)ctx;
  size_t need = strlen(name) + (value ? strlen(value) : 0) + 3;

  PetscFunctionBegin;
  if (IsJobOption(name) || !strncmp(name, "-checkpoint_test", 16)) PetscFunctionReturn(0);
  if (t->len + need >= t->cap) {
    char *grown;
    t->cap = 2 * (t->len + need);
    PetscCall(PetscMalloc1(t->cap, &grown));
    if (t->len) PetscCall(PetscArraycpy(grown, t->buf, t->len));
    PetscCall(PetscFree(t->buf));
    t->buf = grown;
  }
  t->len += (size_t)snprintf(t->buf + t->len, t->cap - t->len, "%s%s%s%s", t->len ? " " : "", name, value ? " " : "", value ? value : "");
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileWrite(TalusSim sim, const TalusScene *scene, const char scene_text[], const char path[])
{
  TalusBodies *b = sim->bodies;
  Writer       w = {.comm = sim->comm, .rank = sim->rank, .size = sim->size, .err = 0};
  BodyRow     *mine, *in, *slice, *planes;
  ContactRow  *contacts;
  PetscMPIInt *dest;
  PetscInt     nmine = 0, nin, nplanes = 0, lo, hi, coffset = 0, ctotal, nlive;
  hid_t        fapl;
  char        *all_options;
  Text         options = {NULL, 0, 0};

  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  PetscCheck(b->n == b->nowned, PETSC_COMM_SELF, PETSC_ERR_ORDER, "checkpoints are written between steps (no ghosts)");
  PetscCall(PetscLogEventBegin(TALUS_EventCheckpointWrite, 0, 0, 0, 0));
  /* bodies to the ranks that write their rows */
  PetscCall(PetscMalloc4(b->n + 1, &mine, b->n + 1, &dest, b->n + 1, &planes, sim->nhistory + 1, &contacts));
  for (PetscInt k = 0; k < b->n; k++) {
    BodyRow *row = !TalusBodiesIsFinite(b, k) ? &planes[nplanes++] : &mine[nmine];
    TalusBodiesPack(b, k, &row->body);
    row->body.shape = TalusShapeTable[b->shape[k]].code; /* the file keeps the stable code, not the enum value */
    row->rank       = sim->rank;
    if (TalusBodiesIsFinite(b, k)) dest[nmine++] = SliceRank(sim->nfinite, sim->size, b->slot[k]);
  }
  lo = SliceStart(sim->nfinite, sim->size, sim->rank), hi = SliceStart(sim->nfinite, sim->size, sim->rank + 1);
  PetscCall(ExchangeUnlessLocal(sim, nmine, dest, sizeof(BodyRow), mine, &nin, (void **)&in));
  slice = in; /* used as it is when every row is there, in order (no body removed) */
  for (PetscInt k = 0; k < nin && slice; k++)
    if (in[k].body.slot != lo + k) slice = NULL;
  if (nin != hi - lo || !slice) {
    PetscCall(PetscMalloc1(hi - lo + 1, &slice));
    for (PetscInt r = 0; r < hi - lo; r++) {
      PetscCall(PetscMemzero(&slice[r], sizeof(slice[r])));
      slice[r].body.id = -1, slice[r].rank = -1; /* rows of removed bodies */
    }
    for (PetscInt k = 0; k < nin; k++) {
      PetscCheck(in[k].body.slot >= lo && in[k].body.slot < hi, PETSC_COMM_SELF, PETSC_ERR_PLIB, "body %" PetscInt_FMT " with slot %" PetscInt_FMT " sent to the wrong writer", in[k].body.id, in[k].body.slot);
      slice[in[k].body.slot - lo] = in[k];
    }
  }
  /* warm starts, with the slot of the body that keeps them (owned here, ids sorted) */
  for (PetscInt h = 0; h < sim->nhistory; h++) {
    PetscInt where = -1;
    contacts[h].h    = sim->history[h];
    contacts[h].rank = sim->rank;
    PetscCall(PetscFindInt(sim->history[h].owner, b->n, b->id, &where));
    PetscCheck(where >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "contact (%" PetscInt_FMT ", %" PetscInt_FMT ") is kept by body %" PetscInt_FMT ", which is not here (bodies not in canonical order?)", sim->history[h].id_a, sim->history[h].id_b, sim->history[h].owner);
    contacts[h].owner_slot = b->slot[where];
  }
  PetscCallMPI(MPI_Exscan(&sim->nhistory, &coffset, 1, MPIU_INT, MPI_SUM, sim->comm));
  if (sim->rank == 0) coffset = 0;
  PetscCall(MPIU_Allreduce(&sim->nhistory, &ctotal, 1, MPIU_INT, MPI_SUM, sim->comm));
  nlive = sim->nfinite - sim->bodies_lost;

  /* the file: 1.10 format (checksummed object headers), collective metadata */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, sim->comm, MPI_INFO_NULL);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
  H5Pset_coll_metadata_write(fapl, 1);
  H5Pset_all_coll_metadata_ops(fapl, 1);
  w.file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  Note(&w, w.file, "the file");
  PetscCall(Agree(&w, path));
  {
    PetscInt    ints[]  = {TALUS_CHECKPOINT_VERSION, sim->step, sim->nfinite, nlive, nplanes, ctotal, b->nmaterials, sim->bodies_lost, sim->rebalances, sim->size, sim->anti_relax, sim->has_domain};
    const char *names[] = {"version", "step", "finite_bodies", "bodies", "planes", "contacts", "materials", "bodies_lost", "rebalances", "ranks", "anti_relaxation", "has_domain"};
    PetscInt    backoff[2];
    char        created[64];
    time_t      clock = time(NULL);
    WriteStringAttribute(&w, "format", TALUS_CHECKPOINT_FORMAT);
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) WriteAttribute(&w, names[k], PETSC_TRUE, 1, &ints[k]);
    PetscCall(TalusDecompGetBackoff(sim->decomp, &backoff[0], &backoff[1]));
    WriteAttribute(&w, "decomp_backoff", PETSC_TRUE, 2, backoff);
    WriteAttribute(&w, "time", PETSC_FALSE, 1, &sim->t);
    WriteAttribute(&w, "dt", PETSC_FALSE, 1, &sim->dt);
    WriteAttribute(&w, "t_final", PETSC_FALSE, 1, &sim->t_final);
    WriteAttribute(&w, "envelope", PETSC_FALSE, 1, &sim->envelope);
    WriteAttribute(&w, "r_max", PETSC_FALSE, 1, &sim->rmax);
    WriteAttribute(&w, "gravity", PETSC_FALSE, 3, sim->gravity);
    WriteAttribute(&w, "domain_min", PETSC_FALSE, 3, sim->domain_min);
    WriteAttribute(&w, "domain_max", PETSC_FALSE, 3, sim->domain_max);
    if (sim->rank == 0) strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime(&clock));
    PetscCallMPI(MPI_Bcast(created, sizeof(created), MPI_CHAR, 0, sim->comm));
    WriteStringAttribute(&w, "created", created);
    WriteStringAttribute(&w, "scene_name", scene->name);
    WriteStringAttribute(&w, "scene_file", scene->file);
  }
  PetscCall(WriteTable(&w, "bodies", body_fields, NFIELDS(body_fields), sizeof(BodyRow), sim->nfinite, lo, hi - lo, slice));
  PetscCall(WriteTable(&w, "planes", body_fields, NFIELDS(body_fields), sizeof(BodyRow), nplanes, 0, sim->rank == 0 ? nplanes : 0, planes));
  PetscCall(WriteTable(&w, "contacts", contact_fields, NFIELDS(contact_fields), sizeof(ContactRow), ctotal, coffset, sim->nhistory, contacts));
  {
    const PetscInt nm = b->nmaterials, mine_m = sim->rank == 0 ? nm : 0;
    PetscReal     *props;
    char          *names;
    hid_t          group = H5Gcreate2(w.file, "materials", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    Note(&w, group, "materials");
    PetscCall(PetscMalloc2(2 * nm + 1, &props, 64 * nm + 1, &names));
    for (PetscInt m = 0; m < nm; m++) {
      props[2 * m] = b->materials[m].mu, props[2 * m + 1] = b->materials[m].density;
      PetscCall(PetscStrncpy(&names[64 * m], b->materials[m].name, 64));
    }
    if (group >= 0) {
      PetscCall(WriteDataset(&w, group, "mu_density", VALUES_REAL, nm, 2, 0, mine_m, props));
      if (b->mu_pair) PetscCall(WriteDataset(&w, group, "mu_pair", VALUES_REAL, nm, (int)nm, 0, mine_m, b->mu_pair));
      H5Gclose(group);
    }
    PetscCall(WriteText(&w, "materials/names", names, (size_t)(64 * nm)));
    PetscCall(PetscFree2(props, names));
  }
  PetscCall(WriteText(&w, "scene", scene_text ? scene_text : "", scene_text ? strlen(scene_text) : 0));
  PetscCall(PetscOptionsGetAll(NULL, &all_options));
  PetscCall(ForEachOption(all_options, KeepRunOption, &options));
  PetscCall(PetscFree(all_options));
  PetscCall(WriteText(&w, "options", options.buf ? options.buf : "", options.len));
  PetscCall(PetscFree(options.buf));
  Note(&w, H5Fflush(w.file, H5F_SCOPE_GLOBAL), "the file (flush)");
  Note(&w, H5Fclose(w.file), "the file (close)");
  PetscCall(Agree(&w, path));
  if (slice != in) PetscCall(PetscFree(slice));
  if (in != mine) PetscCall(PetscFree(in));
  PetscCall(PetscFree4(mine, dest, planes, contacts));
  PetscCall(PetscLogEventEnd(TALUS_EventCheckpointWrite, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------ reading */

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  const char *path;
  hid_t       file;
  int         bad;           /* this rank met a fault */
  int         fd;            /* the same file opened for posix_fadvise, or -1 */
  char        fault[512];
} Reader;

static void Fault(Reader *r, const char fmt[], const char detail[])
{
  if (r->bad) return;
  r->bad = 1;
  snprintf(r->fault, sizeof(r->fault), fmt, detail);
}

static void Close(Reader *r)
{
  if (r->file >= 0) H5Fclose(r->file);
  if (r->fd >= 0) close(r->fd);
  r->file = -1, r->fd = -1;
}

/* Every rank learns whether any met a fault; the error message (with the first fault found on
   the lowest rank that has one, and the previous checkpoint to try) is the same everywhere. */
static PetscErrorCode Verdict(Reader *r)
{
  struct {
    int bad, rank;
  } local = {r->bad, r->bad ? r->rank : r->size}, first;
  char previous[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&local.rank, &first.rank, 1, MPI_INT, MPI_MIN, r->comm));
  if (first.rank == r->size) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(r->fault, sizeof(r->fault), MPI_CHAR, first.rank, r->comm));
  Close(r);
  if (r->rank == 0) PreviousCheckpoint(r->path, previous, sizeof(previous));
  PetscCallMPI(MPI_Bcast(previous, sizeof(previous), MPI_CHAR, 0, r->comm));
  SETERRQ(r->comm, PETSC_ERR_FILE_UNEXPECTED, "cannot restart from %s: %s%s%s", r->path, r->fault, previous[0] ? "; the previous checkpoint is " : "", previous);
}

static PetscErrorCode Open(Reader *r)
{
  int   exists = 0;
  hid_t fapl;
  char  detail[256];

  PetscFunctionBegin;
  r->file = -1, r->fd = -1;
  if (r->rank == 0) exists = access(r->path, R_OK) == 0 ? 1 : -errno;
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, r->comm));
  if (exists != 1) Fault(r, "%s", strerror(-exists));
  r->bad = exists != 1;
  if (exists == 1) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, r->comm, MPI_INFO_NULL); /* metadata read independently: a rank that met a fault may skip reads */
    r->file = H5Fopen(r->path, H5F_ACC_RDONLY, fapl);
    if (r->file < 0) HDF5Error(detail); /* before any other call clears HDF5's error stack */
    r->fd = r->file >= 0 ? open(r->path, O_RDONLY) : -1;
    H5Pclose(fapl);
    if (r->file < 0) {
      Fault(r, "not a readable HDF5 file (truncated or damaged?): %s", detail);
    }
  }
  PetscCall(Verdict(r));
  PetscFunctionReturn(0);
}

static void ReadAttribute(Reader *r, const char name[], PetscBool integer, int n, void *value)
{
  hid_t    attr;
  hssize_t npoints;
  char     detail[256];

  if (r->bad) return;
  if (H5Aexists(r->file, name) <= 0) {
    Fault(r, "no attribute %s: not a talus checkpoint, or a damaged one", name);
    return;
  }
  attr = H5Aopen(r->file, name, H5P_DEFAULT);
  if (attr < 0) {
    HDF5Error(detail);
    Fault(r, "damaged header: %s", detail);
    return;
  }
  {
    hid_t space = H5Aget_space(attr);
    npoints     = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
  }
  if (npoints != n) Fault(r, "attribute %s has the wrong size", name);
  else if (integer) {
    PetscInt64 v[4];
    if (H5Aread(attr, H5T_NATIVE_INT64, v) < 0) Fault(r, "cannot read attribute %s", name);
    for (int k = 0; k < n && k < 4; k++) ((PetscInt *)value)[k] = (PetscInt)v[k];
  } else if (H5Aread(attr, H5T_NATIVE_DOUBLE, value) < 0) Fault(r, "cannot read attribute %s", name);
  H5Aclose(attr);
}

static void ReadStringAttribute(Reader *r, const char name[], char value[], size_t len)
{
  hid_t attr, type, mem;

  value[0] = 0;
  if (r->bad) return;
  if (H5Aexists(r->file, name) <= 0) {
    Fault(r, "no attribute %s: not a talus checkpoint", name);
    return;
  }
  attr = H5Aopen(r->file, name, H5P_DEFAULT);
  type = attr >= 0 ? H5Aget_type(attr) : -1;
  if (type < 0 || H5Tget_class(type) != H5T_STRING || H5Tget_size(type) >= len) Fault(r, "attribute %s is not a short string", name);
  else {
    mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, len);
    if (H5Aread(attr, mem, value) < 0) Fault(r, "cannot read attribute %s", name);
    H5Tclose(mem);
  }
  if (type >= 0) H5Tclose(type);
  if (attr >= 0) H5Aclose(attr);
}

/* Opens dataset name, which must hold `total` rows of `width` values. */
static void ColumnOpen(Reader *r, const char name[], Values v, PetscInt total, int width, Column *c)
{
  hsize_t dims[2] = {0, 1};
  int     ndims;
  char    what[320];

  c->v = v, c->width = width, c->sum = 0, c->fspace = -1;
  c->dset = r->bad ? -1 : H5Dopen2(r->file, name, H5P_DEFAULT);
  if (r->bad) return;
  if (c->dset < 0) {
    Fault(r, "dataset %s is missing", name);
    return;
  }
  c->fspace = H5Dget_space(c->dset);
  ndims     = H5Sget_simple_extent_dims(c->fspace, dims, NULL);
  if (ndims < 1 || dims[0] != (hsize_t)total || (ndims == 2 ? dims[1] : 1) != (hsize_t)width) {
    snprintf(what, sizeof(what), "%s has %llu x %llu values, the header says %" PetscInt_FMT " x %d", name, (unsigned long long)dims[0], (unsigned long long)(ndims == 2 ? dims[1] : 1), total, width);
    Fault(r, "%s", what);
  }
}

/* Rows [first, first + rows) into buf (independent MPI-IO). */
static void ColumnRead(Reader *r, Column *c, const char name[], PetscInt first, PetscInt rows, void *buf)
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
    HDF5Error(detail);
    snprintf(what, sizeof(what), "%s cannot be read (%s)", name, detail);
    Fault(r, "%s", what);
  } else c->sum += ChecksumPart(c->v, buf, (uint64_t)first * c->width, (uint64_t)rows * c->width);
  H5Sclose(mspace);
  H5Pclose(xfer);
}

/*
 * Compares what was read with the stored checksum: this rank's part alone when it read the whole
 * dataset, the sum of all ranks' parts (collective) when each read a slice. Closes the dataset.
 */
static PetscErrorCode ColumnCheck(Reader *r, Column *c, const char name[], PetscBool sliced)
{
  uint64_t expected = 0, part[2] = {c->sum, 0}; /* checksum of what was read, ranks with a fault */
  hid_t    attr     = -1;

  PetscFunctionBegin;
  if (!r->bad && ((attr = H5Aopen(c->dset, "checksum", H5P_DEFAULT)) < 0 || H5Aread(attr, H5T_NATIVE_UINT64, &expected) < 0)) Fault(r, "%s has no readable checksum", name);
  if (attr >= 0) H5Aclose(attr);
  if (c->fspace >= 0) H5Sclose(c->fspace);
  if (c->dset >= 0) H5Dclose(c->dset);
  part[1] = (uint64_t)r->bad;
  if (sliced) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, part, 2, MPI_UINT64_T, MPI_SUM, r->comm));
  if (!part[1] && part[0] != expected) Fault(r, "%s is damaged (checksum mismatch)", name);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadDataset(Reader *r, const char name[], Values v, PetscInt total, int width, PetscInt offset, PetscInt count, void *buf, PetscBool sliced)
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
 * 10 % faster reads of a 10^6-body checkpoint from the disk, docs/performance.md).
 */
static void Prefetch(Reader *r, Column *c, PetscInt first, PetscInt rows)
{
  haddr_t at;

  if (r->bad || r->fd < 0 || c->dset < 0 || rows == 0 || (at = H5Dget_offset(c->dset)) == HADDR_UNDEF) return;
  (void)posix_fadvise(r->fd, (off_t)(at + (haddr_t)first * c->width * 8), (off_t)rows * c->width * 8, POSIX_FADV_WILLNEED);
}

/* Every field of a table, a block of rows at a time (as WriteTable); every field is checked even
   after a fault, since the checks of sliced tables are collective. */
static PetscErrorCode ReadTable(Reader *r, const char group[], const Field *fields, int nfields, size_t row_bytes, PetscInt total, PetscInt offset, PetscInt count, void *rows, PetscBool sliced)
{
  void   *buf;
  char    name[128];
  Column *c;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(8 * 4 * (size_t)BLOCK_ROWS, &buf, nfields, &c));
  for (int f = 0; f < nfields; f++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s/%s", group, fields[f].name));
    ColumnOpen(r, name, fields[f].integer ? VALUES_INT : VALUES_REAL, total, fields[f].width, &c[f]);
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
static PetscErrorCode ReadText(Reader *r, const char name[], char **text)
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
  PetscCall(ReadDataset(r, name, VALUES_BYTES, (PetscInt)n, 1, 0, (PetscInt)n, *text, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* The header: format and version first, so a foreign or newer file is named as such. */
static PetscErrorCode ReadInfo(Reader *r, TalusCheckpointInfo *info, PetscInt more[8], PetscReal reals[16])
{
  char format[64];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  if (!r->bad && H5Aexists(r->file, "format") <= 0) Fault(r, "%s", "not a talus checkpoint (no format attribute)");
  ReadStringAttribute(r, "format", format, sizeof(format));
  if (!r->bad && strcmp(format, TALUS_CHECKPOINT_FORMAT)) Fault(r, "not a talus checkpoint (format \"%s\")", format);
  ReadAttribute(r, "version", PETSC_TRUE, 1, &info->version);
  if (!r->bad && info->version != TALUS_CHECKPOINT_VERSION) {
    char v[32];
    snprintf(v, sizeof(v), "%d", (int)info->version);
    Fault(r, "format version %s; this talus reads version " PetscStringize(TALUS_CHECKPOINT_VERSION), v);
  }
  ReadAttribute(r, "step", PETSC_TRUE, 1, &info->step);
  ReadAttribute(r, "finite_bodies", PETSC_TRUE, 1, &info->nfinite);
  ReadAttribute(r, "bodies", PETSC_TRUE, 1, &info->nbodies);
  ReadAttribute(r, "planes", PETSC_TRUE, 1, &info->nplanes);
  ReadAttribute(r, "contacts", PETSC_TRUE, 1, &info->ncontacts);
  ReadAttribute(r, "materials", PETSC_TRUE, 1, &info->nmaterials);
  ReadAttribute(r, "bodies_lost", PETSC_TRUE, 1, &info->bodies_lost);
  ReadAttribute(r, "ranks", PETSC_TRUE, 1, &info->ranks);
  ReadAttribute(r, "time", PETSC_FALSE, 1, &info->t);
  ReadAttribute(r, "dt", PETSC_FALSE, 1, &info->dt);
  ReadAttribute(r, "t_final", PETSC_FALSE, 1, &info->t_final);
  ReadStringAttribute(r, "scene_name", info->scene_name, sizeof(info->scene_name));
  ReadStringAttribute(r, "created", info->created, sizeof(info->created));
  if (more) {
    ReadAttribute(r, "rebalances", PETSC_TRUE, 1, &more[0]);
    ReadAttribute(r, "anti_relaxation", PETSC_TRUE, 1, &more[1]);
    ReadAttribute(r, "has_domain", PETSC_TRUE, 1, &more[2]);
    ReadAttribute(r, "decomp_backoff", PETSC_TRUE, 2, &more[3]);
    ReadAttribute(r, "envelope", PETSC_FALSE, 1, &reals[0]);
    ReadAttribute(r, "r_max", PETSC_FALSE, 1, &reals[1]);
    ReadAttribute(r, "gravity", PETSC_FALSE, 3, &reals[2]);
    ReadAttribute(r, "domain_min", PETSC_FALSE, 3, &reals[5]);
    ReadAttribute(r, "domain_max", PETSC_FALSE, 3, &reals[8]);
  }
  if (!r->bad && (info->nfinite < 0 || info->nbodies < 0 || info->nbodies > info->nfinite || info->nplanes < 0 || info->ncontacts < 0 || info->nmaterials < 1 || !(info->dt > 0.0))) Fault(r, "%s", "the header's counts are inconsistent");
  PetscCall(Verdict(r));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileGetInfo(MPI_Comm comm, const char path[], TalusCheckpointInfo *info)
{
  Reader r = {.comm = comm, .path = path, .file = -1, .fd = -1};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &r.rank));
  PetscCallMPI(MPI_Comm_size(comm, &r.size));
  PetscCall(Open(&r));
  PetscCall(ReadInfo(&r, info, NULL, NULL));
  Close(&r);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileGetOptions(MPI_Comm comm, const char path[], char **options)
{
  Reader              r = {.comm = comm, .path = path, .file = -1, .fd = -1};
  TalusCheckpointInfo info;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &r.rank));
  PetscCallMPI(MPI_Comm_size(comm, &r.size));
  PetscCall(Open(&r));
  PetscCall(ReadInfo(&r, &info, NULL, NULL));
  PetscCall(ReadText(&r, "options", options));
  if (r.bad) PetscCall(PetscFree(*options));
  PetscCall(Verdict(&r));
  Close(&r);
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUnlessGiven(const char name[], const char value[], void *ctx)
{
  PetscBool given;

  PetscFunctionBegin;
  if (IsJobOption(name)) PetscFunctionReturn(0);
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &given));
  if (!given) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileInsertOptions(MPI_Comm comm, const char path[])
{
  char *options;

  PetscFunctionBegin;
  PetscCall(TalusCheckpointFileGetOptions(comm, path, &options));
  PetscCall(ForEachOption(options, SetUnlessGiven, NULL));
  PetscCall(PetscFree(options));
  PetscFunctionReturn(0);
}

static int CompareHistory(const void *x, const void *y)
{
  return TalusContactHistoryCompare(&((const ContactRow *)x)->h, &((const ContactRow *)y)->h);
}

/* What a stored row may hold, its shape's stored code turned into the shape (in place); anything
   else is damage the checksums did not catch. */
static PetscBool RowIsSane(BodyRow *row, PetscInt nmaterials, PetscBool plane)
{
  TalusBodyRecord *b = &row->body;
  TalusShape       shape;
  PetscReal        qq = 0.0;
  for (int d = 0; d < 4; d++) qq += b->quaternion[d] * b->quaternion[d];
  if (b->material < 0 || b->material >= nmaterials || PetscAbsReal(qq - 1.0) > 1e-6 || b->mass < 0.0) return PETSC_FALSE;
  if (!TalusShapeFromCode(b->shape, &shape)) return PETSC_FALSE;
  b->shape = shape;
  if (plane) return (PetscBool)(!TalusShapeTable[shape].finite && b->fixed);
  return TalusShapeTable[shape].finite;
}

PetscErrorCode TalusCheckpointFileRead(MPI_Comm comm, const char path[], TalusSim sim, TalusScene *scene, char **scene_text, PetscLogDouble *io_seconds)
{
  PetscLogDouble t0, t1;
  Reader              r = {.comm = comm, .path = path, .file = -1, .fd = -1};
  TalusCheckpointInfo info;
  PetscInt            more[8] = {0}, lo, hi, clo, chi, nkeep = 0, nin, hnin, nm;
  PetscReal           reals[16] = {0}, *props = NULL, *mu_pair = NULL;
  BodyRow            *rows = NULL, *planes = NULL, *in = NULL;
  ContactRow         *crows = NULL, *hin = NULL;
  PetscMPIInt        *dest = NULL, *hdest = NULL;
  char               *names = NULL, *options = NULL;
  PetscBool           same_layout;
  TalusBodies        *b = sim->bodies;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &r.rank));
  PetscCallMPI(MPI_Comm_size(comm, &r.size));
  PetscCheck(b->n == 0 && !sim->distributed, comm, PETSC_ERR_ORDER, "a checkpoint is loaded into a new, empty simulation");
  PetscCall(PetscLogEventBegin(TALUS_EventCheckpointRead, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(Open(&r));
  PetscCall(ReadInfo(&r, &info, more, reals));
  nm = info.nmaterials;
  lo = SliceStart(info.nfinite, r.size, r.rank), hi = SliceStart(info.nfinite, r.size, r.rank + 1);
  clo = SliceStart(info.ncontacts, r.size, r.rank), chi = SliceStart(info.ncontacts, r.size, r.rank + 1);
  PetscCall(PetscMalloc3(hi - lo + 1, &rows, info.nplanes + 1, &planes, chi - clo + 1, &crows)); /* every stored field is read into them */
  PetscCall(PetscCalloc1(2 * nm + 1, &props));
  PetscCall(PetscCalloc1(nm * nm + 1, &mu_pair));
  PetscCall(ReadDataset(&r, "materials/mu_density", VALUES_REAL, nm, 2, 0, nm, props, PETSC_FALSE));
  if (!r.bad && H5Lexists(r.file, "materials/mu_pair", H5P_DEFAULT) > 0) PetscCall(ReadDataset(&r, "materials/mu_pair", VALUES_REAL, nm, (int)nm, 0, nm, mu_pair, PETSC_FALSE));
  else PetscCall(PetscFree(mu_pair));
  PetscCall(ReadText(&r, "materials/names", &names));
  PetscCall(ReadTable(&r, "planes", body_fields, NFIELDS(body_fields), sizeof(BodyRow), info.nplanes, 0, info.nplanes, planes, PETSC_FALSE));
  PetscCall(ReadTable(&r, "bodies", body_fields, NFIELDS(body_fields), sizeof(BodyRow), info.nfinite, lo, hi - lo, rows, PETSC_TRUE));
  PetscCall(ReadTable(&r, "contacts", contact_fields, NFIELDS(contact_fields), sizeof(ContactRow), info.ncontacts, clo, chi - clo, crows, PETSC_TRUE));
  PetscCall(ReadText(&r, "scene", scene_text));
  PetscCall(ReadText(&r, "options", &options)); /* read to verify its checksum; inserted by TalusCheckpointFileInsertOptions */
  if (!r.bad) {
    PetscInt live = 0;
    for (PetscInt p = 0; p < info.nplanes; p++)
      if (!RowIsSane(&planes[p], nm, PETSC_TRUE)) Fault(&r, "%s", "a plane's stored values are invalid");
    for (PetscInt k = 0; k < hi - lo; k++) {
      if (rows[k].body.id < 0) continue;
      live++;
      if (!RowIsSane(&rows[k], nm, PETSC_FALSE)) Fault(&r, "%s", "a body's stored values are invalid");
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &live, 1, MPIU_INT, MPI_SUM, comm));
    if (live != info.nbodies) Fault(&r, "%s", "the number of bodies does not match the header");
  }
  PetscCall(PetscFree(options));
  if (r.bad) {
    PetscCall(PetscFree3(rows, planes, crows));
    PetscCall(PetscFree(props));
    PetscCall(PetscFree(mu_pair));
    PetscCall(PetscFree(names));
    PetscCall(PetscFree(*scene_text));
  }
  PetscCall(Verdict(&r));
  Close(&r);
  PetscCall(PetscTime(&t1));
  if (io_seconds) *io_seconds = t1 - t0; /* the file's part: the rest is redistribution */

  /* everything read and checked: now the simulation takes it */
  for (PetscInt m = 0; m < nm; m++) {
    char name[65];
    PetscCall(PetscStrncpy(name, &names[64 * m], sizeof(name)));
    PetscCall(TalusBodiesAddMaterial(b, name, props[2 * m], props[2 * m + 1], NULL));
  }
  if (mu_pair) {
    PetscCall(PetscMalloc1(nm * nm, &b->mu_pair));
    PetscCall(PetscArraycpy(b->mu_pair, mu_pair, nm * nm));
  }
  /* on as many ranks as wrote it, every body returns to the rank that owned it, so the run's
     repartition at this step sees the same input as the run that wrote the file did */
  same_layout = (PetscBool)(info.ranks == r.size);
  PetscCall(PetscMalloc2(hi - lo + 1, &dest, chi - clo + 1, &hdest));
  for (PetscInt k = 0; k < hi - lo; k++) {
    if (rows[k].body.id < 0) continue;
    rows[k].body.slot = lo + k;
    rows[k].body.dof  = -1;
    rows[nkeep]       = rows[k];
    dest[nkeep++]     = same_layout ? (PetscMPIInt)rows[k].rank : r.rank;
  }
  PetscCall(ExchangeUnlessLocal(sim, nkeep, dest, sizeof(BodyRow), rows, &nin, (void **)&in));
  PetscCall(TalusBodiesReserve(b, info.nplanes + nin));
  for (PetscInt p = 0; p < info.nplanes; p++) {
    planes[p].body.slot = -1, planes[p].body.dof = -1;
    PetscCall(TalusBodiesAppendRecord(b, &planes[p].body));
  }
  for (PetscInt k = 0; k < nin; k++) PetscCall(TalusBodiesAppendRecord(b, &in[k].body));
  b->nowned = b->n;
  PetscCall(TalusBodiesSortById(b));
  /* warm starts go where the body that keeps them now lives */
  for (PetscInt h = 0; h < chi - clo; h++) hdest[h] = same_layout ? (PetscMPIInt)crows[h].rank : SliceRank(info.nfinite, r.size, crows[h].owner_slot);
  PetscCall(TalusDecompExchange(sim->decomp, chi - clo, hdest, sizeof(ContactRow), crows, &hnin, (void **)&hin));
  qsort(hin, (size_t)hnin, sizeof(ContactRow), CompareHistory);
  PetscCall(PetscFree(sim->history));
  sim->history_capacity = PetscMax(hnin, 1);
  PetscCall(PetscMalloc1(sim->history_capacity, &sim->history));
  for (PetscInt h = 0; h < hnin; h++) sim->history[h] = hin[h].h;
  sim->nhistory = hnin;

  sim->step        = info.step;
  sim->t           = info.t;
  sim->dt          = info.dt;
  sim->t_final     = info.t_final;
  sim->nfinite     = info.nfinite;
  sim->bodies_lost = info.bodies_lost;
  sim->rebalances  = more[0];
  sim->anti_relax  = (PetscBool)(more[1] != 0);
  sim->has_domain  = (PetscBool)(more[2] != 0);
  sim->envelope    = reals[0];
  sim->rmax        = reals[1];
  for (int d = 0; d < 3; d++) sim->gravity[d] = reals[2 + d], sim->domain_min[d] = reals[5 + d], sim->domain_max[d] = reals[8 + d];
  PetscCall(TalusDecompSetBackoff(sim->decomp, more[3], more[4]));
  sim->distributed = PETSC_TRUE;
  /* the partition the run that wrote the file made right after writing it (TalusCheckpointWrite) */
  PetscCall(TalusSimRepartition(sim));

  PetscCall(PetscMemzero(scene, sizeof(*scene)));
  PetscCall(PetscStrncpy(scene->name, info.scene_name, sizeof(scene->name)));
  PetscCall(PetscStrncpy(scene->file, path, sizeof(scene->file)));
  for (int d = 0; d < 3; d++) scene->domain_min[d] = sim->domain_min[d], scene->domain_max[d] = sim->domain_max[d];
  scene->overlap_tolerance = 1e-6;

  if (in != rows) PetscCall(PetscFree(in));
  PetscCall(PetscFree(hin));
  PetscCall(PetscFree2(dest, hdest));
  PetscCall(PetscFree3(rows, planes, crows));
  PetscCall(PetscFree(props));
  PetscCall(PetscFree(mu_pair));
  PetscCall(PetscFree(names));
  PetscCall(PetscLogEventEnd(TALUS_EventCheckpointRead, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}
