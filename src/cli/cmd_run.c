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
static PetscErrorCode Load(const char scene_file[], const char restart[], const char overrides[], TalusSim *sim,
                           TalusScene *scene, char **scene_text)
{
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
    PetscCall(TalusSceneLoad(PETSC_COMM_WORLD, scene_file, overrides, *sim, scene));
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
  TalusCCP     ccp;
  TalusCCPType problem;
  Tao          tao;
  TaoType      type;
  PetscReal    tolerance, force_rtol, dt, g[3];

  PetscFunctionBegin;
  PetscCall(TalusSimGetCCP(sim, &ccp));
  PetscCall(TalusCCPGetType(ccp, &problem));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoGetType(tao, &type));
  PetscCall(TalusSimGetContactTolerance(sim, &tolerance, &force_rtol));
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &dt));
  PetscCall(TalusSimGetGravity(sim, g));
  if (force_rtol > 0.0)
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "talus: contact problem %s by %s to the residual %.3g m/s (-ccp_force_rtol %g x |g| %g x h %g)\n",
                  problem, type, (double)tolerance, (double)force_rtol, (double)TalusNorm3(g), (double)dt));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: contact problem %s by %s to the residual %.3g m/s (-tao_gatol)\n",
                          problem, type, (double)tolerance));
  PetscFunctionReturn(0);
}

/* The steps to the end time, or until the checkpointer says stop (signal or -walltime). */
static PetscErrorCode RunSteps(TalusSim sim, TalusOutput out, TalusCheckpoint ck, PetscBool *stop)
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
  }
  if (!*stop) PetscCall(TalusCheckpointEnd(ck, sim));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandRun(const char scene_file[], const char restart[], const char overrides[], int *exit_status)
{
  TalusSim        sim;
  TalusScene      scene;
  TalusOutput     out;
  TalusCheckpoint ck;
  char            dir[PETSC_MAX_PATH_LEN], *scene_text;
  PetscBool       set, stop = PETSC_FALSE;
  PetscReal       t, t_final, dt;
  PetscInt        step, nfinite;

  PetscFunctionBegin;
  *exit_status = 0;
  PetscCheck(!(scene_file && restart), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "give either a scene file (%s) or -restart %s, not both", scene_file, restart);
  PetscCheck(!restart || restart[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "-restart needs a checkpoint file, e.g. -restart out/SCENE/checkpoints/last.h5");
  PetscCall(Load(scene_file, restart, overrides, &sim, &scene, &scene_text));
  PetscCall(PetscSNPrintf(dir, sizeof(dir), "out/%s", scene.name));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Running a scene", "talus");
  PetscCall(PetscOptionsString("-o", "Output directory", "", dir, dir, sizeof(dir), &set));
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
  PetscCall(TalusOutputCreate(PETSC_COMM_WORLD, dir, &scene, &out));
  PetscCall(TalusOutputSetFromOptions(out));
  PetscCall(TalusCCPDumpSetFromOptions(sim, dir));
  PetscCall(TalusCheckpointCreate(PETSC_COMM_WORLD, &ck));
  PetscCall(TalusCheckpointSetScene(ck, &scene, scene_text));
  PetscCall(TalusCheckpointSetOutputDirectory(ck, dir));
  PetscCall(TalusCheckpointSetFromOptions(ck));
  PetscCall(TalusCheckpointSetBeforePublish(ck, TalusOutputSync, out));
  if (!restart) PetscCall(TalusCheckpointClaimDirectory(ck));
  PetscCall(TalusCheckpointSetUp(ck));
  PetscCall(TalusSimGetCCP(sim, NULL)); /* the solver reads its options now, not at the first step */
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  { /* -help: every option of the run has now been read, and so listed; the run is not started */
    PetscBool help = PETSC_FALSE;
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "talus: -help: the options of this run are listed above (PETSc's general ones: "
                            "-help_petsc); not running it\n"));
      PetscCall(PetscOptionsClearValue(NULL, "-help")); /* PetscFinalize would list -log_view's forms */
      PetscCall(TalusCheckpointDestroy(&ck));
      PetscCall(TalusOutputDestroy(&out));
      PetscCall(TalusSimDestroy(&sim));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscFree(scene_text));
  PetscCall(TalusSimGetTime(sim, &t, &t_final, &dt));
  PetscCall(TalusSimGetStep(sim, &step));
  PetscCall(TalusSimGetFiniteBodyCount(sim, &nfinite));
  if (restart) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: restart of scene %s from %s at step %" PetscInt_FMT " (t = %g s): %" PetscInt_FMT
                          " bodies, h = %g s to t = %g s, output in %s\n",
                          scene.name, restart, step, (double)t, nfinite, (double)dt, (double)t_final, dir));
    PetscCall(TalusOutputResume(out, sim));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "talus: scene %s (%s): %" PetscInt_FMT " bodies, h = %g s to t = %g s, output in %s\n",
                          scene.name, scene_file, nfinite, (double)dt, (double)t_final, dir));
    PetscCall(TalusOutputBegin(out, sim));
  }
  if (scene.overrides[0]) { /* the values changed by -set, as the file does not show them */
    char shown[TALUS_SCENE_OVERRIDES_LEN];
    PetscCall(PetscStrncpy(shown, scene.overrides, sizeof(shown)));
    for (char *line = strtok(shown, "\n"); line; line = strtok(NULL, "\n"))
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s -set %s", line == shown ? "talus: the scene with" : "", line));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  PetscCall(PrintSolver(sim));
  { /* an error from here on is also recorded in summary.json (status failed) before it ends the run */
    PetscErrorCode ierr = RunSteps(sim, out, ck, &stop);
    if (ierr) {
      PetscCall(TalusOutputFailed(out, sim, TalusErrorLastMessage()));
      PetscFunctionReturn(ierr);
    }
  }
  PetscCall(TalusOutputEnd(out, sim, stop));
  if (stop) *exit_status = TALUS_EXIT_RESUBMIT;
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: done, %s/summary.json\n", dir));
  PetscCall(TalusCheckpointDestroy(&ck));
  PetscCall(TalusOutputDestroy(&out));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}
