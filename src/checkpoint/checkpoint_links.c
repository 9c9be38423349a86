/*
 * The links of a checkpoint (format 2, docs/checkpoint-format.md): the joints with their rows' last
 * impulses, the prescribed motions, the loads and the springs. Every rank holds all of them
 * (include/talus/joints.h, drives.h), so rank 0 writes each table whole and every rank reads it
 * whole, checked as strictly as a scene is.
 */
#include "checkpoint_sections.h"
#include <stddef.h>

#define JOINT_FIELD(name, integer, member, width) \
  { \
    name, integer, width, offsetof(TalusJoint, member) \
  }
/* the joints (format 2), every one on every rank: rank 0 writes them, every rank reads them all */
static const TalusH5Field joint_fields[] = {
  JOINT_FIELD("type", PETSC_TRUE, type, 1),
  JOINT_FIELD("bodies", PETSC_TRUE, body, 2),
  JOINT_FIELD("owner_side", PETSC_TRUE, owner_side, 1),
  JOINT_FIELD("anchor", PETSC_FALSE, anchor, 6),
  JOINT_FIELD("axis", PETSC_FALSE, axis, 6),
  JOINT_FIELD("reference", PETSC_FALSE, reference, 6),
  JOINT_FIELD("length", PETSC_FALSE, length, 1),
  JOINT_FIELD("motion", PETSC_FALSE, motion, 5),
  JOINT_FIELD("motion_table", PETSC_TRUE, motion.table, 1), /* format 3: the fields after version 2's come last */
  JOINT_FIELD("relaxation", PETSC_FALSE, zeta, 2),          /* zeta, delta */
  JOINT_FIELD("compliance", PETSC_FALSE, stiffness, 2),     /* format 4: K, B */
  JOINT_FIELD("limits", PETSC_FALSE, lower, 2),             /* format 5: a limit's lower, upper */
};
#define DRIVE_FIELD(type, name, integer, member, width) \
  { \
    name, integer, width, offsetof(type, member) \
  }
static const TalusH5Field prescribed_fields[] = {
  DRIVE_FIELD(TalusPrescribedMotion, "body", PETSC_TRUE, body, 1),
  DRIVE_FIELD(TalusPrescribedMotion, "velocity", PETSC_FALSE, velocity, 3),
  DRIVE_FIELD(TalusPrescribedMotion, "amplitude", PETSC_FALSE, amplitude, 3),
  DRIVE_FIELD(TalusPrescribedMotion, "frequency", PETSC_FALSE, frequency, 1),
  DRIVE_FIELD(TalusPrescribedMotion, "phase", PETSC_FALSE, phase, 1),
  DRIVE_FIELD(TalusPrescribedMotion, "angular_velocity", PETSC_FALSE, angular_velocity, 3),
  DRIVE_FIELD(TalusPrescribedMotion, "t0", PETSC_FALSE, t0, 1),
  DRIVE_FIELD(TalusPrescribedMotion, "position0", PETSC_FALSE, position0, 3),
  DRIVE_FIELD(TalusPrescribedMotion, "quaternion0", PETSC_FALSE, quaternion0, 4),
  DRIVE_FIELD(TalusPrescribedMotion, "table", PETSC_TRUE, table, 1), /* format 3 */
};
static const TalusH5Field load_fields[] = {
  DRIVE_FIELD(TalusLoad, "body", PETSC_TRUE, body, 1),
  DRIVE_FIELD(TalusLoad, "force", PETSC_FALSE, force, 3),
  DRIVE_FIELD(TalusLoad, "torque", PETSC_FALSE, torque, 3),
  DRIVE_FIELD(TalusLoad, "point", PETSC_FALSE, point, 3),
  DRIVE_FIELD(TalusLoad, "body_frame", PETSC_TRUE, body_frame, 1),
  DRIVE_FIELD(TalusLoad, "force_table", PETSC_TRUE, force_table, 1), /* format 3 */
  DRIVE_FIELD(TalusLoad, "torque_table", PETSC_TRUE, torque_table, 1),
};
static const TalusH5Field spring_fields[] = {
  DRIVE_FIELD(TalusSpring, "bodies", PETSC_TRUE, body, 2),
  DRIVE_FIELD(TalusSpring, "anchor", PETSC_FALSE, anchor, 6),
  DRIVE_FIELD(TalusSpring, "stiffness", PETSC_FALSE, stiffness, 1),
  DRIVE_FIELD(TalusSpring, "damping", PETSC_FALSE, damping, 1),
  DRIVE_FIELD(TalusSpring, "rest_length", PETSC_FALSE, rest_length, 1),
  DRIVE_FIELD(TalusSpring, "axial_damping", PETSC_TRUE, axial_damping, 1),
};
static const TalusH5Field planar_fields[] = {
  DRIVE_FIELD(TalusPlanar, "body", PETSC_TRUE, body, 1),
  DRIVE_FIELD(TalusPlanar, "normal", PETSC_FALSE, normal, 3),
};
#define NFIELDS(f) ((int)(sizeof(f) / sizeof((f)[0])))
/* the fields a file of this version has, those added later last: format 2 lacks the table handles and
   the relaxation (read as 0, none), format 3 the joints' compliance (0: rigid), format 4 the limits
   (no joint of format 4 is a limit) */
