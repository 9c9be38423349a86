/*
 * The drives module's checkpoint section (docs/checkpoint-format.md, format 2 on): the prescribed
 * motions, the loads and the springs, every one on every rank, as the groups "prescribed", "loads"
 * and "springs" with their counts as root attributes of the same names. Rank 0 writes them, every
 * rank reads them all back and checks each as strictly as a scene's.
 */
#include "drives_impl.h"
#include "../../io/h5section.h"
#include <stddef.h>

#define DRIVE_FIELD(type, name, integer, member, width) \
  { \
    name, integer, width, offsetof(type, member) \
  }
/* the fields of format 2, then the table handles format 3 added (absent from older files: 0, none) */
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
  DRIVE_FIELD(TalusPrescribedMotion, "table", PETSC_TRUE, table, 1),
};
static const TalusH5Field load_fields[] = {
  DRIVE_FIELD(TalusLoad, "body", PETSC_TRUE, body, 1),
  DRIVE_FIELD(TalusLoad, "force", PETSC_FALSE, force, 3),
  DRIVE_FIELD(TalusLoad, "torque", PETSC_FALSE, torque, 3),
  DRIVE_FIELD(TalusLoad, "point", PETSC_FALSE, point, 3),
  DRIVE_FIELD(TalusLoad, "body_frame", PETSC_TRUE, body_frame, 1),
  DRIVE_FIELD(TalusLoad, "force_table", PETSC_TRUE, force_table, 1),
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
#define NFIELDS(f) ((int)(sizeof(f) / sizeof((f)[0])))

PetscErrorCode TalusDrivesCheckpointWrite(TalusSim sim, void *state, TalusModuleSection *s)
{
  const Drives *dr = (const Drives *)state;

  PetscFunctionBegin;
  (void)sim;
  TalusSectionWriteCount(s, "prescribed", dr->nprescribed);
  TalusSectionWriteCount(s, "loads", dr->nloads);
  TalusSectionWriteCount(s, "springs", dr->nsprings);
  PetscCall(TalusSectionWriteRecords(s, "prescribed", prescribed_fields, NFIELDS(prescribed_fields),
                                     sizeof(TalusPrescribedMotion), dr->nprescribed, dr->prescribed));
  PetscCall(
    TalusSectionWriteRecords(s, "loads", load_fields, NFIELDS(load_fields), sizeof(TalusLoad), dr->nloads, dr->loads));
  PetscCall(TalusSectionWriteRecords(s, "springs", spring_fields, NFIELDS(spring_fields), sizeof(TalusSpring),
                                     dr->nsprings, dr->springs));
  PetscFunctionReturn(0);
}

/* A stored drive's values (what a scene checks): NULL, or the fault. */
static const char *DriveFault(const TalusModuleSection *s, const TalusPrescribedMotion *p, const TalusLoad *l,
                              const TalusSpring *q)
{
  if (p && (!TalusSectionIdValid(s, p->body, PETSC_FALSE) || !TalusAllFinite(p->velocity, 3) ||
            !TalusAllFinite(p->amplitude, 3) || !TalusAllFinite(&p->frequency, 1) || !TalusAllFinite(&p->phase, 1) ||
            !TalusAllFinite(p->angular_velocity, 3) || !TalusAllFinite(&p->t0, 1) || !TalusAllFinite(p->position0, 3) ||
            !TalusAllFinite(p->quaternion0, 4)))
    return "a prescribed motion with a body id or a value that is not valid";
  if (l &&
      (!TalusSectionIdValid(s, l->body, PETSC_FALSE) || !TalusAllFinite(l->force, 3) || !TalusAllFinite(l->torque, 3) ||
       !TalusAllFinite(l->point, 3) || (l->body_frame != 0 && l->body_frame != 1)))
    return "a load with a body id or a value that is not valid";
  if (q &&
      (!TalusSectionIdValid(s, q->body[0], PETSC_TRUE) || !TalusSectionIdValid(s, q->body[1], PETSC_TRUE) ||
       !TalusAllFinite(q->anchor[0], 6) || !(q->stiffness >= 0.0 && q->stiffness < PETSC_INFINITY) ||
       !(q->damping >= 0.0 && q->damping < PETSC_INFINITY) ||
       !(q->rest_length >= 0.0 && q->rest_length < PETSC_INFINITY) || (q->axial_damping != 0 && q->axial_damping != 1)))
    return "a spring with a body id or a value that is not valid";
  return NULL;
}

/* A fault if a stored handle does not name one of the restored tables with that many value columns */
static PetscErrorCode CheckTable(TalusSim sim, TalusH5Reader *r, PetscInt handle, PetscInt columns)
{
  const char *why;

  PetscFunctionBegin;
  PetscCall(TalusSimTableFault(sim, handle, columns, &why));
  if (why) TalusH5Fault(r, "%s", TALUS_SECTION_TABLE_FAULT);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDrivesCheckpointRead(TalusSim sim, void *state, TalusModuleSection *s)
{
  TalusH5Reader         *r  = s->r;
  Drives                *dr = (Drives *)state;
  PetscInt               nprescribed, nloads, nsprings;
  TalusPrescribedMotion *prescribed;
  TalusLoad             *loads;
  TalusSpring           *springs;
  const char            *fault = NULL;

  PetscFunctionBegin;
  PetscCheck(!dr->nprescribed && !dr->nloads && !dr->nsprings, r->comm, PETSC_ERR_ORDER,
             "drives are restored into a simulation without them");
  TalusSectionReadCount(s, "prescribed", 2, s->nfinite, &nprescribed); /* a body is prescribed once */
  TalusSectionReadCount(s, "loads", 2, PETSC_MAX_INT / 8, &nloads);
  TalusSectionReadCount(s, "springs", 2, PETSC_MAX_INT / 8, &nsprings);
  PetscCall(TalusSectionReadRecords(s, "prescribed", prescribed_fields, NFIELDS(prescribed_fields) - (s->version < 3),
                                    sizeof(TalusPrescribedMotion), nprescribed, (void **)&prescribed));
  PetscCall(TalusSectionReadRecords(s, "loads", load_fields, NFIELDS(load_fields) - 2 * (s->version < 3),
                                    sizeof(TalusLoad), nloads, (void **)&loads));
  PetscCall(TalusSectionReadRecords(s, "springs", spring_fields, NFIELDS(spring_fields), sizeof(TalusSpring), nsprings,
                                    (void **)&springs));
  for (PetscInt p = 0; p < nprescribed && !r->bad && !fault; p++) fault = DriveFault(s, &prescribed[p], NULL, NULL);
  for (PetscInt l = 0; l < nloads && !r->bad && !fault; l++) fault = DriveFault(s, NULL, &loads[l], NULL);
  for (PetscInt q = 0; q < nsprings && !r->bad && !fault; q++) fault = DriveFault(s, NULL, NULL, &springs[q]);
  if (fault) TalusH5Fault(r, "%s", fault);
  for (PetscInt p = 0; p < nprescribed && !r->bad; p++) PetscCall(CheckTable(sim, r, prescribed[p].table, 3));
  for (PetscInt l = 0; l < nloads && !r->bad; l++) {
    PetscCall(CheckTable(sim, r, loads[l].force_table, 3));
    PetscCall(CheckTable(sim, r, loads[l].torque_table, 3));
  }
  if (r->bad) {
    PetscCall(PetscFree(prescribed));
    PetscCall(PetscFree(loads));
    PetscCall(PetscFree(springs));
    PetscFunctionReturn(0);
  }
  dr->prescribed = prescribed, dr->loads = loads, dr->springs = springs;
  dr->nprescribed = nprescribed, dr->nloads = nloads, dr->nsprings = nsprings;
  for (PetscInt p = 0; p < nprescribed; p++) PetscCall(TalusSimLinkBodies(sim, 1, &prescribed[p].body));
  for (PetscInt l = 0; l < nloads; l++) PetscCall(TalusSimLinkBodies(sim, 1, &loads[l].body));
  for (PetscInt q = 0; q < nsprings; q++) PetscCall(TalusSimLinkBodies(sim, 2, springs[q].body));
  PetscFunctionReturn(0);
}
