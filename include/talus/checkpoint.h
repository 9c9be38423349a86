/*
 * Checkpoints and restart (docs/checkpoint-format.md).
 *
 * The file layer writes one HDF5 file per checkpoint, collectively, bodies in global-id order,
 * and reads it back on any number of ranks. The policy object (TalusCheckpoint) decides when to
 * write (every N steps, every S seconds of wall time, on SIGTERM/SIGINT/SIGUSR1, before the job's
 * wall-clock limit), writes safely (temporary file, fsync, rename, last.h5) and keeps the newest K.
 */
#ifndef TALUS_CHECKPOINT_H
#define TALUS_CHECKPOINT_H
#include <talus/scene.h>

#define TALUS_CHECKPOINT_FORMAT "talus-checkpoint"
/* 2 (talus 0.2): joints and their impulses, prescribed motions, loads, springs; 3: planar bodies and
   the tables of prescribed functions of time; 6: the same layout, written by runs whose joint rows are
   linearised at the step's end (a file before 6 restarts with -joint_lookahead 0, as its run had); 7:
   the same, by runs whose contacts have the near-rigid floor (before 7: -contact_near_rigid 0
   -contact_friction_sigma 0); 8: the same, by runs whose apgd solves the problem scaled per contact
   unless told not to and confirms a convergence with the Coulomb problem's linear term updated at the
   last iterate (before 8: -ccp_scale 0 -ccp_scale_residual 0 -tao_apgd_confirm 0); 9: the same, by runs
   that leave pairs that stay apart out of a step's problem (before 9: -contact_screen 0); 10: the same, by
   runs whose solvers stop when every contact meets the tolerance (before 10: -tao_residual_norm 2). All
   earlier versions are still read (without what they lack). */
#define TALUS_CHECKPOINT_VERSION 11
/* Exit status of a run that stopped after writing a checkpoint because of a signal or of its
   wall-clock limit: "not finished, run again from last.h5" (sysexits.h's EX_TEMPFAIL). */
#define TALUS_EXIT_RESUBMIT 75

/* What a checkpoint's header says (read without loading the bodies). */
typedef struct {
  PetscInt  version, step, nfinite, nbodies, nplanes, ncontacts, nmaterials, bodies_lost, ranks;
  PetscInt  njoints, nprescribed, nloads, nsprings; /* format 2 */
  PetscInt  nplanar, ntables, ntable_values;        /* format 3 */
  PetscReal t, dt, t_final;
  char      scene_name[256], created[64];
  char      writer[128]; /* "talus 0.1.0 (commit 1a2b3c4d5e6f)" */
} TalusCheckpointInfo;

/* ---------------------------------------------------------------- file layer (checkpoint_file.c) */

/*
 * Writes sim's state to path (collective). The owned bodies must be in canonical order
 * (TalusSimCanonicalize, which TalusCheckpointWrite calls). scene_text is the scene file's text
 * (may be NULL), kept in the file for provenance.
 */
PETSC_EXTERN PetscErrorCode TalusCheckpointFileWrite(TalusSim, const TalusScene *, const char scene_text[],
                                                     const char path[]);
/*
 * Loads a checkpoint into a new, empty sim (collective, any number of ranks): bodies, materials,
 * contact histories, time, settings; *scene gets the scene's name and domain, *scene_text its text
 * (free with PetscFree); *io_seconds (if not NULL) the time spent reading and checking the file,
 * before redistributing the bodies. A missing, damaged or foreign file is a collective error that
 * names the file, the fault and, when there is one, the previous checkpoint to try; sim is left
 * untouched.
 */
PETSC_EXTERN PetscErrorCode TalusCheckpointFileRead(MPI_Comm, const char path[], TalusSim, TalusScene *,
                                                    char **scene_text, PetscLogDouble *io_seconds);
