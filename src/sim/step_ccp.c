/*
 * The CCP of one time step (seed 000 eq. 13-14): B = D^T (3 rows per contact, 6 columns per
 * dynamic body), the free velocity v_free = v + h M^-1 F, the linear term q = b + B v_free with
 * b_n = Phi/h, and, after the solve, v+ = v_free + M^-1 B^T gamma.
 *
 * Every row block is a constraint of a kind (contact_kind.c) and B is made by a builder
 * (jacobian_builder.h), matrix-free (the default) or assembled (-ccp_matrix_free false, for
 * cross-checking): this file knows neither the rows of a kind nor the form of B.
 */
#include "jacobian_builder.h"

/* Applied forces over one step: gravity and the gyroscopic torque -omega x J omega (seed 000 eq. 3). */
static void FreeVelocity(const TalusBodies *b, PetscInt k, const PetscReal g[3], PetscReal h, PetscReal v[6])
{
  const PetscReal *w = &b->omega[3 * k], *J = &b->inertia[3 * k];
  const PetscReal  Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
  PetscReal        gyro[3];

  TalusCross3(w, Jw, gyro);
  for (int d = 0; d < 3; d++) {
    v[d]     = b->velocity[3 * k + d] + h * g[d];
    v[3 + d] = w[d] - h * gyro[d] / J[d];
  }
}

/* The builder of the form of B this run uses (-ccp_matrix_free). */
static const TalusJacobianBuilderOps *BuilderOf(TalusSim sim)
{
  return sim->matrix_free ? &TalusJacobianBuilderMatrixFree : &TalusJacobianBuilderAssembled;
}

static PetscErrorCode AssembleWith(TalusSim sim, const TalusJacobianBuilderOps *builder, TalusStepCCP *ccp)
{
  const TalusConstraintKind *kind = &TalusContactKind;
  const PetscInt             rows = kind->rows;
  TalusBodies               *b    = sim->bodies;
  TalusContactList          *list = &sim->contacts;
  TalusJacobianBuilder       jb   = {.ops = builder, .sim = sim};
  PetscInt                   row_start;
  PetscScalar               *vf, *gam, *q, *mu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAssemble, 0, 0, 0, 0));
  /* owned dynamic body k sits at entries b->dof[k] - dof_start of the velocity Vec (TalusSimNumberDofs);
     ghosts have only their owner's global dof */
  PetscCall(jb.ops->begin_bodies(&jb, ccp));
  PetscCall(VecGetArray(ccp->v_free, &vf));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    FreeVelocity(b, k, sim->gravity, sim->dt, &vf[d]);
    jb.ops->add_body(&jb, k, d, &vf[d]);
  }
  PetscCall(VecRestoreArray(ccp->v_free, &vf));
  PetscCall(jb.ops->end_bodies(&jb, ccp));

  PetscCall(VecCreateMPI(sim->comm, list->n, PETSC_DETERMINE, &ccp->mu));
  PetscCall(VecGetOwnershipRange(ccp->mu, &row_start, NULL));
  row_start *= rows; /* global rows: blocks numbered rank by rank (prefix sums) */
  PetscCall(VecCreateMPI(sim->comm, rows * list->n, PETSC_DETERMINE, &ccp->q));
  PetscCall(VecDuplicate(ccp->q, &ccp->gamma));
  PetscCall(jb.ops->begin_blocks(&jb, kind, list->n));
  PetscCall(VecGetArray(ccp->mu, &mu));
  PetscCall(VecGetArray(ccp->q, &q));
  PetscCall(VecGetArray(ccp->gamma, &gam));
  for (PetscInt c = 0; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    jb.ops->add_block(&jb, kind, c, ct, row_start + rows * c);
    mu[c] = ct->mu;
    kind->stabilisation(ct, sim->dt, &q[rows * c]);
    kind->get_impulse(ct, &gam[rows * c]);
  }
  PetscCall(VecRestoreArray(ccp->gamma, &gam));
  PetscCall(VecRestoreArray(ccp->q, &q));
  PetscCall(VecRestoreArray(ccp->mu, &mu));
  PetscCall(jb.ops->end(&jb, kind, list->n, ccp));
  PetscCall(MatMultAdd(ccp->B, ccp->v_free, ccp->q, ccp->q)); /* q = b + B v_free */
  PetscCall(PetscLogEventEnd(TALUS_EventAssemble, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAssembleCCP(TalusSim sim, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(AssembleWith(sim, BuilderOf(sim), ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAssembleCCPAssembled(TalusSim sim, TalusStepCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(AssembleWith(sim, &TalusJacobianBuilderAssembled, ccp));
  PetscFunctionReturn(0);
}

/* The diagonal of N = B M^-1 B^T for the step's rows, block by block (for -ccp_scale). */
PetscErrorCode TalusSimGetDelassusDiagonal(TalusSim sim, Vec *diagonal)
{
  const TalusConstraintKind *kind = &TalusContactKind;
  PetscScalar               *d;

  PetscFunctionBegin;
  PetscCall(VecCreateMPI(sim->comm, kind->rows * sim->contacts.n, PETSC_DETERMINE, diagonal));
  PetscCall(VecGetArray(*diagonal, &d));
  for (PetscInt c = 0; c < sim->contacts.n; c++) kind->diagonal(sim->bodies, &sim->contacts.c[c], &d[kind->rows * c]);
  PetscCall(VecRestoreArray(*diagonal, &d));
  PetscFunctionReturn(0);
}

/* v+ = v_free + M^-1 B^T gamma (seed 000 eq. 13) into the bodies and into ccp->v_plus; gamma into
   the contacts, where the next step finds its warm start. */
PetscErrorCode TalusSimApplyImpulses(TalusSim sim, TalusStepCCP *ccp)
{
  const TalusConstraintKind     *kind    = &TalusContactKind;
  const TalusJacobianBuilderOps *builder = BuilderOf(sim);
  TalusBodies                   *b       = sim->bodies;
  Vec                            dv;
  const PetscScalar             *v, *gam;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ccp->v_free, &ccp->v_plus));
  dv = ccp->v_plus;
  PetscCall(MatMultTranspose(ccp->B, ccp->gamma, dv));
  PetscCall((*ccp->apply_inverse_mass)(dv, ccp->inverse_mass_ctx));
  PetscCall(VecAXPY(dv, 1.0, ccp->v_free));
  PetscCall(VecGetArrayRead(dv, &v));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] >= 0) builder->get_body(b, k, &v[d]);
  }
  PetscCall(VecRestoreArrayRead(dv, &v));
  PetscCall(VecGetArrayRead(ccp->gamma, &gam));
  for (PetscInt c = 0; c < sim->contacts.n; c++) kind->set_impulse(&sim->contacts.c[c], &gam[kind->rows * c]);
  PetscCall(VecRestoreArrayRead(ccp->gamma, &gam));
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
  PetscFunctionReturn(0);
}
