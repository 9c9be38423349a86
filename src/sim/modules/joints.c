/*
 * The simulator's joints (include/talus/joints.h, docs/mechanisms.md): kept the same on every rank
 * (a joint is a few hundred bytes; mechanisms have few), each kept in a step by the rank that owns
 * its lower-id dynamic body, as contacts are. That rank needs the other body too: when it is not
 * already a ghost by distance (a long link), its owner sends it as one (linked.c), so a joint's
 * span, not the contact reach, decides. The impulses of
 * every joint row are shared by all ranks after each step: the next step's warm start (seed 001)
 * wherever its bodies have migrated, and what outputs and checkpoints write.
 */
#include "../modules.h"
#include "../../grow.h"
#include "../../io/h5section.h"
#include <stddef.h>

/* The module's state: the joints and their rows' last impulses (the same on every rank), the pairs they
   hold together, this step's rows of the joints this rank keeps */
typedef struct {
  PetscInt       njoints, njoint_rows;
  TalusJoint    *joints;
  PetscInt      *joint_row_start;    /* njoints + 1: joint j's rows are [start[j], start[j + 1]) */
  PetscReal     *joint_impulse;      /* per joint row, the last step's impulse */
  PetscReal     *joint_wrench;       /* per joint, the last step's force and torque on B, then A (12, world): after the
                                     impulses, in their array */
  PetscInt       njointed, *jointed; /* the pairs of bodies a joint holds (id_a < id_b, 2 each, sorted) */
  TalusJointRow *rows;               /* this step's rows (TalusSimSetJointRows publishes them) */
  PetscInt       nrows_local, rows_capacity;
  PetscBool      relaxation_checked;
  PetscReal      lookahead; /* -joint_lookahead: two-sided rows linearised at q^l + theta h v^l (PredictRows) */
} Joints;

/* What a function of this file reads of the simulation (its communicator, bodies, clock) and the module's state */
typedef struct {
  TalusSimModuleView v;
  Joints            *js;
} Context;

static PetscErrorCode GetContext(TalusSim sim, Context *c)
{
  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleView(sim, &TalusJointsModule, &c->v, (void **)&c->js));
  PetscFunctionReturn(0);
}

static TalusPose PoseOf(const TalusBodies *b, PetscInt k)
{
  TalusPose P = {
    {0,  0, 0},
    { 1, 0, 0, 0, 1, 0, 0, 0, 1}
  };

  if (k < 0) return P; /* the world */
  for (int d = 0; d < 3; d++) P.r[d] = b->position[3 * k + d];
  TalusQuatToMatrix(&b->quaternion[4 * k], P.A);
  return P;
}

/* The joints as the core needs them between steps (TalusSimJointsInfo): after every change */
static PetscErrorCode PublishJoints(TalusSim sim, const Joints *js)
{
  TalusSimJointsInfo info = {.njoints = js->njoints, .njointed = js->njointed, .jointed = js->jointed};

  PetscFunctionBegin;
  for (PetscInt j = 0; j < js->njoints && !info.compliant; j++)
    info.compliant = (PetscBool)(js->joints[j].stiffness > 0.0);
  PetscCall(TalusSimSetJointsInfo(sim, &info));
  PetscFunctionReturn(0);
}

