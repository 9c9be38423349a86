/*
 * The output's text files on rank 0, agreed on by every rank: opening one in the run's directory,
 * flushing and syncing them (TalusOutputSync), closing one, and the progress lines. Below output.c,
 * frames.c, output_probe.c and summary.c, which write them.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#include <errno.h>
#include <unistd.h>
#include <stdarg.h>
#include "output_impl.h"

/* Opens DIR/name for writing on rank 0 (NULL elsewhere); a failure stops every rank. */
PetscErrorCode TalusOutputOpenText(TalusOutput out, const char name[], const char mode[], FILE **fp)
{
  char path[PETSC_MAX_PATH_LEN];
  int  err = 0;

  PetscFunctionBegin;
  *fp = NULL;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, name));
  if (out->rank == 0) {
    *fp = fopen(path, mode);
    if (!*fp) err = errno;
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_OPEN, "cannot write %s: %s", path, strerror(err));
  PetscFunctionReturn(0);
}

/*
 * Rank 0's text outputs handed to the kernel (and with sync, to the disk), agreed on by every rank: a
 * row written by a step is in the file before the next step, so that a kill loses no row that a
 * checkpoint already covers; a full disk stops the run here, on every rank.
 */
PetscErrorCode TalusOutputFlushText(TalusOutput out, PetscBool sync)
{
  FILE *files[3 + TALUS_MAX_TABLES] = {out->stats, out->probe_file, out->group_file};
  int   err                         = 0;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < out->ntables; k++) files[3 + k] = out->tables[k];
  for (PetscInt k = 0; k < 3 + out->ntables && !err; k++) {
    if (!files[k]) continue;
    if (fflush(files[k]) != 0 || (sync && fsync(fileno(files[k])) != 0)) err = errno ? errno : EIO;
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE,
             "cannot write stats.csv, the probes' or the modules' tables in %s: %s", out->dir, strerror(err));
  PetscFunctionReturn(0);
}

/* A line for the terminal and for progress.log (rank 0) */
PetscErrorCode TalusOutputProgress(TalusOutput out, const char fmt[], ...)
{
  char    line[1024];
  va_list args;

  PetscFunctionBegin;
  va_start(args, fmt);
  (void)vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  PetscCall(PetscPrintf(out->comm, "%s", line));
  if (out->log) {
    fputs(line, out->log);
    fflush(out->log);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputSync(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(TalusOutputFlushText((TalusOutput)ctx, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Closes a file opened by TalusOutputOpenText; a failed close (full disk) stops every rank. */
PetscErrorCode TalusOutputCloseText(TalusOutput out, FILE **fp, const char name[])
{
  int err = 0;

  PetscFunctionBegin;
  if (*fp && fclose(*fp) != 0) err = 1;
  *fp = NULL;
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s/%s (disk full?)", out->dir, name);
  PetscFunctionReturn(0);
}
