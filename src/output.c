/* Run outputs (see include/talus/output.h and docs/outputs.md). One rank writes in this version. */
#include <talus.h>
#include <hdf5.h>
#include <errno.h>
#include <sys/stat.h>

struct _p_TalusOutput {
  MPI_Comm   comm;
  char       dir[PETSC_MAX_PATH_LEN];
  TalusScene scene;
  PetscInt   output_every, progress_every, probe;
  FILE      *stats, *probe_file, *xmf;
  hid_t      frames;
  PetscInt   nframes, frame_capacity;
  PetscReal *frame_times;  /* for frames.xmf */
  PetscInt  *frame_counts;
  /* running totals for summary.json */
  PetscInt        steps, contacts_max, iterations_max, nonconverged;
  PetscReal       contacts_sum, iterations_sum, residual_max, complementarity_max;
  PetscReal       seconds_collide, seconds_assemble, seconds_solve, seconds_integrate, seconds_output;
  PetscReal      *wall;
  PetscInt        wall_capacity;
  TalusStepStats  last;
  PetscLogDouble  start;
};

/* mkdir -p */
static PetscErrorCode MakeDirectory(MPI_Comm comm, const char dir[])
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(path, dir, sizeof(path)));
  for (char *p = path + 1;; p++) {
    const char c = *p;
    if (c == '/' || c == 0) {
      *p = 0;
      if (mkdir(path, 0777) != 0 && errno != EEXIST) SETERRQ(comm, PETSC_ERR_FILE_OPEN, "cannot create the output directory %s: %s", path, strerror(errno));
      *p = c;
    }
    if (!c) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode OpenText(TalusOutput out, const char name[], FILE **fp)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", out->dir, name));
  *fp = fopen(path, "w");
  PetscCheck(*fp, out->comm, PETSC_ERR_FILE_OPEN, "cannot write %s: %s", path, strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputCreate(MPI_Comm comm, const char dir[], const TalusScene *scene, TalusOutput *out)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(out));
  (*out)->comm           = comm;
  (*out)->scene          = *scene;
  (*out)->output_every   = 10;
  (*out)->progress_every = 0; /* 0: about 20 lines a run */
  (*out)->probe          = -1;
  (*out)->frames         = -1;
  PetscCall(PetscStrncpy((*out)->dir, dir, sizeof((*out)->dir)));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputSetFromOptions(TalusOutput out)
{
  PetscFunctionBegin;
  PetscOptionsBegin(out->comm, NULL, "Outputs", "TalusOutput");
  PetscCall(PetscOptionsInt("-output_every", "Write a frame to frames.h5 every this many steps (0: none)", "", out->output_every, &out->output_every, NULL));
  PetscCall(PetscOptionsInt("-progress_every", "Print a progress line every this many steps (0: about 20 a run)", "", out->progress_every, &out->progress_every, NULL));
  PetscCall(PetscOptionsInt("-probe", "Write body ID's trajectory to probe-ID.csv", "", out->probe, &out->probe, NULL));
  PetscOptionsEnd();
  PetscCheck(out->output_every >= 0 && out->progress_every >= 0, out->comm, PETSC_ERR_USER_INPUT, "-output_every and -progress_every must be >= 0");
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ frames.h5 + frames.xmf */

static PetscErrorCode WriteDataset(TalusOutput out, hid_t group, const char name[], hid_t type, PetscInt n, PetscInt width, const void *data)
{
  hsize_t dims[2] = {(hsize_t)n, (hsize_t)width};
  hid_t   space   = H5Screate_simple(width > 1 ? 2 : 1, dims, NULL);
  hid_t   dset    = H5Dcreate2(group, name, type == H5T_NATIVE_DOUBLE ? H5T_IEEE_F64LE : H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t  err     = dset >= 0 ? H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;

  PetscFunctionBegin;
  if (dset >= 0) H5Dclose(dset);
  H5Sclose(space);
  PetscCheck(err >= 0, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s to %s/frames.h5 (disk full?)", name, out->dir);
  PetscFunctionReturn(0);
}

/* The XDMF index is rewritten after every frame so that it always matches frames.h5. */
static PetscErrorCode WriteXdmf(TalusOutput out, const PetscReal *times, const PetscInt *counts)
{
  PetscFunctionBegin;
  PetscCall(OpenText(out, "frames.xmf", &out->xmf));
  fprintf(out->xmf, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (PetscInt f = 0; f < out->nframes; f++) {
    const PetscInt n = counts[f];
    fprintf(out->xmf, "   <Grid Name=\"frame%" PetscInt_FMT "\" GridType=\"Uniform\">\n    <Time Value=\"%.9g\"/>\n", f, (double)times[f]);
    fprintf(out->xmf, "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%" PetscInt_FMT "\"/>\n", n);
    fprintf(out->xmf, "    <Geometry GeometryType=\"XYZ\"><DataItem Dimensions=\"%" PetscInt_FMT " 3\" Format=\"HDF\" NumberType=\"Float\" Precision=\"8\">frames.h5:/frame%06" PetscInt_FMT "/position</DataItem></Geometry>\n", n, f);
    fprintf(out->xmf, "    <Attribute Name=\"id\" Center=\"Node\"><DataItem Dimensions=\"%" PetscInt_FMT "\" Format=\"HDF\" NumberType=\"Int\" Precision=\"8\">frames.h5:/frame%06" PetscInt_FMT "/id</DataItem></Attribute>\n", n, f);
    fprintf(out->xmf, "    <Attribute Name=\"velocity\" Center=\"Node\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT " 3\" Format=\"HDF\" NumberType=\"Float\" Precision=\"8\">frames.h5:/frame%06" PetscInt_FMT "/velocity</DataItem></Attribute>\n", n, f);
    fprintf(out->xmf, "    <Attribute Name=\"angular_velocity\" Center=\"Node\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT " 3\" Format=\"HDF\" NumberType=\"Float\" Precision=\"8\">frames.h5:/frame%06" PetscInt_FMT "/angular_velocity</DataItem></Attribute>\n", n, f);
    fprintf(out->xmf, "    <Attribute Name=\"size\" Center=\"Node\" AttributeType=\"Vector\"><DataItem Dimensions=\"%" PetscInt_FMT " 3\" Format=\"HDF\" NumberType=\"Float\" Precision=\"8\">frames.h5:/frame%06" PetscInt_FMT "/size</DataItem></Attribute>\n", n, f);
    fprintf(out->xmf, "   </Grid>\n");
  }
  fprintf(out->xmf, "  </Grid>\n </Domain>\n</Xdmf>\n");
  PetscCheck(fclose(out->xmf) == 0, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s/frames.xmf", out->dir);
  out->xmf = NULL;
  PetscFunctionReturn(0);
}

/*
 * Frame f: group /frameNNNNNN with id, position, quaternion, velocity, angular_velocity (world
 * frame) and size (radius / half-extents / plane normal) of the finite bodies, attribute time.
 */
static PetscErrorCode WriteFrame(TalusOutput out, TalusSim sim)
{
  TalusBodies *b;
  PetscReal   *pos, *quat, *vel, *omega, *size, t, A[9];
  PetscInt64  *id;
  PetscInt     n = 0;
  char         name[32];
  hid_t        group, attr, space;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  PetscCall(PetscMalloc6(b->n, &id, 3 * b->n, &pos, 4 * b->n, &quat, 3 * b->n, &vel, 3 * b->n, &omega, 3 * b->n, &size));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->shape[k] == TALUS_PLANE) continue;
    id[n] = b->id[k];
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotate(A, &b->omega[3 * k], &omega[3 * n]);
    for (int d = 0; d < 3; d++) pos[3 * n + d] = b->position[3 * k + d], vel[3 * n + d] = b->velocity[3 * k + d], size[3 * n + d] = b->size[3 * k + d];
    for (int d = 0; d < 4; d++) quat[4 * n + d] = b->quaternion[4 * k + d];
    n++;
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "/frame%06" PetscInt_FMT, out->nframes));
  group = H5Gcreate2(out->frames, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(group >= 0, out->comm, PETSC_ERR_FILE_WRITE, "cannot add %s to %s/frames.h5", name, out->dir);
  space = H5Screate(H5S_SCALAR);
  attr  = H5Acreate2(group, "time", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_DOUBLE, &t);
  H5Aclose(attr);
  H5Sclose(space);
  PetscCall(WriteDataset(out, group, "id", H5T_NATIVE_INT64, n, 1, id));
  PetscCall(WriteDataset(out, group, "position", H5T_NATIVE_DOUBLE, n, 3, pos));
  PetscCall(WriteDataset(out, group, "quaternion", H5T_NATIVE_DOUBLE, n, 4, quat));
  PetscCall(WriteDataset(out, group, "velocity", H5T_NATIVE_DOUBLE, n, 3, vel));
  PetscCall(WriteDataset(out, group, "angular_velocity", H5T_NATIVE_DOUBLE, n, 3, omega));
  PetscCall(WriteDataset(out, group, "size", H5T_NATIVE_DOUBLE, n, 3, size));
  H5Gclose(group);
  H5Fflush(out->frames, H5F_SCOPE_GLOBAL); /* readable after a crash */
  PetscCall(PetscFree6(id, pos, quat, vel, omega, size));
  if (out->nframes >= out->frame_capacity) {
    PetscReal *t2;
    PetscInt  *c2;
    out->frame_capacity = PetscMax(64, 2 * out->frame_capacity);
    PetscCall(PetscMalloc2(out->frame_capacity, &t2, out->frame_capacity, &c2));
    if (out->nframes) {
      PetscCall(PetscArraycpy(t2, out->frame_times, out->nframes));
      PetscCall(PetscArraycpy(c2, out->frame_counts, out->nframes));
    }
    PetscCall(PetscFree2(out->frame_times, out->frame_counts));
    out->frame_times = t2, out->frame_counts = c2;
  }
  out->frame_times[out->nframes]  = t;
  out->frame_counts[out->nframes] = n;
  out->nframes++;
  PetscCall(WriteXdmf(out, out->frame_times, out->frame_counts));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------ per step */

PetscErrorCode TalusOutputBegin(TalusOutput out, TalusSim sim)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(MakeDirectory(out->comm, out->dir));
  PetscCall(OpenText(out, "stats.csv", &out->stats));
  fprintf(out->stats, "step,t,bodies,contacts,joints,iterations,residual,kinetic_energy,max_penetration,complementarity_error,wall_step_s,collide_s,assemble_s,solve_s,integrate_s,support_force_over_weight,warm_started,converged\n");
  if (out->probe >= 0) {
    TalusBodies *b;
    PetscBool    found = PETSC_FALSE;
    PetscCall(TalusSimGetBodies(sim, &b));
    for (PetscInt k = 0; k < b->n; k++)
      if (b->id[k] == out->probe) found = PETSC_TRUE;
    PetscCheck(found, out->comm, PETSC_ERR_USER_INPUT, "-probe %" PetscInt_FMT ": no body has this id (ids run from 0 to %" PetscInt_FMT ")", out->probe, b->n - 1);
    PetscCall(PetscSNPrintf(path, sizeof(path), "probe-%" PetscInt_FMT ".csv", out->probe));
    PetscCall(OpenText(out, path, &out->probe_file));
    fprintf(out->probe_file, "t,x,y,z,vx,vy,vz,wx,wy,wz\n");
  }
  if (out->output_every > 0) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/frames.h5", out->dir));
    out->frames = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    PetscCheck(out->frames >= 0, out->comm, PETSC_ERR_FILE_OPEN, "cannot create %s", path);
    PetscCall(WriteFrame(out, sim));
  }
  PetscCall(PetscTime(&out->start));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteProbe(TalusOutput out, TalusSim sim)
{
  TalusBodies *b;
  PetscReal    t, A[9], w[3];

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->id[k] != out->probe) continue;
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotate(A, &b->omega[3 * k], w);
    fprintf(out->probe_file, "%.10g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g\n", (double)t, b->position[3 * k], b->position[3 * k + 1], b->position[3 * k + 2], b->velocity[3 * k], b->velocity[3 * k + 1], b->velocity[3 * k + 2], w[0], w[1], w[2]);
  }
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
  fprintf(out->stats, "%" PetscInt_FMT ",%.10g,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%.10e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.8f,%" PetscInt_FMT ",%d\n", s->step, (double)s->t, s->bodies, s->contacts, s->joints, s->iterations, (double)s->residual, (double)s->kinetic_energy, (double)s->max_penetration, (double)s->complementarity_error, (double)s->wall_step, (double)s->wall_collide, (double)s->wall_assemble, (double)s->wall_solve, (double)s->wall_integrate, (double)s->support_force_over_weight, s->warm_started, s->reason > 0 ? 1 : 0);
  if (out->probe_file) PetscCall(WriteProbe(out, sim));
  if (out->output_every > 0 && s->step % out->output_every == 0) PetscCall(WriteFrame(out, sim));

  /* totals */
  if (out->steps == out->wall_capacity) {
    PetscReal *grown;
    out->wall_capacity = PetscMax(1024, 2 * out->wall_capacity);
    PetscCall(PetscMalloc1(out->wall_capacity, &grown));
    if (out->steps) PetscCall(PetscArraycpy(grown, out->wall, out->steps));
    PetscCall(PetscFree(out->wall));
    out->wall = grown;
  }
  out->wall[out->steps++] = s->wall_step;
  out->contacts_sum += s->contacts;
  out->iterations_sum += s->iterations;
  out->contacts_max        = PetscMax(out->contacts_max, s->contacts);
  out->iterations_max      = PetscMax(out->iterations_max, s->iterations);
  out->residual_max        = PetscMax(out->residual_max, s->residual);
  out->complementarity_max = PetscMax(out->complementarity_max, s->complementarity_error);
  out->nonconverged += s->reason > 0 ? 0 : 1;
  out->seconds_collide += s->wall_collide;
  out->seconds_assemble += s->wall_assemble;
  out->seconds_solve += s->wall_solve;
  out->seconds_integrate += s->wall_integrate;
  out->last = *s;

  PetscCall(TalusSimGetTime(sim, NULL, &t_final, &dt));
  if (every == 0) every = PetscMax(1, (PetscInt)(t_final / dt / 20.0 + 0.5));
  if (s->step % every == 0) {
    PetscLogDouble now;
    PetscReal      per_step, remaining;
    PetscCall(PetscTime(&now));
    per_step  = (PetscReal)(now - out->start) / out->steps;
    remaining = PetscMax(0.0, (t_final - s->t) / dt) * per_step;
    PetscCall(PetscPrintf(out->comm, "step %7" PetscInt_FMT "  t %9.4f  contacts %7" PetscInt_FMT "  its %5" PetscInt_FMT "  residual %.2e%s  KE %.4e  wall/step %.3e s  ETA %.0f s\n", s->step, (double)s->t, s->contacts, s->iterations, (double)s->residual, s->reason > 0 ? "" : " (not converged)", (double)s->kinetic_energy, (double)per_step, (double)remaining));
  }
  PetscCall(PetscTime(&t1));
  out->seconds_output += t1 - t0;
  PetscCall(PetscLogEventEnd(TALUS_EventOutput, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

PetscErrorCode TalusOutputEnd(TalusOutput out, TalusSim sim)
{
  FILE          *fp;
  PetscLogDouble now;
  PetscReal      median = 0.0, t_end;
  PetscMPIInt    size;
  TalusBodies   *b;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetTime(sim, &t_end, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  if (out->steps) {
    qsort(out->wall, (size_t)out->steps, sizeof(PetscReal), CompareReal);
    median = out->wall[out->steps / 2];
  }
  PetscCall(OpenText(out, "summary.json", &fp));
  fprintf(fp, "{\n  \"scene\": \"%s\",\n  \"ranks\": %d,\n  \"steps\": %" PetscInt_FMT ",\n  \"t_final\": %.10g,\n  \"bodies\": %" PetscInt_FMT ",\n", out->scene.name, size, out->steps, (double)t_end, b->nowned);
  fprintf(fp, "  \"contacts_mean\": %.6g,\n  \"contacts_max\": %" PetscInt_FMT ",\n  \"iterations_mean\": %.6g,\n  \"iterations_max\": %" PetscInt_FMT ",\n  \"steps_not_converged\": %" PetscInt_FMT ",\n", out->steps ? out->contacts_sum / out->steps : 0.0, out->contacts_max, out->steps ? out->iterations_sum / out->steps : 0.0, out->iterations_max, out->nonconverged);
  fprintf(fp, "  \"residual_max\": %.6e,\n  \"kinetic_energy_final\": %.10e,\n  \"max_penetration_final\": %.6e,\n  \"complementarity_error_max\": %.6e,\n  \"support_force_over_weight\": %.8f,\n", (double)out->residual_max, (double)out->last.kinetic_energy, (double)out->last.max_penetration, (double)out->complementarity_max, (double)out->last.support_force_over_weight);
  fprintf(fp, "  \"wall_s\": %.6f,\n  \"wall_per_step_median_s\": %.6e,\n  \"seconds\": {\"collide\": %.6f, \"assemble\": %.6f, \"solve\": %.6f, \"integrate\": %.6f, \"output\": %.6f},\n  \"frames\": %" PetscInt_FMT "\n}\n", (double)(now - out->start), (double)median, (double)out->seconds_collide, (double)out->seconds_assemble, (double)out->seconds_solve, (double)out->seconds_integrate, (double)out->seconds_output, out->nframes);
  PetscCheck(fclose(fp) == 0, out->comm, PETSC_ERR_FILE_WRITE, "cannot write %s/summary.json (disk full?)", out->dir);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputDestroy(TalusOutput *out)
{
  PetscFunctionBegin;
  if (!*out) PetscFunctionReturn(0);
  if ((*out)->stats) fclose((*out)->stats);
  if ((*out)->probe_file) fclose((*out)->probe_file);
  if ((*out)->frames >= 0) H5Fclose((*out)->frames);
  PetscCall(PetscFree((*out)->wall));
  PetscCall(PetscFree2((*out)->frame_times, (*out)->frame_counts));
  PetscCall(PetscFree(*out));
  PetscFunctionReturn(0);
}
