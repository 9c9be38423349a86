/*
 * nbgs's sweep on body velocities, for N = B M^-1 B^T given by the row blocks of a matrix-free B
 * (TalusBlockRows): the simulator's problems, where N has no rows to read. It keeps
 * w = M^-1 B^T r, the velocity change the impulses make, in a ghosted body vector, so that a
 * contact's velocity is u_c = B_c w + q_c (two bodies' six entries and the contact's record, not a
 * row of N), and an update d of r_c changes w by M^-1 B_c^T d (the same two bodies). A sweep costs
 * one visit of each contact, wherever its bodies are.
 *
 * Across ranks (Jacobi, one exchange per sweep): a body owned by another rank is a ghost slot of w.
 * The sweep updates ghost slots as it goes, so this rank's contacts see each other's changes; at
 * the sweep's end the ghosts' changes are added to their owners and the owners' velocities sent
 * back. Contacts on a body that another rank's contacts also push (a ghost here, or an owned body
 * that is a ghost there) are the interface blocks, relaxed by -tao_nbgs_interface_omega.
 *
 * Free rows (joints) follow the cones, one row at a time: r_j = -(u_j - W_jj r_j) / W_jj, unbounded,
 * from the row's record (TalusBlockRows' row section) in the same sweep.
 */
#include "nbgs_impl.h"

typedef struct {
  TalusBlockRows rows;
  Vec            w;            /* M^-1 B^T r, ghosted */
  PetscInt       nowned;       /* owned entries of w (6 per body); ghost entries follow in its local form */
  PetscScalar   *start;        /* the ghost entries at the sweep's start */
  PetscReal     *row_diagonal; /* W_jj of each free row */
  Vec            compliance;   /* seed 004's E of N + E (TalusDelassusGetCompliance), or NULL */
} NBGSBodiesData;

static PetscErrorCode BodiesRelease(void *data)
{
  NBGSBodiesData *d = (NBGSBodiesData *)data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&d->w));
  PetscCall(VecDestroy(&d->compliance));
  PetscCall(PetscFree(d->start));
  PetscCall(PetscFree(d->row_diagonal));
  PetscFunctionReturn(0);
}

