/*
 * summary.json: what a run did, for the scripts of a campaign. Written with jansson (so that any
 * scene name makes valid JSON) by rank 0, to a temporary name renamed over the old file, so that a
 * reader never sees half a file. Its "status" says where the run is:
 *   "running"             written when the run starts; still there after a crash or a kill
 *   "finished"            reached its end time
 *   "stopped_for_restart" checkpointed and stopped (signal or -walltime, exit status 75)
 *   "failed"              stopped by an error, given in "error"
 */
#include "output_impl.h"
#include "../scene/scene_reader.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>

static const char *StatusName[] = {"running", "finished", "stopped_for_restart", "failed"};

/* JSON has no Inf or NaN: such a value is written as null. */
static json_t *Real(double x)
{
  return isfinite(x) ? json_real(x) : json_null();
}

static json_t *Int(PetscInt n)
{
  return json_integer((json_int_t)n);
}

/* The part every status has: which run, how far, its convergence so far. Rank 0 only. */
static json_t *Common(TalusOutput out, TalusSim sim, TalusRunStatus status)
{
  json_t         *root = json_object();
  PetscReal       t = 0.0, t_final = 0.0, tolerance = 0.0, force_rtol = 0.0;
  PetscInt        step = 0;
  TaoResidualNorm norm = TAO_RESIDUAL_NORM_2;
  PetscMPIInt     size = 1;
  PetscLogDouble  now  = 0.0;

  (void)TalusSimGetTime(sim, &t, &t_final, NULL);
  (void)TalusSimGetStep(sim, &step);
  (void)TalusSimGetContactTolerance(sim, &tolerance, &force_rtol); /* the solver exists: the run made it */
  (void)TalusSimGetResidualNorm(sim, &norm);
  (void)PetscTime(&now);
  (void)MPI_Comm_size(out->comm, &size);
  json_object_set_new(root, "scene", json_string(out->scene.name));
  json_object_set_new(root, "overrides", SceneOverridesJSON(out->scene.overrides)); /* -set PATH=VALUE */
  json_object_set_new(root, "status", json_string(StatusName[status]));
  json_object_set_new(root, "talus_version", json_string(TalusVersion()));
  json_object_set_new(root, "talus_commit", json_string(TalusCommit()));
  json_object_set_new(root, "ranks", json_integer(size));
  json_object_set_new(root, "step", Int(step));
  json_object_set_new(root, "t", Real(t));
  json_object_set_new(root, "t_target", Real(t_final));
  json_object_set_new(root, "steps", Int(out->steps)); /* by this job (a restart counts from its checkpoint) */
  json_object_set_new(root, "steps_not_converged", Int(out->nonconverged));
  json_object_set_new(root, "steps_finished", Int(out->finished)); /* answered by -ccp_finish's solver */
  json_object_set_new(root, "residual_max", Real(out->residual_max));
  json_object_set_new(root, "tolerance", Real(tolerance));                         /* the solver's, m/s */
  json_object_set_new(root, "residual_norm", json_string(TaoResidualNorms[norm])); /* what the tolerance bounds */
  json_object_set_new(root, "force_rtol", force_rtol > 0.0 ? Real(force_rtol) : json_null());
  json_object_set_new(root, "wall_s", Real(out->start > 0.0 ? now - out->start : 0.0));
  return root;
}

