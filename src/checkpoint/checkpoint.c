/*
 * When and where checkpoints are written (see include/talus/checkpoint.h and
 * docs/checkpoint-format.md for the guarantees):
 *   - every -checkpoint_every steps, every -checkpoint_interval seconds of wall time;
 *   - on SIGTERM, SIGINT or SIGUSR1: the handler only notes the signal; the ranks agree on it
 *     between steps (one reduction) and write together, then the run exits with
 *     TALUS_EXIT_RESUBMIT;
 *   - before -walltime runs out, leaving a margin of two of the longest steps and two of the
 *     slowest checkpoint writes seen so far (plus -walltime_margin).
 * A checkpoint is written to ckpt-<step>.h5.tmp, synced, renamed to ckpt-<step>.h5, and last.h5
 * (a symbolic link) is replaced atomically; only then are checkpoints beyond the newest
 * -checkpoint_keep removed. A crash at any point leaves the previous checkpoint whole.
 */
#define _DEFAULT_SOURCE /* symlink, scandir */
#include <talus/checkpoint.h>
#include "../io/files.h"
#include <errno.h>
#include <signal.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

struct _p_TalusCheckpoint {
  MPI_Comm       comm;
  PetscMPIInt    rank;
  char           dir[PETSC_MAX_PATH_LEN];
  TalusScene     scene;
  char          *scene_text;
  PetscInt       every, keep, kill_during; /* kill_during: test only (see TalusCheckpointSetFromOptions) */
  PetscReal      interval, walltime, margin;
  PetscLogDouble start, last_write, last_step_end, longest_step, slowest_write;
  PetscInt       last_step_written, written;
  PetscBool      setup, view, have_dir;
  double         last_size; /* bytes of the last checkpoint written (rank 0), for the next one's room */
  PetscErrorCode (*before_publish)(void *);
  void *before_publish_ctx;
};

/* Reasons for a checkpoint, OR-ed over the ranks */
enum {
  DUE_SCHEDULE = 1,
  DUE_INTERVAL = 2,
  DUE_SIGNAL   = 4,
  DUE_WALLTIME = 8
};

static volatile sig_atomic_t caught_signal = 0;

static void NoteSignal(int sig)
{
  caught_signal = sig;
}

PetscErrorCode TalusCheckpointCreate(MPI_Comm comm, TalusCheckpoint *ck)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ck));
  (*ck)->comm              = comm;
  (*ck)->keep              = 2;
  (*ck)->margin            = 0.0;
  (*ck)->last_step_written = -1;
  PetscCallMPI(MPI_Comm_rank(comm, &(*ck)->rank));
  PetscCall(PetscStrncpy((*ck)->dir, "checkpoints", sizeof((*ck)->dir)));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointDestroy(TalusCheckpoint *ck)
{
  PetscFunctionBegin;
  if (!*ck) PetscFunctionReturn(0);
  PetscCall(PetscFree((*ck)->scene_text));
  PetscCall(PetscFree(*ck));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointSetScene(TalusCheckpoint ck, const TalusScene *scene, const char text[])
{
  PetscFunctionBegin;
  ck->scene = *scene;
  PetscCall(PetscFree(ck->scene_text));
  if (text) PetscCall(PetscStrallocpy(text, &ck->scene_text));
  else PetscCall(TalusSceneReadText(ck->comm, scene->file, &ck->scene_text));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointSetOutputDirectory(TalusCheckpoint ck, const char dir[])
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(ck->dir, sizeof(ck->dir), "%s/checkpoints", dir));
  PetscFunctionReturn(0);
}

/* [D-]HH:MM:SS, MM:SS or SS (Slurm's forms) to seconds; -1 when it is none of them */
PetscReal TalusParseWalltime(const char s[])
{
  long        part[4] = {0, 0, 0, 0}, days = 0;
  int         n = 0, used = 0;
  const char *p = s;

  if (strchr(s, '-')) {
    if (sscanf(s, "%ld-%n", &days, &used) != 1 || days < 0) return -1.0;
    p += used;
  }
  while (*p && n < 3) {
    char *end;
    part[n++] = strtol(p, &end, 10);
    if (end == p || part[n - 1] < 0) return -1.0;
    p = end;
    if (*p == ':') p++;
    else if (*p) return -1.0;
  }
  if (*p || n == 0) return -1.0;
  if (used) { /* after days, Slurm's forms: D-HH, D-HH:MM, D-HH:MM:SS (1-12 is a day and 12 hours) */
    if (part[0] > 23 || part[1] > 59 || part[2] > 59) return -1.0;
    return (PetscReal)(days * 86400 + part[0] * 3600 + part[1] * 60 + part[2]);
  }
  if (n == 1) return (PetscReal)part[0];
  if (part[n - 1] > 59 || (n == 3 && part[1] > 59)) return -1.0; /* 12:99 is no time Slurm writes */
  if (n == 2) return (PetscReal)(part[0] * 60 + part[1]);
  return (PetscReal)(part[0] * 3600 + part[1] * 60 + part[2]);
}

