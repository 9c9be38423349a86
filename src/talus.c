/* Start-up and shut-down of talus: PETSc plus the registration of what talus adds to it. */
#include <talus.h>

PetscLogEvent TALUS_EventProject, TALUS_EventResidual, TALUS_EventAntiRelax, TALUS_EventRead;

static PetscBool talus_registered = PETSC_FALSE;

/* Registers the Tao type "apgd" and the log events. Safe to call more than once. */
PetscErrorCode TalusRegisterAll(void)
{
  PetscClassId classid;

  PetscFunctionBegin;
  if (talus_registered) PetscFunctionReturn(0);
  talus_registered = PETSC_TRUE;
  PetscCall(TaoRegister(TAOAPGD, TaoCreate_APGD));
  PetscCall(PetscClassIdRegister("talus", &classid));
  PetscCall(PetscLogEventRegister("TalusProject", classid, &TALUS_EventProject));
  PetscCall(PetscLogEventRegister("TalusResidual", classid, &TALUS_EventResidual));
  PetscCall(PetscLogEventRegister("TalusAntiRelax", classid, &TALUS_EventAntiRelax));
  PetscCall(PetscLogEventRegister("TalusRead", classid, &TALUS_EventRead));
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
  talus_registered = PETSC_FALSE;
  return PetscFinalize();
}

/*
 * Error handler for the talus command: one line saying what went wrong. Errors a user can cause
 * (bad input, files) print only PETSc's message; internal errors also say where they arose.
 * Only the originating call prints (PETSC_ERROR_INITIAL), and only rank 0 of the communicator the
 * error was raised on, so a collective error on P ranks prints one line, not P.
 */
static PetscBool talus_error_collective = PETSC_FALSE;

static PetscBool IsUserError(PetscErrorCode n)
{
  return (PetscBool)(n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_FILE_OPEN || n == PETSC_ERR_FILE_READ || n == PETSC_ERR_FILE_UNEXPECTED || n == PETSC_ERR_FILE_WRITE || n == PETSC_ERR_ARG_OUTOFRANGE || n == PETSC_ERR_SUP || n == PETSC_ERR_ARG_WRONG);
}

/* True when the last error was a user error raised on every rank of PETSC_COMM_WORLD together,
   so all ranks are unwinding and can finalize cleanly. */
PetscBool TalusErrorWasCollective(void)
{
  return talus_error_collective;
}

PetscErrorCode TalusErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  PetscMPIInt rank = 0, size = 1, world = 1;
  const char *text = NULL;

  if (p != PETSC_ERROR_INITIAL) return n;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  MPI_Comm_size(PETSC_COMM_WORLD, &world);
  talus_error_collective = (PetscBool)(IsUserError(n) && size == world);
  if (rank != 0) return n;
  if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
  else text = mess;
  if (IsUserError(n)) fprintf(stderr, "talus: error: %s\n", text);
  else fprintf(stderr, "talus: error: %s (in %s at %s:%d)\n", text, fun, file, line);
  fflush(stderr);
  return n;
}
