/* The talus command: dispatches to its subcommands. */
#include <talus.h>
#include "commands.h"

static const char help[] =
  "talus: rigid bodies with frictional contact, solved as cone complementarity problems.\n"
  "\n"
  "Usage:\n"
  "  talus SCENE.yaml [options]      run a scene (docs/scene-format.md); outputs in -o DIR (default out/<scene>)\n"
  "  talus -restart CKPT.h5 [opts]   go on from a checkpoint, on any number of ranks (docs/checkpoint-format.md)\n"
  "  talus info FILE.h5              describe a checkpoint or a frames file\n"
  "  talus ccp FILE.hdf5 [options]   solve one FCLib local contact problem (see docs/ccp.md)\n"
  "  talus -help                     this text and the options of the parts that run\n"
  "\n"
  "Positional arguments come first, PETSc options (-name value) after them.\n"
  "Exit status: 0 done, 1 error, 75 stopped after a checkpoint (signal or -walltime): restart it.\n"
  "Run on P ranks with mpirun -n P talus ...\n\n";

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  PetscMPIInt    size;
  int            status = 0;

  ierr = TalusInitialize(&argc, &argv, help);
  if (ierr) return 1;
  ierr = PetscPushErrorHandler(TalusErrorHandler, NULL);
  if (!ierr) {
    char      restart[PETSC_MAX_PATH_LEN] = "";
    PetscBool has_restart                 = PETSC_FALSE;
    PetscBool has_scene                   = (PetscBool)(argc >= 2 && argv[1][0] != '-');
    ierr = PetscOptionsGetString(NULL, NULL, "-restart", restart, sizeof(restart), &has_restart);
    if (!ierr && has_scene && !strcmp(argv[1], "ccp")) ierr = TalusCommandCCP(argc - 1, argv + 1);
    else if (!ierr && has_scene && !strcmp(argv[1], "info")) ierr = TalusCommandInfo(argc - 1, argv + 1);
    else if (!ierr && (has_restart || has_scene))
      ierr = TalusCommandRun(has_scene ? argv[1] : NULL, has_restart ? restart : NULL, &status);
    else if (!ierr) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s", help);
  }
  if (ierr) {
    /* A collective error has reached every rank; anything else may leave ranks waiting in a
       collective call, so on several ranks abort the job rather than hang it. */
    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    if (size > 1 && !TalusErrorWasCollective()) MPI_Abort(PETSC_COMM_WORLD, 1);
    PetscPopErrorHandler();
    TalusFinalize();
    return 1;
  }
  PetscCall(PetscPopErrorHandler());
  ierr = TalusFinalize();
  return ierr ? 1 : status;
}
