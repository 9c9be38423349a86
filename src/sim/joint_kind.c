/*
 * A joint's row as a constraint kind: a block of 1 free row (seed 000 eq. 12: its cone is R) between
 * two bodies, or a body and the world, with the stabilisation of eq. 9c, g / h + g_t (joints.c).
 * Its row of B is kept in the world frame (TalusJointRowTerms): the matrix-free record is those 12
 * doubles; the assembled entries turn the angular parts into the body frame (A^T c).
 */
#include "jacobian_builder.h"

/* (the known velocity of a fixed side is in the bias already: joints.c) */
static void JointStabilisation(const TalusBodies *bodies, const void *block, PetscReal h, PetscScalar b[])
{
  (void)h, (void)bodies;
  b[0] = ((const TalusJointRow *)block)->bias;
}

static void JointCompliance(const TalusBodies *bodies, const void *block, PetscReal h, PetscScalar E[])
{
  (void)h, (void)bodies;
  E[0] = ((const TalusJointRow *)block)->compliance; /* joints.c, with its bias */
}

static void JointGetImpulse(const void *block, PetscScalar gamma[])
{
  gamma[0] = ((const TalusJointRow *)block)->impulse;
}

static void JointSetImpulse(void *block, const PetscScalar gamma[])
{
  ((TalusJointRow *)block)->impulse = PetscRealPart(gamma[0]);
}

/* a side's body, or -1 for the world and fixed bodies (no velocity) */
static PetscInt DynamicSide(const TalusBodies *b, const TalusJointRow *row, int side)
{
  const PetscInt k = side ? row->b : row->a;
  return k >= 0 && b->dof[k] >= 0 ? k : -1;
}

static PetscInt JointRecord(const TalusBodies *b, const void *block, const PetscInt slot[], PetscInt block_slot[2],
                            PetscReal J[])
{
  const TalusJointRow *row = (const TalusJointRow *)block;

  for (int side = 0; side < 2; side++) {
    const PetscInt k = DynamicSide(b, row, side);
    block_slot[side] = k >= 0 ? slot[k] : -1;
  }
  for (int e = 0; e < 12; e++) J[e] = (&row->G[0][0])[e];
  return TALUS_JACOBIAN_ROW;
}

/* the side's row of B with the angular part in the body frame of seed 000: (g, A^T c) */
static void BodyFrameRow(const TalusBodies *b, PetscInt k, const PetscReal G[6], PetscReal out[6])
{
  PetscReal A[9];

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  for (int e = 0; e < 3; e++) out[e] = G[e];
  TalusRotateBack(A, &G[3], &out[3]);
}

static PetscInt JointEntries(const TalusBodies *b, const void *block, PetscInt row_index, PetscInt coo_i[],
                             PetscInt coo_j[], PetscScalar coo_v[])
{
  const TalusJointRow *row = (const TalusJointRow *)block;
  PetscInt             n   = 0;

  for (int side = 0; side < 2; side++) {
    const PetscInt k = DynamicSide(b, row, side);
    PetscReal      G[6];
    if (k < 0) continue;
    BodyFrameRow(b, k, row->G[side], G);
    for (int e = 0; e < 6; e++) coo_i[n] = row_index, coo_j[n] = b->dof[k] + e, coo_v[n++] = G[e];
  }
  return n;
}

static void JointDiagonal(const TalusBodies *b, const void *block, PetscScalar diag[])
{
  const TalusJointRow *row = (const TalusJointRow *)block;

  diag[0] = 0.0;
  for (int side = 0; side < 2; side++) {
    const PetscInt k = DynamicSide(b, row, side);
    PetscReal      G[6];
    if (k < 0) continue;
    BodyFrameRow(b, k, row->G[side], G);
    diag[0] += (G[0] * G[0] + G[1] * G[1] + G[2] * G[2]) / b->mass[k];
    for (int e = 0; e < 3; e++) diag[0] += G[3 + e] * G[3 + e] / b->inertia[3 * k + e];
  }
}

/* The joints' rows this rank keeps (joints.c publishes them): the limits' one-sided rows first */
static PetscInt LimitCount(TalusSim sim)
{
  return sim->nlimit_rows_local;
}

static void *LimitBlock(TalusSim sim, PetscInt i)
{
  return &sim->joint_rows[i];
}

static PetscInt RowCount(TalusSim sim)
{
  return sim->njoint_rows_local - sim->nlimit_rows_local;
}

static void *RowBlock(TalusSim sim, PetscInt i)
{
  return &sim->joint_rows[sim->nlimit_rows_local + i];
}

/* A joint's row, one-sided (a limit's) or two-sided: the same terms, sets apart */
#define JOINT_ROW_TERMS \
  .rows = 1, .form = TALUS_BLOCK_ROW, .max_record = TALUS_JACOBIAN_ROW, .max_entries = 2 * 6, \
  .stabilisation = JointStabilisation, .compliance = JointCompliance, .get_impulse = JointGetImpulse, \
  .set_impulse = JointSetImpulse, .record = JointRecord, .entries = JointEntries, .diagonal = JointDiagonal

const TalusConstraintKind TalusJointLimitKind = {
  .name = "joint limit", .set = TALUS_SET_NONNEGATIVE, .count = LimitCount, .block = LimitBlock, JOINT_ROW_TERMS};

const TalusConstraintKind TalusJointRowKind = {
  .name = "joint row", .set = TALUS_SET_FREE, .count = RowCount, .block = RowBlock, JOINT_ROW_TERMS};
