/*
 * The CCP of one time step (seed 000 eq. 13-14): B = D^T (3 rows per contact, 6 columns per
 * dynamic body), the free velocity v_free = v + h M^-1 F, the linear term q = b + B v_free with
 * b_n = Phi/h, and, after the solve, v+ = v_free + M^-1 B^T gamma.
 *
 * B is either matrix-free (jacobian_shell.c, the default), with the angular velocities of the
 * body-space vectors in the world frame and M^-1 block-diagonal, or assembled with COO assembly
 * into an MPIAIJ matrix (-ccp_matrix_free false, for cross-checking), with the body-frame angular
 * velocities of seed 000 and a diagonal M^-1.
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

/*
 * The body-space vector of the matrix-free B: this rank's dynamic bodies, then, as ghosts (block
 * 6), the other ranks' dynamic bodies that its contacts touch. slot[k] is body k's place in the
 * local form (-1: fixed or untouched ghost).
 */
static PetscErrorCode CreateGhostedBodyVector(TalusSim sim, Vec *v, PetscInt **slot, PetscReal *ghost_bytes)
{
  TalusBodies *b = sim->bodies;
  PetscInt    *ghosts, nghost = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(b->n + 1, slot));
  PetscCall(PetscMalloc1(b->n - b->nowned + 1, &ghosts));
  for (PetscInt k = 0; k < b->n; k++)
    (*slot)[k] = (k < b->nowned && b->dof[k] >= 0) ? (b->dof[k] - sim->dof_start) / 6 : -1;
  for (PetscInt c = 0; c < sim->contacts.n; c++) {
    const PetscInt pair[2] = {sim->contacts.c[c].a, sim->contacts.c[c].b};
    for (int side = 0; side < 2; side++) {
      const PetscInt k = pair[side];
      if (k < b->nowned || b->dof[k] < 0 || (*slot)[k] >= 0) continue;
      (*slot)[k]       = sim->ndynamic + nghost;
      ghosts[nghost++] = b->dof[k] / 6; /* global block index */
    }
  }
  PetscCall(VecCreateGhostBlock(sim->comm, 6, 6 * sim->ndynamic, PETSC_DETERMINE, nghost, ghosts, v));
  *ghost_bytes = 48.0 * nghost;
  PetscCall(PetscFree(ghosts)); /* slot stays: the caller frees it */
  PetscFunctionReturn(0);
}

/* Contact ct's record for the matrix-free B (jacobian_shell.c): its two bodies' slots, its frame
   and the world-frame lever arms A s of its bodies (zero for a fixed body); returns its kind. */
static char JacobianRecord(const TalusBodies *b, const TalusContact *ct, const PetscInt slot[], PetscInt cslot[2],
                           PetscReal J[TALUS_JACOBIAN_GENERAL])
{
  const PetscInt   body[2]     = {ct->a, ct->b};
  const PetscReal *arm[2]      = {ct->sa, ct->sb};
  PetscReal        world[2][3] = {
           {0.0, 0.0, 0.0},
           {0.0, 0.0, 0.0}
  };

  for (int side = 0; side < 2; side++) {
    PetscReal A[9];
    cslot[side] = slot[body[side]];
    if (b->dof[body[side]] < 0) continue;
    TalusQuatToMatrix(&b->quaternion[4 * body[side]], A);
    TalusRotate(A, arm[side], world[side]);
  }
  return TalusJacobianRecord(ct->frame, world[0], world[1], J);
}

/* Contact ct's entries of the assembled B (rows row, row + 1, row + 2; global dofs): how many. */
static PetscInt JacobianEntries(const TalusBodies *b, const TalusContact *ct, PetscInt row, PetscInt coo_i[],
                                PetscInt coo_j[], PetscScalar coo_v[])
{
  const PetscInt body[2] = {ct->a, ct->b};
  PetscInt       n       = 0;

  for (int side = 0; side < 2; side++) {
    const PetscInt dof = b->dof[body[side]]; /* global: the body may be a ghost */
    PetscReal      rows[3][6];
    if (dof < 0) continue;
    TalusContactJacobian(b, ct, (PetscBool)side, rows);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 6; j++) coo_i[n] = row + r, coo_j[n] = dof + j, coo_v[n++] = rows[r][j];
  }
  return n;
}

