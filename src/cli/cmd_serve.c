/*
 * mpirun -n P talus serve CAMPAIGN [-serve_group_size G] [-walltime HH:MM:SS] [-serve_idle_exit S]
 * (docs/campaigns.md): runs a campaign's queue in one allocation. The P ranks are split into P/G
 * groups before PETSc starts (main.c), each group its own PETSC_COMM_WORLD; a group takes the next
 * job (interrupted ones first, then queued ones in id order), runs it as talus would run it alone
 * (TalusRun) with its outputs in CAMPAIGN/jobs/ID/, and takes the next, until nothing is left to take
 * (or, with -serve_idle_exit S, nothing has come for S seconds).
 *
 * Groups never talk to each other while they serve: a job is taken by locking it (campaign_state.c),
 * which also keeps two servers on one campaign apart, and every state is a file. Each job gets a
 * fresh options database holding the server's command-line options (without its own), into which
 * its scene or checkpoint puts theirs, so no job sees another's options. A signal (SIGTERM, SIGUSR1)
 * or the -walltime limit stops every running job after a checkpoint, marks it interrupted and ends
 * the server with status 75 when jobs are left; a job that fails is marked failed with its error and
 * the group goes on.
 */
#define _DEFAULT_SOURCE /* gethostname, nanosleep, strdup */
#include <talus.h>
#include <talus/campaign.h>
#include <talus/checkpoint.h>
#include <talus/options.h>
#include "commands.h"
#include <unistd.h>
#include <time.h>

typedef struct {
  char           campaign[PETSC_MAX_PATH_LEN];
  MPI_Comm       world;
  PetscMPIInt    group, ngroups, rank, size; /* rank and size in the group */
  PetscReal      walltime, margin, idle_exit, status_interval, checkpoint_interval;
  PetscLogDouble start;
  char          *job_options; /* the command line's, given to every job */
  /* the job running (its state is kept by the group's rank 0) */
  char           id[TALUS_JOB_ID_LEN];
  int            lock;
  TalusJobStatus status;
  PetscLogDouble job_start, last_status;
  PetscReal      wall_before, t_begin;
} Server;

static PetscErrorCode Say(Server *s, const char format[], const char a[], const char b[])
{
  PetscFunctionBegin;
  if (s->rank == 0) {
    fprintf(stdout, "talus serve [group %d]: ", (int)s->group);
    fprintf(stdout, format, a, b);
    fputc('\n', stdout);
    fflush(stdout);
  }
  PetscFunctionReturn(0);
}

/* The job's state file and status.json (rank 0); a failure to write them (a full disk) is reported by
   the error handler and does not stop the job */
static void Publish(Server *s)
{
  if (s->rank != 0) return;
  if (!TalusCampaignWriteState(s->campaign, s->id, &s->status)) (void)TalusCampaignWriteStatus(s->campaign);
}

/* After every step (TalusRun's progress): where the job is, written every -serve_status_interval s */
static PetscErrorCode Progress(void *ctx, TalusSim sim)
{
  Server        *s = (Server *)ctx;
  PetscLogDouble now;

  PetscFunctionBegin;
  PetscCall(TalusSimGetStep(sim, &s->status.step));
  PetscCall(TalusSimGetTime(sim, &s->status.t, &s->status.t_final, NULL));
  PetscCall(PetscTime(&now));
  if (s->rank == 0 && now - s->last_status >= s->status_interval) {
    const PetscReal ran = (PetscReal)(now - s->job_start), done = s->status.t - s->t_begin;
    s->status.wall_s = s->wall_before + ran;
    s->status.eta_s  = done > 0.0 ? ran * (s->status.t_final - s->status.t) / done : -1.0;
    s->last_status   = now;
    Publish(s);
  }
  PetscFunctionReturn(0);
}

