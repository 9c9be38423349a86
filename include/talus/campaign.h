/*
 * Campaigns (docs/campaigns.md): a directory of jobs, each one scene with its overrides, run by
 * talus serve. Its layout:
 *
 *   CAMPAIGN/queue/ID.json        a job as submitted (talus submit): the scene's text, file and overrides
 *   CAMPAIGN/jobs/ID/             the job's outputs (stats.csv, summary.json, frames, checkpoints)
 *   CAMPAIGN/jobs/ID/state.json   where the job is: queued, running, interrupted, done or failed
 *   CAMPAIGN/jobs/ID/.lock        held (an open file description lock) while a server runs the job
 *   CAMPAIGN/status.json          every job's state in one file, for people and scripts
 *
 * Every file is written under a temporary name and renamed (or linked) into place, so a reader never
 * sees half of one. A job's lock is released by the kernel when its holder dies, which is how a job
 * left "running" by a killed server is told from one still running elsewhere. Functions that take no
 * communicator act on the calling process alone (a server calls them on its group's rank 0).
 */
#ifndef TALUS_CAMPAIGN_H
#define TALUS_CAMPAIGN_H
#include <petscsys.h>

typedef enum {
  TALUS_JOB_QUEUED,
  TALUS_JOB_RUNNING,
  TALUS_JOB_INTERRUPTED,
  TALUS_JOB_DONE,
  TALUS_JOB_FAILED
} TalusJobState;
PETSC_EXTERN const char *const TalusJobStates[]; /* "queued", "running", "interrupted", "done", "failed" */

#define TALUS_JOB_ID_LEN 160

/* A job as submitted */
typedef struct {
  char  id[TALUS_JOB_ID_LEN];
  char  scene_file[PETSC_MAX_PATH_LEN]; /* where its scene came from: names it, and its messages */
  char *scene_text;                     /* the scene file's text when submitted */
  char *overrides;                      /* "PATH=VALUE" lines (-set, then the sweeps' values) */
} TalusJob;

/* Where a job is (CAMPAIGN/jobs/ID/state.json) */
typedef struct {
  TalusJobState state;
  PetscInt      group, ranks, attempts, step;
  PetscReal     t, t_final, wall_s, eta_s; /* wall_s: all its runs together; eta_s < 0: unknown */
  char          reason[64];                /* why it last stopped: "end time", "signal", "walltime", "error" */
  char          message[512];              /* a failed job's error */
  char          host[64];
  PetscInt      pid;
} TalusJobStatus;

/* ------------------------------------------------------------------ the queue (campaign_queue.c) */

/* CAMPAIGN and CAMPAIGN/queue, made if absent (collective: rank 0 makes them, every rank gets the
   verdict); an error when CAMPAIGN is a file or cannot be written, and, unless make_campaign (talus submit),
   when CAMPAIGN does not exist (a server does not make one: a mistyped name ran nothing and exited 0) */
PETSC_EXTERN PetscErrorCode TalusCampaignMakeQueue(MPI_Comm, const char campaign[], PetscBool make_campaign);
/* Writes a job to CAMPAIGN/queue/NAME-k.json for the first free k from *next on (*next moves past
   it); its id in id. Written under a temporary name and linked: never half a file, never an id
   taken twice, even by two submits at once. */
PETSC_EXTERN PetscErrorCode TalusCampaignAddJob(const char campaign[], const char name[], PetscInt *next,
                                                const char scene_file[], const char text[], const char overrides[],
                                                char id[], size_t size);
/* The ids in CAMPAIGN/queue, sorted (free with PetscFree; *ids[k] point into the same block) */
PETSC_EXTERN PetscErrorCode TalusCampaignListJobs(const char campaign[], PetscInt *n, char ***ids);
/* A job's file; a file that is not a job (edited into nonsense) is not an error here: *fault says
   what is wrong with it ("" when it is a job) */
PETSC_EXTERN PetscErrorCode TalusCampaignReadJob(const char campaign[], const char id[], TalusJob *, char fault[],
                                                 size_t size);
PETSC_EXTERN PetscErrorCode TalusJobReset(TalusJob *);

/* ------------------------------------------------------ states and locks (campaign_state.c) */

/* CAMPAIGN/jobs/ID */
PETSC_EXTERN PetscErrorCode TalusCampaignJobDirectory(const char campaign[], const char id[], char dir[], size_t size);
/* The job's state file; a job never started is queued (state.json absent) */
PETSC_EXTERN PetscErrorCode TalusCampaignReadState(const char campaign[], const char id[], TalusJobStatus *);
/* Atomically; an error (a full disk) is returned, the old file left as it was */
PETSC_EXTERN PetscErrorCode TalusCampaignWriteState(const char campaign[], const char id[], const TalusJobStatus *);
/* Takes the job's lock without waiting: *fd >= 0 holds it (until TalusCampaignUnlockJob or the
   process ends), -1 when another holds it */
PETSC_EXTERN PetscErrorCode TalusCampaignLockJob(const char campaign[], const char id[], int *fd);
PETSC_EXTERN PetscErrorCode TalusCampaignUnlockJob(int *fd);
/* Whether a process holds the job's lock (this one's own locks count) */
PETSC_EXTERN PetscErrorCode TalusCampaignJobLocked(const char campaign[], const char id[], PetscBool *);

/* ------------------------------------------------------------- status (campaign_status.c) */

/* Every job with its state, as JSON text {"campaign": ..., "counts": {...}, "eta_s": ..., "jobs": [...]}
   (free with PetscFree): a job left "running" whose lock nobody holds shows as interrupted */
PETSC_EXTERN PetscErrorCode TalusCampaignStatusJSON(const char campaign[], char **text);
/* How many jobs are in each state (indexed by TalusJobState), as the status shows them */
PETSC_EXTERN PetscErrorCode TalusCampaignCountStates(const char campaign[], PetscInt count[5]);
/* CAMPAIGN/status.json rewritten from the jobs' states, atomically, one writer at a time */
PETSC_EXTERN PetscErrorCode TalusCampaignWriteStatus(const char campaign[]);

#endif
