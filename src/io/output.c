/*
 * Run outputs (see include/talus/output.h and docs/outputs.md). Rank 0 writes the text files from
 * global figures; frames.h5 is written collectively with parallel HDF5, every rank writing its own
 * bodies' rows at their slots, so the file is in global-id order whatever the rank count.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
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
static PetscErrorCode FlushText(TalusOutput out, PetscBool sync)
{
  FILE *files[3] = {out->stats, out->probe_file, out->joints_file};
  int   err      = 0;

  PetscFunctionBegin;
  for (int k = 0; k < 3 && !err; k++) {
    if (!files[k]) continue;
    if (fflush(files[k]) != 0 || (sync && fsync(fileno(files[k])) != 0)) err = errno ? errno : EIO;
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "cannot write stats.csv, the probe's file or joints.csv in %s: %s",
             out->dir, strerror(err));
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
  PetscCall(FlushText((TalusOutput)ctx, PETSC_TRUE));
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

PetscErrorCode TalusOutputCreate(MPI_Comm comm, const char dir[], const TalusScene *scene, TalusOutput *out)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(out));
  (*out)->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &(*out)->rank));
  (*out)->scene          = *scene;
  (*out)->output_every   = 10;
  (*out)->progress_every = 0; /* 0: about 20 lines a run */
  (*out)->probe          = -1;
  (*out)->frames         = -1;
  PetscCall(PetscStrncpy((*out)->frames_name, "frames.h5", sizeof((*out)->frames_name)));
  PetscCall(PetscStrncpy((*out)->dir, dir, sizeof((*out)->dir)));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputSetFromOptions(TalusOutput out)
{
  PetscFunctionBegin;
  PetscOptionsBegin(out->comm, NULL, "Outputs", "TalusOutput");
  PetscCall(PetscOptionsInt("-output_every", "Write a frame to frames.h5 every this many steps (0: none)", "",
                            out->output_every, &out->output_every, NULL));
  PetscCall(PetscOptionsInt("-progress_every", "Print a progress line every this many steps (0: about 20 a run)", "",
                            out->progress_every, &out->progress_every, NULL));
  PetscCall(PetscOptionsInt("-probe", "Write body ID's trajectory to probe-ID.csv", "", out->probe, &out->probe, NULL));
  PetscOptionsEnd();
  PetscCheck(out->output_every >= 0 && out->progress_every >= 0, out->comm, PETSC_ERR_USER_INPUT,
             "-output_every and -progress_every must be >= 0");
  PetscCheck(out->probe >= -1, out->comm, PETSC_ERR_USER_INPUT,
             "-probe takes a body's id (0 or more), got %" PetscInt_FMT, out->probe);
  PetscFunctionReturn(0);
}

