/*
 * The CCP of one time step (seed 000 eq. 13-14): B = D^T assembled with COO assembly into an
 * MPIAIJ matrix (3 rows per contact, 6 columns per dynamic body), the free velocity
 * v_free = v + h M^-1 F, the linear term q = b + B v_free with b_n = Phi/h, and, after the solve,
 * v+ = v_free + M^-1 B^T gamma.
 */
#include "sim_impl.h"

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

PetscErrorCode TalusSimAssembleCCP(TalusSim sim, TalusStepCCP *ccp)
{
  TalusBodies      *b = sim->bodies;
  TalusContactList *list = &sim->contacts;
  PetscInt          ncoo = 0, *coo_i, *coo_j, nd, row_start;
  PetscScalar      *coo_v, *minv, *vf, *gam, *q, *mu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAssemble, 0, 0, 0, 0));
  /* owned dynamic body k sits at entries b->dof[k] - dof_start of the velocity Vec (TalusSimNumberDofs);
     ghosts have only their owner's global dof */
  nd = sim->ndynamic;
  PetscCall(VecCreateMPI(sim->comm, 6 * nd, PETSC_DETERMINE, &ccp->inverse_mass));
  PetscCall(VecDuplicate(ccp->inverse_mass, &ccp->v_free));
  PetscCall(VecGetArray(ccp->inverse_mass, &minv));
  PetscCall(VecGetArray(ccp->v_free, &vf));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    for (int j = 0; j < 3; j++) {
      minv[d + j]     = 1.0 / b->mass[k];
      minv[d + 3 + j] = 1.0 / b->inertia[3 * k + j];
    }
    FreeVelocity(b, k, sim->gravity, sim->dt, &vf[d]);
  }
  PetscCall(VecRestoreArray(ccp->v_free, &vf));
  PetscCall(VecRestoreArray(ccp->inverse_mass, &minv));

  PetscCall(VecCreateMPI(sim->comm, list->n, PETSC_DETERMINE, &ccp->mu));
  PetscCall(VecGetOwnershipRange(ccp->mu, &row_start, NULL));
  row_start *= 3; /* global rows: 3 per contact, contacts numbered rank by rank (prefix sums) */
  PetscCall(VecCreateMPI(sim->comm, 3 * list->n, PETSC_DETERMINE, &ccp->q));
  PetscCall(VecDuplicate(ccp->q, &ccp->gamma));
  PetscCall(PetscMalloc3(36 * list->n, &coo_i, 36 * list->n, &coo_j, 36 * list->n, &coo_v));
  PetscCall(VecGetArray(ccp->mu, &mu));
  PetscCall(VecGetArray(ccp->q, &q));
  PetscCall(VecGetArray(ccp->gamma, &gam));
  for (PetscInt c = 0; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    for (int side = 0; side < 2; side++) {
      const PetscInt dof = b->dof[side ? ct->b : ct->a]; /* global: the body may be a ghost */
      PetscReal      rows[3][6];
      if (dof < 0) continue;
      TalusContactJacobian(b, ct, (PetscBool)side, rows);
      for (int r = 0; r < 3; r++)
        for (int j = 0; j < 6; j++) {
          coo_i[ncoo]   = row_start + 3 * c + r;
          coo_j[ncoo]   = dof + j;
          coo_v[ncoo++] = rows[r][j];
        }
    }
    mu[c]        = ct->mu;
    q[3 * c]     = ct->phi / sim->dt; /* b_n = Phi / h (seed 000 eq. 13) */
    q[3 * c + 1] = q[3 * c + 2] = 0.0;
    for (int r = 0; r < 3; r++) gam[3 * c + r] = ct->impulse[r];
  }
  PetscCall(VecRestoreArray(ccp->gamma, &gam));
  PetscCall(VecRestoreArray(ccp->q, &q));
  PetscCall(VecRestoreArray(ccp->mu, &mu));
  PetscCall(TalusMatCreateCOO(sim->comm, 3 * list->n, 6 * nd, PETSC_DETERMINE, PETSC_DETERMINE, ncoo, coo_i, coo_j, coo_v, INSERT_VALUES, &ccp->B));
  PetscCall(PetscFree3(coo_i, coo_j, coo_v));
  PetscCall(MatMultAdd(ccp->B, ccp->v_free, ccp->q, ccp->q)); /* q = b + B v_free */
  PetscCall(PetscLogEventEnd(TALUS_EventAssemble, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* v+ = v_free + M^-1 B^T gamma (seed 000 eq. 13) into the bodies and into ccp->v_plus; gamma into
   the contacts, where the next step finds its warm start. */
PetscErrorCode TalusSimApplyImpulses(TalusSim sim, TalusStepCCP *ccp)
{
  TalusBodies       *b = sim->bodies;
  Vec                dv;
  const PetscScalar *v, *gam;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ccp->v_free, &ccp->v_plus));
  dv = ccp->v_plus;
  PetscCall(MatMultTranspose(ccp->B, ccp->gamma, dv));
  PetscCall(VecPointwiseMult(dv, dv, ccp->inverse_mass));
  PetscCall(VecAXPY(dv, 1.0, ccp->v_free));
  PetscCall(VecGetArrayRead(dv, &v));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    for (int j = 0; j < 3; j++) {
      b->velocity[3 * k + j] = v[d + j];
      b->omega[3 * k + j]    = v[d + 3 + j];
    }
  }
  PetscCall(VecRestoreArrayRead(dv, &v));
  PetscCall(VecGetArrayRead(ccp->gamma, &gam));
  for (PetscInt c = 0; c < sim->contacts.n; c++)
    for (int r = 0; r < 3; r++) sim->contacts.c[c].impulse[r] = gam[3 * c + r];
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
