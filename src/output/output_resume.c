/*
 * Reopening a run's outputs at a restart (TalusOutputResume): the run that stopped may have gone
 * on after its last checkpoint, so rows and frames later than the checkpoint's step are dropped
 * before the restarted run appends its own: no step is lost or written twice.
 */
#define _DEFAULT_SOURCE
#include "output_impl.h"
#include <stdio.h>

static int CountCommas(const char *line)
{
  int n = 0;
  for (; *line; line++) n += *line == ',';
  return n;
}

/*
 * Rank 0: keeps the header and the rows of DIR/name whose first column is <= limit (through a
 * temporary file and a rename, so a crash here loses nothing). A row without its newline or with
 * another number of fields than the header (a write cut by a crash) is left out, with a warning.
 * *existed: whether there was a file.
 * With header given and the file's a prefix of it (written by a talus with fewer columns), the
 * header is replaced and the kept rows get empty fields for the new columns.
 */
static PetscErrorCode TruncateCSV(TalusOutput out, const char name[], const char *header, PetscReal limit,
                                  PetscBool *existed)
{
  char path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN], line[8192];
  int  status[3] = {0, 0, 0}; /* existed, errno, damaged rows (cut by a crash) that the checkpoint covers */

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, name));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s/%s.tmp", out->dir, name));
  if (out->rank == 0) {
    FILE *in = fopen(path, "r"), *keep;
    if (in) {
      status[0] = 1;
      keep      = fopen(tmp, "w");
      if (!keep) status[1] = errno;
      else {
        PetscBool first = PETSC_TRUE;
        int       pad = 0, fields = 0;
        while (fgets(line, sizeof(line), in)) {
          if (first) {
            const size_t len = strcspn(line, "\n");
            if (header && len < strlen(header) && !strncmp(line, header, len) && header[len] == ',') {
              pad = CountCommas(header) - CountCommas(line);
              fputs(header, keep);
            } else fputs(line, keep);
            fields = CountCommas(line) + pad;
          } else if (strchr(line, '\n') && CountCommas(line) + pad == fields && strtod(line, NULL) <= limit) {
            line[strcspn(line, "\n")] = 0;
            fprintf(keep, "%s%.*s\n", line, pad, ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,");
          } else if (strtod(line, NULL) <= limit) status[2]++;
          first = PETSC_FALSE;
        }
        if (fclose(keep) != 0) status[1] = errno;
        else if (rename(tmp, path) != 0) status[1] = errno;
      }
      fclose(in);
    }
  }
  PetscCallMPI(MPI_Bcast(status, 3, MPI_INT, 0, out->comm));
  PetscCheck(!status[1], out->comm, PETSC_ERR_FILE_WRITE, "cannot rewrite %s for the restart: %s", path,
             strerror(status[1]));
  *existed = (PetscBool)status[0];
  if (status[2])
    PetscCall(PetscPrintf(out->comm, "talus: warning: %s: %d damaged row%s (cut by the crash) left out\n", path,
                          status[2], status[2] > 1 ? "s" : ""));
  PetscFunctionReturn(0);
}

/*
 * Reopens the frames file (collectively) and keeps frames 0, 1, ... while their time is at most
 * t_keep; the later ones are unlinked. *opened is false when there is no file or it cannot be
 * opened (a crash during a frame may leave it unreadable): a new file is then started.
 */
