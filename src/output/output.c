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
#include "output_impl.h"

PetscErrorCode TalusOutputCreate(MPI_Comm comm, const char dir[], const TalusScene *scene, TalusOutput *out)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(out));
  (*out)->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &(*out)->rank));
  PetscCallMPI(MPI_Comm_size(comm, &(*out)->size));
  (*out)->scene          = *scene;
  (*out)->output_every   = 10;
  (*out)->progress_every = 0; /* 0: about 20 lines a run */
  (*out)->probe          = -1;
  (*out)->probe_watch    = -1;
  (*out)->group_watch    = -1;
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
  PetscCall(PetscOptionsInt("-probe", "Write body ID's trajectory and the force and torque on it to probe-ID.csv", "",
                            out->probe, &out->probe, NULL));
  {
    PetscInt  n = TALUS_PROBE_GROUP_MAX, *ids;
    PetscBool set;
    PetscCall(PetscCalloc1(n, &ids));
    ids[0] = -1; /* what -help shows: none */
    PetscCall(PetscOptionsIntArray("-probe_group",
                                   "Write the centre of mass of the bodies ID,ID,... (or A-B: A to B-1) and the force "
                                   "and torque on them from outside to probe-group.csv",
                                   "", ids, &n, &set));
    if (set) {
      PetscCheck(n >= 1, out->comm, PETSC_ERR_USER_INPUT, "-probe_group takes body ids: ID,ID,... or A-B");
      PetscCall(PetscSortRemoveDupsInt(&n, ids));
      PetscCheck(ids[0] >= 0, out->comm, PETSC_ERR_USER_INPUT,
                 "-probe_group takes body ids (0 or more), got %" PetscInt_FMT, ids[0]);
      PetscCall(PetscFree(out->group));
      PetscCall(PetscMalloc1(n, &out->group));
      PetscCall(PetscArraycpy(out->group, ids, n));
      out->ngroup = n;
    }
    PetscCall(PetscFree(ids));
  }
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

/* ------------------------------------------------------------------ per step */

const char TalusStatsHeader[] =
  "step,t,bodies,contacts,joints,iterations,residual,kinetic_energy,max_penetration,complementarity_error,wall_"
  "step_s,collide_s,assemble_s,solve_s,integrate_s,migrate_s,ghost_s,support_force_over_weight,warm_started,"
  "converged,imbalance,bodies_min,bodies_max,contacts_min,contacts_max,force_residual_max,force_residual_rms,"
  "joint_drift,joint_angle_drift,potential_energy,linear_iterations,screened,solves,force_error_max_over_weight,"
  "force_error_body,force_check_converged,force_residual_max_over_weight,force_residual_max_body,"
  "finish_iterations\n";

void TalusOutputWriteStatsHeader(TalusOutput out)
{
  if (out->stats) fputs(TalusStatsHeader, out->stats);
}

/* Opens (append: reopens after a restart) the text files and, unless a restart reopened it,
   creates the frames file with the current state as its first frame. */
