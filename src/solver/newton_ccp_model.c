/*
 * The model newton_ccp minimises (newton_ccp.c): in the body velocities' change delta = v - v_free,
 *     f(delta) = 1/2 delta.M delta + sum_c l_c(B_c delta + q_c),
 * with l_c the regularised energy of one row block (sap_contact.h); its gradient M delta - B^T gamma, its
 * Hessian M + B^T G B (G block diagonal: 3 x 3 per cone, 1 per row), assembled block by block from each
 * row block's rows of B (a contact couples two bodies: a 12 x 12 term) in a COO pattern made once per
 * problem. At a minimiser gamma solves the relaxed problem
 * min 1/2 r.(N + E) r + q.r over the set (its dual), and M delta = B^T gamma: v+ = v_free + M^-1 B^T gamma.
 */
#include "newton_ccp_impl.h"
#include "sap_contact.h"

/* What a row can lack, reduced over the ranks as the largest code, so that every rank stops with the same words
   (a rank without such a row must not stop with a vaguer message than the one that has it) */
static const char *const unregularised[] = {NULL, "a contact's normal row", "a contact's friction rows",
                                            "a contact's two friction rows (unequal)", "a joint's row"};

/* Every row regularised (E > 0; a cone's two friction rows equal), every body's M^-1 positive and finite */
static PetscErrorCode CheckRegularisation(Tao tao)
{
  TAO_NEWTONCCP     *nt = (TAO_NEWTONCCP *)tao->data;
  const PetscScalar *E, *mu, *minv;
  PetscInt           nc, n, nb, fault[2] = {0, 0}; /* the row's code, and 1 for a body without mass */

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(nt->set->mu, &nc));
  PetscCall(VecGetLocalSize(nt->q, &n));
  PetscCall(VecGetLocalSize(nt->inverse_mass, &nb));
  PetscCall(VecGetArrayRead(nt->E, &E));
  PetscCall(VecGetArrayRead(nt->set->mu, &mu));
  PetscCall(VecGetArrayRead(nt->inverse_mass, &minv));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscReal Rn = PetscRealPart(E[3 * c]), Rt = PetscRealPart(E[3 * c + 1]), Rw = PetscRealPart(E[3 * c + 2]);
    if (!(Rn > 0.0)) fault[0] = PetscMax(fault[0], 1);
    else if (PetscRealPart(mu[c]) > 0.0 && !(Rt > 0.0)) fault[0] = PetscMax(fault[0], 2);
    else if (PetscRealPart(mu[c]) > 0.0 && PetscAbsReal(Rt - Rw) > 1e-12 * Rt) fault[0] = PetscMax(fault[0], 3);
  }
  for (PetscInt i = 3 * nc; i < n; i++)
    if (!(PetscRealPart(E[i]) > 0.0)) fault[0] = 4;
  for (PetscInt i = 0; i < nb; i++)
    if (!(PetscRealPart(minv[i]) > 0.0) || PetscIsInfOrNanReal(PetscRealPart(minv[i]))) fault[1] = 1;
  PetscCall(VecRestoreArrayRead(nt->inverse_mass, &minv));
  PetscCall(VecRestoreArrayRead(nt->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nt->E, &E));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, fault, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)tao)));
  PetscCheck(!fault[0], PetscObjectComm((PetscObject)tao), PETSC_ERR_USER_INPUT,
             "the Tao type newton_ccp solves the compliant contact problem, and %s has no regularisation (E = 0) or "
             "one it cannot use: in a simulation -contact_near_rigid > 0 gives every normal row one, "
             "-contact_friction_sigma > 0 (such as 1e-3) the friction rows, and a joint needs a stiffness",
             unregularised[fault[0]]);
  PetscCheck(!fault[1], PetscObjectComm((PetscObject)tao), PETSC_ERR_USER_INPUT,
             "the Tao type newton_ccp needs every moving body's mass and inertia positive and finite (its Newton "
             "system M + B^T G B is singular otherwise): a body's M^-1 is not");
  PetscFunctionReturn(0);
}

/* Row block b's rows of B as a dense nr x ncols block over the union of their columns: the pattern of
   its term J_b^T G_b J_b of H (two bodies' 12 velocities at most) */
