/*
 * The CCP of one time step (seed 000 eq. 13-14): B = D^T (3 rows per contact, then 1 per joint
 * row, seed 000 eq. 4 and 12; 6 columns per dynamic body), the free velocity v_free = v + h M^-1 F,
 * the linear term q = b + B v_free with b_n = Phi/h and g/h + g_t for the joints (eq. 9c), and,
 * after the solve, v+ = v_free + M^-1 B^T gamma.
 *
 * Every row block is a constraint of a kind (contact_kind.c, joint_kind.c) and B is made by a builder
 * (jacobian_builder.h), matrix-free (the default) or assembled (-ccp_matrix_free false, for
 * cross-checking): this file knows neither the rows of a kind nor the form of B.
 */
#include "jacobian_builder.h"
#include <talus/relaxation.h>

/* Applied forces over one step: gravity, the gyroscopic torque -omega x J omega (seed 000 eq. 3)
   and, when given, the loads and springs' force and world-frame torque on the body (drives.c). */
static void FreeVelocity(const TalusBodies *b, PetscInt k, const PetscReal g[3], PetscReal h, const PetscReal *wrench,
                         PetscReal v[6])
{
  const PetscReal *w = &b->omega[3 * k], *J = &b->inertia[3 * k];
  const PetscReal  Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
  PetscReal        gyro[3];

  TalusCross3(w, Jw, gyro);
  for (int d = 0; d < 3; d++) {
    v[d]     = b->velocity[3 * k + d] + h * g[d];
    v[3 + d] = w[d] - h * gyro[d] / J[d];
  }
  if (wrench) {
    PetscReal A[9], torque[3];
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotateBack(A, &wrench[3], torque);
    for (int d = 0; d < 3; d++) v[d] += h * wrench[d] / b->mass[k], v[3 + d] += h * torque[d] / J[d];
  }
}

/* The kinds of row block, in their order among each rank's rows (the feasible set's: cones, non-negative
   rows, free rows; the kinds of one form of B consecutive) */
static const TalusConstraintKind *const kinds[] = {&TalusContactKind, &TalusJointLimitKind, &TalusJointRowKind};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

/* This rank's rows: 3 per contact, then 1 per joint row */
static PetscInt LocalRows(TalusSim sim)
{
  PetscInt n = 0;
  for (int k = 0; k < NKINDS; k++) n += kinds[k]->rows * kinds[k]->count(sim);
  return n;
}

/* Whether a regularisation floor is set (-contact_near_rigid, -contact_friction_sigma) */
static PetscBool AnyFloor(TalusSim sim)
{
  return (PetscBool)(sim->contact_floor.beta > 0.0 || sim->contact_floor.sigma > 0.0);
}

/* Whether the problem is N + E (seed 004): a compliant material or joint, or the contacts' floor; the
   same answer on every rank */
static PetscBool AnyCompliance(TalusSim sim)
{
  return (PetscBool)(AnyFloor(sim) || sim->joints_info.compliant || TalusBodiesAnyCompliant(sim->bodies));
}

/* The step's friction coefficients (one per contact) and q (one per row) on layouts made from one gather of every
   rank's counts: a Vec of PETSC_DETERMINE size sets its layout up with a reduction and a gather of its own, and B
   and N (its rows, q's) took two more each; on ranks that share cores each is a wait for every rank. */
static PetscErrorCode CreateRowVectors(TalusSim sim, PetscInt nrows, TalusStepCCP *ccp)
{
  PetscInt    mine[2] = {sim->contacts_active, nrows}, *counts, *range[2];
  PetscLayout map[2];
  Vec        *vec[2] = {&ccp->mu, &ccp->q};

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(2 * sim->size, &counts, sim->size + 1, &range[0], sim->size + 1, &range[1]));
  PetscCallMPI(MPI_Allgather(mine, 2, MPIU_INT, counts, 2, MPIU_INT, sim->comm));
  for (int k = 0; k < 2; k++) {
    range[k][0] = 0;
    for (PetscMPIInt r = 0; r < sim->size; r++) range[k][r + 1] = range[k][r] + counts[2 * r + k];
    PetscCall(PetscLayoutCreateFromRanges(sim->comm, range[k], PETSC_COPY_VALUES, 1, &map[k]));
    PetscCall(VecCreate(sim->comm, vec[k]));
    PetscCall(VecSetLayout(*vec[k], map[k]));
    PetscCall(VecSetType(*vec[k], VECMPI));
    PetscCall(PetscLayoutDestroy(&map[k])); /* the Vec holds it */
  }
  PetscCall(PetscFree3(counts, range[0], range[1]));
  PetscFunctionReturn(0);
}

