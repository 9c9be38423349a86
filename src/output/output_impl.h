/* The output object's state, shared by output.c (a run's files) and output_resume.c (reopening
   them at a restart). */
#ifndef TALUS_OUTPUT_IMPL_H
#define TALUS_OUTPUT_IMPL_H
#include <talus/output.h>
#include <talus/module.h>
#include "../grow.h"
#include "../io/h5io.h"
#include <errno.h>
#include "../io/files.h"
#include <sys/resource.h>

/* the modules' tables a run writes at most (include/talus/module.h: table_name) */
#define TALUS_MAX_TABLES 16

/* The bodies that have rows of their own in a frame's groups (a compound's parts; a hull's corners and triangles):
   their slots, sorted, and each one's first row in each of `width` row sets, (nbodies + 1) x width numbers whose last
   row holds the sets' sizes (frame_rows.c) */
#define TALUS_FRAME_ROWS_MAX_WIDTH 2
typedef struct {
  PetscInt nbodies, width, *slot, *first;
} TalusFrameRows;

struct _p_TalusOutput {
  MPI_Comm       comm;
  PetscMPIInt    rank, size;
  char           dir[PETSC_MAX_PATH_LEN];
  TalusScene     scene;
  PetscInt       output_every, progress_every, probe;
  FILE          *stats, *probe_file, *xmf;
  PetscInt       ngroup, *group;           /* -probe_group's ids, sorted */
  FILE          *group_file;               /* probe-group.csv */
  PetscInt       probe_watch, group_watch; /* their watches in the simulator (TalusSimAddWatch) */
  FILE          *tables[TALUS_MAX_TABLES]; /* the modules' tables (joints.csv, ...: TalusSimModulesGetTable) */
  char           table_names[TALUS_MAX_TABLES][64];
  PetscInt       ntables;
  FILE          *log; /* progress.log: the progress lines and the closing summary, appended by restarts */
  hid_t          frames;
  char           frames_name[64]; /* frames.h5, or frames-restart-<step>.h5 when a restart cannot reopen it */
  PetscInt       nframes, frame_capacity;
  PetscInt       nplanes;        /* drawn in frames.h5's every_frame/planes */
  PetscInt       njoints;        /* drawn as segments between their anchors (frameNNNNNN/joints) */
  TalusFrameRows parts;          /* bodies drawn by several glyphs (frame_parts.c) */
  TalusFrameRows meshes;         /* bodies drawn by their faces (frame_meshes.c): corners, triangles */
  double         frame_bytes;    /* what the last frame added to the frames file (rank 0), for the next one's room */
  PetscLogDouble progress_time;  /* when the last progress line was printed, */
  PetscInt       progress_steps; /* and after how many steps of this job */
  PetscReal     *frame_times;    /* for frames.xmf */
  /* running totals for summary.json */
  PetscInt  steps, contacts_max, iterations_max, nonconverged;
  PetscInt  finished; /* steps whose answer is -ccp_finish's */
  PetscInt  rank_bodies_min, rank_bodies_max, rank_contacts_min, rank_contacts_max;
  PetscReal imbalance_max, seconds_migrate, seconds_ghost, bytes_per_product_sum, ghost_bytes_sum;
  PetscReal contacts_sum, iterations_sum, residual_max, complementarity_max, force_residual_max;
  PetscReal screened_sum; /* -contact_screen's pairs left out, summed over the steps */
  /* the largest contact force residual over weight, and the largest checked body force error over weight
     (-ccp_force_check), each with its step and body; the checked steps, those beyond 1 %, and those whose
     reference did not converge */
  PetscReal      force_residual_over_weight_max, force_error_max;
  PetscInt       force_residual_over_weight_step, force_residual_over_weight_body, force_error_step, force_error_body;
  PetscInt       force_checked, force_checked_beyond_1pct, force_check_unconverged;
  PetscInt       extra_solves; /* the steps' solves after their first (a screened pair joined) */
  PetscReal      seconds_collide, seconds_assemble, seconds_solve, seconds_integrate, seconds_output;
  PetscReal      seconds_setup; /* this rank's, loading to the first step */
  PetscReal     *wall;
  PetscInt       wall_capacity;
  TalusStepStats last;
  PetscLogDouble start;
};

/* output_text.c: rank 0's text files in the run's directory, and the progress lines */
PETSC_INTERN PetscErrorCode TalusOutputOpenText(TalusOutput, const char name[], const char mode[], FILE **);
/* stats.csv and the probes' and joints' files handed to the kernel (sync: to the disk); a failure stops every rank */
PETSC_INTERN PetscErrorCode TalusOutputFlushText(TalusOutput, PetscBool sync);
PETSC_INTERN PetscErrorCode TalusOutputWriteFrame(TalusOutput, TalusSim);
PETSC_INTERN PetscErrorCode TalusOutputWriteXdmf(TalusOutput, PetscInt nbodies);
PETSC_INTERN PetscErrorCode TalusOutputWriteFrameStatics(TalusOutput, TalusSim);
/* frames.c's writers, shared with frame_parts.c: a frame's dataset of `total` rows of `width`, this rank's n rows at
   rows[k]; a connectivity 0 .. total - 1 under `every`; the shape tensor of a glyph turned by q */