static PetscErrorCode GatherBlock(Tao tao, PetscInt b, PetscInt row, PetscInt nr)
{
  TAO_NEWTONCCP *nt   = (TAO_NEWTONCCP *)tao->data;
  PetscInt      *cols = &nt->block_cols[NEWTON_CCP_MAX_COLUMNS * b], k = 0;
  PetscScalar   *J = &nt->block_J[3 * NEWTON_CCP_MAX_COLUMNS * b];

  PetscFunctionBegin;
  for (PetscInt r = 0; r < nr; r++) {
    const PetscInt    *rc;
    const PetscScalar *rv;
    PetscInt           ncols;
    PetscCall(MatGetRow(nt->B, row + r, &ncols, &rc, &rv));
    for (PetscInt e = 0; e < ncols; e++) {
      PetscInt at = 0;
      while (at < k && cols[at] != rc[e]) at++;
      if (at == k) {
        PetscCheck(k < NEWTON_CCP_MAX_COLUMNS, PETSC_COMM_SELF, PETSC_ERR_SUP,
                   "newton_ccp: row %" PetscInt_FMT " of B couples more than two bodies (%d velocities)", row + r,
                   NEWTON_CCP_MAX_COLUMNS);
        cols[k] = rc[e];
        for (PetscInt s = 0; s < 3; s++) J[NEWTON_CCP_MAX_COLUMNS * s + k] = 0.0;
        k++;
      }
      J[NEWTON_CCP_MAX_COLUMNS * r + at] = rv[e];
    }
    PetscCall(MatRestoreRow(nt->B, row + r, &ncols, &rc, &rv));
  }
  nt->block_ncols[b] = k;
  PetscFunctionReturn(0);
}

/* H's pattern (COO): every block's ncols x ncols, then M's diagonal; duplicates sum. Block size 6: a body's
   velocities, which GAMG aggregates together. */
static PetscErrorCode CreateHessian(Tao tao)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;
  PetscInt       nc, n, nb, row_start, col_start, ncoo = 0, k = 0, *ci, *cj;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(nt->set->mu, &nc));
  PetscCall(VecGetLocalSize(nt->q, &n));
  PetscCall(VecGetLocalSize(nt->mass, &nb));
  PetscCall(MatGetOwnershipRange(nt->B, &row_start, NULL));
  PetscCall(MatGetOwnershipRangeColumn(nt->B, &col_start, NULL));
  nt->nblocks = nc + (n - 3 * nc);
  PetscCall(PetscMalloc3(nt->nblocks, &nt->block_ncols, NEWTON_CCP_MAX_COLUMNS * nt->nblocks, &nt->block_cols,
                         3 * NEWTON_CCP_MAX_COLUMNS * nt->nblocks, &nt->block_J));
  PetscCall(PetscMalloc1(9 * nc + (n - 3 * nc), &nt->G_values));
  for (PetscInt b = 0; b < nt->nblocks; b++) {
    const PetscBool cone = (PetscBool)(b < nc);
    PetscCall(GatherBlock(tao, b, row_start + (cone ? 3 * b : 3 * nc + (b - nc)), cone ? 3 : 1));
    ncoo += nt->block_ncols[b] * nt->block_ncols[b];
  }
  ncoo += nb;
  PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
  PetscCall(PetscMalloc1(ncoo, &nt->H_values));
  for (PetscInt b = 0; b < nt->nblocks; b++) {
    const PetscInt *cols = &nt->block_cols[NEWTON_CCP_MAX_COLUMNS * b];
    for (PetscInt i = 0; i < nt->block_ncols[b]; i++)
      for (PetscInt j = 0; j < nt->block_ncols[b]; j++, k++) ci[k] = cols[i], cj[k] = cols[j];
  }
  for (PetscInt i = 0; i < nb; i++, k++) ci[k] = cj[k] = col_start + i;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)tao), &nt->H));
  PetscCall(MatSetSizes(nt->H, nb, nb, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(nt->H, MATAIJ));
  PetscCall(MatSetBlockSize(nt->H, 6));
  PetscCall(MatSetPreallocationCOO(nt->H, ncoo, ci, cj));
  PetscCall(MatSetOption(nt->H, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

PetscErrorCode NewtonCCPSetUpProblem(Tao tao)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;

  PetscFunctionBegin;
  PetscCheck(nt->B && nt->inverse_mass && nt->E && nt->q && nt->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "newton_ccp needs TaoNewtonCCPSetProblem() before TaoSolve()");
  PetscCall(CheckRegularisation(tao));
  PetscCall(VecDuplicate(nt->inverse_mass, &nt->mass));
  PetscCall(VecCopy(nt->inverse_mass, nt->mass));
  PetscCall(VecReciprocal(nt->mass));
  PetscCall(VecDuplicate(nt->inverse_mass, &nt->delta));
  PetscCall(VecDuplicate(nt->inverse_mass, &nt->dir));
  PetscCall(VecDuplicate(nt->inverse_mass, &nt->grad));
  PetscCall(VecDuplicate(nt->inverse_mass, &nt->work));
  PetscCall(VecDuplicate(nt->q, &nt->vc));
  PetscCall(VecDuplicate(nt->q, &nt->w));
  PetscCall(VecDuplicate(nt->q, &nt->gamma));
  PetscCall(CreateHessian(tao));
  PetscFunctionReturn(0);
}

PetscErrorCode NewtonCCPRelease(TAO_NEWTONCCP *nt)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&nt->mass));
  PetscCall(VecDestroy(&nt->delta));
  PetscCall(VecDestroy(&nt->dir));
  PetscCall(VecDestroy(&nt->grad));
  PetscCall(VecDestroy(&nt->work));
  PetscCall(VecDestroy(&nt->vc));
  PetscCall(VecDestroy(&nt->w));
  PetscCall(VecDestroy(&nt->gamma));
  PetscCall(MatDestroy(&nt->H));
  PetscCall(PetscFree(nt->G_values));
  PetscCall(PetscFree(nt->H_values));
  PetscCall(PetscFree3(nt->block_ncols, nt->block_cols, nt->block_J));
  nt->nblocks = 0;
  PetscFunctionReturn(0);
}

