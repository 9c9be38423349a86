/*
 * The simulator's joints (include/talus/joints.h, docs/mechanisms.md): kept the same on every rank
 * (a joint is a few hundred bytes; mechanisms have few), each kept in a step by the rank that owns
 * its lower-id dynamic body, as contacts are. That rank needs the other body too: when it is not
 * already a ghost by distance (a long link), its owner sends it as one (linked.c), so a joint's
 * span, not the contact reach, decides. The impulses of
 * every joint row are shared by all ranks after each step: the next step's warm start (seed 001)
 * wherever its bodies have migrated, and what outputs and checkpoints write.
 */
#include "sim_impl.h"

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

/* Joint j = njoints, its rows after the others' with impulse 0; its bodies among the joints' bodies */
static PetscErrorCode AppendJoint(TalusSim sim, const TalusJoint *joint, PetscReal impulse)
{
  PetscFunctionBegin;
  PetscCall(PetscRealloc(sizeof(TalusJoint) * (sim->njoints + 1), &sim->joints));
  PetscCall(PetscRealloc(sizeof(PetscInt) * (sim->njoints + 2), &sim->joint_row_start));
  if (sim->njoints == 0) sim->joint_row_start[0] = 0;
  sim->joints[sim->njoints]              = *joint;
  sim->joint_row_start[sim->njoints + 1] = sim->joint_row_start[sim->njoints] +
                                           TalusJointTypeRows((TalusJointType)joint->type);
  sim->njoint_rows = sim->joint_row_start[sim->njoints + 1];
  PetscCall(PetscRealloc(sizeof(PetscReal) * sim->njoint_rows, &sim->joint_impulse));
  sim->joint_wrench = NULL; /* it lived after the impulses (TalusSimShareJointImpulses): the next step places it */
  for (PetscInt r = sim->joint_row_start[sim->njoints]; r < sim->njoint_rows; r++) sim->joint_impulse[r] = impulse;
  sim->njoints++;
  PetscCall(TalusSimLinkBodies(sim, 2, joint->body));
  if (joint->body[0] != TALUS_WORLD && joint->body[1] != TALUS_WORLD) { /* the pair, sorted, once */
    const PetscInt a = PetscMin(joint->body[0], joint->body[1]), b = PetscMax(joint->body[0], joint->body[1]);
    if (!TalusSimJointed(sim, a, b)) {
      PetscInt at = sim->njointed;
      PetscCall(PetscRealloc(sizeof(PetscInt) * 2 * (sim->njointed + 1), &sim->jointed));
      while (at > 0 &&
             (sim->jointed[2 * at - 2] > a || (sim->jointed[2 * at - 2] == a && sim->jointed[2 * at - 1] > b))) {
        sim->jointed[2 * at] = sim->jointed[2 * at - 2], sim->jointed[2 * at + 1] = sim->jointed[2 * at - 1];
        at--;
      }
      sim->jointed[2 * at] = a, sim->jointed[2 * at + 1] = b;
      sim->njointed++;
    }
  }
  PetscFunctionReturn(0);
}