/* A string from the group's rank 0 to all its ranks (*text malloc'd with PetscMalloc) */
static PetscErrorCode BcastString(Server *s, char **text)
{
  long n = s->rank == 0 ? (*text ? (long)strlen(*text) : -1) : 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&n, 1, MPI_LONG, 0, PETSC_COMM_WORLD));
  if (s->rank != 0) *text = NULL;
  if (n < 0) PetscFunctionReturn(0);
  if (s->rank != 0) PetscCall(PetscCalloc1(n + 1, text));
  PetscCallMPI(MPI_Bcast(*text, (PetscMPIInt)n, MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* Rank 0: the next job this server may run, locked (s->id, s->lock), or none (s->id empty). Jobs
   interrupted (or left running by a server that died: their lock is free) come first when they ran
   on groups of this size (a restart on as many ranks is bitwise the run that never stopped), then
   queued ones, then interrupted ones that ran on another number of ranks (rather than none). */
static PetscErrorCode TakeJob(Server *s)
{
  PetscInt n;
  char   **ids;

  PetscFunctionBegin;
  s->id[0] = 0, s->lock = -1;
  PetscCall(TalusCampaignListJobs(s->campaign, &n, &ids));
  for (int pass = 0; pass < 3 && !s->id[0]; pass++)
    for (PetscInt k = 0; k < n && !s->id[0]; k++) {
      TalusJobStatus  st;
      PetscBool       want;
      const PetscBool same = (PetscBool)(pass == 0);
      PetscCall(TalusCampaignReadState(s->campaign, ids[k], &st));
      if (pass == 1) want = (PetscBool)(st.state == TALUS_JOB_QUEUED);
      else
        want = (PetscBool)((st.state == TALUS_JOB_RUNNING || st.state == TALUS_JOB_INTERRUPTED) &&
                           (st.ranks == s->size) == same);
      if (!want) continue;
      PetscCall(TalusCampaignLockJob(s->campaign, ids[k], &s->lock));
      if (s->lock < 0) continue;                                   /* another group's, or another server's */
      PetscCall(TalusCampaignReadState(s->campaign, ids[k], &st)); /* it may have ended before we locked it */
      if (st.state == TALUS_JOB_DONE || st.state == TALUS_JOB_FAILED) {
        PetscCall(TalusCampaignUnlockJob(&s->lock));
        continue;
      }
      PetscCall(PetscStrncpy(s->id, ids[k], sizeof(s->id)));
      s->status = st;
    }
  PetscCall(PetscFree(ids));
  PetscFunctionReturn(0);
}

/* The job in a fresh options database holding the server's command-line options */
static PetscErrorCode RunInOwnOptions(Server *s, const TalusRunSpec *spec, int *exit_status)
{
  PetscOptions   options;
  PetscBool      scheduled = PETSC_FALSE, has;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(&options));
  PetscCall(PetscOptionsPush(options));
  PetscCall(TalusOptionsForgetOrigins());
  ierr = TalusOptionsInsertUnlessGiven(s->job_options, NULL);
  for (const char *const *name = (const char *const[]){"-checkpoint_every", "-checkpoint_interval", NULL};
       !ierr && *name; name++)
    if (!(ierr = PetscOptionsHasName(NULL, NULL, *name, &has))) scheduled = (PetscBool)(scheduled || has);
  if (!ierr && !scheduled && s->checkpoint_interval > 0.0) { /* so that a killed server loses little */
    char value[32];
    snprintf(value, sizeof(value), "%g", (double)s->checkpoint_interval);
    ierr = PetscOptionsSetValue(NULL, "-checkpoint_interval", value);
  }
  /* a fresh start of a job that ran before without leaving a checkpoint to resume (killed while
     writing its first): what it wrote is moved aside, not refused */
  if (!ierr && !spec->restart) ierr = PetscOptionsSetValue(NULL, "-overwrite", "true");
  if (!ierr) ierr = TalusRun(spec, exit_status);
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&options));
  PetscCall(TalusOptionsForgetOrigins());
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Runs the job taken (all ranks of the group); its outcome in its state */
static PetscErrorCode RunJob(Server *s)
{
  TalusJob       job        = {0};
  char          *scene_text = NULL, *overrides = NULL, *fault = NULL, *restart = NULL;
  char           dir[PETSC_MAX_PATH_LEN], log[PETSC_MAX_PATH_LEN + 16], scene_file[PETSC_MAX_PATH_LEN] = "";
  int            exit_status = 0;
  PetscErrorCode ierr;
  FILE          *stdout_before = PETSC_STDOUT, *logfp = NULL;
  TalusRunSpec   spec         = {.progress = Progress, .progress_ctx = s};
  int            ranks_before = 0;

  PetscFunctionBegin;
  PetscCall(TalusCampaignJobDirectory(s->campaign, s->id, dir, sizeof(dir)));
  if (s->rank == 0) {
    char text[600], ckpt[PETSC_MAX_PATH_LEN + 32];
    PetscCall(TalusCampaignReadJob(s->campaign, s->id, &job, text, sizeof(text)));
    if (text[0]) PetscCall(PetscStrallocpy(text, &fault));
    else {
      scene_text = job.scene_text, overrides = job.overrides, job.scene_text = job.overrides = NULL;
      PetscCall(PetscStrncpy(scene_file, job.scene_file, sizeof(scene_file)));
    }
    PetscCall(PetscSNPrintf(ckpt, sizeof(ckpt), "%s/checkpoints/last.h5", dir));
    if (!fault && s->status.state != TALUS_JOB_QUEUED && access(ckpt, R_OK) == 0)
      PetscCall(PetscStrallocpy(ckpt, &restart));
    ranks_before    = (int)s->status.ranks;
    s->wall_before  = s->status.wall_s;
    s->status.state = TALUS_JOB_RUNNING, s->status.group = s->group, s->status.ranks = s->size;
    s->status.attempts++, s->status.eta_s = -1.0, s->status.reason[0] = s->status.message[0] = 0;
    s->status.pid = (PetscInt)getpid();
    (void)gethostname(s->status.host, sizeof(s->status.host) - 1);
    Publish(s);
  }
  PetscCall(BcastString(s, &fault));
  PetscCall(BcastString(s, &scene_text));
  PetscCall(BcastString(s, &overrides));
  PetscCall(BcastString(s, &restart));
  PetscCallMPI(MPI_Bcast(&ranks_before, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Bcast(scene_file, sizeof(scene_file), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCall(Say(s, restart ? "%s: resumed from %s" : "%s: started%s", s->id, restart ? restart : ""));
  if (restart && ranks_before != s->size) {
    char ranks[64];
    PetscCall(PetscSNPrintf(ranks, sizeof(ranks), "%d ranks, it ran on %d", (int)s->size, ranks_before));
    PetscCall(Say(s, "%s: resumed on %s: the same up to rounding, not bitwise (docs/campaigns.md)", s->id, ranks));
  }
  PetscCall(PetscTime(&s->job_start));
  s->last_status = s->job_start, s->t_begin = s->status.t;
  if (fault) ierr = PETSC_ERR_USER_INPUT;
  else {
    spec.output_dir = dir;
    spec.restart    = restart;
    spec.scene_file = restart ? NULL : scene_file;
    spec.scene_text = restart ? NULL : scene_text;
    spec.overrides  = restart ? NULL : overrides;
    if (s->walltime > 0.0) spec.walltime = PetscMax(s->walltime - s->margin - (s->job_start - s->start), 1e-3);
    PetscCall(PetscSNPrintf(log, sizeof(log), "%s/talus.log", dir));
    if (s->rank == 0 && (logfp = fopen(log, "a"))) PETSC_STDOUT = logfp; /* the job's lines, apart */
    ierr         = RunInOwnOptions(s, &spec, &exit_status);
    PETSC_STDOUT = stdout_before;
    if (logfp) fclose(logfp);
  }
  if (ierr && !fault && s->size > 1 && !TalusErrorWasCollective()) {
    /* an error on some ranks of the group: the others may be waiting for them in a collective call
       that will never come; this rank records the failure and ends the server (its other groups'
       jobs resume from their checkpoints at the next start) */
    s->status.state = TALUS_JOB_FAILED;
    PetscCall(PetscStrncpy(s->status.reason, "error", sizeof(s->status.reason)));
    PetscCall(PetscStrncpy(s->status.message, TalusErrorLastMessage(), sizeof(s->status.message)));
    (void)TalusCampaignWriteState(s->campaign, s->id, &s->status);
    MPI_Abort(s->world, 1);
  }
  if (s->rank == 0) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    s->status.wall_s = s->wall_before + (PetscReal)(now - s->job_start), s->status.eta_s = -1.0;
    if (ierr) {
      s->status.state = TALUS_JOB_FAILED;
      PetscCall(PetscStrncpy(s->status.reason, "error", sizeof(s->status.reason)));
      PetscCall(PetscStrncpy(s->status.message, fault ? fault : TalusErrorLastMessage(), sizeof(s->status.message)));
    } else if (exit_status == TALUS_EXIT_RESUBMIT) {
      s->status.state = TALUS_JOB_INTERRUPTED;
      PetscCall(PetscStrncpy(s->status.reason, TalusStopSignal() ? "signal" : "walltime", sizeof(s->status.reason)));
    } else {
      s->status.state = TALUS_JOB_DONE;
      PetscCall(PetscStrncpy(s->status.reason, "end time", sizeof(s->status.reason)));
    }
    Publish(s);
    PetscCall(TalusCampaignUnlockJob(&s->lock));
  }
  if (ierr) PetscCall(Say(s, "%s: failed: %s", s->id, fault ? fault : TalusErrorLastMessage()));
  else PetscCall(Say(s, "%s: %s", s->id, exit_status ? "interrupted after a checkpoint" : "done"));
  PetscCall(PetscFree(fault));
  PetscCall(PetscFree(scene_text));
  PetscCall(PetscFree(overrides));
  PetscCall(PetscFree(restart));
  PetscCall(TalusJobReset(&job));
  PetscFunctionReturn(0);
}

/* Whether the group stops taking jobs: a signal on any of its ranks, or the wall-clock limit near */
static PetscErrorCode ShouldStop(Server *s, PetscBool *stop)
{
  int            mine = TalusStopSignal() != 0, any;
  PetscLogDouble now;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  if (s->walltime > 0.0 && now - s->start >= s->walltime - s->margin) mine = 1;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  *stop = (PetscBool)any;
  PetscFunctionReturn(0);
}

/* The group's loop: jobs until none is left (or none came for -serve_idle_exit s), or a stop */
static PetscErrorCode Serve(Server *s, PetscBool *stopped)
{
  PetscLogDouble idle_since = -1.0, now;

  PetscFunctionBegin;
  *stopped = PETSC_FALSE;
  for (;;) {
    PetscCall(ShouldStop(s, stopped));
    if (*stopped) break;
    if (s->rank == 0) PetscCall(TakeJob(s));
    PetscCallMPI(MPI_Bcast(s->id, sizeof(s->id), MPI_CHAR, 0, PETSC_COMM_WORLD));
    if (s->id[0]) {
      idle_since = -1.0;
      PetscCall(RunJob(s));
      continue;
    }
    PetscCall(PetscTime(&now));
    if (idle_since < 0.0) idle_since = now;
    if (now - idle_since >= s->idle_exit) break;
    PetscCall(PetscSleep(PetscMin(1.0, s->idle_exit)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ServerSetFromOptions(Server *s, PetscInt *group_size)
{
  char      walltime[64] = "";
  PetscBool set;

  PetscFunctionBegin;
  s->idle_exit = 0.0, s->status_interval = 2.0, s->checkpoint_interval = 600.0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Serving a campaign (talus serve; docs/campaigns.md)", "talus");
  PetscCall(PetscOptionsInt("-serve_group_size", "Ranks per job: the P ranks run P/G jobs at a time", "", *group_size,
                            group_size, NULL));
  PetscCall(PetscOptionsString("-walltime",
                               "The allocation's wall-clock limit, [D-]HH:MM:SS: running jobs checkpoint and the "
                               "server exits with status 75 before it",
                               "", walltime, walltime, sizeof(walltime), &set));
  PetscCall(
    PetscOptionsReal("-walltime_margin", "Seconds kept in hand before -walltime", "", s->margin, &s->margin, NULL));
  PetscCall(PetscOptionsReal("-serve_idle_exit",
                             "Wait this many seconds for new jobs once nothing is left to take (0: exit at once)", "",
                             s->idle_exit, &s->idle_exit, NULL));
  PetscCall(PetscOptionsReal("-serve_status_interval", "Seconds between updates of a running job's state", "",
                             s->status_interval, &s->status_interval, NULL));
  PetscCall(PetscOptionsReal("-serve_checkpoint_interval",
                             "Jobs given no -checkpoint_every or -checkpoint_interval checkpoint every this many "
                             "seconds of wall time, so a killed server loses little (0: never)",
                             "", s->checkpoint_interval, &s->checkpoint_interval, NULL));
  PetscOptionsEnd();
  PetscCheck(s->idle_exit >= 0.0 && s->status_interval >= 0.0 && s->checkpoint_interval >= 0.0 && s->margin >= 0.0,
             PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-serve_idle_exit, -serve_status_interval, -serve_checkpoint_interval and -walltime_margin must be >= 0");
  if (set) {
    s->walltime = TalusParseWalltime(walltime);
    PetscCheck(s->walltime > 0.0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "-walltime %s: expected HH:MM:SS, MM:SS or SS, or with days D-HH, D-HH:MM or D-HH:MM:SS (Slurm's "
               "forms), more than 0",
               walltime);
    /* a server that would stop before its first job would be requeued for nothing, again and again */
    PetscCheck(s->walltime > s->margin, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "-walltime %s (%g s) leaves no time to run jobs after -walltime_margin %g s", walltime,
               (double)s->walltime, (double)s->margin);
  }
  for (const char *const *name = (const char *const[]){"-o", "-restart", "-overwrite", NULL}; *name; name++) {
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, *name, &given));
    PetscCheck(!given, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "talus serve does not take %s: each job writes to CAMPAIGN/jobs/ID/ and resumes from its own "
               "checkpoints",
               *name);
  }
  PetscFunctionReturn(0);
}

/* Everything before the first job: the options, the group size, the campaign */
static PetscErrorCode ServerSetUp(Server *s, int argc, char **argv, PetscInt group_size, PetscBool *help)
{
  PetscMPIInt world_size, world_rank;
  PetscInt    asked = group_size;

  PetscFunctionBegin;
  PetscCheck(argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "mpirun -n P talus serve CAMPAIGN [-serve_group_size G] [-walltime HH:MM:SS] [-serve_idle_exit S]: give "
             "the campaign's directory");
  PetscCall(PetscStrncpy(s->campaign, argv[1], sizeof(s->campaign)));
  PetscCallMPI(MPI_Comm_size(s->world, &world_size));
  PetscCallMPI(MPI_Comm_rank(s->world, &world_rank));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &s->rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &s->size));
  PetscCall(TalusOptionsCheckNumbers(PETSC_COMM_WORLD)); /* -serve_group_size two, named */
  PetscCall(ServerSetFromOptions(s, &asked));
  PetscCheck(asked >= 1 && asked == group_size && world_size % asked == 0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "-serve_group_size %" PetscInt_FMT " must divide the %d ranks (mpirun -n P) into groups of that size",
             asked, (int)world_size);
  s->group = world_rank / s->size, s->ngroups = world_size / s->size;
  PetscCall(PetscOptionsHasHelp(NULL, help));
  if (*help) PetscFunctionReturn(0); /* the server's options are listed; the jobs' are each scene's */
  PetscCall(TalusCampaignMakeQueue(PETSC_COMM_WORLD, s->campaign, PETSC_FALSE)); /* it exists and can be written */
  PetscCall(TalusOptionsGetRunOptions(&s->job_options));
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD)); /* the server's (the jobs' are checked per job) */
  if (world_rank == 0) {
    printf("talus serve: campaign %s, %d ranks in %d group%s of %d\n", s->campaign, (int)world_size, (int)s->ngroups,
           s->ngroups == 1 ? "" : "s", (int)s->size);
    fflush(stdout);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandServe(int argc, char **argv, MPI_Comm world, PetscInt group_size, int *exit_status)
{
  Server         s = {.lock = -1, .world = world};
  PetscMPIInt    world_rank;
  PetscBool      stopped, help = PETSC_FALSE;
  int            stopped_any = 0, failed, failed_any;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *exit_status = 0;
  PetscCall(PetscTime(&s.start));
  TalusCatchStopSignals();
  PetscCallMPI(MPI_Comm_rank(world, &world_rank));
  ierr   = ServerSetUp(&s, argc, argv, group_size, &help);
  failed = ierr != 0; /* every group starts, or none: a group left serving would wait for the others at the end */
  PetscCallMPI(MPI_Allreduce(&failed, &failed_any, 1, MPI_INT, MPI_MAX, world));
  PetscCall(ierr);
  PetscCheck(!failed_any, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
             "talus serve: another group of ranks could not start (its error is above)");
  if (help) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus serve: -help: the server's options are listed above (each job's "
                                            "are its scene's: talus SCENE.yaml -help); not serving\n"));
    PetscCall(PetscOptionsClearValue(NULL, "-help"));
    PetscFunctionReturn(0);
  }
  ierr = Serve(&s, &stopped);
  if (ierr && s.ngroups > 1) MPI_Abort(world, 1); /* the other groups would wait for this one forever */
  PetscCall(ierr);
  { /* the groups finish at different times: wait for the others without spinning a core */
    MPI_Request request;
    int         done = 0;
    int         mine = stopped;
    PetscCallMPI(MPI_Iallreduce(&mine, &stopped_any, 1, MPI_INT, MPI_MAX, world, &request));
    for (;;) {
      PetscCallMPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
      if (done) break;
      nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
  }
  if (world_rank == 0) { /* jobs left (queued or interrupted) after a stop: run the server again */
    PetscInt count[5], left;
    PetscCall(TalusCampaignWriteStatus(s.campaign));
    PetscCall(TalusCampaignCountStates(s.campaign, count));
    left         = count[TALUS_JOB_QUEUED] + count[TALUS_JOB_INTERRUPTED];
    *exit_status = stopped_any && left > 0 ? TALUS_EXIT_RESUBMIT : 0;
    printf("talus serve: %s; %" PetscInt_FMT " done, %" PetscInt_FMT " failed, %" PetscInt_FMT " left%s\n",
           stopped_any ? "stopped (signal or wall-clock limit)" : "nothing left to take", count[TALUS_JOB_DONE],
           count[TALUS_JOB_FAILED], left, *exit_status ? ": exit status 75, run talus serve again" : "");
    fflush(stdout);
  }
  PetscCallMPI(MPI_Bcast(exit_status, 1, MPI_INT, 0, world));
  PetscCall(PetscFree(s.job_options));
  PetscFunctionReturn(0);
}