PetscErrorCode TalusCheckpointSetFromOptions(TalusCheckpoint ck)
{
  char      walltime[64] = "";
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsBegin(ck->comm, NULL, "Checkpoints and restart (docs/checkpoint-format.md)", "TalusCheckpoint");
  PetscCall(PetscOptionsInt("-checkpoint_every", "Write a checkpoint every this many steps (0: not on a step schedule)",
                            "", ck->every, &ck->every, NULL));
  PetscCall(PetscOptionsReal("-checkpoint_interval",
                             "Write a checkpoint every this many seconds of wall time (0: never on a clock)", "",
                             ck->interval, &ck->interval, NULL));
  PetscCall(PetscOptionsInt("-checkpoint_keep",
                            "Keep the newest this many checkpoints (older ones are deleted once a new one is safe)", "",
                            ck->keep, &ck->keep, NULL));
  PetscCall(PetscOptionsString("-checkpoint_dir", "Directory of the checkpoints (default: OUTPUT_DIR/checkpoints)", "",
                               ck->dir, ck->dir, sizeof(ck->dir), NULL));
  PetscCall(PetscOptionsString(
    "-walltime", "The job's wall-clock limit, [D-]HH:MM:SS: checkpoint and exit with status 75 before it runs out", "",
    walltime, walltime, sizeof(walltime), &set));
  PetscCall(PetscOptionsReal("-walltime_margin",
                             "Seconds kept in hand before -walltime, on top of two of the longest steps and two of the "
                             "slowest checkpoint writes",
                             "", ck->margin, &ck->margin, NULL));
  PetscCall(PetscOptionsBool("-checkpoint_view", "Print the checkpoint settings at the start", "TalusCheckpointView",
                             ck->view, &ck->view, NULL));
  PetscCall(PetscOptionsInt("-checkpoint_test_kill",
                            "Testing only: SIGKILL every rank in the middle of writing the N-th checkpoint", "",
                            ck->kill_during, &ck->kill_during, NULL));
  PetscOptionsEnd();
  PetscCheck(ck->every >= 0, ck->comm, PETSC_ERR_USER_INPUT, "-checkpoint_every must be >= 0, got %" PetscInt_FMT,
             ck->every);
  PetscCheck(ck->interval >= 0.0, ck->comm, PETSC_ERR_USER_INPUT, "-checkpoint_interval must be >= 0 s, got %g",
             (double)ck->interval);
  PetscCheck(ck->keep >= 1, ck->comm, PETSC_ERR_USER_INPUT, "-checkpoint_keep must be >= 1, got %" PetscInt_FMT,
             ck->keep);
  PetscCheck(ck->margin >= 0.0, ck->comm, PETSC_ERR_USER_INPUT, "-walltime_margin must be >= 0 s, got %g",
             (double)ck->margin);
  if (set) {
    ck->walltime = TalusParseWalltime(walltime);
    PetscCheck(
      ck->walltime > 0.0, ck->comm, PETSC_ERR_USER_INPUT,
      "-walltime %s: expected HH:MM:SS, MM:SS or SS, or with days D-HH, D-HH:MM or D-HH:MM:SS (Slurm's forms), "
      "more than 0",
      walltime);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeDirectory(TalusCheckpoint ck)
{
  PetscFunctionBegin;
  if (!ck->have_dir) PetscCall(TalusMakeDirectory(ck->comm, ck->dir));
  ck->have_dir = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscBool Planned(TalusCheckpoint ck)
{
  return (PetscBool)(ck->every > 0 || ck->interval > 0.0 || ck->walltime > 0.0);
}

/* A second signal of the same kind gets its default action (SA_RESETHAND): an impatient Ctrl-C still
   ends the run at once. */
void TalusCatchStopSignals(void)
{
  struct sigaction action;

  memset(&action, 0, sizeof(action));
  action.sa_handler = NoteSignal;
  action.sa_flags   = SA_RESTART | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGUSR1, &action, NULL);
}

int TalusStopSignal(void)
{
  return (int)caught_signal;
}

PetscErrorCode TalusCheckpointSetWalltime(TalusCheckpoint ck, PetscReal seconds)
{
  PetscFunctionBegin;
  PetscCheck(seconds > 0.0, ck->comm, PETSC_ERR_ARG_OUTOFRANGE, "a wall-clock limit must be > 0 s, got %g",
             (double)seconds);
  ck->walltime = seconds;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointSetUp(TalusCheckpoint ck)
{
  PetscFunctionBegin;
  if (ck->setup) PetscFunctionReturn(0);
  PetscCheck(ck->dir[0], ck->comm, PETSC_ERR_USER_INPUT, "-checkpoint_dir needs a directory");
  { /* a path that is there but not a directory would fail only at the first checkpoint, signals included */
    struct stat st;
    int         not_dir = 0;
    if (ck->rank == 0) not_dir = stat(ck->dir, &st) == 0 && !S_ISDIR(st.st_mode);
    PetscCallMPI(MPI_Bcast(&not_dir, 1, MPI_INT, 0, ck->comm));
    PetscCheck(!not_dir, ck->comm, PETSC_ERR_USER_INPUT, "the checkpoint directory %s is a file, not a directory",
               ck->dir);
  }
  /* now when checkpoints are planned, so that a bad -checkpoint_dir stops the run at its start;
     otherwise at the first checkpoint (a signal) */
  if (Planned(ck)) PetscCall(MakeDirectory(ck));
  PetscCall(PetscTime(&ck->start));
  ck->last_write = ck->last_step_end = ck->start;
  TalusCatchStopSignals();
  ck->setup = PETSC_TRUE;
  if (ck->view) PetscCall(TalusCheckpointView(ck, PETSC_VIEWER_STDOUT_(ck->comm)));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointView(TalusCheckpoint ck, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "checkpoints in %s: every %" PetscInt_FMT " steps, every %g s, keep %" PetscInt_FMT
                                   ", walltime %g s (margin %g s); %" PetscInt_FMT " written\n",
                                   ck->dir, ck->every, (double)ck->interval, ck->keep, (double)ck->walltime,
                                   (double)ck->margin, ck->written));
  PetscFunctionReturn(0);
}

static int CompareNames(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

static int IsCheckpointName(const struct dirent *e)
{
  long s;
  char tail[8] = "";
  return sscanf(e->d_name, "ckpt-%ld%7s", &s, tail) == 2 && !strcmp(tail, ".h5");
}

/* Rank 0: the newest checkpoint becomes last.h5, then the ones beyond the newest `keep` go. */
static int Publish(TalusCheckpoint ck, const char tmp[], const char final[], const char base[])
{
  char            link_tmp[PETSC_MAX_PATH_LEN], link[PETSC_MAX_PATH_LEN], old[PETSC_MAX_PATH_LEN];
  struct dirent **list = NULL;
  int             err, n;

  if ((err = TalusSyncPath(tmp))) return err;
  if (rename(tmp, final) != 0) return errno;
  if (snprintf(link_tmp, sizeof(link_tmp), "%s/last.h5.tmp", ck->dir) >= (int)sizeof(link_tmp)) return ENAMETOOLONG;
  if (snprintf(link, sizeof(link), "%s/last.h5", ck->dir) >= (int)sizeof(link)) return ENAMETOOLONG;
  unlink(link_tmp);
  if (symlink(base, link_tmp) != 0 || rename(link_tmp, link) != 0) return errno;
  if ((err = TalusSyncPath(ck->dir))) return err;
  n = scandir(ck->dir, &list, IsCheckpointName, CompareNames); /* zero-padded steps: oldest first */
  for (int k = 0; k < n; k++) {
    if (k < n - ck->keep) {
      if (snprintf(old, sizeof(old), "%s/%s", ck->dir, list[k]->d_name) < (int)sizeof(old)) unlink(old);
    }
    free(list[k]);
  }
  free(list);
  return 0;
}

PetscErrorCode TalusCheckpointWrite(TalusCheckpoint ck, TalusSim sim)
{
  char           base[64], tmp[PETSC_MAX_PATH_LEN], final[PETSC_MAX_PATH_LEN];
  PetscLogDouble t0, t1, t2, t3;
  PetscInt       step;
  PetscReal      t;
  int            err = 0;
  struct stat    st;

  PetscFunctionBegin;
  PetscCall(TalusCheckpointSetUp(ck));
  PetscCall(MakeDirectory(ck));
  PetscCall(PetscTime(&t0));
  PetscCall(TalusSimCanonicalize(sim));
  PetscCall(TalusSimGetStep(sim, &step));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  PetscCall(PetscSNPrintf(base, sizeof(base), "ckpt-%08" PetscInt_FMT ".h5", step));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/%s.tmp", ck->dir, base));
  PetscCall(PetscSNPrintf(final, sizeof(final), "%s/%s", ck->dir, base));
  { /* room for it, as the last one took (first: 400 B a body, the scene twice, 256 KB), with a quarter more */
    PetscInt total;
    char     what[PETSC_MAX_PATH_LEN + 128];
    size_t   text = 0;
    double   need;
    PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
    if (ck->scene_text) PetscCall(PetscStrlen(ck->scene_text, &text));
    need = ck->last_size > 0.0 ? 1.25 * ck->last_size + 65536.0 : 400.0 * (double)total + 2.0 * (double)text + 262144.0;
    PetscCall(
      PetscSNPrintf(what, sizeof(what), "checkpoint %s (%s)", base,
                    ck->written ? "the previous checkpoint, last.h5, is intact" : "this run has written none yet"));
    PetscCall(TalusRequireFreeSpace(ck->comm, ck->dir, need, what));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(TalusCheckpointFileWrite(sim, &ck->scene, ck->scene_text, tmp));
  if (ck->kill_during && ck->written + 1 == ck->kill_during) { /* test only: die between writing and publishing */
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "talus: -checkpoint_test_kill: killing rank %d while checkpoint %s is unfinished\n", ck->rank,
                          tmp));
    raise(SIGKILL);
  }
  if (ck->before_publish) PetscCall((*ck->before_publish)(ck->before_publish_ctx));
  if (ck->rank == 0) err = Publish(ck, tmp, final, base);
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ck->comm));
  PetscCheck(!err, ck->comm, PETSC_ERR_FILE_WRITE,
             "cannot publish checkpoint %s: %s (the previous checkpoint is untouched)", final, strerror(err));
  PetscCall(PetscTime(&t2));
  PetscCall(TalusSimRepartition(sim));
  PetscCall(PetscTime(&t3));
  ck->slowest_write     = PetscMax(ck->slowest_write, t3 - t0);
  ck->last_write        = t3;
  ck->last_step_written = step;
  ck->written++;
  if (ck->rank == 0 && stat(final, &st) == 0) ck->last_size = (double)st.st_size;
  if (ck->rank == 0 && stat(final, &st) == 0)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "talus: checkpoint %s (step %" PetscInt_FMT
                          ", t = %g s): %.1f MB written and synced in %.3f s (%.0f MB/s), %.3f s in all\n",
                          final, step, (double)t, st.st_size / 1e6, (double)(t2 - t1),
                          st.st_size / 1e6 / PetscMax(t2 - t1, 1e-9), (double)(t3 - t0)));
  PetscFunctionReturn(0);
}