/* Ghost entries of w hold changes to add to their owners; afterwards every ghost holds its owner's value. */
static PetscErrorCode AddGhostChanges(Vec w)
{
  PetscFunctionBegin;
  PetscCall(VecGhostUpdateBegin(w, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecGhostUpdateEnd(w, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecGhostUpdateBegin(w, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostUpdateEnd(w, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* w = M^-1 B^T r with its ghosts current */
static PetscErrorCode ComputeBodyVelocity(NBGSBodiesData *d, Vec r)
{
  Vec                wl;
  PetscScalar       *w;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecSet(wl, 0.0));
  PetscCall(VecGetArray(wl, &w));
  PetscCall(VecGetArrayRead(r, &x));
  for (PetscInt c = 0; c < d->rows.nblocks; c++) d->rows.scatter(d->rows.ctx, c, &x[3 * c], w);
  for (PetscInt j = 0; j < d->rows.nrows; j++) d->rows.row_scatter(d->rows.ctx, j, x[3 * d->rows.nblocks + j], w);
  PetscCall(VecRestoreArrayRead(r, &x));
  PetscCall(VecRestoreArray(wl, &w));
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  PetscCall(AddGhostChanges(d->w));
  PetscFunctionReturn(0);
}

/* Which bodies other ranks' contacts push: 1 in every ghost entry, summed onto the owners. */
static PetscErrorCode MarkSharedBodies(NBGSBodiesData *d, PetscInt nlocal, PetscBool *shared)
{
  Vec                wl;
  const PetscScalar *w;

  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecSet(wl, 0.0));
  {
    PetscScalar *a;
    PetscCall(VecGetArray(wl, &a));
    for (PetscInt i = d->nowned; i < nlocal; i++) a[i] = 1.0;
    PetscCall(VecRestoreArray(wl, &a));
  }
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  PetscCall(AddGhostChanges(d->w)); /* owners get how many ranks ghost them; ghosts then their owner's count */
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecGetArrayRead(wl, &w));
  for (PetscInt s = 0; 6 * s < nlocal; s++)
    shared[s] = (PetscBool)(6 * s >= d->nowned || PetscRealPart(w[6 * s]) > 0.0);
  PetscCall(VecRestoreArrayRead(wl, &w));
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  PetscFunctionReturn(0);
}

static PetscErrorCode BodiesSetUp(Tao tao, PetscReal *max_diagonal)
{
  TAO_NBGS          *nb = (TAO_NBGS *)tao->data;
  NBGSBodiesData    *d;
  PetscBool          found, *shared;
  PetscInt           nc, nlocal;
  PetscMPIInt        size;
  Vec                wl;
  const PetscScalar *E = NULL;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  nb->data = d;
  PetscCall(TalusMatGetBlockRows(nb->W, &d->rows, &found));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCheck(found && d->rows.nblocks == nc, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "nbgs: N's row blocks (%" PetscInt_FMT ") do not match the %" PetscInt_FMT " cones of this rank",
             found ? d->rows.nblocks : -1, nc);
  PetscCheck(nb->set->nnonneg_local + nb->set->nfree_local == d->rows.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "nbgs: this rank's %" PetscInt_FMT " non-negative and %" PetscInt_FMT
             " free rows are not B's %" PetscInt_FMT " single rows",
             nb->set->nnonneg_local, nb->set->nfree_local, d->rows.nrows);
  PetscCall(TalusDelassusGetBodyVector(nb->W, &d->w));
  PetscCall(VecGetLocalSize(d->w, &d->nowned));
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecGetLocalSize(wl, &nlocal));
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  PetscCall(PetscMalloc1(nlocal - d->nowned + 1, &d->start));

  /* N + E (seed 004 eq. 60): E is diagonal, so it adds to each block's own diagonal (the blocks
     and row diagonals below are N's + E's); B w is N r without E r, which the sweep adds back to
     u_c - W_cc r_c and the velocity u = (N + E) r + q adds */
  PetscCall(TalusDelassusGetCompliance(nb->W, &d->compliance));
  if (d->compliance) PetscCall(PetscObjectReference((PetscObject)d->compliance));
  if (d->compliance) PetscCall(VecGetArrayRead(d->compliance, &E));
  *max_diagonal = 0.0;
  for (PetscInt c = 0; c < nc; c++) {
    d->rows.block(d->rows.ctx, c, &nb->blocks[9 * c]);
    for (int i = 0; i < 3; i++) {
      if (E) nb->blocks[9 * c + 4 * i] += PetscRealPart(E[3 * c + i]);
      *max_diagonal = PetscMax(*max_diagonal, nb->blocks[9 * c + 4 * i]);
    }
  }
  PetscCall(PetscMalloc1(d->rows.nrows + 1, &d->row_diagonal));
  for (PetscInt j = 0; j < d->rows.nrows; j++) {
    d->row_diagonal[j] = d->rows.row_diagonal(d->rows.ctx, j) + (E ? PetscRealPart(E[3 * nc + j]) : 0.0);
    *max_diagonal      = PetscMax(*max_diagonal, d->row_diagonal[j]);
  }
  if (E) PetscCall(VecRestoreArrayRead(d->compliance, &E));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, max_diagonal, 1, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)tao)));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)tao), &size));
  if (size > 1) {
    PetscCall(PetscMalloc1(nlocal / 6 + 1, &shared));
    PetscCall(MarkSharedBodies(d, nlocal, shared));
    for (PetscInt c = 0; c < nc; c++) {
      PetscInt  slot[2];
      PetscBool any = PETSC_FALSE;
      d->rows.slots(d->rows.ctx, c, slot);
      for (int k = 0; k < 2; k++)
        if (slot[k] >= 0 && shared[slot[k]]) any = PETSC_TRUE;
      nb->interface[3 * c] = nb->interface[3 * c + 1] = nb->interface[3 * c + 2] = any;
    }
    for (PetscInt j = 0; j < d->rows.nrows; j++) {
      PetscInt slot[2];
      d->rows.row_slots(d->rows.ctx, j, slot);
      nb->interface[3 * nc + j] = (PetscBool)((slot[0] >= 0 && shared[slot[0]]) || (slot[1] >= 0 && shared[slot[1]]));
    }
    PetscCall(PetscFree(shared));
  }
  PetscCall(ComputeBodyVelocity(d, tao->solution));
  PetscFunctionReturn(0);
}