PetscErrorCode TalusSimAssembleCCP(TalusSim sim, TalusStepCCP *ccp)
{
  TalusBodies      *b    = sim->bodies;
  TalusContactList *list = &sim->contacts;
  PetscInt          ncoo = 0, *coo_i = NULL, *coo_j = NULL, nd, row_start, *slot = NULL, *cslot = NULL, offset = 0;
  PetscScalar      *coo_v = NULL, *minv, *vf, *gam, *q, *mu;
  PetscReal        *J     = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAssemble, 0, 0, 0, 0));
  /* owned dynamic body k sits at entries b->dof[k] - dof_start of the velocity Vec (TalusSimNumberDofs);
     ghosts have only their owner's global dof */
  nd = sim->ndynamic;
  if (sim->matrix_free) {
    PetscCall(CreateGhostedBodyVector(sim, &ccp->v_free, &slot, &ccp->bytes_per_product));
    PetscCall(TalusGrowArray(TALUS_INVERSE_MASS * sizeof(PetscReal), nd, &sim->inverse_mass_capacity,
                             &sim->inverse_mass)); /* kept from step to step, like B's records */
  } else {
    PetscCall(VecCreateMPI(sim->comm, 6 * nd, PETSC_DETERMINE, &ccp->inverse_mass));
    PetscCall(VecDuplicate(ccp->inverse_mass, &ccp->v_free));
    PetscCall(VecGetArray(ccp->inverse_mass, &minv));
  }
  PetscCall(VecGetArray(ccp->v_free, &vf));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    FreeVelocity(b, k, sim->gravity, sim->dt, &vf[d]);
    if (sim->matrix_free) { /* world frame: omega_world = A omega_body, M^-1 = (1/m, A J^-1 A^T) */
      PetscReal A[9], w[3] = {vf[d + 3], vf[d + 4], vf[d + 5]};
      TalusQuatToMatrix(&b->quaternion[4 * k], A);
      TalusRotate(A, w, &vf[d + 3]);
      TalusInverseMassRecord(b->mass[k], &b->inertia[3 * k], A, &sim->inverse_mass[TALUS_INVERSE_MASS * (d / 6)]);
    } else
      for (int j = 0; j < 3; j++) {
        minv[d + j]     = 1.0 / b->mass[k];
        minv[d + 3 + j] = 1.0 / b->inertia[3 * k + j];
      }
  }
  PetscCall(VecRestoreArray(ccp->v_free, &vf));
  if (!sim->matrix_free) PetscCall(VecRestoreArray(ccp->inverse_mass, &minv));

  PetscCall(VecCreateMPI(sim->comm, list->n, PETSC_DETERMINE, &ccp->mu));
  PetscCall(VecGetOwnershipRange(ccp->mu, &row_start, NULL));
  row_start *= 3; /* global rows: 3 per contact, contacts numbered rank by rank (prefix sums) */
  PetscCall(VecCreateMPI(sim->comm, 3 * list->n, PETSC_DETERMINE, &ccp->q));
  PetscCall(VecDuplicate(ccp->q, &ccp->gamma));
  if (sim->matrix_free) {
    if (list->n > sim->jacobian_capacity) { /* kept from step to step: fresh memory every step costs page faults */
      PetscCall(PetscFree3(sim->jacobian_slot, sim->jacobian_kind, sim->jacobian));
      sim->jacobian_capacity = TalusGrowCapacity(sim->jacobian_capacity, list->n);
      PetscCall(PetscMalloc3(2 * sim->jacobian_capacity, &sim->jacobian_slot, sim->jacobian_capacity,
                             &sim->jacobian_kind, TALUS_JACOBIAN_GENERAL * sim->jacobian_capacity, &sim->jacobian));
    }
    cslot = sim->jacobian_slot, J = sim->jacobian;
  } else PetscCall(PetscMalloc3(36 * list->n, &coo_i, 36 * list->n, &coo_j, 36 * list->n, &coo_v));
  PetscCall(VecGetArray(ccp->mu, &mu));
  PetscCall(VecGetArray(ccp->q, &q));
  PetscCall(VecGetArray(ccp->gamma, &gam));
  for (PetscInt c = 0; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    if (sim->matrix_free) offset += (sim->jacobian_kind[c] = JacobianRecord(b, ct, slot, &cslot[2 * c], &J[offset]));
    else ncoo += JacobianEntries(b, ct, row_start + 3 * c, &coo_i[ncoo], &coo_j[ncoo], &coo_v[ncoo]);
    mu[c]        = ct->mu;
    q[3 * c]     = ct->phi / sim->dt; /* b_n = Phi / h (seed 000 eq. 13) */
    q[3 * c + 1] = q[3 * c + 2] = 0.0;
    for (int r = 0; r < 3; r++) gam[3 * c + r] = ct->impulse[r];
  }
  PetscCall(VecRestoreArray(ccp->gamma, &gam));
  PetscCall(VecRestoreArray(ccp->q, &q));
  PetscCall(VecRestoreArray(ccp->mu, &mu));
  if (sim->matrix_free) {
    PetscCall(
      TalusJacobianCreateShell(sim->comm, list->n, nd, cslot, sim->jacobian_kind, J, sim->inverse_mass, &ccp->B));
    PetscCall(PetscFree(slot));
    ccp->apply_inverse_mass = TalusJacobianApplyInverseMass, ccp->inverse_mass_ctx = ccp->B;
  } else {
    PetscCall(TalusMatCreateCOO(sim->comm, 3 * list->n, 6 * nd, PETSC_DETERMINE, PETSC_DETERMINE, ncoo, coo_i, coo_j,
                                coo_v, INSERT_VALUES, &ccp->B));
    PetscCall(PetscFree3(coo_i, coo_j, coo_v));
    ccp->apply_inverse_mass = TalusInverseMassDiagonal, ccp->inverse_mass_ctx = ccp->inverse_mass;
    if (sim->size > 1) { /* off-rank columns of B: the velocities each product gathers from other ranks */
      Mat             Ad, Ao;
      const PetscInt *garray;
      PetscInt        nghost_columns;
      PetscCall(MatMPIAIJGetSeqAIJ(ccp->B, &Ad, &Ao, &garray));
      PetscCall(MatGetSize(Ao, NULL, &nghost_columns));
      ccp->bytes_per_product = 8.0 * nghost_columns;
    }
  }
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
  PetscCall((*ccp->apply_inverse_mass)(dv, ccp->inverse_mass_ctx));
  PetscCall(VecAXPY(dv, 1.0, ccp->v_free));
  PetscCall(VecGetArrayRead(dv, &v));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    if (b->dof[k] < 0) continue;
    for (int j = 0; j < 3; j++) b->velocity[3 * k + j] = v[d + j];
    if (sim->matrix_free) { /* back to the body frame of seed 000: omega_body = A^T omega_world */
      PetscReal A[9];
      TalusQuatToMatrix(&b->quaternion[4 * k], A);
      TalusRotateBack(A, &v[d + 3], &b->omega[3 * k]);
    } else
      for (int j = 0; j < 3; j++) b->omega[3 * k + j] = v[d + 3 + j];
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
