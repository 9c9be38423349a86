/* Start-up and shut-down of talus: PETSc plus the registration of what talus adds to it; the
   error handler of the command. */
#include <talus/module.h>
#include <talus/contacts.h>

static PetscBool talus_registered = PETSC_FALSE;

static PetscErrorCode TalusFinalizePackage(void)
{
  PetscFunctionBegin;
  talus_registered = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Registers the solver layer (TalusSolverRegisterAll), the compound's pairs, the simulator's modules and log events.
   Safe to call more than once. */
PetscErrorCode TalusRegisterAll(void)
{
  PetscClassId classid;

  PetscFunctionBegin;
  PetscCall(TalusSolverRegisterAll());
  if (talus_registered) PetscFunctionReturn(0);
  talus_registered = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(TalusFinalizePackage));
  PetscCall(TalusCompoundRegisterPairs());
  PetscCall(TalusSimRegisterModules());
  PetscCall(PetscClassIdRegister("talus", &classid));
  PetscCall(PetscLogEventRegister("Collide", classid, &TALUS_EventCollide));
  PetscCall(PetscLogEventRegister("Assemble", classid, &TALUS_EventAssemble));
  PetscCall(PetscLogEventRegister("Solve", classid, &TALUS_EventSolve));
  PetscCall(PetscLogEventRegister("Integrate", classid, &TALUS_EventIntegrate));
  PetscCall(PetscLogEventRegister("Output", classid, &TALUS_EventOutput));
  PetscCall(PetscLogEventRegister("CheckpointWrite", classid, &TALUS_EventCheckpointWrite));
  PetscCall(PetscLogEventRegister("CheckpointRead", classid, &TALUS_EventCheckpointRead));
  PetscCall(PetscLogEventRegister("SceneGenerate", classid, &TALUS_EventSceneGenerate));
  PetscCall(PetscLogEventRegister("ScenePlacement", classid, &TALUS_EventScenePlacement));
  PetscCall(PetscLogEventRegister("Distribute", classid, &TALUS_EventDistribute));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusInitialize(int *argc, char ***argv, const char help[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(argc, argv, NULL, help));
  PetscCall(TalusRegisterAll());
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFinalize(void)
{
  return PetscFinalize();
}

/*
 * Error handler for the talus command: one line saying what went wrong.
 * Errors a user can cause (bad input, files, options) print PETSc's message alone, from rank 0 of
 * PETSC_COMM_WORLD only: talus checks its input collectively, so every rank raises the same error
 * and one line is enough. Internal errors also say where they arose, from every rank that hit one
 * (prefixed by the rank when there are several). Only the originating call prints.
 */
static PetscBool talus_error_collective = PETSC_FALSE;
static char      talus_error_message[256];

const char *TalusErrorLastMessage(void)
{
  return talus_error_message;
}

static PetscBool IsUserError(PetscErrorCode n)
{
  return (PetscBool)(n == PETSC_ERR_USER || n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_FILE_OPEN ||
                     n == PETSC_ERR_FILE_READ || n == PETSC_ERR_FILE_UNEXPECTED || n == PETSC_ERR_FILE_WRITE ||
                     n == PETSC_ERR_ARG_OUTOFRANGE || n == PETSC_ERR_SUP || n == PETSC_ERR_ARG_WRONG);
}

/* True when the last error was a user error raised on all of PETSC_COMM_WORLD together, so every
   rank is unwinding and they can finalize cleanly instead of aborting. */
PetscBool TalusErrorWasCollective(void)
{
  return talus_error_collective;
}

/* After an error (ierr) that not every rank raised, the others wait in a collective call that this rank will not
   make, and so would any collective clean-up of this rank's: on several ranks the job ends here. */
void TalusAbortUnlessCollective(PetscErrorCode ierr)
{
  PetscMPIInt size = 1;

  if (!ierr || talus_error_collective) return;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) MPI_Abort(PETSC_COMM_WORLD, 1);
}

PetscErrorCode TalusErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                 PetscErrorType p, const char *mess, void *ctx)
{
  PetscMPIInt size = 1, world_rank = 0, world = 1;
  const char *text = NULL;

  if (p != PETSC_ERROR_INITIAL) return n;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &size);
  MPI_Comm_size(PETSC_COMM_WORLD, &world);
  MPI_Comm_rank(PETSC_COMM_WORLD, &world_rank);
  talus_error_collective = (PetscBool)(IsUserError(n) && size == world);
  if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
  else text = mess;
  if (text) snprintf(talus_error_message, sizeof(talus_error_message), "%s", text);
  if (IsUserError(n) && size == world) {
    if (world_rank == 0) fprintf(stderr, "talus: error: %s\n", text);
  } else if (IsUserError(n)) /* one rank's (its bodies'): the others do not know of it, so it says itself */
    fprintf(stderr, "talus: error on rank %d: %s\n", world_rank, text);
  else if (world > 1)
    fprintf(stderr, "talus: error on rank %d: %s (in %s at %s:%d)\n", world_rank, text, fun, file, line);
  else fprintf(stderr, "talus: error: %s (in %s at %s:%d)\n", text, fun, file, line);
  fflush(stderr);
  return n;
}