static PetscErrorCode AssembleWith(TalusSim sim, const TalusJacobianBuilderOps *builder, TalusStepCCP *ccp)
{
  TalusBodies         *b     = sim->bodies;
  TalusJacobianBuilder jb    = {.ops = builder, .sim = sim};
  const PetscInt       nrows = LocalRows(sim);
  PetscInt             row_start, row;
  PetscScalar         *vf, *gam, *q, *mu, *E = NULL;
  const PetscBool      floored = AnyFloor(sim);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAssemble, 0, 0, 0, 0));
  ccp->nnonneg = ccp->nfree = 0;
  /* owned dynamic body k sits at entries b->dof[k] - dof_start of the velocity Vec (TalusSimNumberDofs);
     ghosts have only their owner's global dof */
  PetscCall(jb.ops->begin_bodies(&jb, ccp));
  PetscCall(VecGetArray(ccp->v_free, &vf));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    FreeVelocity(b, k, sim->gravity, sim->dt, sim->wrench ? &sim->wrench[6 * k] : NULL, &vf[d]);
    jb.ops->add_body(&jb, k, d, &vf[d]);
  }
  PetscCall(VecRestoreArray(ccp->v_free, &vf));
  PetscCall(jb.ops->end_bodies(&jb, ccp));

  PetscCall(CreateRowVectors(sim, nrows, ccp));
  PetscCall(VecGetOwnershipRange(ccp->q, &row_start, NULL)); /* global rows: numbered rank by rank */
  PetscCall(VecDuplicate(ccp->q, &ccp->gamma));
  PetscCall(VecGetArray(ccp->mu, &mu));
  PetscCall(VecGetArray(ccp->q, &q));
  PetscCall(VecGetArray(ccp->gamma, &gam));
  if (AnyCompliance(sim)) {
    PetscCall(VecDuplicate(ccp->q, &ccp->compliance));
    PetscCall(VecSet(ccp->compliance, 0.0));
    PetscCall(VecGetArray(ccp->compliance, &E));
  }
  for (PetscInt c = 0; c < sim->contacts_active; c++) mu[c] = sim->contacts.c[c].mu;
  row = 0;
  for (int k = 0, index = 0; k < NKINDS; k++) {
    const TalusConstraintKind *kind = kinds[k];
    const PetscInt             n    = kind->count(sim);
    if (k == 0 || kinds[k - 1]->form != kind->form) { /* the form's first kind: room for all the form's blocks */
      PetscInt nform = 0;
      for (int f = k; f < NKINDS && kinds[f]->form == kind->form; f++) nform += kinds[f]->count(sim);
      PetscCall(jb.ops->begin_blocks(&jb, kind, nform));
      index = 0;
    }
    if (kind->set == TALUS_SET_NONNEGATIVE) ccp->nnonneg += kind->rows * n;
    if (kind->set == TALUS_SET_FREE) ccp->nfree += kind->rows * n;
    for (PetscInt i = 0; i < n; i++, row += kind->rows, index++) {
      const void *block = kind->block(sim, i);
      jb.ops->add_block(&jb, kind, index, block, row_start + row);
      kind->stabilisation(b, block, sim->dt, &q[row]);
      kind->get_impulse(block, &gam[row]);
      if (E && kind->compliance) kind->compliance(b, block, sim->dt, &E[row]);
      if (floored && kind->floor) kind->floor(b, block, &sim->contact_floor, &E[row]); /* E exists then */
    }
  }
  if (E) PetscCall(VecRestoreArray(ccp->compliance, &E));
  PetscCall(VecRestoreArray(ccp->gamma, &gam));
  PetscCall(VecRestoreArray(ccp->q, &q));
  PetscCall(VecRestoreArray(ccp->mu, &mu));
  PetscCall(jb.ops->end(&jb, ccp));
  PetscCall(MatMultAdd(ccp->B, ccp->v_free, ccp->q, ccp->q)); /* q = b + B v_free */
  PetscCall(PetscLogEventEnd(TALUS_EventAssemble, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAssembleCCP(TalusSim sim, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(AssembleWith(sim, sim->builder, ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAssembleCCPAssembled(TalusSim sim, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(AssembleWith(sim, &TalusJacobianBuilderAssembled, ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusStepCCPFormOperator(const TalusStepCCP *ccp, Mat *W)
{
  PetscFunctionBegin;
  PetscCall(TalusDelassusAssemble(ccp->B, ccp->inverse_mass, W));
  /* seed 004 eq. 60's N + E (compliant rows, the contacts' floor); N's diagonal is all present: every
     row couples to itself */
  if (ccp->compliance) PetscCall(MatDiagonalSet(*W, ccp->compliance, ADD_VALUES));
  PetscFunctionReturn(0);
}

/* The diagonal of N = B M^-1 B^T for the step's rows, block by block (for -ccp_scale). */
PetscErrorCode TalusSimGetDelassusDiagonal(TalusSim sim, Vec *diagonal)
{
  PetscScalar *d;
  PetscInt     row = 0;

  PetscFunctionBegin;
  PetscCall(VecCreateMPI(sim->comm, LocalRows(sim), PETSC_DETERMINE, diagonal));
  PetscCall(VecGetArray(*diagonal, &d));
  for (int k = 0; k < NKINDS; k++)
    for (PetscInt i = 0; i < kinds[k]->count(sim); i++, row += kinds[k]->rows)
      kinds[k]->diagonal(sim->bodies, kinds[k]->block(sim, i), &d[row]);
  PetscCall(VecRestoreArray(*diagonal, &d));
  PetscFunctionReturn(0);
}

/* v+ = v_free + M^-1 B^T gamma (seed 000 eq. 13) into ccp->v_plus */
PetscErrorCode TalusStepCCPVelocities(TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  if (!ccp->v_plus) PetscCall(VecDuplicate(ccp->v_free, &ccp->v_plus));
  PetscCall(MatMultTranspose(ccp->B, ccp->gamma, ccp->v_plus));
  PetscCall((*ccp->apply_inverse_mass)(ccp->v_plus, ccp->inverse_mass_ctx));
  PetscCall(VecAXPY(ccp->v_plus, 1.0, ccp->v_free));
  PetscFunctionReturn(0);
}

/* gamma's rows into the blocks' impulses, kind by kind: where the next solve or step finds its warm start */
PetscErrorCode TalusSimSetImpulses(TalusSim sim, TalusStepCCP *ccp)
{
  const PetscScalar *gam;
  PetscInt           row = 0;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(ccp->gamma, &gam));
  for (int k = 0; k < NKINDS; k++)
    for (PetscInt i = 0; i < kinds[k]->count(sim); i++, row += kinds[k]->rows)
      kinds[k]->set_impulse(kinds[k]->block(sim, i), &gam[row]);
  PetscCall(VecRestoreArrayRead(ccp->gamma, &gam));
  PetscFunctionReturn(0);
}

/* v+ (TalusStepCCPVelocities) into the owned bodies, gamma into the blocks */
PetscErrorCode TalusSimApplyImpulses(TalusSim sim, TalusStepCCP *ccp)
{
  const TalusJacobianBuilderOps *builder = sim->builder; /* the form of B this run uses (-ccp_matrix_free) */
  TalusBodies                   *b       = sim->bodies;
  const PetscScalar             *v;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(ccp->v_plus, &v));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] >= 0) builder->get_body(b, k, &v[d]);
  }
  PetscCall(VecRestoreArrayRead(ccp->v_plus, &v));
  PetscCall(TalusSimSetImpulses(sim, ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusStepCCPDestroy(TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ccp->B));
  PetscCall(VecDestroy(&ccp->inverse_mass));
  PetscCall(VecDestroy(&ccp->v_free));
  PetscCall(VecDestroy(&ccp->v_plus));
  PetscCall(VecDestroy(&ccp->gamma));
  PetscCall(VecDestroy(&ccp->q));
  PetscCall(VecDestroy(&ccp->mu));
  PetscCall(VecDestroy(&ccp->compliance));
  PetscFunctionReturn(0);
}