/* The joint a spec describes at the bodies' present poses, or in *why the reason it cannot be */
static PetscErrorCode JointOf(TalusSim sim, const TalusJointSpec *spec, TalusJoint *joint, const char **why)
{
  TalusBodies *b    = sim->bodies;
  PetscInt     k[2] = {-1, -1};
  TalusPose    pose[2];
  PetscBool    dynamic[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCheck(!sim->distributed, sim->comm, PETSC_ERR_ORDER,
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
  TalusJoint  joint;
  const char *why;

  PetscFunctionBegin;
  PetscCall(JointOf(sim, spec, &joint, &why));
  PetscCheck(!why, sim->comm, PETSC_ERR_USER_INPUT,
             "joint %" PetscInt_FMT " (%s, bodies %" PetscInt_FMT " and %" PetscInt_FMT "): %s", sim->njoints,
             spec->type >= 0 && spec->type < TALUS_NJOINT_TYPES ? TalusJointTypeNames[spec->type] : "?", spec->body[0],
             spec->body[1], why);
  if (index) *index = sim->njoints;
  PetscCall(AppendJoint(sim, &joint, 0.0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetJoints(TalusSim sim, PetscInt n, const TalusJoint joints[], const PetscReal impulse[])
{
  PetscFunctionBegin;
  PetscCheck(sim->njoints == 0, sim->comm, PETSC_ERR_ORDER, "joints are restored into a simulation without joints");
  for (PetscInt j = 0; j < n; j++) {
    PetscCall(AppendJoint(sim, &joints[j], 0.0));
    for (PetscInt r = sim->joint_row_start[j]; r < sim->joint_row_start[j + 1]; r++) sim->joint_impulse[r] = impulse[r];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetJoints(TalusSim sim, PetscInt *n, const TalusJoint **joints, const PetscInt **row_start,
                                 const PetscReal **impulse)
{
  PetscFunctionBegin;
  if (n) *n = sim->njoints;
  if (joints) *joints = sim->joints;
  if (row_start) *row_start = sim->joint_row_start;
  if (impulse) *impulse = sim->joint_impulse;
  PetscFunctionReturn(0);
}

PetscBool TalusSimJointed(TalusSim sim, PetscInt id_a, PetscInt id_b)
{
  PetscInt lo = 0, hi = sim->njointed;

  while (lo < hi) { /* the pairs are sorted by (a, b) */
    const PetscInt mid = (lo + hi) / 2, a = sim->jointed[2 * mid], b = sim->jointed[2 * mid + 1];
    if (a == id_a && b == id_b) return PETSC_TRUE;
    if (a < id_a || (a == id_a && b < id_b)) lo = mid + 1;
    else hi = mid;
  }
  return PETSC_FALSE;
}

PetscErrorCode TalusSimGetJointWrenches(TalusSim sim, const PetscReal **wrench)
{
  PetscFunctionBegin;
  *wrench = sim->joint_wrench;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDestroyJoints(TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sim->joints));
  PetscCall(PetscFree(sim->joint_row_start));
  PetscCall(PetscFree(sim->joint_impulse)); /* the wrenches with them */
  sim->joint_wrench = NULL;
  PetscCall(PetscFree(sim->jointed));
  PetscCall(PetscFree(sim->joint_rows));
  PetscCall(PetscFree2(sim->joint_record, sim->joint_record_slot));
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
static PetscErrorCode PredictRows(TalusSim sim, const TalusJoint *joint, const PetscInt k[2],
                                  TalusJointRowTerms terms[])
{
  const TalusTable  *tables;
  const TalusBodies *b        = sim->bodies;
  const PetscInt     n        = TalusJointTypeRows((TalusJointType)joint->type);
  const PetscReal    ahead_by = sim->joint_lookahead * sim->dt;
  TalusPose          ahead[2];

  PetscFunctionBegin;
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  for (int side = 0; side < 2; side++) ahead[side] = PredictedPose(b, k[side], ahead_by);
  TalusJointEvaluate(joint, &ahead[0], &ahead[1], tables, sim->t, terms);
  for (PetscInt r = 0; r < n; r++)
    for (int side = 0; side < 2; side++)
      if (k[side] >= 0) terms[r].g -= ahead_by * KnownVelocity(b, k[side], terms[r].G[side]);
  PetscFunctionReturn(0);
}

/* Joint j's rows when this rank keeps it, after those already built */
static PetscErrorCode BuildRowsOf(TalusSim sim, PetscInt j)
{
  const TalusTable  *tables;
  TalusBodies       *b     = sim->bodies;
  const TalusJoint  *joint = &sim->joints[j];
  const PetscInt     owner = TalusSimLinkedIndex(sim, joint->body[joint->owner_side]);
  const PetscInt     n     = TalusJointTypeRows((TalusJointType)joint->type);
  const PetscBool    limit = TalusJointTypeIsLimit((TalusJointType)joint->type);
  PetscInt           k[2];
  TalusPose          pose[2];
  TalusJointRowTerms terms[6];

  PetscFunctionBegin;
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  if (owner < 0 || owner >= b->nowned) PetscFunctionReturn(0); /* another rank keeps it */
  for (int side = 0; side < 2; side++) {
    k[side] = TalusSimLinkedIndex(sim, joint->body[side]);
    PetscCheck(k[side] >= -1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "joint %" PetscInt_FMT ": body %" PetscInt_FMT " is not on rank %d, which keeps the joint", j,
               joint->body[side], sim->rank);
    pose[side] = PoseOf(b, k[side]);
  }
  TalusJointEvaluate(joint, &pose[0], &pose[1], tables, sim->t, terms);
  for (PetscInt r = 0; r < n; r++) /* a limit's row is violated only below 0; any g of a two-sided row is */
    sim->joint_drift[terms[r].angular] = PetscMax(sim->joint_drift[terms[r].angular],
                                                  limit ? -terms[r].g : PetscAbsReal(terms[r].g));
  if (sim->joint_lookahead > 0.0 && !limit && !(joint->delta > 0.0)) PetscCall(PredictRows(sim, joint, k, terms));
  PetscCall(
    TalusGrowArray(sizeof(TalusJointRow), sim->njoint_rows_local + n, &sim->joint_rows_capacity, &sim->joint_rows));
  for (PetscInt r = 0; r < n; r++) {
    TalusJointRow *row = &sim->joint_rows[sim->njoint_rows_local++];
    row->a = k[0], row->b = k[1];
    row->joint      = j;
    row->row        = sim->joint_row_start[j] + r;
    row->compliance = 0.0;
    PetscCall(PetscArraycpy(&row->G[0][0], &terms[r].G[0][0], 12));
    if (joint->delta > 0.0) { /* seed 003 eq. 64 as for contacts: (h/delta^2) g + (2 zeta h/delta - 1) G v^l + g_t */
      PetscReal Gv = 0.0;
      for (int side = 0; side < 2; side++)
        if (k[side] >= 0) Gv += KnownVelocity(b, k[side], terms[r].G[side]);
      row->bias = sim->dt / (joint->delta * joint->delta) * terms[r].g +
                  (2.0 * joint->zeta * sim->dt / joint->delta - 1.0) * Gv + terms[r].gt;
    } else if (joint->stiffness > 0.0) { /* seed 004 eq. 61 in the CCP: K / (h K + B) g + g_t; N + E (eq. 60) */
      const PetscReal h = sim->dt, K = joint->stiffness, B = joint->damping;
      row->bias       = K / (h * K + B) * terms[r].g + terms[r].gt;
      row->compliance = 1.0 / (h * h * K + h * B);
    } else row->bias = terms[r].g / sim->dt + terms[r].gt; /* seed 000 eq. 9c */
    for (int side = 0; side < 2; side++)                   /* a fixed side's known velocity (seed 002 eq. 70) */
      if (k[side] >= 0 && b->dof[k[side]] < 0) row->bias += KnownVelocity(b, k[side], terms[r].G[side]);
    row->impulse = sim->joint_impulse[row->row];
  }
  PetscFunctionReturn(0);
}

/* The limits' one-sided rows first, the CCP's non-negative rows, then the two-sided ones, its free rows */
PetscErrorCode TalusSimBuildJointRows(TalusSim sim)
{
  PetscFunctionBegin;
  sim->njoint_rows_local = sim->nlimit_rows_local = 0;
  sim->joint_drift[0] = sim->joint_drift[1] = 0.0;
  for (int limits = 1; limits >= 0; limits--) {
    for (PetscInt j = 0; j < sim->njoints; j++)
      if (TalusJointTypeIsLimit((TalusJointType)sim->joints[j].type) == (PetscBool)limits)
        PetscCall(BuildRowsOf(sim, j));
    if (limits) sim->nlimit_rows_local = sim->njoint_rows_local;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimShareJointImpulses(TalusSim sim)
{
  const PetscInt n = sim->njoint_rows + 12 * sim->njoints;

  PetscFunctionBegin;
  if (!sim->njoints) PetscFunctionReturn(0);
  /* the wrenches live after the impulses in one array, so that one reduction shares both */
  PetscCall(PetscRealloc(sizeof(PetscReal) * n, &sim->joint_impulse));
  sim->joint_wrench = sim->joint_impulse + sim->njoint_rows;
  PetscCall(PetscArrayzero(sim->joint_impulse, n));
  for (PetscInt r = 0; r < sim->njoint_rows_local; r++) {
    const TalusJointRow *row     = &sim->joint_rows[r];
    sim->joint_impulse[row->row] = row->impulse;
    /* the row's impulse acts on each side as gamma G_side / h: a force, and a torque about the side's
       centre; B's first, then A's */
    for (int side = 0; side < 2; side++)
      for (int e = 0; e < 6; e++)
        sim->joint_wrench[12 * row->joint + 6 * (1 - side) + e] += row->impulse * row->G[side][e] / sim->dt;
  }
  /* each row is kept by one rank: the sums add zeros to it, exactly (the drift goes with the step's other maxima,
     step_statistics.c) */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sim->joint_impulse, n, MPIU_REAL, MPIU_SUM, sim->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimEvaluateJoint(TalusSim sim, PetscInt j, TalusJointRowTerms rows[])
{
  const TalusTable *tables;
  TalusPose         pose[2];

  PetscFunctionBegin;
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  PetscCall(TalusSimDistribute(sim)); /* before it every rank holds every body */
  PetscCheck(j >= 0 && j < sim->njoints, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "joint %" PetscInt_FMT " of %" PetscInt_FMT, j, sim->njoints);
  PetscCall(TalusSimGatherPoses(sim, 2, sim->joints[j].body, pose));
  TalusJointEvaluate(&sim->joints[j], &pose[0], &pose[1], tables, sim->t, rows);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetJointAnchors(TalusSim sim, PetscReal points[])
{
  PetscInt  *ids;
  TalusPose *poses;

  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  PetscCall(PetscMalloc2(2 * sim->njoints + 1, &ids, 2 * sim->njoints + 1, &poses));
  for (PetscInt j = 0; j < sim->njoints; j++)
    ids[2 * j] = sim->joints[j].body[0], ids[2 * j + 1] = sim->joints[j].body[1];
  PetscCall(TalusSimGatherPoses(sim, 2 * sim->njoints, ids, poses)); /* one reduction for all */
  for (PetscInt j = 0; j < sim->njoints; j++)
    for (int side = 0; side < 2; side++) {
      const TalusPose *P      = &poses[2 * j + side];
      PetscReal       *centre = &points[12 * j + 9 * side], *anchor = &points[12 * j + 3 + 3 * side];
      TalusRotate(P->A, sim->joints[j].anchor[side], anchor);
      for (int d = 0; d < 3; d++) anchor[d] += P->r[d];
      for (int d = 0; d < 3; d++) centre[d] = ids[2 * j + side] == TALUS_WORLD ? anchor[d] : P->r[d];
    }
  PetscCall(PetscFree2(ids, poses));
  PetscFunctionReturn(0);
}