static PetscErrorCode BodiesSweep(Tao tao, Vec r)
{
  TAO_NBGS          *nb = (TAO_NBGS *)tao->data;
  NBGSBodiesData    *d  = (NBGSBodiesData *)nb->data;
  Vec                wl;
  PetscScalar       *w, *x;
  const PetscScalar *q, *mu, *E = NULL;
  PetscInt           nlocal;

  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecGetLocalSize(wl, &nlocal));
  PetscCall(VecGetArray(wl, &w));
  PetscCall(PetscArraycpy(d->start, &w[d->nowned], nlocal - d->nowned));
  PetscCall(VecGetArray(r, &x));
  PetscCall(VecGetArrayRead(nb->q, &q));
  PetscCall(VecGetArrayRead(nb->set->mu, &mu));
  if (d->compliance) PetscCall(VecGetArrayRead(d->compliance, &E));
  for (PetscInt c = 0; c < d->rows.nblocks; c++) {
    const PetscReal *W  = &nb->blocks[9 * c];
    PetscScalar     *xc = &x[3 * c], u[3], old[3] = {xc[0], xc[1], xc[2]};
    PetscReal        qt[3];
    d->rows.gather(d->rows.ctx, c, w, u);
    for (int i = 0; i < 3; i++) /* u_c less the block's own part W_cc r_c (W_cc with E, B w without) */
      qt[i] = PetscRealPart(u[i] + q[3 * c + i] + (E ? E[3 * c + i] * xc[i] : 0.0)) -
              (W[3 * i] * xc[0] + W[3 * i + 1] * xc[1] + W[3 * i + 2] * xc[2]);
    NBGSUpdateCone(nb, c, qt, PetscRealPart(mu[c]), xc);
    for (int i = 0; i < 3; i++) old[i] = xc[i] - old[i];
    d->rows.scatter(d->rows.ctx, c, old, w);
  }
  for (PetscInt j = 0; j < d->rows.nrows; j++) { /* single rows, each solved exactly: non-negative, then free */
    const PetscInt  i = 3 * d->rows.nblocks + j;
    const PetscReal W = d->row_diagonal[j], omega = nb->interface[i] ? nb->interface_omega : nb->omega;
    const PetscReal rest = PetscRealPart(d->rows.row_gather(d->rows.ctx, j, w) + q[i] + (E ? E[i] * x[i] : 0.0)) -
                           W * PetscRealPart(x[i]);
    const PetscReal exact = W > 0.0 ? (j < nb->set->nnonneg_local ? PetscMax(-rest / W, 0.0) : -rest / W) : 0.0,
                    old   = PetscRealPart(x[i]);
    x[i]                  = (1.0 - omega) * old + omega * exact;
    d->rows.row_scatter(d->rows.ctx, j, x[i] - old, w);
  }
  if (E) PetscCall(VecRestoreArrayRead(d->compliance, &E));
  PetscCall(VecRestoreArrayRead(nb->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nb->q, &q));
  PetscCall(VecRestoreArray(r, &x));
  for (PetscInt i = d->nowned; i < nlocal; i++) w[i] -= d->start[i - d->nowned];
  PetscCall(VecRestoreArray(wl, &w));
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  PetscCall(AddGhostChanges(d->w));
  PetscFunctionReturn(0);
}

/* u = B w + E r + q, w kept by the sweeps (its ghosts current) */
static PetscErrorCode BodiesVelocity(Tao tao, Vec r)
{
  TAO_NBGS          *nb = (TAO_NBGS *)tao->data;
  NBGSBodiesData    *d  = (NBGSBodiesData *)nb->data;
  Vec                wl;
  const PetscScalar *w, *q;
  PetscScalar       *u;

  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(d->w, &wl));
  PetscCall(VecGetArrayRead(wl, &w));
  PetscCall(VecGetArrayRead(nb->q, &q));
  PetscCall(VecGetArray(nb->u, &u));
  for (PetscInt c = 0; c < d->rows.nblocks; c++) {
    d->rows.gather(d->rows.ctx, c, w, &u[3 * c]);
    for (int i = 0; i < 3; i++) u[3 * c + i] += q[3 * c + i];
  }
  for (PetscInt j = 0; j < d->rows.nrows; j++) {
    const PetscInt i = 3 * d->rows.nblocks + j;
    u[i]             = d->rows.row_gather(d->rows.ctx, j, w) + q[i];
  }
  PetscCall(VecRestoreArray(nb->u, &u));
  PetscCall(VecRestoreArrayRead(nb->q, &q));
  PetscCall(VecRestoreArrayRead(wl, &w));
  PetscCall(VecGhostRestoreLocalForm(d->w, &wl));
  if (d->compliance) { /* + E r */
    const PetscScalar *E, *x;
    PetscInt           n;
    PetscCall(VecGetLocalSize(r, &n));
    PetscCall(VecGetArrayRead(d->compliance, &E));
    PetscCall(VecGetArrayRead(r, &x));
    PetscCall(VecGetArray(nb->u, &u));
    for (PetscInt i = 0; i < n; i++) u[i] += E[i] * x[i];
    PetscCall(VecRestoreArray(nb->u, &u));
    PetscCall(VecRestoreArrayRead(r, &x));
    PetscCall(VecRestoreArrayRead(d->compliance, &E));
  }
  PetscFunctionReturn(0);
}

/* w from r, where r did not come from a sweep */
static PetscErrorCode BodiesSync(Tao tao, Vec r)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(ComputeBodyVelocity((NBGSBodiesData *)nb->data, r));
  PetscFunctionReturn(0);
}

const NBGSForm NBGSBodies = {
  .name     = "body velocities",
  .setup    = BodiesSetUp,
  .sweep    = BodiesSweep,
  .velocity = BodiesVelocity,
  .sync     = BodiesSync,
  .release  = BodiesRelease,
};