PETSC_INTERN PetscErrorCode TalusFramesWriteRows(TalusOutput, TalusH5Writer *, hid_t group, const char name[],
                                                 hid_t type, PetscInt total, PetscInt n, const PetscInt rows[],
                                                 PetscInt width, const void *data);
PETSC_INTERN PetscErrorCode TalusFramesCreateGroup(TalusOutput, TalusH5Writer *, hid_t parent, const char name[],
                                                   hid_t *);
typedef struct {
  const char *name;
  hid_t       type;
  PetscInt    width;
  const void *data;
} TalusFrameDataset;
PETSC_INTERN PetscErrorCode TalusFramesWriteGroup(TalusOutput, TalusH5Writer *, hid_t frame, const char name[],
                                                  PetscInt total, PetscInt n, const PetscInt rows[], size_t nsets,
                                                  const TalusFrameDataset sets[]);
PETSC_INTERN PetscErrorCode TalusFramesWriteVertices(TalusOutput, TalusH5Writer *, hid_t every, const char name[],
                                                     PetscInt total);
PETSC_INTERN void TalusFramesShapeTensor(const PetscReal q[4], TalusShape, const PetscReal size[3], float T[9]);
PETSC_INTERN PetscErrorCode TalusFrameRowsSetUp(TalusOutput, const TalusBodies *, PetscInt width,
                                                void (*count)(const TalusBodies *, PetscInt k, PetscInt c[]),
                                                TalusFrameRows *);
PETSC_INTERN PetscErrorCode TalusFrameRowsPlace(const TalusFrameRows *, const TalusBodies *, PetscInt k,
                                                const PetscInt c[], PetscInt *at);
PETSC_INTERN void     TalusFramesBodyPoint(const TalusBodies *, PetscInt k, const PetscReal A[9], const PetscReal p[3],
                                           PetscReal x[3], PetscReal v[3]);
PETSC_INTERN PetscInt TalusFrameRowsTotal(const TalusFrameRows *, PetscInt j);
PETSC_INTERN PetscErrorCode TalusFrameRowsDestroy(TalusFrameRows *);
/* frame_parts.c: the glyphs of bodies drawn as several (a compound's parts); frame_meshes.c: the faces of bodies
   drawn as a surface (a hull's) */
PETSC_INTERN PetscErrorCode TalusFramePartsSetUp(TalusOutput, const TalusBodies *);
PETSC_INTERN PetscErrorCode TalusFramePartsWriteStatics(TalusOutput, TalusH5Writer *, hid_t every);
PETSC_INTERN PetscErrorCode TalusFramePartsWrite(TalusOutput, TalusH5Writer *, hid_t frame, const TalusBodies *);
PETSC_INTERN PetscErrorCode TalusFrameMeshesSetUp(TalusOutput, const TalusBodies *);
PETSC_INTERN PetscErrorCode TalusFrameMeshesWriteStatics(TalusOutput, TalusH5Writer *, hid_t every,
                                                         const TalusBodies *);
PETSC_INTERN PetscErrorCode TalusFrameMeshesWrite(TalusOutput, TalusH5Writer *, hid_t frame, const TalusBodies *);
/* Closes a file of TalusOutputOpenText; a failed close (full disk) stops every rank. */
PETSC_INTERN PetscErrorCode TalusOutputCloseText(TalusOutput, FILE **, const char name[]);
PETSC_INTERN void           TalusOutputWriteStatsHeader(TalusOutput);
/* stats.csv's header line (with its newline) */
PETSC_INTERN const char TalusStatsHeader[];
/* probe-ID.csv's header line: the body's state, then the contacts' and joints' force and torque on
   it; probe-group.csv's: the group's bodies, mass, centre of mass and its velocity, then the force and
   torque from outside it (output_probe.c) */
PETSC_INTERN const char TalusProbeHeader[], TalusProbeGroupHeader[];
/* -probe_group takes at most this many ids */
#define TALUS_PROBE_GROUP_MAX 100000
/* The files a restart reopened (appends to) instead of starting afresh. */
typedef struct {
  PetscBool stats, probe, group, frames;
  PetscBool tables[TALUS_MAX_TABLES]; /* the modules' tables */
} TalusOutputReopened;
PETSC_INTERN PetscErrorCode TalusOutputOpen(TalusOutput, TalusSim, const TalusOutputReopened *);
/* output_probe.c: the probes' files and watches (after the simulator's bodies are in place); a row each step */
PETSC_INTERN PetscErrorCode TalusOutputOpenProbes(TalusOutput, TalusSim, PetscBool append_probe,
                                                  PetscBool append_group);
PETSC_INTERN PetscErrorCode TalusOutputWriteProbes(TalusOutput, TalusSim);
/* frames.c: a frame's time, for frames.xmf */
PETSC_INTERN PetscErrorCode TalusOutputAddFrameTime(TalusOutput, PetscReal t);
/* A progress line: printed by rank 0 and appended to progress.log. */
PETSC_INTERN PetscErrorCode TalusOutputProgress(TalusOutput, const char fmt[], ...) PETSC_ATTRIBUTE_FORMAT(2, 3);
/* summary.json with status "running" (src/output/summary.c); collective. */
PETSC_INTERN PetscErrorCode TalusOutputWriteSummaryRunning(TalusOutput, TalusSim);

#endif
