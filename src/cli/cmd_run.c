/*
 * talus SCENE.yaml [options]: run a scene (see docs/scene-format.md and docs/outputs.md).
 * talus -restart FILE.h5 [options]: go on from a checkpoint (docs/checkpoint-format.md), on any
 * number of ranks; options given now override the ones stored in the checkpoint.
 */
#include <talus.h>
#include <talus/checkpoint.h>
#include <talus/options.h>
#include "commands.h"
#include <sys/stat.h>

/* The simulation and its scene, from a scene file or from a checkpoint. */
static PetscErrorCode Load(const TalusRunSpec *spec, TalusSim *sim, TalusScene *scene, char **scene_text)
{
  const char *restart = spec->restart;

  PetscFunctionBegin;
  *scene_text = NULL;
  PetscCall(TalusSimCreate(PETSC_COMM_WORLD, sim));
  if (restart) {
    PetscCall(TalusCheckpointFileInsertOptions(PETSC_COMM_WORLD, restart)); /* before anything reads options */
    PetscLogDouble t0, t1, io;
    struct stat    st;
    PetscCall(PetscTime(&t0));
    PetscCall(TalusCheckpointFileRead(PETSC_COMM_WORLD, restart, *sim, scene, scene_text, &io));
    PetscCall(PetscTime(&t1));
    if (stat(restart, &st) == 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "talus: read %s: %.1f MB in %.3f s (%.0f MB/s), bodies redistributed in %.3f s\n", restart,
                            st.st_size / 1e6, (double)io, st.st_size / 1e6 / PetscMax(io, 1e-9),
                            (double)(t1 - t0 - io)));
  } else {
    if (spec->scene_text) {
      PetscCall(TalusSceneLoadText(PETSC_COMM_WORLD, spec->scene_file, spec->scene_text, spec->overrides, *sim, scene));
      PetscCall(PetscStrallocpy(spec->scene_text, scene_text)); /* kept in checkpoints */
    } else PetscCall(TalusSceneLoad(PETSC_COMM_WORLD, spec->scene_file, spec->overrides, *sim, scene));
    PetscCall(TalusSimSetDomain(*sim, scene->domain_min, scene->domain_max));
  }
  PetscCall(TalusOptionsCheckNumbers(
    PETSC_COMM_WORLD)); /* all options are in: the command line's, the scene's or checkpoint's */
  PetscCall(TalusSimSetFromOptions(*sim));
  PetscFunctionReturn(0);
}

/* What the contact problem is solved by, and to what tolerance (and where that tolerance comes from). */
static PetscErrorCode PrintSolver(TalusSim sim)
{
  TalusCCP                  ccp;
  TalusCCPType              problem;
  Tao                       tao;
  TaoType                   type;
  PetscReal                 tolerance, force_rtol, dt, g[3], screen;
  PetscBool                 scaled;
  const char               *how, *in;
  const TalusCCPSolverType *solver;
  TaoResidualNorm           norm;

  PetscFunctionBegin;
  PetscCall(TalusSimGetCCP(sim, &ccp));
  PetscCall(TalusCCPGetType(ccp, &problem));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoGetType(tao, &type));
  PetscCall(TalusCCPGetScaling(ccp, &scaled));
  how = scaled ? " (scaled per contact)" : "";
  PetscCall(TalusSimGetContactTolerance(sim, &tolerance, &force_rtol));
  PetscCall(TalusSimGetResidualNorm(sim, &norm));
  in = norm == TAO_RESIDUAL_NORM_MAX ? "in every contact" : "over all contacts (2-norm)";
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &dt));
  PetscCall(TalusSimGetGravity(sim, g));
  PetscCall(TalusCCPSolverTypeFind(type, &solver));
  if (solver && solver->pivoting) /* no residual tolerance stops it */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: contact problem %s by %s%s (pivoting: exact to rounding)\n",
                          problem, type, how));
  else if (force_rtol > 0.0)
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "talus: contact problem %s by %s%s to the residual %.3g m/s %s (-ccp_force_rtol %g x |g| %g x "
                  "h %g)\n",
                  problem, type, how, (double)tolerance, in, (double)force_rtol, (double)TalusNorm3(g), (double)dt));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: contact problem %s by %s%s to the residual %.3g m/s %s (-tao_gatol)\n", problem, type,
                          how, (double)tolerance, in));
  {
    Tao finish;
    PetscCall(TalusCCPGetFinish(ccp, &finish));
    if (finish) {
      PetscInt max_it;
      PetscCall(TaoGetType(finish, &type));
      PetscCall(TaoGetMaximumIterations(finish, &max_it));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "talus: a solve that stops short of the tolerance goes on with %s, to the same residual, "
                            "at most %" PetscInt_FMT " sweeps (-ccp_finish; stats.csv's finish_iterations)\n",
                            type, max_it));
    }
  }
  PetscCall(TalusSimGetContactScreen(sim, &screen));
  if (screen > 0.0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: pairs that stay apart with %g x (their speeds + |g| h) to spare are left out of each "
                          "step's problem and checked after its solve (-contact_screen; 0: every pair)\n",
                          (double)screen));
  PetscFunctionReturn(0);
}

