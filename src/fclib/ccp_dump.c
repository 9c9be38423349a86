/*
 * Writes chosen steps' contact problems as FCLib files, so that they can leave talus: to be solved
 * by `talus ccp` with any solver, by Siconos or any FCLib reader, or kept as a benchmark set.
 *   -ccp_dump_step N[,N...]    the problems of these steps
 *   -ccp_dump_unconverged K    the first K problems whose solve did not converge
 *   -ccp_dump_dir DIR          where (default: OUTPUT/ccp)
 * Each file, DIR/step-NNNNNNN.h5, holds the local form (/fclib_local: W = B M^-1 B^T, q, mu) and the
 * global form (/fclib_global: M, H = B^T, f, w) of the same problem, the warm start the solve began
 * from as /guesses/1/r, and the solve's outcome under /talus: step, iterations, time_and_residual
 * (two reals) and the attribute reason (Tao's name for it).
 */
#include <talus/output.h>
#include "fclib_file.h"
#include "../io/files.h"

#define MAX_DUMP_STEPS 64

typedef struct {
  char     dir[PETSC_MAX_PATH_LEN];
  PetscInt steps[MAX_DUMP_STEPS], nsteps;
  PetscInt unconverged_left; /* problems of unconverged steps still to write */
  PetscInt written;
} DumpContext;

static PetscErrorCode DumpDestroy(void **ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(0);
}

/* The warm start and the solve's outcome, beside FCLib's groups. */
static PetscErrorCode WriteExtras(const char filename[], Vec warm_start, const TalusStepStats *stats)
{
  FCLibFile   f;
  const char *reason = TaoConvergedReasons[stats->reason];

  PetscFunctionBegin;
  PetscCall(FCLibOpen(PetscObjectComm((PetscObject)warm_start), filename, FCLIB_APPEND, &f));
  PetscCall(FCLibCreateGroup(&f, "/guesses"));
  PetscCall(FCLibCreateGroup(&f, "/guesses/1"));
  PetscCall(FCLibWriteVec(&f, "/guesses/1/r", warm_start));
  PetscCall(FCLibWriteScalarInt(&f, "/guesses/number_of_guesses", 1));
  PetscCall(FCLibCreateGroup(&f, "/talus"));
  PetscCall(FCLibWriteScalarInt(&f, "/talus/step", stats->step));
  PetscCall(FCLibWriteScalarInt(&f, "/talus/iterations", stats->iterations));
  {
    PetscMPIInt rank;
    PetscReal   values[2] = {stats->t, stats->residual};
    PetscCallMPI(MPI_Comm_rank(f.comm, &rank));
    PetscCall(FCLibWriteSlice(&f, "/talus/time_and_residual", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, 0,
                              rank == 0 ? 2 : 0, values));
  }
  { /* the reason's name as a string attribute of /talus, through the HDF5 layer's writer */
    TalusH5Writer w;
    hid_t         group = H5Gopen2(f.file, "/talus", H5P_DEFAULT);
    PetscCall(TalusH5WriterInit(&w, f.comm, "contact problem", f.file));
    TalusH5Note(&w, group, "/talus");
    if (group >= 0) {
      TalusH5WriteStringAttribute(&w, group, "reason", reason);
      H5Gclose(group);
    }
    PetscCall(TalusH5Agree(&w, filename));
  }
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}

static PetscErrorCode DumpMonitor(TalusSim sim, const TalusStepStats *stats, void *ctx)
{
  DumpContext      *d    = (DumpContext *)ctx;
  PetscBool         want = PETSC_FALSE, unconverged = stats->reason <= 0 ? PETSC_TRUE : PETSC_FALSE;
  char              filename[PETSC_MAX_PATH_LEN];
  TalusFCLibProblem local;
  TalusFCLibGlobal  global;
  Vec               warm_start;
  MPI_Comm          comm;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < d->nsteps; k++)
    if (d->steps[k] == stats->step) want = PETSC_TRUE;
  if (unconverged && d->unconverged_left > 0) {
    want = PETSC_TRUE;
    d->unconverged_left--;
  }
  if (!want) PetscFunctionReturn(0);
  PetscCall(TalusSimGetComm(sim, &comm));
  if (!d->written) PetscCall(TalusMakeDirectory(comm, d->dir));
  PetscCall(PetscSNPrintf(filename, sizeof(filename), "%s/step-%07" PetscInt_FMT ".h5", d->dir, stats->step));
  PetscCall(TalusSimGetStepProblem(sim, &local, &global, &warm_start));
  PetscCall(TalusFCLibWrite(filename, &local, TALUS_FCLIB_CSR));
  if (global.M) PetscCall(TalusFCLibAppendGlobal(filename, &global, TALUS_FCLIB_CSR)); /* none with E */
  PetscCall(WriteExtras(filename, warm_start, stats));
  d->written++;
  PetscCall(PetscPrintf(comm,
                        "talus: step %" PetscInt_FMT ": its contact problem (%" PetscInt_FMT
                        " contacts, %s after %" PetscInt_FMT " iterations, residual %.3g) written to %s\n",
                        stats->step, local.ncontacts, TaoConvergedReasons[stats->reason], stats->iterations,
                        (double)stats->residual, filename));
  PetscCall(VecDestroy(&warm_start));
  PetscCall(TalusFCLibGlobalDestroy(&global));
  PetscCall(TalusFCLibProblemDestroy(&local));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPDumpSetFromOptions(TalusSim sim, const char outdir[])
{
  DumpContext *d;
  PetscBool    set_steps, set_unconverged;
  MPI_Comm     comm;

  PetscFunctionBegin;
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(PetscNew(&d));
  d->nsteps = MAX_DUMP_STEPS;
  PetscCall(PetscSNPrintf(d->dir, sizeof(d->dir), "%s/ccp", outdir));
  PetscOptionsBegin(comm, NULL, "Writing steps' contact problems as FCLib files", "talus");
  PetscCall(PetscOptionsIntArray("-ccp_dump_step",
                                 "Write the contact problems of these steps (a comma-separated list of step numbers)",
                                 "TalusSimGetStepProblem", d->steps, &d->nsteps, &set_steps));
  PetscCall(PetscOptionsInt("-ccp_dump_unconverged",
                            "Write the contact problems of the first this many steps whose solve did not converge",
                            "TalusSimGetStepProblem", d->unconverged_left, &d->unconverged_left, &set_unconverged));
  PetscCall(PetscOptionsString("-ccp_dump_dir",
                               "Directory for the problems written by -ccp_dump_step and "
                               "-ccp_dump_unconverged (default: OUTPUT/ccp)",
                               "", d->dir, d->dir, sizeof(d->dir), NULL));
  PetscOptionsEnd();
  if (!set_steps) d->nsteps = 0;
  for (PetscInt k = 0; k < d->nsteps; k++)
    PetscCheck(d->steps[k] >= 1, comm, PETSC_ERR_USER_INPUT,
               "-ccp_dump_step: step numbers start at 1 (the first step of a run), got %" PetscInt_FMT, d->steps[k]);
  PetscCheck(d->unconverged_left >= 0, comm, PETSC_ERR_USER_INPUT,
             "-ccp_dump_unconverged: a count of problems, >= 0, got %" PetscInt_FMT, d->unconverged_left);
  if (d->nsteps == 0 && d->unconverged_left == 0) {
    PetscCall(PetscFree(d));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimSetProblemMonitor(sim, DumpMonitor, d, DumpDestroy));
  PetscFunctionReturn(0);
}