/* Joint j = njoints, its rows after the others' with impulse 0; its bodies among the joints' bodies */
static PetscErrorCode AppendJoint(TalusSim sim, const TalusJoint *joint, PetscReal impulse)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(PetscRealloc(sizeof(TalusJoint) * (c.js->njoints + 1), &c.js->joints));
  PetscCall(PetscRealloc(sizeof(PetscInt) * (c.js->njoints + 2), &c.js->joint_row_start));
  if (c.js->njoints == 0) c.js->joint_row_start[0] = 0;
  c.js->joints[c.js->njoints]              = *joint;
  c.js->joint_row_start[c.js->njoints + 1] = c.js->joint_row_start[c.js->njoints] +
                                             TalusJointTypeRows((TalusJointType)joint->type);
  c.js->njoint_rows = c.js->joint_row_start[c.js->njoints + 1];
  PetscCall(PetscRealloc(sizeof(PetscReal) * c.js->njoint_rows, &c.js->joint_impulse));
  c.js->joint_wrench = NULL; /* it lived after the impulses (JointsShareImpulses): the next step places it */
  for (PetscInt r = c.js->joint_row_start[c.js->njoints]; r < c.js->njoint_rows; r++) c.js->joint_impulse[r] = impulse;
  c.js->njoints++;
  PetscCall(TalusSimLinkBodies(sim, 2, joint->body));
  if (joint->body[0] != TALUS_WORLD && joint->body[1] != TALUS_WORLD) { /* the pair, sorted, once */
    const PetscInt a = PetscMin(joint->body[0], joint->body[1]), b = PetscMax(joint->body[0], joint->body[1]);
    if (!TalusIdPairsContain(c.js->njointed, c.js->jointed, a, b)) {
      PetscInt at = c.js->njointed;
      PetscCall(PetscRealloc(sizeof(PetscInt) * 2 * (c.js->njointed + 1), &c.js->jointed));
      while (at > 0 &&
             (c.js->jointed[2 * at - 2] > a || (c.js->jointed[2 * at - 2] == a && c.js->jointed[2 * at - 1] > b))) {
        c.js->jointed[2 * at] = c.js->jointed[2 * at - 2], c.js->jointed[2 * at + 1] = c.js->jointed[2 * at - 1];
        at--;
      }
      c.js->jointed[2 * at] = a, c.js->jointed[2 * at + 1] = b;
      c.js->njointed++;
    }
  }
  PetscCall(PublishJoints(sim, c.js));
  PetscFunctionReturn(0);
}