/* Writes root (stolen) as OUT_DIR/summary.json; rank 0. Returns 0 or errno. */
static int Dump(TalusOutput out, json_t *root)
{
  char tmp[PETSC_MAX_PATH_LEN + 32], path[PETSC_MAX_PATH_LEN + 16];
  int  err = 0;

  snprintf(path, sizeof(path), "%s/summary.json", out->dir);
  snprintf(tmp, sizeof(tmp), "%s/.summary.json.tmp", out->dir);
  errno = 0;
  if (!root || json_dump_file(root, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0 || rename(tmp, path) != 0)
    err = errno ? errno : EIO;
  json_decref(root);
  if (err) (void)remove(tmp);
  return err;
}

PetscErrorCode TalusOutputWriteSummaryRunning(TalusOutput out, TalusSim sim)
{
  int err = 0;

  PetscFunctionBegin;
  if (out->rank == 0) err = Dump(out, Common(out, sim, TALUS_RUN_RUNNING));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s/summary.json: %s", out->dir, strerror(err));
  PetscFunctionReturn(0);
}

/* Not collective: the other ranks may be anywhere. What cannot be written is only reported. */
PetscErrorCode TalusOutputFailed(TalusOutput out, TalusSim sim, const char message[])
{
  json_t *root;
  int     err;

  PetscFunctionBegin;
  if (!out || out->rank != 0) PetscFunctionReturn(0);
  root = Common(out, sim, TALUS_RUN_FAILED);
  json_object_set_new(root, "error", json_string(message && message[0] ? message : "unknown"));
  err = Dump(out, root);
  if (err) fprintf(stderr, "talus: cannot write %s/summary.json: %s\n", out->dir, strerror(err));
  PetscFunctionReturn(0);
}

/* Per-step arrays of this job, for the median of the wall time of a step */
static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

PetscErrorCode TalusOutputSetSetupTime(TalusOutput out, PetscLogDouble seconds)
{
  PetscFunctionBegin;
  out->seconds_setup = (PetscReal)seconds;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputEnd(TalusOutput out, TalusSim sim, PetscBool stopped)
{
  PetscLogDouble     now;
  PetscReal          median = 0.0, t_end, peak_rss[3], seconds[3];
  PetscInt           steps  = out->steps;
  TalusParallelStats ps;
  int                err = 0;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(TalusSimGetTime(sim, &t_end, NULL, NULL));
  if (steps) {
    qsort(out->wall, (size_t)steps, sizeof(PetscReal), CompareReal);
    median = out->wall[steps / 2];
  }
  PetscCall(TalusSimGetParallelStatistics(sim, &ps));
  seconds[0] = (PetscReal)out->seconds_migrate, seconds[1] = (PetscReal)out->seconds_ghost;
  seconds[2] = out->seconds_setup;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, seconds, 3, MPIU_REAL, MPIU_MAX, out->comm));
  { /* peak resident memory: the largest rank's, the sum over ranks (per body, and the mean), the smallest */
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    peak_rss[0] = peak_rss[1] = peak_rss[2] = 1024.0 * (PetscReal)usage.ru_maxrss; /* kilobytes on Linux */
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &peak_rss[0], 1, MPIU_REAL, MPIU_MAX, out->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &peak_rss[1], 1, MPIU_REAL, MPIU_SUM, out->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &peak_rss[2], 1, MPIU_REAL, MPIU_MIN, out->comm));
  }
  if (out->rank == 0) {
    json_t *root = Common(out, sim, stopped ? TALUS_RUN_STOPPED : TALUS_RUN_FINISHED), *rank = json_object(),
           *sec = json_object();
    json_object_set_new(root, "t_final", Real(t_end));
    json_object_set_new(root, "bodies", Int(out->last.bodies));
    json_object_set_new(root, "bodies_lost", Int(ps.bodies_lost));
    json_object_set_new(root, "contacts_mean", Real(steps ? out->contacts_sum / steps : 0.0));
    json_object_set_new(root, "contacts_max", Int(out->contacts_max));
    json_object_set_new(root, "iterations_mean", Real(steps ? out->iterations_sum / steps : 0.0));
    json_object_set_new(root, "iterations_max", Int(out->iterations_max));
    json_object_set_new(root, "screened_mean", Real(steps ? out->screened_sum / steps : 0.0));
    json_object_set_new(root, "solves_repeated", Int(out->extra_solves));
    json_object_set_new(root, "kinetic_energy_final", Real(out->last.kinetic_energy));
    json_object_set_new(root, "max_penetration_final", Real(out->last.max_penetration));
    json_object_set_new(root, "complementarity_error_max", Real(out->complementarity_max));
    json_object_set_new(root, "support_force_over_weight", Real(out->last.support_force_over_weight));
    json_object_set_new(root, "force_residual_max", Real(out->force_residual_max));
    json_object_set_new(root, "force_residual_max_over_weight", Real(out->force_residual_over_weight_max));
    json_object_set_new(root, "force_residual_max_where",
                        json_pack("{s:I,s:I}", "step", (json_int_t)out->force_residual_over_weight_step, "body",
                                  (json_int_t)out->force_residual_over_weight_body));
    if (out->force_checked) /* -ccp_force_check */
      json_object_set_new(root, "force_check",
                          json_pack("{s:I,s:f,s:I,s:I,s:I,s:I}", "steps_checked", (json_int_t)out->force_checked,
                                    "force_error_max_over_weight", (double)out->force_error_max, "step",
                                    (json_int_t)out->force_error_step, "body", (json_int_t)out->force_error_body,
                                    "steps_beyond_1pct", (json_int_t)out->force_checked_beyond_1pct,
                                    "references_not_converged", (json_int_t)out->force_check_unconverged));
    json_object_set_new(rank, "bodies_min", Int(out->rank_bodies_min));
    json_object_set_new(rank, "bodies_max", Int(out->rank_bodies_max));
    json_object_set_new(rank, "contacts_min", Int(out->rank_contacts_min));
    json_object_set_new(rank, "contacts_max", Int(out->rank_contacts_max));
    json_object_set_new(rank, "imbalance_final", Real(out->last.imbalance));
    json_object_set_new(rank, "imbalance_max", Real(out->imbalance_max));
    json_object_set_new(rank, "rebalances", Int(ps.rebalances));
    json_object_set_new(rank, "bytes_per_product_mean", Real(steps ? out->bytes_per_product_sum / steps : 0.0));
    json_object_set_new(rank, "ghost_bytes_per_step_mean", Real(steps ? out->ghost_bytes_sum / steps : 0.0));
    json_object_set_new(root, "per_rank", rank);
    json_object_set_new(root, "wall_per_step_median_s", Real(median));
    json_object_set_new(sec, "collide", Real(out->seconds_collide));
    json_object_set_new(sec, "assemble", Real(out->seconds_assemble));
    json_object_set_new(sec, "solve", Real(out->seconds_solve));
    json_object_set_new(sec, "integrate", Real(out->seconds_integrate));
    json_object_set_new(sec, "migrate", Real(seconds[0]));
    json_object_set_new(sec, "ghost", Real(seconds[1]));
    json_object_set_new(sec, "output", Real(out->seconds_output));
    json_object_set_new(root, "seconds", sec);
    json_object_set_new(root, "frames", Int(out->nframes));
    json_object_set_new(root, "setup_s", Real(seconds[2]));
    json_object_set_new(root, "peak_rss_bytes_max_rank", Real(peak_rss[0]));
    json_object_set_new(root, "peak_rss_bytes_mean_rank", Real(peak_rss[1] / out->size));
    json_object_set_new(root, "peak_rss_bytes_min_rank", Real(peak_rss[2]));
    json_object_set_new(root, "peak_rss_bytes_per_body",
                        Real(out->last.bodies > 0 ? peak_rss[1] / out->last.bodies : 0));
    err = Dump(out, root);
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, out->comm));
  PetscCheck(!err, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s/summary.json: %s", out->dir, strerror(err));
  { /* the run in a few lines, for the log a job leaves */
    char worst[64] = "", tables[TALUS_MAX_TABLES * 66] = "";
    for (PetscInt k = 0; k < out->ntables; k++) {
      PetscCall(PetscStrlcat(tables, ", ", sizeof(tables)));
      PetscCall(PetscStrlcat(tables, out->table_names[k], sizeof(tables)));
    }
    if (out->nonconverged)
      PetscCall(PetscSNPrintf(worst, sizeof(worst), " (largest residual %.2e)", (double)out->residual_max));
    PetscCall(TalusOutputProgress(
      out,
      "talus: %" PetscInt_FMT " steps to t = %g s in %.1f s (median step %.3e s); %" PetscInt_FMT
      " not converged to the tolerance%s\ntalus: outputs in %s: stats.csv, progress.log, summary.json%s%s%s\n",
      steps, (double)t_end, (double)(now - out->start), (double)median, out->nonconverged, worst, out->dir, tables,
      out->nframes ? ", frames.xmf (open it in ParaView: scripts/view) and " : "",
      out->nframes ? out->frames_name : ""));
  }
  PetscFunctionReturn(0);
}
