/* The talus command: dispatches to its subcommands. */
#include <talus.h>
#include "commands.h"

static const char help[] = "talus: rigid bodies with frictional contact, solved as cone complementarity problems.\n"
                           "\n"
                           "Usage:\n"
                           "  talus SCENE.yaml [options]      run a scene (docs/scene-format.md); outputs in -o DIR (default out/<scene>)\n"
                           "  talus ccp FILE.hdf5 [options]   solve one FCLib local contact problem (see docs/ccp.md)\n"
                           "  talus -help                     this text and the options of the parts that run\n"
                           "\n"
                           "Positional arguments come first, PETSc options (-name value) after them.\n"
                           "Run on P ranks with mpirun -n P talus ...\n\n";

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  PetscMPIInt    size;

  ierr = TalusInitialize(&argc, &argv, help);
  if (ierr) return 1;
  ierr = PetscPushErrorHandler(TalusErrorHandler, NULL);
  if (!ierr) {
    if (argc >= 2 && !strcmp(argv[1], "ccp")) ierr = TalusCommandCCP(argc - 1, argv + 1);
    else if (argc >= 2 && argv[1][0] != '-') ierr = TalusCommandRun(argv[1]);
    else ierr = PetscPrintf(PETSC_COMM_WORLD, "%s", help);
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
  return ierr ? 1 : 0;
}