/* The joint a spec describes at the bodies' present poses, or in *why the reason it cannot be */
static PetscErrorCode JointOf(TalusSim sim, const TalusJointSpec *spec, TalusJoint *joint, const char **why)
{
  Context      c;
  TalusBodies *b;
  PetscBool    distributed;
  PetscInt     k[2] = {-1, -1};
  TalusPose    pose[2];
  PetscBool    dynamic[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  b = c.v.b;
  PetscCall(TalusSimGetDistributed(sim, &distributed));
  PetscCheck(!distributed, c.v.comm, PETSC_ERR_ORDER,
             "joints are added while every rank holds every body: before the first step");
  *why = NULL;
  for (int side = 0; side < 2; side++) {
    if (spec->body[side] == TALUS_WORLD) continue;
    k[side] = TalusSimFindBody(sim, spec->body[side]);
    if (k[side] < 0) {
      *why = "it names a body that does not exist";
      PetscFunctionReturn(0);
    }
    dynamic[side] = (PetscBool)!b->fixed[k[side]];
  }
  for (int side = 0; side < 2; side++) pose[side] = PoseOf(b, k[side]);
  *why = TalusJointFromSpec(spec, &pose[0], &pose[1], dynamic[0], dynamic[1], joint);
  if (!*why) PetscCall(TalusSimTableFault(sim, spec->motion.table, 1, why));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimCheckJoint(TalusSim sim, const TalusJointSpec *spec, const char **why)
{
  TalusJoint joint;

  PetscFunctionBegin;
  PetscCall(JointOf(sim, spec, &joint, why));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAddJoint(TalusSim sim, const TalusJointSpec *spec, PetscInt *index)
{
  Context     c;
  TalusJoint  joint;
  const char *why;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(JointOf(sim, spec, &joint, &why));
  PetscCheck(!why, c.v.comm, PETSC_ERR_USER_INPUT,
             "joint %" PetscInt_FMT " (%s, bodies %" PetscInt_FMT " and %" PetscInt_FMT "): %s", c.js->njoints,
             spec->type >= 0 && spec->type < TALUS_NJOINT_TYPES ? TalusJointTypeNames[spec->type] : "?", spec->body[0],
             spec->body[1], why);
  if (index) *index = c.js->njoints;
  PetscCall(AppendJoint(sim, &joint, 0.0));
  PetscFunctionReturn(0);
}

/* A restart's joints and their rows' impulses (into a simulation without them) */
static PetscErrorCode SetJoints(TalusSim sim, PetscInt n, const TalusJoint joints[], const PetscReal impulse[])
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCheck(c.js->njoints == 0, c.v.comm, PETSC_ERR_ORDER, "joints are restored into a simulation without joints");
  for (PetscInt j = 0; j < n; j++) {
    PetscCall(AppendJoint(sim, &joints[j], 0.0));
    for (PetscInt r = c.js->joint_row_start[j]; r < c.js->joint_row_start[j + 1]; r++)
      c.js->joint_impulse[r] = impulse[r];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetJoints(TalusSim sim, PetscInt *n, const TalusJoint **joints, const PetscInt **row_start,
                                 const PetscReal **impulse)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  if (n) *n = c.js->njoints;
  if (joints) *joints = c.js->joints;
  if (row_start) *row_start = c.js->joint_row_start;
  if (impulse) *impulse = c.js->joint_impulse;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetJointWrenches(TalusSim sim, const PetscReal **wrench)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  *wrench = c.js->joint_wrench;
  PetscFunctionReturn(0);
}

static PetscErrorCode JointsCreate(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim;
  ((Joints *)state)->lookahead = 1.0;
  PetscFunctionReturn(0);
}

static PetscErrorCode JointsSetFromOptions(TalusSim sim, void *state, PetscOptionItems *PetscOptionsObject)
{
  PetscReal lookahead = ((Joints *)state)->lookahead;

  PetscFunctionBegin;
  PetscCall(
    PetscOptionsReal("-joint_lookahead",
                     "Linearise rigid and compliant joint rows at the pose q + THETA h v (1: the step's end, seed "
                     "004's G-dot v term: a pendulum's energy never rises; 0: at q, seed 000 eq. 9c)",
                     "TalusSimSetJointLookahead", lookahead, &lookahead, NULL));
  PetscCall(TalusSimSetJointLookahead(sim, lookahead));
  PetscFunctionReturn(0);
}

/* Where rigid and compliant two-sided joint rows are linearised: at q + theta h v (PredictRows) */
PetscErrorCode TalusSimSetJointLookahead(TalusSim sim, PetscReal theta)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCheck(theta >= 0.0 && theta <= 1.0, c.v.comm, PETSC_ERR_USER_INPUT,
             "-joint_lookahead must be in [0, 1] (0: seed 000's rows at q^l, 1: at the step's predicted end), got %g",
             (double)theta);
  c.js->lookahead = theta;
  PetscFunctionReturn(0);
}

static PetscErrorCode JointsDestroy(TalusSim sim, void *state)
{
  Joints *js = (Joints *)state;

  PetscFunctionBegin;
  (void)sim;
  PetscCall(PetscFree(js->joints));
  PetscCall(PetscFree(js->joint_row_start));
  PetscCall(PetscFree(js->joint_impulse)); /* the wrenches with them */
  js->joint_wrench = NULL;
  PetscCall(PetscFree(js->jointed));
  PetscCall(PetscFree(js->rows));
  PetscFunctionReturn(0);
}

/* G_side . (v, omega_world) of body k: what a fixed body's prescribed or surface velocity adds to a row,
   and any side's part of a relaxed row's G v^l */
static PetscReal KnownVelocity(const TalusBodies *b, PetscInt k, const PetscReal G[6])
{
  PetscReal w[3];

  TalusBodiesGetAngularVelocityWorld(b, k, w);
  return TalusDot3(G, &b->velocity[3 * k]) + TalusDot3(&G[3], w);
}

/* Body k's pose a time h ahead at its present velocities (as step.c's Integrate: r + h v, the exact rotation) */
static TalusPose PredictedPose(const TalusBodies *b, PetscInt k, PetscReal h)
{
  TalusPose P = PoseOf(b, k);
  PetscReal e[4];

  if (k < 0) return P;
  for (int d = 0; d < 4; d++) e[d] = b->quaternion[4 * k + d];
  TalusQuatIntegrate(e, &b->omega[3 * k], h);
  TalusQuatToMatrix(e, P.A);
  for (int d = 0; d < 3; d++) P.r[d] += h * b->velocity[3 * k + d];
  return P;
}

/*
 * A two-sided row linearised at the pose q~ = q^l + theta h v^l (-joint_lookahead theta) instead of at
 * q^l: the step then asks g(q^{l+1}) ~ g(q~) + G(q~) (h v^{l+1} - theta h v^l) = 0, i.e. the row G(q~)
 * with the gap g(q~) - theta h G(q~) v^l in place of g (the stabilisation and compliance below are
 * unchanged). At theta = 1, G(q~) = G + h G-dot to first order: seed 004's G-dot v term (eq. 15, 53)
 * with a stabilisation that agrees with it. With gravity only, a step's energy change is
 * gamma . G v^{l+1} - |dv|_M^2 / 2, and at theta = 1 G(q~) v^{l+1} = (g(q~) - g(q^{l+1})) / h + O(h^2)
 * has the sign that makes the first term a loss too: a rigid pendulum's energy never rises, at the
 * price of a first-order damping (seed 000's rows, theta = 0, gain and lose O(h) about the start's
 * energy; docs/mechanisms.md has both measured).
 */
static PetscErrorCode PredictRows(const Context *c, const TalusTable *tables, PetscReal lookahead,
                                  const TalusJoint *joint, const PetscInt k[2], TalusJointRowTerms terms[])
{
  const TalusBodies *b        = c->v.b;
  const PetscInt     n        = TalusJointTypeRows((TalusJointType)joint->type);
  const PetscReal    ahead_by = lookahead * c->v.dt;
  TalusPose          ahead[2];

  PetscFunctionBegin;
  for (int side = 0; side < 2; side++) ahead[side] = PredictedPose(b, k[side], ahead_by);
  TalusJointEvaluate(joint, &ahead[0], &ahead[1], tables, c->v.t, terms);
  for (PetscInt r = 0; r < n; r++)
    for (int side = 0; side < 2; side++)
      if (k[side] >= 0) terms[r].g -= ahead_by * KnownVelocity(b, k[side], terms[r].G[side]);
  PetscFunctionReturn(0);
}

/* Joint j's rows when this rank keeps it, after those already built; its largest violations into drift
   (lengths, angles) */
static PetscErrorCode BuildRowsOf(TalusSim sim, const Context *c, const TalusTable *tables, PetscReal lookahead,
                                  PetscInt j, PetscReal drift[2])
{
  Joints            *js    = c->js;
  TalusBodies       *b     = c->v.b;
  const TalusJoint  *joint = &js->joints[j];
  const PetscInt     owner = TalusSimLinkedIndex(sim, joint->body[joint->owner_side]);
  const PetscInt     n     = TalusJointTypeRows((TalusJointType)joint->type);
  const PetscBool    limit = TalusJointTypeIsLimit((TalusJointType)joint->type);
  PetscInt           k[2];
  TalusPose          pose[2];
  TalusJointRowTerms terms[6];

  PetscFunctionBegin;
  if (owner < 0 || owner >= b->nowned) PetscFunctionReturn(0); /* another rank keeps it */
  for (int side = 0; side < 2; side++) {
    k[side] = TalusSimLinkedIndex(sim, joint->body[side]);
    if (k[side] < -1) {
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(c->v.comm, &rank));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB,
              "joint %" PetscInt_FMT ": body %" PetscInt_FMT " is not on rank %d, which keeps the joint", j,
              joint->body[side], rank);
    }
    pose[side] = PoseOf(b, k[side]);
  }
  TalusJointEvaluate(joint, &pose[0], &pose[1], tables, c->v.t, terms);
  for (PetscInt r = 0; r < n; r++) /* a limit's row is violated only below 0; any g of a two-sided row is */
    drift[terms[r].angular] = PetscMax(drift[terms[r].angular], limit ? -terms[r].g : PetscAbsReal(terms[r].g));
  if (lookahead > 0.0 && !limit && !(joint->delta > 0.0)) PetscCall(PredictRows(c, tables, lookahead, joint, k, terms));
  PetscCall(TalusGrowArray(sizeof(TalusJointRow), js->nrows_local + n, &js->rows_capacity, &js->rows));
  for (PetscInt r = 0; r < n; r++) {
    TalusJointRow *row = &js->rows[js->nrows_local++];
    row->a = k[0], row->b = k[1];
    row->joint      = j;
    row->row        = js->joint_row_start[j] + r;
    row->compliance = 0.0;
    PetscCall(PetscArraycpy(&row->G[0][0], &terms[r].G[0][0], 12));
    if (joint->delta > 0.0) { /* seed 003 eq. 64 as for contacts: (h/delta^2) g + (2 zeta h/delta - 1) G v^l + g_t */
      PetscReal Gv = 0.0;
      for (int side = 0; side < 2; side++)
        if (k[side] >= 0) Gv += KnownVelocity(b, k[side], terms[r].G[side]);
      row->bias = c->v.dt / (joint->delta * joint->delta) * terms[r].g +
                  (2.0 * joint->zeta * c->v.dt / joint->delta - 1.0) * Gv + terms[r].gt;
    } else if (joint->stiffness > 0.0) { /* seed 004 eq. 61 in the CCP: K / (h K + B) g + g_t; N + E (eq. 60) */
      const PetscReal h = c->v.dt, K = joint->stiffness, B = joint->damping;
      row->bias       = K / (h * K + B) * terms[r].g + terms[r].gt;
      row->compliance = 1.0 / (h * h * K + h * B);
    } else row->bias = terms[r].g / c->v.dt + terms[r].gt; /* seed 000 eq. 9c */
    for (int side = 0; side < 2; side++)                   /* a fixed side's known velocity (seed 002 eq. 70) */
      if (k[side] >= 0 && b->dof[k[side]] < 0) row->bias += KnownVelocity(b, k[side], terms[r].G[side]);
    row->impulse = js->joint_impulse[row->row];
  }
  PetscFunctionReturn(0);
}