static PetscErrorCode ReopenFrames(TalusOutput out, TalusSim sim, PetscReal t_keep, PetscBool *opened)
{
  char          path[PETSC_MAX_PATH_LEN], name[32];
  int           exists = 0;
  hid_t         fapl;
  H5G_info_t    info;
  PetscInt      step, total;
  TalusH5Writer w;

  PetscFunctionBegin;
  *opened = PETSC_FALSE;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
  if (out->rank == 0) exists = TalusPathExists(path);
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, out->comm));
  if (!exists) PetscFunctionReturn(0);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fapl        = TalusH5GrowingFileAccess(out->comm);
  out->frames = H5Fopen(path, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  PetscCall(TalusSimGetStep(sim, &step));
  if (out->frames < 0 || H5Gget_info(out->frames, &info) < 0 ||
      H5Lexists(out->frames, "every_frame", H5P_DEFAULT) <= 0) {
    const PetscBool older = (PetscBool)(out->frames >= 0);
    if (out->frames >= 0) H5Fclose(out->frames);
    out->frames = -1;
    PetscCall(PetscSNPrintf(out->frames_name, sizeof(out->frames_name), "frames-restart-%08" PetscInt_FMT ".h5", step));
    PetscCall(PetscPrintf(out->comm,
                          "talus: warning: %s %s%s; it is left as it is and frames from step %" PetscInt_FMT
                          " go to %s/%s\n",
                          older ? "an earlier talus wrote" : "cannot reopen", path,
                          older ? " (without what ParaView's reader needs)" : " (damaged by the crash?)", step,
                          out->dir, out->frames_name));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusH5WriterInit(&w, out->comm, "frames file", out->frames));
  for (hsize_t f = 0; f < info.nlinks; f++) {
    double t = PETSC_MAX_REAL;
    PetscCall(PetscSNPrintf(name, sizeof(name), "frame%06" PetscInt_FMT, (PetscInt)f));
    if (H5Lexists(out->frames, name, H5P_DEFAULT) <= 0) continue;
    if (H5Aexists_by_name(out->frames, name, "time", H5P_DEFAULT) > 0) {
      hid_t attr = H5Aopen_by_name(out->frames, name, "time", H5P_DEFAULT, H5P_DEFAULT);
      if (attr < 0 || H5Aread(attr, H5T_NATIVE_DOUBLE, &t) < 0) t = PETSC_MAX_REAL;
      if (attr >= 0) H5Aclose(attr);
    }
    if ((PetscInt)f == out->nframes && t <= t_keep) PetscCall(TalusOutputAddFrameTime(out, t));
    else TalusH5Note(&w, H5Ldelete(out->frames, name, H5P_DEFAULT), "removing a frame written after the checkpoint");
  }
  TalusH5Note(&w, H5Fflush(out->frames, H5F_SCOPE_GLOBAL), "the file (flush)");
  PetscCall(TalusH5Agree(&w, path));
  PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
  PetscCall(TalusOutputWriteFrameStatics(out, sim)); /* reads the planes' count */
  PetscCall(TalusOutputWriteXdmf(out, total));
  *opened = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputResume(TalusOutput out, TalusSim sim)
{
  PetscReal           t, dt;
  PetscInt            step;
  TalusOutputReopened again = {.stats = PETSC_FALSE};
  char                name[64];

  PetscFunctionBegin;
  PetscCall(TalusMakeDirectory(out->comm, out->dir));
  PetscCall(TalusSimGetTime(sim, &t, NULL, &dt));
  PetscCall(TalusSimGetStep(sim, &step));
  PetscCall(TruncateCSV(out, "stats.csv", TalusStatsHeader, (PetscReal)step + 0.5, &again.stats));
  if (out->probe >= 0) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "probe-%" PetscInt_FMT ".csv", out->probe));
    PetscCall(TruncateCSV(out, name, TalusProbeHeader, t + 0.5 * dt, &again.probe));
  }
  if (out->ngroup) PetscCall(TruncateCSV(out, "probe-group.csv", TalusProbeGroupHeader, t + 0.5 * dt, &again.group));
  for (PetscInt k = 0; k < TALUS_MAX_TABLES; k++) { /* the modules' tables (joints.csv, ...) */
    const char *table;
    PetscCall(TalusSimModulesGetTable(sim, k, &table));
    if (!table) break;
    PetscCall(TruncateCSV(out, table, NULL, t + 0.5 * dt, &again.tables[k]));
  }
  if (out->output_every > 0) PetscCall(ReopenFrames(out, sim, t + 0.5 * dt, &again.frames));
  PetscCall(TalusOutputOpen(out, sim, &again));
  PetscFunctionReturn(0);
}
