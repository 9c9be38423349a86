/* talus SCENE.yaml [options]: run a scene (see docs/scene-format.md and docs/outputs.md). */
#include <talus.h>
#include "commands.h"

PetscErrorCode TalusCommandRun(const char scene_file[])
{
  TalusSim       sim;
  TalusScene     scene;
  TalusOutput    out;
  TalusStepStats stats;
  char           dir[PETSC_MAX_PATH_LEN];
  PetscBool      set;
  PetscReal      t, t_final, dt;
  TalusBodies   *bodies;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &sim));
  PetscCall(TalusSceneLoad(PETSC_COMM_WORLD, scene_file, sim, &scene));
  PetscCall(TalusSimSetDomain(sim, scene.domain_min, scene.domain_max));
  PetscCall(TalusSimSetFromOptions(sim));
  PetscCall(PetscSNPrintf(dir, sizeof(dir), "out/%s", scene.name));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Running a scene", "talus");
  PetscCall(PetscOptionsString("-o", "Output directory", "", dir, dir, sizeof(dir), &set));
  PetscOptionsEnd();
  PetscCall(TalusOutputCreate(PETSC_COMM_WORLD, dir, &scene, &out));
  PetscCall(TalusOutputSetFromOptions(out));
  PetscCall(TalusSimGetBodies(sim, &bodies));
  PetscCall(TalusSimGetTime(sim, &t, &t_final, &dt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: scene %s (%s): %" PetscInt_FMT " bodies, h = %g s to t = %g s, output in %s\n", scene.name, scene_file, bodies->n, (double)dt, (double)t_final, dir));
  PetscCall(TalusOutputBegin(out, sim));
  while (t < t_final - 0.5 * dt) {
    PetscCall(TalusSimStep(sim, &stats));
    PetscCall(TalusOutputStep(out, sim, &stats));
    PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  }
  PetscCall(TalusOutputEnd(out, sim));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus: done, %s/summary.json\n", dir));
  PetscCall(TalusOutputDestroy(&out));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}