/* TALUS_HOOK_AFTER_COLLIDE: this step's rows of the joints this rank keeps (after the ghosts), published to
   the core's CCP: the limits' one-sided rows first, the CCP's non-negative rows, then the two-sided ones,
   its free rows */
static PetscErrorCode JointsBuildRows(TalusSim sim, void *state)
{
  Context           c;
  const TalusTable *tables;
  PetscReal         lookahead, drift[2] = {0.0, 0.0};
  PetscInt          nlimit = 0;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  lookahead         = ((Joints *)state)->lookahead;
  c.js->nrows_local = 0;
  for (int limits = 1; limits >= 0; limits--) {
    for (PetscInt j = 0; j < c.js->njoints; j++)
      if (TalusJointTypeIsLimit((TalusJointType)c.js->joints[j].type) == (PetscBool)limits)
        PetscCall(BuildRowsOf(sim, &c, tables, lookahead, j, drift));
    if (limits) nlimit = c.js->nrows_local;
  }
  PetscCall(TalusSimSetJointRows(sim, c.js->nrows_local, nlimit, c.js->rows, drift));
  PetscFunctionReturn(0);
}

/* TALUS_HOOK_AFTER_SOLVE: the impulses of every joint row and the joints' wrenches shared by all ranks */
static PetscErrorCode JointsShareImpulses(TalusSim sim, void *state)
{
  Context  c;
  PetscInt n;

  PetscFunctionBegin;
  (void)state;
  PetscCall(GetContext(sim, &c));
  n = c.js->njoint_rows + 12 * c.js->njoints;
  if (!c.js->njoints) PetscFunctionReturn(0);
  /* the wrenches live after the impulses in one array, so that one reduction shares both */
  PetscCall(PetscRealloc(sizeof(PetscReal) * n, &c.js->joint_impulse));
  c.js->joint_wrench = c.js->joint_impulse + c.js->njoint_rows;
  PetscCall(PetscArrayzero(c.js->joint_impulse, n));
  for (PetscInt r = 0; r < c.js->nrows_local; r++) {
    const TalusJointRow *row      = &c.js->rows[r];
    c.js->joint_impulse[row->row] = row->impulse;
    /* the row's impulse acts on each side as gamma G_side / h: a force, and a torque about the side's
       centre; B's first, then A's */
    for (int side = 0; side < 2; side++)
      for (int e = 0; e < 6; e++)
        c.js->joint_wrench[12 * row->joint + 6 * (1 - side) + e] += row->impulse * row->G[side][e] / c.v.dt;
  }
  /* each row is kept by one rank: the sums add zeros to it, exactly (the drift goes with the step's other maxima,
     step_statistics.c) */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, c.js->joint_impulse, n, MPIU_REAL, MPIU_SUM, c.v.comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimEvaluateJoint(TalusSim sim, PetscInt j, TalusJointRowTerms rows[])
{
  Context           c;
  const TalusTable *tables;
  TalusPose         pose[2];

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  PetscCall(TalusSimDistribute(sim)); /* before it every rank holds every body */
  PetscCheck(j >= 0 && j < c.js->njoints, c.v.comm, PETSC_ERR_ARG_OUTOFRANGE,
             "joint %" PetscInt_FMT " of %" PetscInt_FMT, j, c.js->njoints);
  PetscCall(TalusSimGatherPoses(sim, 2, c.js->joints[j].body, pose));
  TalusJointEvaluate(&c.js->joints[j], &pose[0], &pose[1], tables, c.v.t, rows);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetJointAnchors(TalusSim sim, PetscReal points[])
{
  Context    c;
  PetscInt  *ids;
  TalusPose *poses;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(TalusSimDistribute(sim));
  PetscCall(PetscMalloc2(2 * c.js->njoints + 1, &ids, 2 * c.js->njoints + 1, &poses));
  for (PetscInt j = 0; j < c.js->njoints; j++)
    ids[2 * j] = c.js->joints[j].body[0], ids[2 * j + 1] = c.js->joints[j].body[1];
  PetscCall(TalusSimGatherPoses(sim, 2 * c.js->njoints, ids, poses)); /* one reduction for all */
  for (PetscInt j = 0; j < c.js->njoints; j++)
    for (int side = 0; side < 2; side++) {
      const TalusPose *P      = &poses[2 * j + side];
      PetscReal       *centre = &points[12 * j + 9 * side], *anchor = &points[12 * j + 3 + 3 * side];
      TalusRotate(P->A, c.js->joints[j].anchor[side], anchor);
      for (int d = 0; d < 3; d++) anchor[d] += P->r[d];
      for (int d = 0; d < 3; d++) centre[d] = ids[2 * j + side] == TALUS_WORLD ? anchor[d] : P->r[d];
    }
  PetscCall(PetscFree2(ids, poses));
  PetscFunctionReturn(0);
}

/* TALUS_HOOK_BEFORE_GHOSTS, the first step of a run: each relaxed joint's (zeta, delta) inside the
   stability region at this run's time step (the formulations note, sec. 3.4) */
static PetscErrorCode JointsCheckRelaxation(TalusSim sim, void *state)
{
  Joints   *js = (Joints *)state;
  MPI_Comm  comm;
  PetscReal dt;

  PetscFunctionBegin;
  if (js->relaxation_checked) PetscFunctionReturn(0);
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &dt));
  for (PetscInt j = 0; j < js->njoints; j++) {
    const TalusJoint *joint = &js->joints[j];
    PetscCheck(joint->delta == 0.0 || TalusRelaxationStable(joint->zeta, joint->delta, dt), comm, PETSC_ERR_USER_INPUT,
               "joint %" PetscInt_FMT ": the relaxation zeta = %g, delta = %g s is unstable at the time step h = %g s "
               "(delta > %g s at this zeta)",
               j, (double)joint->zeta, (double)joint->delta, (double)dt,
               (double)TalusRelaxationMinDelta(joint->zeta, dt));
  }
  js->relaxation_checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* A joint's rank (its owner side's) needs the other body */