/* The steps to the end time, or until the checkpointer says stop (signal or -walltime). */
static PetscErrorCode RunSteps(const TalusRunSpec *spec, TalusSim sim, TalusOutput out, TalusCheckpoint ck,
                               PetscBool *stop)
{
  TalusStepStats stats;
  PetscReal      t, t_final, dt;

  PetscFunctionBegin;
  *stop = PETSC_FALSE;
  PetscCall(TalusSimGetTime(sim, &t, &t_final, &dt));
  while (t < t_final - 0.5 * dt && !*stop) {
    PetscCall(TalusSimStep(sim, &stats));
    PetscCall(TalusOutputStep(out, sim, &stats));
    PetscCall(TalusCheckpointAfterStep(ck, sim, stop));
    PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
    if (spec->progress) PetscCall(spec->progress(spec->progress_ctx, sim));
  }
  if (!*stop) PetscCall(TalusCheckpointEnd(ck, sim));
  PetscFunctionReturn(0);
}

/* The objects of one run, destroyed whether it ended well or not (a server goes on to its next job) */
typedef struct {
  TalusSim        sim;
  TalusOutput     out;
  TalusCheckpoint ck;
  char           *scene_text;
} Run;

static PetscErrorCode RunDestroy(Run *run)
{
  PetscFunctionBegin;
  PetscCall(TalusCheckpointDestroy(&run->ck));
  PetscCall(TalusOutputDestroy(&run->out));
  PetscCall(TalusSimDestroy(&run->sim));
  PetscCall(PetscFree(run->scene_text));
  PetscFunctionReturn(0);
}

/* The options only a command-line run has (a server's jobs have their directory and checkpoint
   chosen for them); read here so that -help lists them and nothing calls them unused */