/* H = M + sum_b J_b^T G_b J_b, block by block into H's COO values (G_b J_b first: nr x ncols) */
PetscErrorCode NewtonCCPAssembleHessian(Tao tao)
{
  TAO_NEWTONCCP     *nt = (TAO_NEWTONCCP *)tao->data;
  const PetscScalar *m;
  PetscScalar       *h = nt->H_values;
  PetscInt           nc, nb;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(nt->set->mu, &nc));
  for (PetscInt b = 0; b < nt->nblocks; b++) {
    const PetscBool    cone = (PetscBool)(b < nc);
    const PetscInt     nr = cone ? 3 : 1, k = nt->block_ncols[b];
    const PetscScalar *J = &nt->block_J[3 * NEWTON_CCP_MAX_COLUMNS * b];
    const PetscScalar *G = cone ? &nt->G_values[9 * b] : &nt->G_values[9 * nc + (b - nc)];
    PetscScalar        GJ[3 * NEWTON_CCP_MAX_COLUMNS];
    for (PetscInt r = 0; r < nr; r++)
      for (PetscInt j = 0; j < k; j++) {
        PetscScalar sum = 0.0;
        for (PetscInt s = 0; s < nr; s++) sum += G[nr * r + s] * J[NEWTON_CCP_MAX_COLUMNS * s + j];
        GJ[NEWTON_CCP_MAX_COLUMNS * r + j] = sum;
      }
    for (PetscInt i = 0; i < k; i++)
      for (PetscInt j = 0; j < k; j++) {
        PetscScalar sum = 0.0;
        for (PetscInt r = 0; r < nr; r++) sum += J[NEWTON_CCP_MAX_COLUMNS * r + i] * GJ[NEWTON_CCP_MAX_COLUMNS * r + j];
        *h++ = sum;
      }
  }
  PetscCall(VecGetLocalSize(nt->mass, &nb));
  PetscCall(VecGetArrayRead(nt->mass, &m));
  for (PetscInt i = 0; i < nb; i++) *h++ = m[i];
  PetscCall(VecRestoreArrayRead(nt->mass, &m));
  PetscCall(MatSetValuesCOO(nt->H, nt->H_values, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* gamma at vc, per row block, each block's Hessian into G (9 per cone, then 1 per row) and its region counted.
   Returns the energy. */
static PetscReal RowImpulses(const TAO_NEWTONCCP *nt, PetscInt nc, PetscInt n, const PetscScalar *mu,
                             const PetscScalar *E, const PetscScalar *vc, PetscScalar *gamma, PetscScalar *G,
                             PetscInt regions[3])
{
  PetscReal energy = 0.0, e;

  for (PetscInt c = 0; c < nc; c++) {
    const TalusSAPRegion region = TalusSAPCone(PetscRealPart(mu[c]), PetscRealPart(E[3 * c]),
                                               PetscRealPart(E[3 * c + 1]), &vc[3 * c], &gamma[3 * c], &e, &G[9 * c]);
    energy += e;
    regions[region]++;
  }
  for (PetscInt i = 3 * nc; i < n; i++) {
    const PetscBool nonnegative = (PetscBool)(i < 3 * nc + nt->set->nnonneg_local);
    TalusSAPRow(nonnegative, PetscRealPart(E[i]), PetscRealPart(vc[i]), &gamma[i], &e, &G[9 * nc + (i - 3 * nc)]);
    energy += e;
  }
  return energy;
}

PetscErrorCode NewtonCCPEvaluate(Tao tao, PetscReal *f, PetscReal *residual)
{
  TAO_NEWTONCCP     *nt = (TAO_NEWTONCCP *)tao->data;
  const PetscScalar *vc, *E, *mu, *md, *d;
  PetscScalar       *gamma;
  PetscInt           nc, n, nb, regions[3] = {0, 0, 0};
  PetscReal          sums[5] = {0.0, 0.0, 0.0, 0.0, 0.0}; /* delta.M delta, the rows' energy, the regions' counts */

  PetscFunctionBegin;
  PetscCall(MatMultAdd(nt->B, nt->delta, nt->q, nt->vc));
  PetscCall(VecGetLocalSize(nt->set->mu, &nc));
  PetscCall(VecGetLocalSize(nt->q, &n));
  PetscCall(VecGetArrayRead(nt->vc, &vc));
  PetscCall(VecGetArrayRead(nt->E, &E));
  PetscCall(VecGetArrayRead(nt->set->mu, &mu));
  PetscCall(VecGetArray(nt->gamma, &gamma));
  sums[1] = RowImpulses(nt, nc, n, mu, E, vc, gamma, nt->G_values, regions);
  PetscCall(VecRestoreArray(nt->gamma, &gamma));
  PetscCall(VecRestoreArrayRead(nt->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nt->E, &E));
  PetscCall(VecRestoreArrayRead(nt->vc, &vc));
  /* grad = M delta - B^T gamma; delta.M delta from the same M delta */
  PetscCall(VecPointwiseMult(nt->work, nt->mass, nt->delta));
  PetscCall(VecGetLocalSize(nt->work, &nb));
  PetscCall(VecGetArrayRead(nt->work, &md));
  PetscCall(VecGetArrayRead(nt->delta, &d));
  for (PetscInt i = 0; i < nb; i++) sums[0] += PetscRealPart(md[i] * d[i]);
  PetscCall(VecRestoreArrayRead(nt->delta, &d));
  PetscCall(VecRestoreArrayRead(nt->work, &md));
  for (int k = 0; k < 3; k++) sums[2 + k] = (PetscReal)regions[k];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 5, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  *f = 0.5 * sums[0] + sums[1];
  for (int k = 0; k < 3; k++) nt->regions[k] = (PetscInt)sums[2 + k];
  PetscCall(MatMultTranspose(nt->B, nt->gamma, nt->grad));
  PetscCall(VecAYPX(nt->grad, -1.0, nt->work));
  /* the residual in m/s: the rows' velocity error B (delta - M^-1 B^T gamma) = B M^-1 grad, the gap between
     u = N gamma + q + E gamma and the velocity for which gamma is the exact projection (seed 001 eq. 39's units) */
  PetscCall(VecPointwiseMult(nt->work, nt->inverse_mass, nt->grad));
  PetscCall(MatMult(nt->B, nt->work, nt->w));
  PetscCall(TalusFeasibleSetNorm(nt->set, nt->w, TalusResidualNormOf(tao), residual)); /* a cone's rows as one block */
  PetscFunctionReturn(0);
}

/* phi'(alpha) and phi''(alpha) of phi(alpha) = f(delta + alpha dir): a + alpha b - w.gamma(alpha) and
   b + w.G(alpha) w, with a = dir.M delta, b = dir.M dir and the rows at vc + alpha w */
static PetscErrorCode LineDerivatives(Tao tao, PetscReal alpha, PetscReal a, PetscReal b, PetscReal *d, PetscReal *dd)
{
  TAO_NEWTONCCP     *nt = (TAO_NEWTONCCP *)tao->data;
  const PetscScalar *vc, *w, *E, *mu;
  PetscInt           nc, n;
  PetscReal          sums[2] = {0.0, 0.0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(nt->set->mu, &nc));
  PetscCall(VecGetLocalSize(nt->q, &n));
  PetscCall(VecGetArrayRead(nt->vc, &vc));
  PetscCall(VecGetArrayRead(nt->w, &w));
  PetscCall(VecGetArrayRead(nt->E, &E));
  PetscCall(VecGetArrayRead(nt->set->mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal v[3], g[3], G[9], e, wi[3];
    for (int k = 0; k < 3; k++)
      wi[k] = PetscRealPart(w[3 * c + k]), v[k] = PetscRealPart(vc[3 * c + k]) + alpha * wi[k];
    (void)TalusSAPCone(PetscRealPart(mu[c]), PetscRealPart(E[3 * c]), PetscRealPart(E[3 * c + 1]), v, g, &e, G);
    for (int i = 0; i < 3; i++) {
      sums[0] -= wi[i] * g[i];
      for (int j = 0; j < 3; j++) sums[1] += wi[i] * G[3 * i + j] * wi[j];
    }
  }
  for (PetscInt i = 3 * nc; i < n; i++) {
    const PetscBool nonnegative = (PetscBool)(i < 3 * nc + nt->set->nnonneg_local);
    const PetscReal wi          = PetscRealPart(w[i]);
    PetscReal       g, e, G;
    TalusSAPRow(nonnegative, PetscRealPart(E[i]), PetscRealPart(vc[i]) + alpha * wi, &g, &e, &G);
    sums[0] -= wi * g;
    sums[1] += wi * G * wi;
  }
  PetscCall(VecRestoreArrayRead(nt->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nt->E, &E));
  PetscCall(VecRestoreArrayRead(nt->w, &w));
  PetscCall(VecRestoreArrayRead(nt->vc, &vc));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  *d  = a + alpha * b + sums[0];
  *dd = b + sums[1];
  nt->ls_evaluations++;
  PetscFunctionReturn(0);
}

/*
 * Exact line search on the convex phi (SAP's): phi' is non-decreasing, so the root of phi' is bracketed
 * by doubling from alpha = 1 (the Newton step) and found by Newton's method on phi', falling back to
 * bisection whenever a step leaves the bracket. alpha = 0 when dir is not a descent direction.
 */
PetscErrorCode NewtonCCPLineSearch(Tao tao, PetscReal *alpha)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;
  PetscScalar    dots[2];
  Vec            against[2];
  PetscReal      a, b, d0, dd0, lo = 0.0, hi = 1.0, d, dd, x;

  PetscFunctionBegin;
  PetscCall(VecPointwiseMult(nt->work, nt->mass, nt->dir));
  against[0] = nt->delta, against[1] = nt->dir;
  PetscCall(VecMDot(nt->work, 2, against, dots));
  a = PetscRealPart(dots[0]), b = PetscRealPart(dots[1]);
  PetscCall(LineDerivatives(tao, 0.0, a, b, &d0, &dd0));
  if (!(d0 < 0.0)) {
    *alpha = 0.0;
    PetscFunctionReturn(0);
  }
  PetscCall(LineDerivatives(tao, hi, a, b, &d, &dd));
  while (d < 0.0 && hi < 1e6) {
    lo = hi, hi *= 2.0;
    PetscCall(LineDerivatives(tao, hi, a, b, &d, &dd));
  }
  x = hi;
  for (PetscInt it = 0; it < nt->ls_max_it && PetscAbsReal(d) > nt->ls_rtol * PetscAbsReal(d0); it++) {
    PetscReal next;
    if (d > 0.0) hi = x;
    else lo = x;
    next = dd > 0.0 ? x - d / dd : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    x = next;
    PetscCall(LineDerivatives(tao, x, a, b, &d, &dd));
  }
  *alpha = x;
  PetscFunctionReturn(0);
}