PetscErrorCode TalusOutputOpen(TalusOutput out, TalusSim sim, const TalusOutputReopened *append)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(TalusMakeDirectory(out->comm, out->dir));
  PetscCall(TalusOutputOpenText(out, "stats.csv", append->stats ? "a" : "w", &out->stats));
  if (!append->stats) TalusOutputWriteStatsHeader(out);
  PetscCall(TalusOutputOpenText(out, "progress.log", append->stats ? "a" : "w", &out->log));
  PetscCall(TalusOutputOpenProbes(out, sim, append->probe, append->group));
  for (const char *name = NULL;; out->ntables++) { /* the modules' tables, each with its header unless reopened */
    PetscCall(TalusSimModulesGetTable(sim, out->ntables, &name));
    if (!name) break;
    PetscCheck(out->ntables < TALUS_MAX_TABLES, out->comm, PETSC_ERR_SUP,
               "more than %d module tables: raise TALUS_MAX_TABLES (src/output/output_impl.h)", TALUS_MAX_TABLES);
    PetscCall(PetscStrncpy(out->table_names[out->ntables], name, sizeof(out->table_names[0])));
    PetscCall(TalusOutputOpenText(out, name, append->tables[out->ntables] ? "a" : "w", &out->tables[out->ntables]));
    if (!append->tables[out->ntables])
      PetscCall(TalusSimModulesWriteTable(sim, out->ntables, out->tables[out->ntables], PETSC_TRUE));
  }
  if (out->output_every > 0 && !append->frames) {
    hid_t         fapl;
    TalusH5Writer w;
    PetscCall(TalusH5WriterInit(&w, out->comm, "frames file", -1));
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    fapl = TalusH5GrowingFileAccess(out->comm);
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
  const TalusOutputReopened fresh = {.stats = PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(TalusOutputOpen(out, sim, &fresh));
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
            ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%.6e,%.6e,%.6e,%.10e,%" PetscInt_FMT
            ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%" PetscInt_FMT ",%d,%.6e,%" PetscInt_FMT ",%" PetscInt_FMT "\n",
            s->step, (double)s->t, s->bodies, s->contacts, s->joints, s->iterations, (double)s->residual,
            (double)s->kinetic_energy, (double)s->max_penetration, (double)s->complementarity_error,
            (double)s->wall_step, (double)s->wall_collide, (double)s->wall_assemble, (double)s->wall_solve,
            (double)s->wall_integrate, (double)s->wall_migrate, (double)s->wall_ghost,
            (double)s->support_force_over_weight, s->warm_started, s->reason > 0 ? 1 : 0, (double)s->imbalance,
            s->bodies_min, s->bodies_max, s->contacts_min, s->contacts_max, (double)s->force_residual_max,
            (double)s->force_residual_rms, (double)s->joint_drift, (double)s->joint_angle_drift,
            (double)s->potential_energy, s->linear_iterations, s->screened, s->solves,
            s->force_checked ? (double)s->force_error_max : (double)NAN, s->force_checked ? s->force_error_body : -1,
            s->force_checked ? (int)s->force_check_converged : -1, (double)s->force_residual_max_over_weight,
            s->force_residual_max_body, s->finish_iterations);
  PetscCall(TalusOutputWriteProbes(out, sim)); /* collective */
  for (PetscInt k = 0; k < out->ntables; k++) PetscCall(TalusSimModulesWriteTable(sim, k, out->tables[k], PETSC_FALSE));
  PetscCall(TalusOutputFlushText(out, PETSC_FALSE));
  if (out->output_every > 0 && s->step % out->output_every == 0) PetscCall(TalusOutputWriteFrame(out, sim));

  /* totals */
  PetscCall(AppendReal(&out->wall, &out->steps, &out->wall_capacity, s->wall_step));
  out->contacts_sum += s->contacts;
  out->iterations_sum += s->iterations;
  out->screened_sum += s->screened;
  out->extra_solves += s->solves > 1 ? s->solves - 1 : 0;
  out->contacts_max        = PetscMax(out->contacts_max, s->contacts);
  out->iterations_max      = PetscMax(out->iterations_max, s->iterations);
  out->residual_max        = PetscMax(out->residual_max, s->residual);
  out->complementarity_max = PetscMax(out->complementarity_max, s->complementarity_error);
  out->force_residual_max  = PetscMax(out->force_residual_max, s->force_residual_max);
  if (s->force_residual_max_over_weight > out->force_residual_over_weight_max || out->steps == 1) {
    out->force_residual_over_weight_max  = s->force_residual_max_over_weight;
    out->force_residual_over_weight_step = s->step, out->force_residual_over_weight_body = s->force_residual_max_body;
  }
  if (s->force_checked) {
    out->force_checked++;
    out->force_checked_beyond_1pct += s->force_error_max > 0.01;
    out->force_check_unconverged += !s->force_check_converged;
    if (out->force_checked == 1 || s->force_error_max > out->force_error_max)
      out->force_error_max = s->force_error_max, out->force_error_step = s->step,
      out->force_error_body = s->force_error_body;
  }
  out->nonconverged += s->reason > 0 ? 0 : 1;
  out->finished += s->finish_iterations > 0 ? 1 : 0;
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
  if ((*out)->group_file) fclose((*out)->group_file);
  for (PetscInt k = 0; k < (*out)->ntables; k++)
    if ((*out)->tables[k]) fclose((*out)->tables[k]);
  if ((*out)->log) fclose((*out)->log);
  if ((*out)->frames >= 0) H5Fclose((*out)->frames);
  PetscCall(PetscFree((*out)->wall));
  PetscCall(PetscFree((*out)->group));
  PetscCall(PetscFree((*out)->frame_times));
  PetscCall(TalusFrameRowsDestroy(&(*out)->parts));
  PetscCall(TalusFrameRowsDestroy(&(*out)->meshes));
  PetscCall(PetscFree(*out));
  PetscFunctionReturn(0);
}