static PetscErrorCode JointsLinks(TalusSim sim, void *state, PetscInt *n, PetscInt (*pairs)[2])
{
  const Joints *js = (const Joints *)state;

  PetscFunctionBegin;
  (void)sim;
  *n = js->njoints;
  if (!pairs) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < js->njoints; j++) {
    const TalusJoint *joint = &js->joints[j];
    pairs[j][0] = joint->body[joint->owner_side], pairs[j][1] = joint->body[1 - joint->owner_side];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode JointsDescribe(TalusSim sim, void *state, PetscInt id, char what[], size_t size)
{
  const Joints *js = (const Joints *)state;

  PetscFunctionBegin;
  (void)sim;
  for (PetscInt j = 0; j < js->njoints && !what[0]; j++)
    if (js->joints[j].body[0] == id || js->joints[j].body[1] == id)
      PetscCall(PetscSNPrintf(what, size, "joint %" PetscInt_FMT " (%s)", j, TalusJointTypeNames[js->joints[j].type]));
  PetscFunctionReturn(0);
}

/* Its checkpoint section (docs/checkpoint-format.md, format 2 on): the joints, every one on every rank, as the
   group "joints", their rows' last impulses as "joint_impulses" and their count as the root's attribute "joints".
   Rank 0 writes them, every rank reads them all back and checks each as strictly as a scene's. */
#define JOINT_FIELD(name, integer, member, width) \
  { \
    name, integer, width, offsetof(TalusJoint, member) \
  }
/* the fields of format 2, then those later formats added: format 3 the motion's table and the relaxation,
   format 4 the compliance, format 5 a limit's range */
static const TalusH5Field joint_fields[] = {
  JOINT_FIELD("type", PETSC_TRUE, type, 1),
  JOINT_FIELD("bodies", PETSC_TRUE, body, 2),
  JOINT_FIELD("owner_side", PETSC_TRUE, owner_side, 1),
  JOINT_FIELD("anchor", PETSC_FALSE, anchor, 6),
  JOINT_FIELD("axis", PETSC_FALSE, axis, 6),
  JOINT_FIELD("reference", PETSC_FALSE, reference, 6),
  JOINT_FIELD("length", PETSC_FALSE, length, 1),
  JOINT_FIELD("motion", PETSC_FALSE, motion, 5),
  JOINT_FIELD("motion_table", PETSC_TRUE, motion.table, 1),
  JOINT_FIELD("relaxation", PETSC_FALSE, zeta, 2),      /* zeta, delta */
  JOINT_FIELD("compliance", PETSC_FALSE, stiffness, 2), /* K, B */
  JOINT_FIELD("limits", PETSC_FALSE, lower, 2),         /* a limit's lower, upper */
};
#define NFIELDS ((int)(sizeof(joint_fields) / sizeof(joint_fields[0])))

/* the fields a file of this version has (the later ones absent: read as 0, none) */
static int FieldsOf(PetscInt version)
{
  return NFIELDS - (version < 5) - (version < 4) - 2 * (version < 3);
}

static PetscErrorCode JointsCheckpointWrite(TalusSim sim, void *state, TalusModuleSection *s)
{
  const Joints  *js    = (const Joints *)state;
  const PetscInt nrows = js->njoints ? js->joint_row_start[js->njoints] : 0;

  PetscFunctionBegin;
  (void)sim;
  TalusSectionWriteCount(s, "joints", js->njoints);
  if (!js->njoints) PetscFunctionReturn(0);
  PetscCall(TalusSectionWriteRecords(s, "joints", joint_fields, NFIELDS, sizeof(TalusJoint), js->njoints, js->joints));
  PetscCall(TalusH5WriteDataset(s->w, s->w->file, "joint_impulses", TALUS_H5_REAL, nrows, 1, 0,
                                s->w->rank == 0 ? nrows : 0, js->joint_impulse));
  PetscFunctionReturn(0);
}

/* A stored joint as strictly as a scene's: NULL, or the fault. */
static const char *JointFault(const TalusModuleSection *s, const TalusJoint *j)
{
  if (j->type < 0 || j->type >= TALUS_NJOINT_TYPES) return "an unknown type";
  if (s->version < 5 && TalusJointTypeIsLimit((TalusJointType)j->type)) return "a limit's type, which format 5 added";
  if (j->owner_side < 0 || j->owner_side > 1 || j->body[j->owner_side] == TALUS_WORLD) return "no body keeping it";
  for (int side = 0; side < 2; side++) {
    if (!TalusSectionIdValid(s, j->body[side], PETSC_TRUE)) return "a body id outside the scene's";
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

static PetscErrorCode JointsCheckpointRead(TalusSim sim, void *state, TalusModuleSection *s)
{
  TalusH5Reader *r = s->r;
  TalusJoint    *joints;
  PetscReal     *impulse = NULL;
  PetscInt       n, nrows = 0;
  const char    *fault;

  PetscFunctionBegin;
  (void)state;
  TalusSectionReadCount(s, "joints", 2, PETSC_MAX_INT / 8, &n);
  PetscCall(
    TalusSectionReadRecords(s, "joints", joint_fields, FieldsOf(s->version), sizeof(TalusJoint), n, (void **)&joints));
  if (!n) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < n && !r->bad; j++) {
    if ((fault = JointFault(s, &joints[j]))) TalusH5Fault(r, "a joint has %s", fault);
    else nrows += TalusJointTypeRows((TalusJointType)joints[j].type);
  }
  for (PetscInt j = 0; j < n && !r->bad; j++) { /* the tables module's section is read first (the registry's order) */
    PetscCall(TalusSimTableFault(sim, joints[j].motion.table, 1, &fault));
    if (fault) TalusH5Fault(r, "%s", TALUS_SECTION_TABLE_FAULT);
  }
  TalusH5CheckExtent(r, "joint_impulses", nrows);
  PetscCall(PetscCalloc1(nrows + 1, &impulse));
  if (!r->bad)
    PetscCall(TalusH5ReadDataset(r, "joint_impulses", TALUS_H5_REAL, nrows, 1, 0, nrows, impulse, PETSC_FALSE));
  if (!r->bad && !TalusAllFinite(impulse, (int)nrows)) TalusH5Fault(r, "%s", "a joint impulse is not a finite number");
  if (!r->bad) PetscCall(SetJoints(sim, n, joints, impulse));
  PetscCall(PetscFree(joints));
  PetscCall(PetscFree(impulse));
  PetscFunctionReturn(0);
}

/* Its table, joints.csv (docs/outputs.md): at each step's end, every joint's force and torque on its body B
   (world frame; the same on every rank, rank 0 writes) */
static PetscErrorCode JointsTableName(TalusSim sim, void *state, const char **name)
{
  PetscFunctionBegin;
  (void)sim;
  *name = ((const Joints *)state)->njoints ? "joints.csv" : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode JointsTableRow(TalusSim sim, void *state, FILE *file, PetscBool header)
{
  static const char *const column[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
  const Joints            *js        = (const Joints *)state;
  PetscReal                t;

  PetscFunctionBegin;
  if (!file || (!header && !js->joint_wrench)) PetscFunctionReturn(0); /* no step since the joints changed */
  PetscCall(TalusSimGetTime(sim, &t, NULL, NULL));
  if (header) fputs("t", file);
  else fprintf(file, "%.10g", (double)t);
  for (PetscInt j = 0; j < js->njoints; j++)
    for (int c = 0; c < 6; c++) {
      if (header) fprintf(file, ",j%" PetscInt_FMT "_%s", j, column[c]);
      else fprintf(file, ",%.10e", (double)js->joint_wrench[12 * j + c]);
    }
  fputs("\n", file);
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusJointsModule = {
  .name             = "joints",
  .state_size       = sizeof(Joints),
  .create           = JointsCreate,
  .set_from_options = JointsSetFromOptions,
  .destroy          = JointsDestroy,
  .hook             = {[TALUS_HOOK_BEFORE_GHOSTS] = JointsCheckRelaxation,
                       [TALUS_HOOK_AFTER_COLLIDE] = JointsBuildRows,
                       [TALUS_HOOK_AFTER_SOLVE]   = JointsShareImpulses},
  .links            = JointsLinks,
  .describe         = JointsDescribe,
  .checkpoint_write = JointsCheckpointWrite,
  .checkpoint_read  = JointsCheckpointRead,
  .table_name       = JointsTableName,
  .table_row        = JointsTableRow,
};