static PetscErrorCode CommandLineOptions(char dir[], size_t size)
{
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Running a scene", "talus");
  PetscCall(PetscOptionsString("-o", "Output directory", "", dir, dir, size, &set));
  PetscCheck(dir[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-o needs a directory, e.g. -o out/my-run");
  {
    char from[PETSC_MAX_PATH_LEN] = "";
    PetscCall(
      PetscOptionsString("-restart",
                         "Go on from this checkpoint (e.g. OUTPUT_DIR/checkpoints/last.h5) instead of a scene file", "",
                         from, from, sizeof(from), &set));
  }
  {
    PetscBool overwrite = PETSC_FALSE;
    PetscCall(PetscOptionsBool("-overwrite",
                               "A fresh run into a directory holding an earlier run's checkpoints moves them aside to "
                               "CHECKPOINT_DIR.earlier-K (without it, such a run is refused)",
                               "", overwrite, &overwrite, NULL));
  }
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode RunExecute(const TalusRunSpec *spec, Run *run, int *exit_status)
{
  TalusScene     scene;
  char           dir[PETSC_MAX_PATH_LEN];
  PetscBool      stop = PETSC_FALSE, help = PETSC_FALSE;
  PetscReal      t, t_final, dt;
  PetscInt       step, nfinite;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  *exit_status = 0;
  PetscCheck(!(spec->scene_file && spec->restart), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "give either a scene file (%s) or -restart %s, not both", spec->scene_file, spec->restart);
  PetscCheck(!spec->restart || spec->restart[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "-restart needs a checkpoint file, e.g. -restart out/SCENE/checkpoints/last.h5");
  PetscCall(Load(spec, &run->sim, &scene, &run->scene_text));
  if (spec->output_dir) PetscCall(PetscStrncpy(dir, spec->output_dir, sizeof(dir)));
  else {
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "out/%s", scene.name));
    PetscCall(CommandLineOptions(dir, sizeof(dir)));
  }
  PetscCall(TalusOutputCreate(PETSC_COMM_WORLD, dir, &scene, &run->out));
  PetscCall(TalusOutputSetFromOptions(run->out));
  PetscCall(TalusCCPDumpSetFromOptions(run->sim, dir));
  PetscCall(TalusCheckpointCreate(PETSC_COMM_WORLD, &run->ck));
  PetscCall(TalusCheckpointSetScene(run->ck, &scene, run->scene_text));
  PetscCall(TalusCheckpointSetOutputDirectory(run->ck, dir));
  PetscCall(TalusCheckpointSetFromOptions(run->ck));
  if (spec->walltime > 0.0) PetscCall(TalusCheckpointSetWalltime(run->ck, spec->walltime));
  PetscCall(TalusCheckpointSetBeforePublish(run->ck, TalusOutputSync, run->out));
  if (!spec->restart) PetscCall(TalusCheckpointClaimDirectory(run->ck));
  PetscCall(TalusCheckpointSetUp(run->ck));
  PetscCall(TalusSimGetCCP(run->sim, NULL)); /* the solver reads its options now, not at the first step */
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) { /* every option of the run has now been read, and so listed; the run is not started */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: -help: the options of this run are listed above (PETSc's general "
                                            "ones: -help_petsc); not running it\n"));
    PetscCall(PetscOptionsClearValue(NULL, "-help")); /* PetscFinalize would list -log_view's forms */
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimGetTime(run->sim, &t, &t_final, &dt));
  PetscCall(TalusSimGetStep(run->sim, &step));
  PetscCall(TalusSimGetFiniteBodyCount(run->sim, &nfinite));
  if (spec->restart) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: restart of scene %s from %s at step %" PetscInt_FMT " (t = %g s): %" PetscInt_FMT
                          " bodies, h = %g s to t = %g s, output in %s\n",
                          scene.name, spec->restart, step, (double)t, nfinite, (double)dt, (double)t_final, dir));
    PetscCall(TalusOutputResume(run->out, run->sim));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: scene %s (%s): %" PetscInt_FMT " bodies, h = %g s to t = %g s, output in %s\n",
                          scene.name, spec->scene_file, nfinite, (double)dt, (double)t_final, dir));
    PetscCall(TalusOutputBegin(run->out, run->sim));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(TalusOutputSetSetupTime(run->out, t1 - t0));
  if (scene.overrides[0]) { /* the values changed by -set, as the file does not show them */
    char shown[TALUS_SCENE_OVERRIDES_LEN];
    PetscCall(PetscStrncpy(shown, scene.overrides, sizeof(shown)));
    for (char *line = strtok(shown, "\n"); line; line = strtok(NULL, "\n"))
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s -set %s", line == shown ? "talus: the scene with" : "", line));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  PetscCall(PrintSolver(run->sim));
  { /* an error from here on is also recorded in summary.json (status failed) before it ends the run */
    PetscErrorCode ierr = RunSteps(spec, run->sim, run->out, run->ck, &stop);
    if (ierr) {
      PetscCall(TalusOutputFailed(run->out, run->sim, TalusErrorLastMessage()));
      PetscFunctionReturn(ierr);
    }
  }
  PetscCall(TalusOutputEnd(run->out, run->sim, stop));
  if (stop) *exit_status = TALUS_EXIT_RESUBMIT;
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: done, %s/summary.json\n", dir));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusRun(const TalusRunSpec *spec, int *exit_status)
{
  Run            run  = {0};
  PetscErrorCode ierr = RunExecute(spec, &run, exit_status);

  PetscFunctionBegin;
  TalusAbortUnlessCollective(ierr); /* before the clean-up's collective closing of the files (one rank's error) */
  PetscCall(RunDestroy(&run));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandRun(const char scene_file[], const char restart[], const char overrides[], int *exit_status)
{
  const TalusRunSpec spec = {.scene_file = scene_file, .restart = restart, .overrides = overrides};

  PetscFunctionBegin;
  PetscCall(TalusRun(&spec, exit_status));
  PetscFunctionReturn(0);
}
