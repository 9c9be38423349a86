/*
 * What a run writes into its output directory: stats.csv (one row per step), summary.json (totals
 * and end state), frames.h5 + frames.xmf (body states every -output_every steps, for ParaView),
 * probe-<ID>.csv (-probe ID), and progress lines on rank 0.
 */
#ifndef TALUS_OUTPUT_H
#define TALUS_OUTPUT_H
#include <talus/scene.h>

typedef struct _p_TalusOutput *TalusOutput;

PETSC_EXTERN PetscErrorCode TalusOutputCreate(MPI_Comm, const char dir[], const TalusScene *, TalusOutput *);
PETSC_EXTERN PetscErrorCode TalusOutputSetFromOptions(TalusOutput);
/* Opens the files; writes frame 0 (the initial state). */
PETSC_EXTERN PetscErrorCode TalusOutputBegin(TalusOutput, TalusSim);
/*
 * Instead of TalusOutputBegin for a run restarted from a checkpoint (sim at its step): keeps the
 * rows of stats.csv and the probe and the frames of frames.h5 up to that step, drops the later
 * ones (written by the run that stopped after its checkpoint), and appends from there. A frames
 * file that cannot be reopened is left alone: frames go to frames-restart-<step>.h5.
 */
PETSC_EXTERN PetscErrorCode TalusOutputResume(TalusOutput, TalusSim);
PETSC_EXTERN PetscErrorCode TalusOutputStep(TalusOutput, TalusSim, const TalusStepStats *);
/* This rank's seconds from the start of loading the scene (or checkpoint) to the first step, for
   summary.json's setup_s (the slowest rank's). */
PETSC_EXTERN PetscErrorCode TalusOutputSetSetupTime(TalusOutput, PetscLogDouble seconds);
/* Where a run stands, as summary.json's "status" says it (src/output/summary.c). */
typedef enum {
  TALUS_RUN_RUNNING,
  TALUS_RUN_FINISHED,
  TALUS_RUN_STOPPED, /* checkpointed for a restart */
  TALUS_RUN_FAILED
} TalusRunStatus;

/* summary.json with status finished, or stopped_for_restart when stopped; the closing lines. */
PETSC_EXTERN PetscErrorCode TalusOutputEnd(TalusOutput, TalusSim, PetscBool stopped);
/* summary.json with status failed and the error's message. Not collective (rank 0 writes): for
   the error path, where the other ranks may be anywhere. */
PETSC_EXTERN PetscErrorCode TalusOutputFailed(TalusOutput, TalusSim, const char message[]);
/* Forces the text outputs' rows (flushed every step) to disk: before a checkpoint is published
   (TalusCheckpointSetBeforePublish; ctx is the TalusOutput), collective. */
PETSC_EXTERN PetscErrorCode TalusOutputSync(void *ctx);
PETSC_EXTERN PetscErrorCode TalusOutputDestroy(TalusOutput *);

/* -ccp_dump_step N[,N...], -ccp_dump_unconverged K, -ccp_dump_dir DIR (default OUTDIR/ccp): chosen
   steps' contact problems written as FCLib files (src/fclib/ccp_dump.c, docs/ccp.md). */
PETSC_EXTERN PetscErrorCode TalusCCPDumpSetFromOptions(TalusSim, const char outdir[]);

#endif