#define NFIELDS_OF(f, version, added3, added4, added5) \
  (NFIELDS(f) - ((version) < 5 ? (added5) : 0) - ((version) < 4 ? (added4) : 0) - ((version) < 3 ? (added3) : 0))

/* The tables of time (format 3): per table its value columns and points ("tables", t x 2), and all
   their rows one after the other ("table_values"). */
static PetscErrorCode WriteTables(TalusH5Writer *w, TalusSim sim)
{
  const TalusTable *tables;
  PetscInt          n, nvalues = 0;
  PetscInt64       *shape; /* integer datasets hold 64-bit integers */
  PetscReal        *values;
  const PetscBool   writer = (PetscBool)(w->rank == 0);

  PetscFunctionBegin;
  PetscCall(TalusSimGetTables(sim, &n, &tables));
  if (!n) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n; i++) nvalues += tables[i].npoints * (tables[i].columns + 1);
  PetscCall(PetscMalloc2(2 * n, &shape, nvalues, &values));
  nvalues = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt size = tables[i].npoints * (tables[i].columns + 1);
    shape[2 * i] = tables[i].columns, shape[2 * i + 1] = tables[i].npoints;
    PetscCall(PetscArraycpy(&values[nvalues], tables[i].data, size));
    nvalues += size;
  }
  PetscCall(TalusH5WriteDataset(w, w->file, "tables", TALUS_H5_INT, n, 2, 0, writer ? n : 0, shape));
  PetscCall(
    TalusH5WriteDataset(w, w->file, "table_values", TALUS_H5_REAL, nvalues, 1, 0, writer ? nvalues : 0, values));
  PetscCall(PetscFree2(shape, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointWriteLinks(TalusH5Writer *w, TalusSim sim)
{
  PetscInt                     njoints, nprescribed, nloads, nsprings;
  const TalusJoint            *joints;
  const PetscInt              *joint_row_start;
  const PetscReal             *joint_impulse;
  const TalusPrescribedMotion *prescribed;
  const TalusLoad             *loads;
  const TalusSpring           *springs;
  const TalusPlanar           *planar;
  PetscInt                     nplanar;
  const PetscBool              writer = (PetscBool)(w->rank == 0);

  PetscFunctionBegin;
  PetscCall(TalusSimGetJoints(sim, &njoints, &joints, &joint_row_start, &joint_impulse));
  PetscCall(TalusSimGetDrives(sim, &nprescribed, &prescribed, &nloads, &loads, &nsprings, &springs));
  PetscCall(TalusSimGetPlanar(sim, &nplanar, &planar));
  if (njoints) {
    const PetscInt nrows = joint_row_start[njoints];
    PetscCall(TalusH5WriteTable(w, "joints", joint_fields, NFIELDS(joint_fields), sizeof(TalusJoint), njoints, 0,
                                writer ? njoints : 0, joints));
    PetscCall(
      TalusH5WriteDataset(w, w->file, "joint_impulses", TALUS_H5_REAL, nrows, 1, 0, writer ? nrows : 0, joint_impulse));
  }
  if (nprescribed)
    PetscCall(TalusH5WriteTable(w, "prescribed", prescribed_fields, NFIELDS(prescribed_fields),
                                sizeof(TalusPrescribedMotion), nprescribed, 0, writer ? nprescribed : 0, prescribed));
  if (nloads)
    PetscCall(TalusH5WriteTable(w, "loads", load_fields, NFIELDS(load_fields), sizeof(TalusLoad), nloads, 0,
                                writer ? nloads : 0, loads));
  if (nsprings)
    PetscCall(TalusH5WriteTable(w, "springs", spring_fields, NFIELDS(spring_fields), sizeof(TalusSpring), nsprings, 0,
                                writer ? nsprings : 0, springs));
  PetscCall(WriteTables(w, sim));
  if (nplanar)
    PetscCall(TalusH5WriteTable(w, "planar", planar_fields, NFIELDS(planar_fields), sizeof(TalusPlanar), nplanar, 0,
                                writer ? nplanar : 0, planar));
  PetscFunctionReturn(0);
}

/* A stored joint as strictly as a scene's: NULL, or the fault. */
static const char *JointFault(const TalusJoint *j, PetscInt max_id, PetscInt version)
{
  if (j->type < 0 || j->type >= TALUS_NJOINT_TYPES) return "an unknown type";
  if (version < 5 && TalusJointTypeIsLimit((TalusJointType)j->type)) return "a limit's type, which format 5 added";
  if (j->owner_side < 0 || j->owner_side > 1 || j->body[j->owner_side] == TALUS_WORLD) return "no body keeping it";
  for (int side = 0; side < 2; side++) {
    if (j->body[side] < TALUS_WORLD || j->body[side] >= max_id) return "a body id outside the scene's";
    if (!TalusAllFinite(j->anchor[side], 3) || !TalusAllFinite(j->axis[side], 3) ||
        !TalusAllFinite(j->reference[side], 3))
      return "a value that is not a finite number (or beyond 1e100 in magnitude)";
    if (PetscAbsReal(TalusNorm3(j->axis[side]) - 1.0) > 1e-6 ||
        PetscAbsReal(TalusNorm3(j->reference[side]) - 1.0) > 1e-6)
      return "an axis that is not a unit vector";
  }
  if (!(j->length >= 0.0 && j->length < PETSC_INFINITY) || !TalusAllFinite(&j->motion.offset, 5))
    return "a length or motion that is not valid";
  if (!(j->zeta >= 0.0 && j->zeta < PETSC_INFINITY && j->delta >= 0.0 && j->delta < PETSC_INFINITY))
    return "a relaxation that is not valid";
  if (!(j->stiffness >= 0.0 && j->stiffness < PETSC_INFINITY && j->damping >= 0.0 && j->damping < PETSC_INFINITY) ||
      (j->stiffness > 0.0 && j->delta > 0.0))
    return "a compliance that is not valid";
  if (TalusJointTypeIsLimit((TalusJointType)j->type) &&
      TalusJointLimitFault((TalusJointType)j->type, j->lower, j->upper))
    return "a limit's range that is not valid";
  return NULL;
}

/* A stored drive's values (what a scene checks): NULL, or the fault. */
static PetscBool IdIn(PetscInt id, PetscInt max_id, PetscBool world)
{
  return (PetscBool)((id >= 0 && id < max_id) || (world && id == TALUS_WORLD));
}

static const char *DriveFault(const TalusCheckpointInfo *info, const TalusPrescribedMotion *p, const TalusLoad *l,
                              const TalusSpring *s, const TalusPlanar *q)
{
  const PetscInt max_id = info->nfinite + info->nplanes + info->bodies_lost;
  if (p &&
      (!IdIn(p->body, max_id, PETSC_FALSE) || !TalusAllFinite(p->velocity, 3) || !TalusAllFinite(p->amplitude, 3) ||
       !TalusAllFinite(&p->frequency, 1) || !TalusAllFinite(&p->phase, 1) || !TalusAllFinite(p->angular_velocity, 3) ||
       !TalusAllFinite(&p->t0, 1) || !TalusAllFinite(p->position0, 3) || !TalusAllFinite(p->quaternion0, 4)))
    return "a prescribed motion with a body id or a value that is not valid";
  if (l && (!IdIn(l->body, max_id, PETSC_FALSE) || !TalusAllFinite(l->force, 3) || !TalusAllFinite(l->torque, 3) ||
            !TalusAllFinite(l->point, 3) || (l->body_frame != 0 && l->body_frame != 1)))
    return "a load with a body id or a value that is not valid";
  if (s &&
      (!IdIn(s->body[0], max_id, PETSC_TRUE) || !IdIn(s->body[1], max_id, PETSC_TRUE) ||
       !TalusAllFinite(s->anchor[0], 6) || !(s->stiffness >= 0.0 && s->stiffness < PETSC_INFINITY) ||
       !(s->damping >= 0.0 && s->damping < PETSC_INFINITY) ||
       !(s->rest_length >= 0.0 && s->rest_length < PETSC_INFINITY) || (s->axial_damping != 0 && s->axial_damping != 1)))
    return "a spring with a body id or a value that is not valid";
  if (q && (!IdIn(q->body, max_id, PETSC_FALSE) || !TalusAllFinite(q->normal, 3) ||
            PetscAbsReal(TalusNorm3(q->normal) - 1.0) > 1e-6))
    return "a planar body with a body id or a normal that is not valid";
  return NULL;
}

/* A table every rank reads whole (the drives, format 2): rows, or NULL when n is 0 */
static PetscErrorCode ReadReplicated(TalusH5Reader *r, const char group[], const TalusH5Field fields[], int nfields,
                                     size_t row_bytes, PetscInt n, void **rows)
{
  char first[64];

  PetscFunctionBegin;
  *rows = NULL;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(first, sizeof(first), "%s/%s", group, fields[0].name));
  TalusH5CheckExtent(r, first, n);
  PetscCall(PetscCalloc(row_bytes * n, rows));
  PetscCall(TalusH5ReadTable(r, group, fields, nfields, row_bytes, n, 0, n, *rows, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* The joints (format 2) on every rank, with their rows' impulses; NULL when there are none. */
static PetscErrorCode ReadJoints(TalusH5Reader *r, const TalusCheckpointInfo *info, TalusJoint **joints,
                                 PetscReal **impulse, PetscInt *nrows)
{
  const PetscInt max_id = info->nfinite + info->nplanes + info->bodies_lost;
  const char    *fault;

  PetscFunctionBegin;
  *joints = NULL, *impulse = NULL, *nrows = 0;
  if (!info->njoints) PetscFunctionReturn(0);
  TalusH5CheckExtent(r, "joints/type", info->njoints);
  PetscCall(PetscCalloc1(info->njoints, joints));
  PetscCall(TalusH5ReadTable(r, "joints", joint_fields, NFIELDS_OF(joint_fields, info->version, 2, 1, 1),
                             sizeof(TalusJoint), info->njoints, 0, info->njoints, *joints, PETSC_FALSE));
  for (PetscInt j = 0; j < info->njoints && !r->bad; j++) {
    if ((fault = JointFault(&(*joints)[j], max_id, info->version))) TalusH5Fault(r, "a joint has %s", fault);
    else *nrows += TalusJointTypeRows((TalusJointType)(*joints)[j].type);
  }
  TalusH5CheckExtent(r, "joint_impulses", *nrows);
  PetscCall(PetscCalloc1(*nrows + 1, impulse));
  if (!r->bad)
    PetscCall(TalusH5ReadDataset(r, "joint_impulses", TALUS_H5_REAL, *nrows, 1, 0, *nrows, *impulse, PETSC_FALSE));
  if (!r->bad && !TalusAllFinite(*impulse, (int)*nrows))
    TalusH5Fault(r, "%s", "a joint impulse is not a finite number");
  PetscFunctionReturn(0);
}

/* The tables of time (format 3), every one on every rank, checked as TalusSimAddTable checks them */
static PetscErrorCode ReadTables(TalusH5Reader *r, const TalusCheckpointInfo *info, TalusCheckpointLinks *links)
{
  PetscInt64 *shape; /* integer datasets hold 64-bit integers */
  PetscInt    nvalues = 0;

  PetscFunctionBegin;
  if (!info->ntables) PetscFunctionReturn(0);
  TalusH5CheckExtent(r, "tables", info->ntables);
  PetscCall(PetscCalloc1(2 * info->ntables, &shape));
  if (!r->bad)
    PetscCall(TalusH5ReadDataset(r, "tables", TALUS_H5_INT, info->ntables, 2, 0, info->ntables, shape, PETSC_FALSE));
  for (PetscInt i = 0; i < info->ntables && !r->bad; i++) {
    if (shape[2 * i] < 1 || shape[2 * i] > 16 || shape[2 * i + 1] < 2 ||
        shape[2 * i + 1] > (PetscInt64)info->ntable_values / (shape[2 * i] + 1))
      TalusH5Fault(r, "%s", "a table's columns or points are not valid");
    else nvalues += (PetscInt)(shape[2 * i + 1] * (shape[2 * i] + 1));
  }
  if (!r->bad && nvalues != info->ntable_values)
    TalusH5Fault(r, "%s", "the tables' sizes do not add up to their values");
  TalusH5CheckExtent(r, "table_values", info->ntable_values);
  PetscCall(PetscMalloc2(info->ntables, &links->tables, info->ntable_values + 1, &links->table_values));
  if (!r->bad)
    PetscCall(TalusH5ReadDataset(r, "table_values", TALUS_H5_REAL, info->ntable_values, 1, 0, info->ntable_values,
                                 links->table_values, PETSC_FALSE));
  nvalues = 0;
  for (PetscInt i = 0; i < info->ntables && !r->bad; i++) {
    const char *fault;
    links->tables[i].columns = (PetscInt)shape[2 * i], links->tables[i].npoints = (PetscInt)shape[2 * i + 1];
    links->tables[i].data = &links->table_values[nvalues];
    nvalues += links->tables[i].npoints * (links->tables[i].columns + 1);
    if ((fault = TalusTableCheck(links->tables[i].columns, links->tables[i].npoints, links->tables[i].data)))
      TalusH5Fault(r, "%s", fault);
  }
  PetscCall(PetscFree(shape));
  PetscFunctionReturn(0);
}

/* NULL if a link's table handle (0: none) names a stored table of that many columns */
static const char *TableFault(const TalusCheckpointInfo *info, const TalusCheckpointLinks *links, PetscInt handle,
                              PetscInt columns)
{
  if (!handle) return NULL;
  if (handle < 0 || handle > info->ntables || links->tables[handle - 1].columns != columns)
    return "a link names a table that is not stored, or one of the wrong width";
  return NULL;
}

PetscErrorCode TalusCheckpointReadLinks(TalusH5Reader *r, const TalusCheckpointInfo *info, TalusCheckpointLinks *links)
{
  PetscInt    nrows;
  const char *fault = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(links, sizeof(*links)));
  PetscCall(ReadTables(r, info, links));
  PetscCall(ReadJoints(r, info, &links->joints, &links->joint_impulse, &nrows));
  PetscCall(ReadReplicated(r, "prescribed", prescribed_fields, NFIELDS_OF(prescribed_fields, info->version, 1, 0, 0),
                           sizeof(TalusPrescribedMotion), info->nprescribed, (void **)&links->prescribed));
  PetscCall(ReadReplicated(r, "loads", load_fields, NFIELDS_OF(load_fields, info->version, 2, 0, 0), sizeof(TalusLoad),
                           info->nloads, (void **)&links->loads));
  PetscCall(ReadReplicated(r, "springs", spring_fields, NFIELDS(spring_fields), sizeof(TalusSpring), info->nsprings,
                           (void **)&links->springs));
  PetscCall(ReadReplicated(r, "planar", planar_fields, NFIELDS(planar_fields), sizeof(TalusPlanar), info->nplanar,
                           (void **)&links->planar));
  if (r->bad) PetscFunctionReturn(0);
  for (PetscInt p = 0; p < info->nprescribed && !fault; p++)
    fault = DriveFault(info, &links->prescribed[p], NULL, NULL, NULL);
  for (PetscInt l = 0; l < info->nloads && !fault; l++) fault = DriveFault(info, NULL, &links->loads[l], NULL, NULL);
  for (PetscInt q = 0; q < info->nsprings && !fault; q++)
    fault = DriveFault(info, NULL, NULL, &links->springs[q], NULL);
  for (PetscInt q = 0; q < info->nplanar && !fault; q++) fault = DriveFault(info, NULL, NULL, NULL, &links->planar[q]);
  for (PetscInt j = 0; j < info->njoints && !fault; j++)
    fault = TableFault(info, links, links->joints[j].motion.table, 1);
  for (PetscInt p = 0; p < info->nprescribed && !fault; p++)
    fault = TableFault(info, links, links->prescribed[p].table, 3);
  for (PetscInt l = 0; l < info->nloads && !fault; l++)
    if (!(fault = TableFault(info, links, links->loads[l].force_table, 3)))
      fault = TableFault(info, links, links->loads[l].torque_table, 3);
  if (fault) TalusH5Fault(r, "%s", fault);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCheckpointLinksDestroy(TalusCheckpointLinks *links)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(links->joints));
  PetscCall(PetscFree(links->joint_impulse));
  PetscCall(PetscFree(links->prescribed));
  PetscCall(PetscFree(links->loads));
  PetscCall(PetscFree(links->springs));
  PetscCall(PetscFree(links->planar));
  PetscCall(PetscFree2(links->tables, links->table_values));
  PetscFunctionReturn(0);
}