PETSC_EXTERN PetscErrorCode TalusCheckpointFileGetInfo(MPI_Comm, const char path[], TalusCheckpointInfo *);
/* Puts the options stored in a checkpoint into the options database, except those already set
   (on the command line), which win. */
PETSC_EXTERN PetscErrorCode TalusCheckpointFileInsertOptions(MPI_Comm, const char path[]);
/* The stored options as one string (free with PetscFree), and the file's format version (or NULL). */
PETSC_EXTERN PetscErrorCode TalusCheckpointFileGetOptions(MPI_Comm, const char path[], char **options,
                                                          PetscInt *version);

/* ---------------------------------------------------------------- policy (checkpoint.c) */

typedef struct _p_TalusCheckpoint *TalusCheckpoint;

PETSC_EXTERN PetscErrorCode TalusCheckpointCreate(MPI_Comm, TalusCheckpoint *);
/* The scene stored in every checkpoint; text NULL: read from scene->file. */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetScene(TalusCheckpoint, const TalusScene *, const char text[]);
/* Default directory DIR/checkpoints for the run's output directory DIR. */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetOutputDirectory(TalusCheckpoint, const char dir[]);
/* -checkpoint_every, -checkpoint_interval, -checkpoint_keep, -checkpoint_dir, -walltime, -walltime_margin */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetFromOptions(TalusCheckpoint);
/* Called (collectively) before each checkpoint is published, so that what the run wrote up to its step
   (e.g. the outputs' rows, TalusOutputSync) is on disk before a restart can start from it. */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetBeforePublish(TalusCheckpoint, PetscErrorCode (*)(void *), void *ctx);
/* A fresh run's claim on its checkpoint directory (collective, before TalusCheckpointSetUp): an
   earlier run's checkpoints there are an error, or with -overwrite moved aside to DIR.earlier-K. */
PETSC_EXTERN PetscErrorCode TalusCheckpointClaimDirectory(TalusCheckpoint);
/* Seconds in a wall-clock limit as -walltime takes it (Slurm's forms: SS, MM:SS, HH:MM:SS, D-HH,
   D-HH:MM, D-HH:MM:SS), or -1 when the text is none of them */
PETSC_EXTERN PetscReal TalusParseWalltime(const char text[]);
/* The wall-clock limit in seconds from TalusCheckpointSetUp, as -walltime gives it (after
   TalusCheckpointSetFromOptions; a campaign server gives each job what is left of its own) */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetWalltime(TalusCheckpoint, PetscReal seconds);
/* The handlers of SIGTERM, SIGINT and SIGUSR1 that note the signal (TalusCheckpointSetUp installs
   them; a campaign server, before its first job); the signal noted since, or 0 */
PETSC_EXTERN void TalusCatchStopSignals(void);
PETSC_EXTERN int  TalusStopSignal(void);
/* Creates the directory (when checkpoints are planned), starts the clocks, installs the signal handlers. */
PETSC_EXTERN PetscErrorCode TalusCheckpointSetUp(TalusCheckpoint);
PETSC_EXTERN PetscErrorCode TalusCheckpointView(TalusCheckpoint, PetscViewer);
/*
 * Between steps (collective): writes a checkpoint when one is due; *stop is true when it was
 * triggered by a signal or by the wall-clock limit (the run should end with TALUS_EXIT_RESUBMIT).
 */
PETSC_EXTERN PetscErrorCode TalusCheckpointAfterStep(TalusCheckpoint, TalusSim, PetscBool *stop);
/* Writes a checkpoint of the current state now (collective): ckpt-<step>.h5 and last.h5. */
PETSC_EXTERN PetscErrorCode TalusCheckpointWrite(TalusCheckpoint, TalusSim);
/* At the end of a run with checkpointing on: a last checkpoint unless this step already has one. */
PETSC_EXTERN PetscErrorCode TalusCheckpointEnd(TalusCheckpoint, TalusSim);
PETSC_EXTERN PetscErrorCode TalusCheckpointDestroy(TalusCheckpoint *);

#endif
