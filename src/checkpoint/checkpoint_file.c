/*
 * The checkpoint file (docs/checkpoint-format.md): one HDF5 file written collectively with MPI-IO.
 * Finite bodies are rows in global-id order (row = slot, rows of removed bodies hold id -1): each
 * rank sends its bodies to the rank that writes their contiguous slice of rows, so every dataset
 * is written as one contiguous block per rank. Every dataset carries a checksum of its values
 * (ChecksumPart) and the file uses the 1.10 format, whose object headers (the attributes) carry
 * checksums too: damage anywhere is detected on read. (HDF5's Fletcher32 filter would need
 * chunked datasets, which parallel HDF5 1.10 writes only collectively, at a third of the speed.)
 */
#define _DEFAULT_SOURCE /* realpath, scandir */
#include "checkpoint_sections.h"
#include <talus/options.h>
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

#define BODY_INT(name, member) \
  { \
    name, PETSC_TRUE, 1, offsetof(BodyRow, member) \
  }
#define BODY_REAL(name, member, width) \
  { \
    name, PETSC_FALSE, width, offsetof(BodyRow, member) \
  }
static const TalusH5Field body_fields[] = {
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
#define CONTACT_INT(name, member) \
  { \
    name, PETSC_TRUE, 1, offsetof(ContactRow, member) \
  }
static const TalusH5Field contact_fields[] = {
  CONTACT_INT("id_a", h.id_a),
  CONTACT_INT("id_b", h.id_b),
  CONTACT_INT("feature", h.feature),
  CONTACT_INT("owner", h.owner),
  CONTACT_INT("owner_slot", owner_slot),
  CONTACT_INT("rank", rank),
  {"impulse", PETSC_FALSE, 3, offsetof(ContactRow, h.impulse)},
};
#define NFIELDS(f) ((int)(sizeof(f) / sizeof((f)[0])))

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
  char            dir[PETSC_MAX_PATH_LEN], real[PETSC_MAX_PATH_LEN], *base;
  long            step = -1, best = -1, s;
  struct dirent **list = NULL;
  int             n;

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

/* The tail of a restart's error message: the checkpoint to try instead, if there is one. */
static void PreviousCheckpointHint(const char path[], char hint[], size_t len)
{
  char previous[PETSC_MAX_PATH_LEN];

  hint[0] = 0;
  PreviousCheckpoint(path, previous, sizeof(previous));
  if (previous[0]) snprintf(hint, len, "; the previous checkpoint is %s", previous);
}

/* A reader of the checkpoint at path by every rank of comm. */
static PetscErrorCode CheckpointReader(MPI_Comm comm, const char path[], TalusH5Reader *r)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->comm = comm, r->path = path, r->file = -1, r->fd = -1;
  r->kind = "talus checkpoint", r->action = "cannot restart from", r->hint = PreviousCheckpointHint;
  PetscCallMPI(MPI_Comm_rank(comm, &r->rank));
  PetscCallMPI(MPI_Comm_size(comm, &r->size));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------ writing */

PetscErrorCode TalusCheckpointFileWrite(TalusSim sim, const TalusScene *scene, const char scene_text[],
                                        const char path[])
{
  TalusBodies               *b;
  TalusSimState              state;
  const TalusContactHistory *history;
  TalusH5Writer              w;
  MPI_Comm                   comm;
  BodyRow                   *mine, *in, *slice, *planes;
  ContactRow                *contacts;
  PetscMPIInt               *dest;
  PetscInt                   nmine = 0, nin, nplanes = 0, lo, hi, coffset = 0, ctotal, nlive, nhistory;
  TalusModuleSection         section = {.w = &w};
  hid_t                      fapl;
  char                      *options;

  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusH5WriterInit(&w, comm, "checkpoint", -1));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetState(sim, &state));
  PetscCall(TalusSimGetHistory(sim, &nhistory, &history));
  PetscCheck(b->n == b->nowned, PETSC_COMM_SELF, PETSC_ERR_ORDER, "checkpoints are written between steps (no ghosts)");
  PetscCall(PetscLogEventBegin(TALUS_EventCheckpointWrite, 0, 0, 0, 0));
  /* bodies to the ranks that write their rows */
  PetscCall(PetscMalloc4(b->n + 1, &mine, b->n + 1, &dest, b->n + 1, &planes, nhistory + 1, &contacts));
  for (PetscInt k = 0; k < b->n; k++) {
    BodyRow *row = !TalusBodiesIsFinite(b, k) ? &planes[nplanes++] : &mine[nmine];
    TalusBodiesPack(b, k, &row->body);
    row->body.shape = TalusShapeTable[b->shape[k]].code; /* the file keeps the stable code, not the enum value */
    row->rank       = w.rank;
    if (TalusBodiesIsFinite(b, k)) dest[nmine++] = SliceRank(state.nfinite, w.size, b->slot[k]);
  }
  lo = SliceStart(state.nfinite, w.size, w.rank), hi = SliceStart(state.nfinite, w.size, w.rank + 1);
  PetscCall(TalusSimExchange(sim, nmine, dest, sizeof(BodyRow), mine, &nin, (void **)&in));
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
      PetscCheck(in[k].body.slot >= lo && in[k].body.slot < hi, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "body %" PetscInt_FMT " with slot %" PetscInt_FMT " sent to the wrong writer", in[k].body.id,
                 in[k].body.slot);
      slice[in[k].body.slot - lo] = in[k];
    }
  }
  /* warm starts, with the slot of the body that keeps them (owned here, ids sorted) */
  for (PetscInt h = 0; h < nhistory; h++) {
    PetscInt where   = -1;
    contacts[h].h    = history[h];
    contacts[h].rank = w.rank;
    PetscCall(PetscFindInt(history[h].owner, b->n, b->id, &where));
    PetscCheck(where >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "contact (%" PetscInt_FMT ", %" PetscInt_FMT ") is kept by body %" PetscInt_FMT
               ", which is not here (bodies not in canonical order?)",
               history[h].id_a, history[h].id_b, history[h].owner);
    contacts[h].owner_slot = b->slot[where];
  }
  PetscCallMPI(MPI_Exscan(&nhistory, &coffset, 1, MPIU_INT, MPI_SUM, w.comm));
  if (w.rank == 0) coffset = 0;
  PetscCall(MPIU_Allreduce(&nhistory, &ctotal, 1, MPIU_INT, MPI_SUM, w.comm));
  nlive = state.nfinite - state.bodies_lost;

  /* the file: 1.10 format (checksummed object headers), collective metadata */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, w.comm, MPI_INFO_NULL);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
  H5Pset_coll_metadata_write(fapl, 1);
  H5Pset_all_coll_metadata_ops(fapl, 1);
  w.file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  TalusH5Note(&w, w.file, "the file");
  PetscCall(TalusH5Agree(&w, path));
  {
    PetscInt    ints[]     = {TALUS_CHECKPOINT_VERSION,
                              state.step,
                              state.nfinite,
                              nlive,
                              nplanes,
                              ctotal,
                              b->nmaterials,
                              state.bodies_lost,
                              state.rebalances,
                              w.size,
                              state.anti_relax,
                              state.has_domain};
    const char *names[]    = {"version",   "step",        "finite_bodies", "bodies", "planes",          "contacts",
                              "materials", "bodies_lost", "rebalances",    "ranks",  "anti_relaxation", "has_domain"};
    PetscInt    backoff[2] = {state.decomp_last_rebalance, state.decomp_cooldown};
    char        created[64];
    time_t      clock = time(NULL);
    TalusH5WriteStringAttribute(&w, w.file, "format", TALUS_CHECKPOINT_FORMAT);
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
      TalusH5WriteAttribute(&w, w.file, names[k], PETSC_TRUE, 1, &ints[k]);
    TalusH5WriteAttribute(&w, w.file, "decomp_backoff", PETSC_TRUE, 2, backoff);
    TalusH5WriteAttribute(&w, w.file, "time", PETSC_FALSE, 1, &state.t);
    TalusH5WriteAttribute(&w, w.file, "dt", PETSC_FALSE, 1, &state.dt);
    TalusH5WriteAttribute(&w, w.file, "t_final", PETSC_FALSE, 1, &state.t_final);
    TalusH5WriteAttribute(&w, w.file, "envelope", PETSC_FALSE, 1, &state.envelope);
    TalusH5WriteAttribute(&w, w.file, "r_max", PETSC_FALSE, 1, &state.rmax);
    TalusH5WriteAttribute(&w, w.file, "gravity", PETSC_FALSE, 3, state.gravity);
    TalusH5WriteAttribute(&w, w.file, "domain_min", PETSC_FALSE, 3, state.domain_min);
    TalusH5WriteAttribute(&w, w.file, "domain_max", PETSC_FALSE, 3, state.domain_max);
    if (w.rank == 0) strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime(&clock));
    PetscCallMPI(MPI_Bcast(created, sizeof(created), MPI_CHAR, 0, w.comm));
    TalusH5WriteStringAttribute(&w, w.file, "created", created);
    TalusH5WriteStringAttribute(&w, w.file, "scene_name", scene->name);
    TalusH5WriteStringAttribute(&w, w.file, "scene_file", scene->file);
    TalusH5WriteStringAttribute(&w, w.file, "talus_version", TalusVersion());
    TalusH5WriteStringAttribute(&w, w.file, "talus_commit", TalusCommit());
  }
  PetscCall(TalusH5WriteTable(&w, "bodies", body_fields, NFIELDS(body_fields), sizeof(BodyRow), state.nfinite, lo,
                              hi - lo, slice));
  PetscCall(TalusH5WriteTable(&w, "planes", body_fields, NFIELDS(body_fields), sizeof(BodyRow), nplanes, 0,
                              w.rank == 0 ? nplanes : 0, planes));
  PetscCall(TalusH5WriteTable(&w, "contacts", contact_fields, NFIELDS(contact_fields), sizeof(ContactRow), ctotal,
                              coffset, nhistory, contacts));
  PetscCall(TalusSimModulesCheckpointWrite(sim, &section)); /* the joints, drives, tables, planar bodies */
  PetscCall(TalusH5WriteShapeData(&section));
  PetscCall(TalusCheckpointWriteMaterials(&w, b));
  PetscCall(TalusH5WriteText(&w, "scene", scene_text ? scene_text : "", scene_text ? strlen(scene_text) : 0));
  PetscCall(TalusH5WriteText(&w, "overrides", scene->overrides, strlen(scene->overrides))); /* format 5: -set */
  PetscCall(TalusOptionsGetRunOptions(&options));
  PetscCall(TalusH5WriteText(&w, "options", options, strlen(options)));
  PetscCall(PetscFree(options));
  TalusH5Note(&w, H5Fflush(w.file, H5F_SCOPE_GLOBAL), "the file (flush)");
  TalusH5Note(&w, H5Fclose(w.file), "the file (close)");
  PetscCall(TalusH5Agree(&w, path));
  if (slice != in) PetscCall(PetscFree(slice));
  if (in != mine) PetscCall(PetscFree(in));
  PetscCall(PetscFree4(mine, dest, planes, contacts));
  PetscCall(PetscLogEventEnd(TALUS_EventCheckpointWrite, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------ reading */

/* The header: format and version first, so a foreign or newer file is named as such; state (if
   not NULL) gets the simulator's state. */

static PetscErrorCode ReadInfo(TalusH5Reader *r, TalusCheckpointInfo *info, TalusSimState *state)
{
  char format[64];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  if (!r->bad && H5Aexists(r->file, "format") <= 0)
    TalusH5Fault(r, "%s", "not a talus checkpoint (no format attribute)");
  TalusH5ReadStringAttribute(r, r->file, "format", format, sizeof(format));
  if (!r->bad && strcmp(format, TALUS_CHECKPOINT_FORMAT))
    TalusH5Fault(r, "not a talus checkpoint (format \"%s\")", format);
  TalusH5ReadAttribute(r, r->file, "version", PETSC_TRUE, 1, &info->version);
  if (!r->bad && (info->version < 1 || info->version > TALUS_CHECKPOINT_VERSION)) {
    char v[32];
    snprintf(v, sizeof(v), "%d", (int)info->version);
    TalusH5Fault(r, "format version %s; this talus reads versions 1 to " PetscStringize(TALUS_CHECKPOINT_VERSION), v);
  }
  /* the modules' counts (their sections write and check them), for talus info */
  if (!r->bad && info->version >= 2) {
    TalusH5ReadAttribute(r, r->file, "joints", PETSC_TRUE, 1, &info->njoints);
    TalusH5ReadAttribute(r, r->file, "prescribed", PETSC_TRUE, 1, &info->nprescribed);
    TalusH5ReadAttribute(r, r->file, "loads", PETSC_TRUE, 1, &info->nloads);
    TalusH5ReadAttribute(r, r->file, "springs", PETSC_TRUE, 1, &info->nsprings);
  }
  if (!r->bad && info->version >= 3) {
    TalusH5ReadAttribute(r, r->file, "planar", PETSC_TRUE, 1, &info->nplanar);
    TalusH5ReadAttribute(r, r->file, "tables", PETSC_TRUE, 1, &info->ntables);
    TalusH5ReadAttribute(r, r->file, "table_values", PETSC_TRUE, 1, &info->ntable_values);
  }
  TalusH5ReadAttribute(r, r->file, "step", PETSC_TRUE, 1, &info->step);
  TalusH5ReadAttribute(r, r->file, "finite_bodies", PETSC_TRUE, 1, &info->nfinite);
  TalusH5ReadAttribute(r, r->file, "bodies", PETSC_TRUE, 1, &info->nbodies);
  TalusH5ReadAttribute(r, r->file, "planes", PETSC_TRUE, 1, &info->nplanes);
  TalusH5ReadAttribute(r, r->file, "contacts", PETSC_TRUE, 1, &info->ncontacts);
  TalusH5ReadAttribute(r, r->file, "materials", PETSC_TRUE, 1, &info->nmaterials);
  TalusH5ReadAttribute(r, r->file, "bodies_lost", PETSC_TRUE, 1, &info->bodies_lost);
  TalusH5ReadAttribute(r, r->file, "ranks", PETSC_TRUE, 1, &info->ranks);
  TalusH5ReadAttribute(r, r->file, "time", PETSC_FALSE, 1, &info->t);
  TalusH5ReadAttribute(r, r->file, "dt", PETSC_FALSE, 1, &info->dt);
  TalusH5ReadAttribute(r, r->file, "t_final", PETSC_FALSE, 1, &info->t_final);
  TalusH5ReadStringAttribute(r, r->file, "scene_name", info->scene_name, sizeof(info->scene_name));
  TalusH5ReadStringAttribute(r, r->file, "created", info->created, sizeof(info->created));
  if (H5Aexists(r->file, "talus_version") > 0) { /* since talus 0.1.0 of 2026-11-25 */
    char commit[sizeof(info->writer)];
    TalusH5ReadStringAttribute(r, r->file, "talus_version", info->writer, sizeof(info->writer));
    TalusH5ReadStringAttribute(r, r->file, "talus_commit", commit, sizeof(commit));
    PetscCall(PetscStrlcat(info->writer, " (commit ", sizeof(info->writer)));
    PetscCall(PetscStrlcat(info->writer, commit, sizeof(info->writer)));
    PetscCall(PetscStrlcat(info->writer, ")", sizeof(info->writer)));
  } else PetscCall(PetscStrncpy(info->writer, "of unknown version", sizeof(info->writer)));
  if (state) {
    PetscInt anti_relax = 0, has_domain = 0, backoff[2] = {0, 0};
    PetscCall(PetscMemzero(state, sizeof(*state)));
    TalusH5ReadAttribute(r, r->file, "rebalances", PETSC_TRUE, 1, &state->rebalances);
    TalusH5ReadAttribute(r, r->file, "anti_relaxation", PETSC_TRUE, 1, &anti_relax);
    TalusH5ReadAttribute(r, r->file, "has_domain", PETSC_TRUE, 1, &has_domain);
    TalusH5ReadAttribute(r, r->file, "decomp_backoff", PETSC_TRUE, 2, backoff);
    TalusH5ReadAttribute(r, r->file, "envelope", PETSC_FALSE, 1, &state->envelope);
    TalusH5ReadAttribute(r, r->file, "r_max", PETSC_FALSE, 1, &state->rmax);
    TalusH5ReadAttribute(r, r->file, "gravity", PETSC_FALSE, 3, state->gravity);
    TalusH5ReadAttribute(r, r->file, "domain_min", PETSC_FALSE, 3, state->domain_min);
    TalusH5ReadAttribute(r, r->file, "domain_max", PETSC_FALSE, 3, state->domain_max);
    state->step                  = info->step;
    state->t                     = info->t;
    state->dt                    = info->dt;
    state->t_final               = info->t_final;
    state->nfinite               = info->nfinite;
    state->bodies_lost           = info->bodies_lost;
    state->anti_relax            = (PetscBool)(anti_relax != 0);
    state->has_domain            = (PetscBool)(has_domain != 0);
    state->decomp_last_rebalance = backoff[0];
    state->decomp_cooldown       = backoff[1];
  }
  if (!r->bad && (info->nfinite < 0 || info->nbodies < 0 || info->nbodies > info->nfinite || info->nplanes < 0 ||
                  info->ncontacts < 0 || info->nmaterials < 1 || info->bodies_lost < 0 || info->ranks < 1 ||
                  info->nmaterials > 1000000 || info->nfinite > PETSC_MAX_INT / 8 || info->nplanes > 1000000))
    TalusH5Fault(r, "%s", "the header's counts are inconsistent"); /* the modules' own: checked by their sections */
  if (!r->bad && (info->step < 0 || !(info->t >= 0.0 && info->t < PETSC_INFINITY) ||
                  !(info->dt > 0.0 && info->dt < PETSC_INFINITY) || PetscIsInfOrNanReal(info->t_final)))
    TalusH5Fault(r, "%s", "the header's step, time, time step or end time is not valid");
  if (!r->bad && state &&
      (!TalusAllFinite(state->gravity, 3) || !(state->envelope >= 0.0 && state->envelope < PETSC_INFINITY) ||
       PetscIsNanReal(state->domain_min[0]) || PetscIsNanReal(state->domain_min[1]) ||
       PetscIsNanReal(state->domain_min[2]) || PetscIsNanReal(state->domain_max[0]) ||
       PetscIsNanReal(state->domain_max[1]) || PetscIsNanReal(state->domain_max[2])))
    TalusH5Fault(r, "%s", "the header's gravity, envelope or domain is not valid");
  PetscCall(TalusH5Verdict(r));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileGetInfo(MPI_Comm comm, const char path[], TalusCheckpointInfo *info)
{
  TalusH5Reader r;

  PetscFunctionBegin;
  PetscCall(CheckpointReader(comm, path, &r));
  PetscCall(TalusH5Open(&r));
  PetscCall(ReadInfo(&r, info, NULL));
  TalusH5Close(&r);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileGetOptions(MPI_Comm comm, const char path[], char **options, PetscInt *version)
{
  TalusH5Reader       r;
  TalusCheckpointInfo info;

  PetscFunctionBegin;
  PetscCall(CheckpointReader(comm, path, &r));
  PetscCall(TalusH5Open(&r));
  PetscCall(ReadInfo(&r, &info, NULL));
  PetscCall(TalusH5ReadText(&r, "options", options));
  if (r.bad) PetscCall(PetscFree(*options));
  PetscCall(TalusH5Verdict(&r));
  TalusH5Close(&r);
  if (version) *version = info.version;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileInsertOptions(MPI_Comm comm, const char path[])
{
  char    *options, origin[PETSC_MAX_PATH_LEN + 32];
  PetscInt version;

  PetscFunctionBegin;
  PetscCall(TalusCheckpointFileGetOptions(comm, path, &options, &version));
  PetscCall(PetscSNPrintf(origin, sizeof(origin), "the options stored in %s", path));
  PetscCall(TalusOptionsInsertUnlessGiven(options, origin));
  PetscCall(TalusOptionsTranslateRenamed(origin));
  /* files before format 6 were written by runs whose joint rows were seed 000's: they continue so */
  if (version < 6) PetscCall(TalusOptionsInsertUnlessGiven("-joint_lookahead 0", origin));
  /* and before format 7, by runs whose contacts were rigid rows (no floor) */
  if (version < 7) PetscCall(TalusOptionsInsertUnlessGiven("-contact_near_rigid 0 -contact_friction_sigma 0", origin));
  /* and before format 8, by runs whose apgd solved the problem unscaled (or scaled, with the residual in the scaled
     units) and stopped on a stale linear term */
  if (version < 8)
    PetscCall(TalusOptionsInsertUnlessGiven("-ccp_scale 0 -ccp_scale_residual 0 -tao_apgd_confirm 0", origin));
  /* and before format 9, by runs that solved every pair in the envelope (no screening, step_screen.c) */
  if (version < 9) PetscCall(TalusOptionsInsertUnlessGiven("-contact_screen 0", origin));
  /* and before format 10, by runs whose solvers stopped on the 2-norm of the residual over all contacts */
  if (version < 10) PetscCall(TalusOptionsInsertUnlessGiven("-tao_residual_norm 2", origin));
  /* and before format 11, by runs whose sums were grouped by the ranks (apgd's L_0 by VecNorm, a body's contact terms
     as the ranks' partial sums, joining pairs after the problem): the same bits as they had */
  if (version < 11)
    PetscCall(TalusOptionsInsertUnlessGiven("-tao_apgd_reproducible_lipschitz 0 -contact_rank_order 0", origin));
  PetscCall(PetscFree(options));
  PetscFunctionReturn(0);
}

/* What a stored row may hold, as strictly as a scene (a file whose checksums were recomputed after an
   edit gets past them): its shape's stored code turned into the shape (in place). NULL, or the fault. */
static const char *RowFault(BodyRow *row, PetscInt nmaterials, PetscInt max_id, PetscInt ranks, PetscBool plane)
{
  TalusBodyRecord *b = &row->body;
  TalusShape       shape;
  PetscReal        qq = 0.0;
  for (int d = 0; d < 4; d++) qq += b->quaternion[d] * b->quaternion[d];
  if (b->id < 0 || b->id >= max_id) return "an id outside the scene's";
  if (b->material < 0 || b->material >= nmaterials) return "a material that is not stored";
  if (!(PetscAbsReal(qq - 1.0) <= 1e-6)) return "an orientation that is not a unit quaternion";
  if (!TalusShapeFromCode(b->shape, &shape)) return "an unknown shape";
  b->shape = shape;
  if (!TalusAllFinite(b->size, 3) || !TalusAllFinite(b->position, 3) || !TalusAllFinite(b->velocity, 3) ||
      !TalusAllFinite(b->omega, 3) || !TalusAllFinite(b->inertia, 3) || !TalusAllFinite(&b->mass, 1))
    return "a value that is not a finite number (or beyond 1e100 in magnitude)";
  if (TalusShapeTable[shape].check_size(b->size)) return "a size its shape does not allow";
  if (plane) return (!TalusShapeTable[shape].finite && b->fixed) ? NULL : "a plane that is not a fixed plane";
  if (!TalusShapeTable[shape].finite) return "an unbounded shape among the finite bodies";
  if (row->rank < 0 || row->rank >= ranks) return "a writing rank (bodies/rank) outside the ranks that wrote the file";
  if (!b->fixed && !(b->mass > 0.0 && b->inertia[0] > 0.0 && b->inertia[1] > 0.0 && b->inertia[2] > 0.0))
    return "a moving body without a positive mass and inertia";
  if (b->mass < 0.0) return "a negative mass";
  return NULL;
}

/* A stored warm start's fields in their ranges before any is used (its rank and slot choose where it is sent:
   out of range, the exchange failed with "destination rank 7 of item 0 is not in the communicator"). NULL, or
   the fault. */
static const char *ContactFault(const ContactRow *row, PetscInt max_id, PetscInt nfinite, PetscInt ranks)
{
  const TalusContactHistory *h = &row->h;

  if (row->rank < 0 || row->rank >= ranks)
    return "a writing rank (contacts/rank) outside the ranks that wrote the file";
  if (row->owner_slot < 0 || row->owner_slot >= nfinite)
    return "the row of the body that keeps it (contacts/owner_slot) outside the file's bodies";
  if (h->id_a < 0 || h->id_a >= max_id || h->id_b < 0 || h->id_b >= max_id)
    return "a body id (contacts/id_a or id_b) outside the scene's";
  if (h->owner != h->id_a && h->owner != h->id_b) return "a keeping body (contacts/owner) that is neither of its pair";
  if (!TalusAllFinite(h->impulse, 3)) return "an impulse (contacts/impulse) that is not a finite number";
  return NULL;
}

/* Every stored id once: the ranks OR their ids into one bitmap of the scene's ids (an id twice on a
   rank is caught as it is set; across ranks, by fewer bits than ids). */
static PetscErrorCode CheckUniqueIds(TalusH5Reader *r, const BodyRow *rows, PetscInt n, PetscInt nplanes,
                                     const BodyRow *planes, PetscInt max_id, PetscInt live)
{
  unsigned char *bits;
  PetscInt       set = 0, twice = 0;
  const size_t   nbytes = (size_t)max_id / 8 + 1;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nbytes, &bits));
  for (PetscInt k = 0; k < n + (r->rank == 0 ? nplanes : 0); k++) {
    const PetscInt id = k < n ? rows[k].body.id : planes[k - n].body.id;
    if (id < 0) continue; /* an empty slot (a body removed from the run) */
    twice += (bits[id / 8] >> (id % 8)) & 1;
    bits[id / 8] |= (unsigned char)(1u << (id % 8));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, bits, (PetscMPIInt)nbytes, MPI_UNSIGNED_CHAR, MPI_BOR, r->comm));
  for (size_t k = 0; k < nbytes; k++) set += __builtin_popcount(bits[k]);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &twice, 1, MPIU_INT, MPI_SUM, r->comm));
  if (twice || set != live + nplanes) TalusH5Fault(r, "%s", "a body id is stored twice");
  PetscCall(PetscFree(bits));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointFileRead(MPI_Comm comm, const char path[], TalusSim sim, TalusScene *scene,
                                       char **scene_text, PetscLogDouble *io_seconds)
{
  PetscLogDouble       t0, t1;
  TalusH5Reader        r;
  TalusCheckpointInfo  info;
  TalusSimSnapshot     snap;
  PetscInt             lo, hi, clo, chi, nkeep = 0, nm;
  PetscReal           *mu_pair = NULL;
  BodyRow             *rows = NULL, *planes = NULL;
  ContactRow          *crows         = NULL;
  TalusBodyRecord     *plane_records = NULL, *records = NULL;
  TalusContactHistory *history   = NULL;
  TalusMaterial       *materials = NULL;
  TalusModuleSection   section;
  PetscMPIInt         *dest = NULL, *hdest = NULL;
  char                *options = NULL, *overrides = NULL;
  PetscBool            same_layout;
  PetscInt             ndescribed, *described;

  PetscFunctionBegin;
  PetscCall(CheckpointReader(comm, path, &r));
  PetscCall(PetscLogEventBegin(TALUS_EventCheckpointRead, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(TalusH5Open(&r));
  PetscCall(ReadInfo(&r, &info, &snap.state));
  nm = info.nmaterials;
  TalusH5CheckExtent(&r, "bodies/id", info.nfinite);
  TalusH5CheckExtent(&r, "planes/id", info.nplanes);
  TalusH5CheckExtent(&r, "contacts/rank", info.ncontacts);
  TalusH5CheckExtent(&r, "materials/mu_density", nm);
  TalusH5CheckExtent(&r, "materials/names", 64 * nm);
  PetscCall(TalusH5Verdict(&r));
  lo = SliceStart(info.nfinite, r.size, r.rank), hi = SliceStart(info.nfinite, r.size, r.rank + 1);
  clo = SliceStart(info.ncontacts, r.size, r.rank), chi = SliceStart(info.ncontacts, r.size, r.rank + 1);
  PetscCall(PetscMalloc3(hi - lo + 1, &rows, info.nplanes + 1, &planes, chi - clo + 1,
                         &crows)); /* every stored field is read into them */
  PetscCall(TalusCheckpointReadMaterials(&r, &info, &materials, &mu_pair));
  PetscCall(TalusH5ReadTable(&r, "planes", body_fields, NFIELDS(body_fields), sizeof(BodyRow), info.nplanes, 0,
                             info.nplanes, planes, PETSC_FALSE));
  PetscCall(TalusH5ReadTable(&r, "bodies", body_fields, NFIELDS(body_fields), sizeof(BodyRow), info.nfinite, lo,
                             hi - lo, rows, PETSC_TRUE));
  PetscCall(TalusH5ReadTable(&r, "contacts", contact_fields, NFIELDS(contact_fields), sizeof(ContactRow),
                             info.ncontacts, clo, chi - clo, crows, PETSC_TRUE));
  /* the modules' sections (joints, drives, tables, planar bodies), each into its state, checked as a scene */
  section = (TalusModuleSection){.r       = &r,
                                 .version = info.version,
                                 .nfinite = info.nfinite,
                                 .max_id  = info.nfinite + info.nplanes + info.bodies_lost};
  PetscCall(TalusSimModulesCheckpointRead(sim, &section));
  PetscCall(TalusH5ReadShapeData(&section, &ndescribed, &described));
  for (PetscInt k = 0; k < hi - lo && !r.bad; k++) { /* the bodies' numbers of their descriptions, as added here */
    TalusShape s;
    if (rows[k].body.id >= 0 && TalusShapeFromCode(rows[k].body.shape, &s) && TalusShapeTable[s].size_len == 0 &&
        !TalusH5MapShapeNumber(ndescribed, described, &rows[k].body.size[0]))
      TalusH5Fault(&r, "%s", "a hull or a compound names a shape description the file does not have");
  }
  PetscCall(PetscFree(described));
  PetscCall(TalusH5ReadText(&r, "scene", scene_text));
  PetscCall(TalusH5ReadText(&r, "options",
                            &options)); /* read to verify its checksum; inserted by TalusCheckpointFileInsertOptions */
  if (info.version >= 5) PetscCall(TalusH5ReadText(&r, "overrides", &overrides)); /* the -set the run had */
  if (!r.bad) {
    const PetscInt max_id = info.nfinite + info.nplanes + info.bodies_lost;
    PetscInt       live   = 0;
    const char    *fault;
    for (PetscInt p = 0; p < info.nplanes; p++)
      if ((fault = RowFault(&planes[p], nm, max_id, info.ranks, PETSC_TRUE))) TalusH5Fault(&r, "a plane has %s", fault);
    for (PetscInt k = 0; k < hi - lo; k++) {
      if (rows[k].body.id < 0) continue;
      live++;
      if ((fault = RowFault(&rows[k], nm, max_id, info.ranks, PETSC_FALSE))) TalusH5Fault(&r, "a body has %s", fault);
    }
    for (PetscInt h = 0; h < chi - clo; h++)
      if ((fault = ContactFault(&crows[h], max_id, info.nfinite, info.ranks)))
        TalusH5Fault(&r, "a warm-start contact has %s", fault);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &live, 1, MPIU_INT, MPI_SUM, comm));
    if (live != info.nbodies) TalusH5Fault(&r, "%s", "the number of bodies does not match the header");
    { /* collective: only where no rank has met a fault in its rows */
      int any_bad = r.bad;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &any_bad, 1, MPI_INT, MPI_MAX, comm));
      if (!any_bad) PetscCall(CheckUniqueIds(&r, rows, hi - lo, info.nplanes, planes, max_id, live));
    }
  }
  PetscCall(PetscFree(options));
  if (r.bad) {
    PetscCall(PetscFree3(rows, planes, crows));
    PetscCall(PetscFree(materials));
    PetscCall(PetscFree(mu_pair));
    PetscCall(PetscFree(overrides));
    PetscCall(PetscFree(*scene_text));
  }
  PetscCall(TalusH5Verdict(&r));
  TalusH5Close(&r);
  PetscCall(PetscTime(&t1));
  if (io_seconds) *io_seconds = t1 - t0; /* the file's part: the rest is redistribution */

  /* everything read and checked: the simulator takes it as a snapshot */
  /* on as many ranks as wrote it, every body returns to the rank that owned it, so the run's
     repartition at this step sees the same input as the run that wrote the file did; on other rank
     counts, bodies stay with the rank that read their slice, and warm starts go to it */
  same_layout = (PetscBool)(info.ranks == r.size);
  PetscCall(PetscMalloc5(info.nplanes + 1, &plane_records, hi - lo + 1, &records, hi - lo + 1, &dest, chi - clo + 1,
                         &history, chi - clo + 1, &hdest));
  for (PetscInt p = 0; p < info.nplanes; p++) {
    plane_records[p]      = planes[p].body;
    plane_records[p].slot = -1, plane_records[p].dof = -1;
  }
  for (PetscInt k = 0; k < hi - lo; k++) {
    if (rows[k].body.id < 0) continue;
    records[nkeep]      = rows[k].body;
    records[nkeep].slot = lo + k;
    records[nkeep].dof  = -1;
    dest[nkeep++]       = same_layout ? (PetscMPIInt)rows[k].rank : r.rank;
  }
  for (PetscInt h = 0; h < chi - clo; h++) {
    history[h] = crows[h].h;
    hdest[h]   = same_layout ? (PetscMPIInt)crows[h].rank : SliceRank(info.nfinite, r.size, crows[h].owner_slot);
  }
  snap.nmaterials   = nm;
  snap.materials    = materials;
  snap.mu_pair      = mu_pair;
  snap.nplanes      = info.nplanes;
  snap.planes       = plane_records;
  snap.nbodies      = nkeep;
  snap.bodies       = records;
  snap.body_rank    = dest;
  snap.nhistory     = chi - clo;
  snap.history      = history;
  snap.history_rank = hdest;
  PetscCall(TalusSimRestore(sim, &snap));

  PetscCall(PetscMemzero(scene, sizeof(*scene)));
  PetscCall(PetscStrncpy(scene->name, info.scene_name, sizeof(scene->name)));
  PetscCall(PetscStrncpy(scene->file, path, sizeof(scene->file)));
  for (int d = 0; d < 3; d++)
    scene->domain_min[d] = snap.state.domain_min[d], scene->domain_max[d] = snap.state.domain_max[d];
  scene->overlap_tolerance = 1e-6;
  if (overrides) PetscCall(PetscStrncpy(scene->overrides, overrides, sizeof(scene->overrides)));
  PetscCall(PetscFree(overrides));

  PetscCall(PetscFree5(plane_records, records, dest, history, hdest));
  PetscCall(PetscFree3(rows, planes, crows));
  PetscCall(PetscFree(materials));
  PetscCall(PetscFree(mu_pair));
  PetscCall(PetscLogEventEnd(TALUS_EventCheckpointRead, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}