/* Appends x to a growing array of n reals. */
static PetscErrorCode AppendReal(PetscReal **array, PetscInt *n, PetscInt *capacity, PetscReal x)
{
  PetscFunctionBegin;
  PetscCall(TalusGrowArray(sizeof(PetscReal), *n + 1, capacity, array));
  (*array)[(*n)++] = x;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputAddFrameTime(TalusOutput out, PetscReal t)
{
  PetscFunctionBegin;
  PetscCall(AppendReal(&out->frame_times, &out->nframes, &out->frame_capacity, t));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ per step */

const char TalusStatsHeader[] =
  "step,t,bodies,contacts,joints,iterations,residual,kinetic_energy,max_penetration,complementarity_error,wall_"
  "step_s,collide_s,assemble_s,solve_s,integrate_s,migrate_s,ghost_s,support_force_over_weight,warm_started,"
  "converged,imbalance,bodies_min,bodies_max,contacts_min,contacts_max,force_residual_max,force_residual_rms,"
  "joint_drift,joint_angle_drift,potential_energy\n";

const char TalusProbeHeader[] = "t,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz\n";

void TalusOutputWriteStatsHeader(TalusOutput out)
{
  if (out->stats) fputs(TalusStatsHeader, out->stats);
}

/* Opens (append: reopens after a restart) the text files and, unless a restart reopened it,
   creates the frames file with the current state as its first frame. */
PetscErrorCode TalusOutputOpen(TalusOutput out, TalusSim sim, PetscBool append_stats, PetscBool append_probe,
                               PetscBool append_joints, PetscBool frames_open)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(TalusMakeDirectory(out->comm, out->dir));
  PetscCall(TalusOutputOpenText(out, "stats.csv", append_stats ? "a" : "w", &out->stats));
  if (!append_stats) TalusOutputWriteStatsHeader(out);
  PetscCall(TalusOutputOpenText(out, "progress.log", append_stats ? "a" : "w", &out->log));
  if (out->probe >= 0) {
    TalusBodies *b;
    PetscInt     found = 0, total;
    PetscCall(TalusSimGetBodies(sim, &b));
    PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
    for (PetscInt k = 0; k < b->nowned; k++) found += (b->id[k] == out->probe && TalusBodiesIsFinite(b, k));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &found, 1, MPIU_INT, MPI_SUM, out->comm));
    PetscCheck(found, out->comm, PETSC_ERR_USER_INPUT,
               "-probe %" PetscInt_FMT ": no sphere or box has this id (the scene has %" PetscInt_FMT
               " of them, numbered with the planes in scene order)",
               out->probe, total);
    PetscCall(PetscSNPrintf(path, sizeof(path), "probe-%" PetscInt_FMT ".csv", out->probe));
    PetscCall(TalusOutputOpenText(out, path, append_probe ? "a" : "w", &out->probe_file));
    if (out->probe_file && !append_probe) fputs(TalusProbeHeader, out->probe_file);
    PetscCall(TalusSimWatchBody(sim, out->probe));
  }
  {
    PetscInt njoints;
    PetscCall(TalusSimGetJoints(sim, &njoints, NULL, NULL, NULL));
    if (njoints) {
      PetscCall(TalusOutputOpenText(out, "joints.csv", append_joints ? "a" : "w", &out->joints_file));
      if (out->joints_file && !append_joints) {
        static const char *const column[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
        fputs("t", out->joints_file);
        for (PetscInt j = 0; j < njoints; j++)
          for (int c = 0; c < 6; c++) fprintf(out->joints_file, ",j%" PetscInt_FMT "_%s", j, column[c]);
        fputs("\n", out->joints_file);
      }
    }
  }
  if (out->output_every > 0 && !frames_open) {
    hid_t         fapl = H5Pcreate(H5P_FILE_ACCESS);
    TalusH5Writer w;
    PetscCall(TalusH5WriterInit(&w, out->comm, "frames file", -1));
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Pset_fapl_mpio(fapl, out->comm, MPI_INFO_NULL);
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, out->frames_name));
    out->frames = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    TalusH5Note(&w, out->frames, "the file");
    PetscCall(TalusH5Agree(&w, path));
    PetscCall(TalusOutputWriteFrameStatics(out, sim));
    PetscCall(TalusOutputWriteFrame(out, sim));
  }
  PetscCall(PetscTime(&out->start));
  PetscCall(TalusOutputWriteSummaryRunning(out, sim));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputBegin(TalusOutput out, TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(TalusOutputOpen(out, sim, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* joints.csv: each joint's force and torque on its body B (the same on every rank; rank 0 writes) */
static PetscErrorCode WriteJoints(TalusOutput out, TalusSim sim)
{
  const PetscReal *wrench;
  PetscInt         njoints;
  PetscReal        t;

  PetscFunctionBegin;
  PetscCall(TalusSimGetJoints(sim, &njoints, NULL, NULL, NULL));
  PetscCall(TalusSimGetJointWrenches(sim, &wrench));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  if (!out->joints_file || !wrench) PetscFunctionReturn(0);
  fprintf(out->joints_file, "%.10g", (double)t);
  for (PetscInt j = 0; j < njoints; j++)
    for (int c = 0; c < 6; c++) fprintf(out->joints_file, ",%.10e", (double)wrench[12 * j + c]);
  fputs("\n", out->joints_file);
  PetscFunctionReturn(0);
}

/* The probed body lives on one rank: its row reaches rank 0 through a sum. */
static PetscErrorCode WriteProbe(TalusOutput out, TalusSim sim)
{
  TalusBodies *b;
  PetscReal    t, row[9] = {0}, wrench[6];

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->id[k] != out->probe || !TalusBodiesIsFinite(b, k)) continue;
    TalusBodiesGetAngularVelocityWorld(b, k, &row[6]);
    for (int d = 0; d < 3; d++) row[d] = b->position[3 * k + d], row[3 + d] = b->velocity[3 * k + d];
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, row, 9, MPIU_REAL, MPIU_SUM, out->comm));
  PetscCall(TalusSimGetWatchedWrench(sim, wrench)); /* the same on every rank */
  if (out->probe_file)
    fprintf(out->probe_file,
            "%.10g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e\n",
            (double)t, row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], wrench[0], wrench[1],
            wrench[2], wrench[3], wrench[4], wrench[5]);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputStep(TalusOutput out, TalusSim sim, const TalusStepStats *s)
{
  PetscLogDouble t0, t1;
  PetscReal      t_final, dt;
  PetscInt       every = out->progress_every;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventOutput, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (out->stats)
    fprintf(out->stats,
            "%" PetscInt_FMT ",%.10g,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
            ",%.6e,%.10e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.8f,%" PetscInt_FMT ",%d,%.4f,%" PetscInt_FMT
            ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%.6e,%.6e,%.6e,%.10e\n",
            s->step, (double)s->t, s->bodies, s->contacts, s->joints, s->iterations, (double)s->residual,
            (double)s->kinetic_energy, (double)s->max_penetration, (double)s->complementarity_error,
            (double)s->wall_step, (double)s->wall_collide, (double)s->wall_assemble, (double)s->wall_solve,
            (double)s->wall_integrate, (double)s->wall_migrate, (double)s->wall_ghost,
            (double)s->support_force_over_weight, s->warm_started, s->reason > 0 ? 1 : 0, (double)s->imbalance,
            s->bodies_min, s->bodies_max, s->contacts_min, s->contacts_max, (double)s->force_residual_max,
            (double)s->force_residual_rms, (double)s->joint_drift, (double)s->joint_angle_drift,
            (double)s->potential_energy);
  if (out->probe >= 0) PetscCall(WriteProbe(out, sim)); /* collective */
  PetscCall(WriteJoints(out, sim));
  PetscCall(FlushText(out, PETSC_FALSE));
  if (out->output_every > 0 && s->step % out->output_every == 0) PetscCall(TalusOutputWriteFrame(out, sim));

  /* totals */
  PetscCall(AppendReal(&out->wall, &out->steps, &out->wall_capacity, s->wall_step));
  out->contacts_sum += s->contacts;
  out->iterations_sum += s->iterations;
  out->contacts_max        = PetscMax(out->contacts_max, s->contacts);
  out->iterations_max      = PetscMax(out->iterations_max, s->iterations);
  out->residual_max        = PetscMax(out->residual_max, s->residual);
  out->complementarity_max = PetscMax(out->complementarity_max, s->complementarity_error);
  out->force_residual_max  = PetscMax(out->force_residual_max, s->force_residual_max);
  out->nonconverged += s->reason > 0 ? 0 : 1;
  if (out->steps == 1) out->rank_bodies_min = s->bodies_min, out->rank_contacts_min = s->contacts_min;
  out->rank_bodies_min   = PetscMin(out->rank_bodies_min, s->bodies_min);
  out->rank_bodies_max   = PetscMax(out->rank_bodies_max, s->bodies_max);
  out->rank_contacts_min = PetscMin(out->rank_contacts_min, s->contacts_min);
  out->rank_contacts_max = PetscMax(out->rank_contacts_max, s->contacts_max);
  out->imbalance_max     = PetscMax(out->imbalance_max, s->imbalance);
  out->bytes_per_product_sum += s->bytes_per_product;
  out->ghost_bytes_sum += s->ghost_bytes;
  out->seconds_migrate += s->wall_migrate;
  out->seconds_ghost += s->wall_ghost;
  out->seconds_collide += s->wall_collide;
  out->seconds_assemble += s->wall_assemble;
  out->seconds_solve += s->wall_solve;
  out->seconds_integrate += s->wall_integrate;
  out->last = *s;

  PetscCall(TalusSimGetTime(sim, NULL, &t_final, &dt));
  if (every == 0) every = PetscMax(1, (PetscInt)(t_final / dt / 20.0 + 0.5));
  if (s->step % every == 0) {
    /* the time a step takes now, from the steps since the last progress line (a plain average over the
       run said 8 s with 27 s left as the steps grew 26 times dearer), and the clock time */
    PetscLogDouble now;
    PetscReal      per_step, remaining;
    char           clock[16] = "";
    time_t         wall      = time(NULL);
    struct tm      parts;
    PetscCall(PetscTime(&now));
    if (out->progress_steps > 0 && out->steps > out->progress_steps)
      per_step = (PetscReal)(now - out->progress_time) / (PetscReal)(out->steps - out->progress_steps);
    else per_step = (PetscReal)(now - out->start) / out->steps;
    out->progress_time  = now;
    out->progress_steps = out->steps;
    remaining           = PetscMax(0.0, (t_final - s->t) / dt) * per_step;
    if (localtime_r(&wall, &parts)) strftime(clock, sizeof(clock), "%H:%M:%S", &parts);
    PetscCall(TalusOutputProgress(out,
                                  "%s step %7" PetscInt_FMT "  t %9.4f  contacts %7" PetscInt_FMT
                                  "  its %5" PetscInt_FMT "  residual %.2e%s  KE %.4e  wall/step %.3e s  ETA %.0f s\n",
                                  clock, s->step, (double)s->t, s->contacts, s->iterations, (double)s->residual,
                                  s->reason > 0 ? "" : " (not converged)", (double)s->kinetic_energy, (double)per_step,
                                  (double)remaining));
  }
  PetscCall(PetscTime(&t1));
  out->seconds_output += t1 - t0;
  PetscCall(PetscLogEventEnd(TALUS_EventOutput, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputDestroy(TalusOutput *out)
{
  PetscFunctionBegin;
  if (!*out) PetscFunctionReturn(0);
  if ((*out)->stats) fclose((*out)->stats); /* rank 0 only */
  if ((*out)->probe_file) fclose((*out)->probe_file);
  if ((*out)->joints_file) fclose((*out)->joints_file);
  if ((*out)->log) fclose((*out)->log);
  if ((*out)->frames >= 0) H5Fclose((*out)->frames);
  PetscCall(PetscFree((*out)->wall));
  PetscCall(PetscFree((*out)->frame_times));
  PetscCall(PetscFree(*out));
  PetscFunctionReturn(0);
}