/*
 * A fresh run into a directory that holds an earlier run's checkpoints would leave them for a later
 * -restart DIR/last.h5 (or a job script) to pick up, and its outputs would be mixed with that run's:
 * refused, naming what is there, unless -overwrite, which moves the directory aside to DIR.earlier-K.
 */
PetscErrorCode TalusCheckpointClaimDirectory(TalusCheckpoint ck)
{
  struct dirent **list                           = NULL;
  char            aside[PETSC_MAX_PATH_LEN + 32] = "", last[PETSC_MAX_PATH_LEN + 16];
  int             found = 0, err = 0;
  PetscBool       overwrite = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-overwrite", &overwrite, NULL));
  if (ck->rank == 0) {
    const int n = scandir(ck->dir, &list, IsCheckpointName, CompareNames);
    for (int k = 0; k < n; k++) free(list[k]);
    free(list);
    found = PetscMax(n, 0);
    (void)snprintf(last, sizeof(last), "%s/last.h5", ck->dir);
    if (TalusPathExists(last)) found++;
    if (found && overwrite) {
      for (int k = 1; k < 1000 && !aside[0]; k++) {
        (void)snprintf(aside, sizeof(aside), "%s.earlier-%d", ck->dir, k);
        if (TalusPathExists(aside)) aside[0] = 0;
      }
      if (!aside[0] || rename(ck->dir, aside) != 0) err = aside[0] ? errno : EEXIST;
    }
  }
  PetscCallMPI(MPI_Bcast(&found, 1, MPI_INT, 0, ck->comm));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ck->comm));
  PetscCallMPI(MPI_Bcast(aside, sizeof(aside), MPI_CHAR, 0, ck->comm));
  if (!found) PetscFunctionReturn(0);
  PetscCheck(overwrite, ck->comm, PETSC_ERR_USER_INPUT,
             "%s holds %d checkpoint file%s of an earlier run (talus info %s/last.h5 says which): continue it with "
             "-restart %s/last.h5, or start afresh with -overwrite (which moves them aside), or choose another -o or "
             "-checkpoint_dir",
             ck->dir, found, found > 1 ? "s" : "", ck->dir, ck->dir);
  PetscCheck(!err, ck->comm, PETSC_ERR_FILE_WRITE, "-overwrite: cannot move %s aside: %s", ck->dir, strerror(err));
  ck->have_dir = PETSC_FALSE;
  PetscCall(
    PetscPrintf(ck->comm, "talus: -overwrite: the earlier run's checkpoints in %s moved to %s\n", ck->dir, aside));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointSetBeforePublish(TalusCheckpoint ck, PetscErrorCode (*fn)(void *), void *ctx)
{
  PetscFunctionBegin;
  ck->before_publish     = fn;
  ck->before_publish_ctx = ctx;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointAfterStep(TalusCheckpoint ck, TalusSim sim, PetscBool *stop)
{
  int            due = 0, all;
  PetscLogDouble now;
  PetscInt       step;
  PetscReal      t, t_final, dt;

  PetscFunctionBegin;
  *stop = PETSC_FALSE;
  PetscCall(TalusCheckpointSetUp(ck));
  PetscCall(TalusSimGetStep(sim, &step));
  PetscCall(TalusSimGetTime(sim, &t, &t_final, &dt));
  PetscCall(PetscTime(&now));
  ck->longest_step  = PetscMax(ck->longest_step, now - ck->last_step_end);
  ck->last_step_end = now;
  if (ck->every > 0 && step % ck->every == 0) due |= DUE_SCHEDULE;
  if (caught_signal) due |= DUE_SIGNAL;
  if (ck->rank == 0) { /* one clock decides */
    if (ck->interval > 0.0 && now - ck->last_write >= ck->interval) due |= DUE_INTERVAL;
    if (ck->walltime > 0.0 &&
        now - ck->start + ck->margin + 2.0 * ck->longest_step + 2.0 * ck->slowest_write >= ck->walltime)
      due |= DUE_WALLTIME;
  }
  PetscCallMPI(MPI_Allreduce(&due, &all, 1, MPI_INT, MPI_BOR, ck->comm));
  if (!all) PetscFunctionReturn(0);
  if (ck->last_step_written != step) PetscCall(TalusCheckpointWrite(ck, sim));
  /* a signal or the clock during the last step: the checkpoint is written and the run is finished, so
     it ends as done, not as a run to go on with (a restart would have no step to take) */
  if ((all & (DUE_SIGNAL | DUE_WALLTIME)) && t < t_final - 0.5 * dt) {
    *stop = PETSC_TRUE;
    PetscCall(PetscPrintf(
      ck->comm,
      "talus: %s at step %" PetscInt_FMT
      " (t = %g s): checkpoint written, stopping with exit status %d; restart with: talus -restart %s/last.h5\n",
      (all & DUE_SIGNAL) ? "signal received" : "wall-clock limit near", step, (double)t, TALUS_EXIT_RESUBMIT, ck->dir));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointEnd(TalusCheckpoint ck, TalusSim sim)
{
  PetscInt step;

  PetscFunctionBegin;
  PetscCall(TalusSimGetStep(sim, &step));
  if (Planned(ck) && ck->last_step_written != step) PetscCall(TalusCheckpointWrite(ck, sim));
  PetscFunctionReturn(0);
}
