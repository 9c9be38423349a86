/*
 * The probes' files (docs/outputs.md): probe-ID.csv for -probe ID (one body's state and the force
 * and torque its contacts and joints exert on it) and probe-group.csv for -probe_group ID,ID,...
 * (a group's centre of mass and the force and torque of the contacts and joints with bodies outside
 * it, about that centre). Both come from the simulator's watches (src/sim/modules/probe.c); rank 0 writes.
 */
#include "output_impl.h"

const char TalusProbeHeader[]      = "t,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz\n";
const char TalusProbeGroupHeader[] = "t,bodies,mass,x,y,z,vx,vy,vz,fx,fy,fz,tx,ty,tz\n";

/* How many of ids[] (sorted) are spheres or boxes of the scene (collective). */
static PetscErrorCode CountFound(TalusOutput out, TalusSim sim, PetscInt n, const PetscInt ids[], PetscInt *found)
{
  TalusBodies *b;
  PetscInt     where;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  *found = 0;
  for (PetscInt k = 0; k < b->nowned; k++) {
    PetscCall(PetscFindInt(b->id[k], n, ids, &where));
    *found += (where >= 0 && TalusBodiesIsFinite(b, k));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, found, 1, MPIU_INT, MPI_SUM, out->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputOpenProbes(TalusOutput out, TalusSim sim, PetscBool append_probe, PetscBool append_group)
{
  char     path[PETSC_MAX_PATH_LEN];
  PetscInt found, total;

  PetscFunctionBegin;
  PetscCall(TalusSimGetFiniteBodyCount(sim, &total));
  if (out->probe >= 0) {
    PetscCall(CountFound(out, sim, 1, &out->probe, &found));
    PetscCheck(found, out->comm, PETSC_ERR_USER_INPUT,
               "-probe %" PetscInt_FMT ": no sphere or box has this id (the scene has %" PetscInt_FMT
               " of them, numbered with the planes in scene order)",
               out->probe, total);
    PetscCall(PetscSNPrintf(path, sizeof(path), "probe-%" PetscInt_FMT ".csv", out->probe));
    PetscCall(TalusOutputOpenText(out, path, append_probe ? "a" : "w", &out->probe_file));
    if (out->probe_file && !append_probe) fputs(TalusProbeHeader, out->probe_file);
    PetscCall(TalusSimAddWatch(sim, 1, &out->probe, &out->probe_watch));
  }
  if (out->ngroup) {
    PetscCall(CountFound(out, sim, out->ngroup, out->group, &found));
    PetscCheck(found == out->ngroup, out->comm, PETSC_ERR_USER_INPUT,
               "-probe_group: %" PetscInt_FMT " of its %" PetscInt_FMT
               " ids are not spheres or boxes of the scene (it has %" PetscInt_FMT
               " of them, numbered with the planes in scene order)",
               out->ngroup - found, out->ngroup, total);
    PetscCall(TalusOutputOpenText(out, "probe-group.csv", append_group ? "a" : "w", &out->group_file));
    if (out->group_file && !append_group) fputs(TalusProbeGroupHeader, out->group_file);
    PetscCall(TalusSimAddWatch(sim, out->ngroup, out->group, &out->group_watch));
  }
  PetscFunctionReturn(0);
}

/* The probed body lives on one rank: its row reaches rank 0 through a sum. */
static PetscErrorCode WriteProbe(TalusOutput out, TalusSim sim, PetscReal t)
{
  TalusBodies      *b;
  PetscReal         row[9] = {0};
  TalusWatchMeasure m;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->id[k] != out->probe || !TalusBodiesIsFinite(b, k)) continue;
    TalusBodiesGetAngularVelocityWorld(b, k, &row[6]);
    for (int d = 0; d < 3; d++) row[d] = b->position[3 * k + d], row[3 + d] = b->velocity[3 * k + d];
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, row, 9, MPIU_REAL, MPIU_SUM, out->comm));
  PetscCall(TalusSimGetWatch(sim, out->probe_watch, &m)); /* the same on every rank */
  if (out->probe_file)
    fprintf(out->probe_file,
            "%.10g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e\n",
            (double)t, row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], (double)m.force[0],
            (double)m.force[1], (double)m.force[2], (double)m.torque[0], (double)m.torque[1], (double)m.torque[2]);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusOutputWriteProbes(TalusOutput out, TalusSim sim)
{
  PetscReal         t;
  TalusWatchMeasure m;

  PetscFunctionBegin;
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  if (out->probe >= 0) PetscCall(WriteProbe(out, sim, t)); /* collective */
  if (!out->ngroup) PetscFunctionReturn(0);
  PetscCall(TalusSimGetWatch(sim, out->group_watch, &m));
  if (out->group_file)
    fprintf(out->group_file,
            "%.10g,%" PetscInt_FMT ",%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.15g,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e\n",
            (double)t, m.bodies, (double)m.mass, (double)m.centre[0], (double)m.centre[1], (double)m.centre[2],
            (double)m.velocity[0], (double)m.velocity[1], (double)m.velocity[2], (double)m.force[0], (double)m.force[1],
            (double)m.force[2], (double)m.torque[0], (double)m.torque[1], (double)m.torque[2]);
  PetscFunctionReturn(0);
}
