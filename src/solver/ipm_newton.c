/*
 * The Newton system of the Tao type ipm (ipm.c has the method): K = W + T W_c^2 T with each cone's
 * Nesterov-Todd scaling W_c, its pattern fixed once a problem, factorised by the KSP with prefix
 * -tao_ipm_ (regularised by delta I where the factorisation fails); the predictor and corrector
 * directions, the largest step inside the cones, and the start inside them.
 */
#include "ipm_state.h"

/* Frees the Newton system and the state of a solve (a new problem, or the Tao's end) */
PetscErrorCode IPMRelease(TAO_IPM *ipm)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ipm->K0));
  PetscCall(MatDestroy(&ipm->K));
  PetscCall(VecDestroy(&ipm->qs));
  PetscCall(VecDestroy(&ipm->v));
  PetscCall(VecDestroy(&ipm->u));
  PetscCall(VecDestroy(&ipm->rp));
  PetscCall(VecDestroy(&ipm->rhs));
  PetscCall(VecDestroy(&ipm->dr));
  PetscCall(VecDestroy(&ipm->dv));
  PetscCall(VecDestroy(&ipm->dra));
  PetscCall(VecDestroy(&ipm->dva));
  PetscCall(VecDestroy(&ipm->best));
  PetscCall(PetscFree3(ipm->scaling, ipm->inv, ipm->lambda));
  PetscCall(PetscFree(ipm->fixed));
  PetscFunctionReturn(0);
}

/* K0: W with every cone's diagonal 3 x 3 block and every row's diagonal entry in its pattern (an FCLib
   file may leave out zeros), so that K = K0 + blocks keeps one pattern and one symbolic factorisation. */
PetscErrorCode IPMSetUpProblem(Tao tao)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu;
  PetscInt           rstart, units, dmax_row;
  PetscReal          dmax;
  Vec                diag;

  PetscFunctionBegin;
  PetscCheck(ipm->W && ipm->q && ipm->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "ipm needs its problem (TaoIPMSetProblem) before it solves");
  units = ipm->set->nfree_local + ipm->set->nnonneg_local;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &units, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  PetscCheck(units == 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
             "ipm does not take joint rows (free or non-negative) yet (this problem has %" PetscInt_FMT
             "): use -tao_type apgd",
             units);
  PetscCall(IPMRelease(ipm));
  PetscCall(VecGetLocalSize(ipm->q, &ipm->n));
  PetscCall(VecGetLocalSize(ipm->set->mu, &ipm->nc));
  PetscCall(MatGetOwnershipRange(ipm->W, &rstart, NULL));
  PetscCall(MatDuplicate(ipm->W, MAT_COPY_VALUES, &ipm->K0));
  PetscCall(MatSetOption(ipm->K0, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscMalloc1(2 * ipm->nc + 1, &ipm->fixed));
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  ipm->nfixed = 0;
  units       = ipm->n - 2 * ipm->nc;
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscInt    rows[3] = {rstart + 3 * c, rstart + 3 * c + 1, rstart + 3 * c + 2};
    const PetscScalar zero[9] = {0.0};
    PetscCall(MatSetValues(ipm->K0, 3, rows, 3, rows, zero, ADD_VALUES));
    if (ConeMu(mu, c) <= 0.0) ipm->fixed[ipm->nfixed++] = rows[1], ipm->fixed[ipm->nfixed++] = rows[2];
  }
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) {
    const PetscInt    row  = rstart + i;
    const PetscScalar zero = 0.0;
    PetscCall(MatSetValues(ipm->K0, 1, &row, 1, &row, &zero, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(ipm->K0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ipm->K0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(ipm->K0, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(MatDuplicate(ipm->K0, MAT_COPY_VALUES, &ipm->K));
  PetscCall(MatSetOption(ipm->K, MAT_SPD, PETSC_TRUE));
  PetscCall(MPIU_Allreduce(&units, &ipm->units, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  PetscCall(MPIU_Allreduce(&ipm->nfixed, &units, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)tao)));
  ipm->any_fixed = (PetscBool)(units > 0);
  PetscCall(VecDuplicate(ipm->q, &ipm->qs));
  PetscCall(VecDuplicate(ipm->q, &ipm->v));
  PetscCall(VecDuplicate(ipm->q, &ipm->u));
  PetscCall(VecDuplicate(ipm->q, &ipm->rp));
  PetscCall(VecDuplicate(ipm->q, &ipm->rhs));
  PetscCall(VecDuplicate(ipm->q, &ipm->dr));
  PetscCall(VecDuplicate(ipm->q, &ipm->dv));
  PetscCall(VecDuplicate(ipm->q, &ipm->dra));
  PetscCall(VecDuplicate(ipm->q, &ipm->dva));
  PetscCall(VecDuplicate(ipm->q, &ipm->best));
  PetscCall(PetscCalloc3(9 * ipm->n, &ipm->scaling, 9 * ipm->n, &ipm->inv, ipm->n, &ipm->lambda));
  PetscCall(MatCreateVecs(ipm->W, &diag, NULL));
  PetscCall(MatGetDiagonal(ipm->W, diag));
  PetscCall(VecMax(diag, &dmax_row, &dmax));
  PetscCall(VecDestroy(&diag));
  ipm->dmax = dmax > 0.0 ? dmax : 1.0;
  ipm->gd   = ipm->residual_scale / ipm->dmax;
  PetscCall(KSPSetOperators(ipm->ksp, ipm->K, ipm->K));
  PetscFunctionReturn(0);
}

/* A cone's x = T r and s = T^-1 v (lorentz.h) */
static inline void ConePoint(PetscReal mu, const PetscScalar *r, const PetscScalar *v, PetscReal x[3], PetscReal s[3])
{
  x[0] = mu * PetscRealPart(r[0]), x[1] = PetscRealPart(r[1]), x[2] = PetscRealPart(r[2]);
  s[0] = PetscRealPart(v[0]) / mu, s[1] = PetscRealPart(v[1]), s[2] = PetscRealPart(v[2]);
}

static inline void MatVec3(const PetscReal A[9], const PetscReal x[3], PetscReal y[3])
{
  for (int i = 0; i < 3; i++) y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

/* Each cone's (and row's) Nesterov-Todd scaling at (r, v), and K = W + T W_c^2 T */
PetscErrorCode IPMScale(Tao tao)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *r, *v, *mu;
  PetscInt           rstart;

  PetscFunctionBegin;
  PetscCall(MatCopy(ipm->K0, ipm->K, SAME_NONZERO_PATTERN));
  PetscCall(MatGetOwnershipRange(ipm->W, &rstart, NULL));
  PetscCall(VecGetArrayRead(tao->solution, &r));
  PetscCall(VecGetArrayRead(ipm->v, &v));
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscReal m = ConeMu(mu, c);
    if (m > 0.0) {
      const PetscInt  rows[3] = {rstart + 3 * c, rstart + 3 * c + 1, rstart + 3 * c + 2};
      const PetscReal T[3]    = {m, 1.0, 1.0};
      PetscReal      *Wc      = &ipm->scaling[9 * c], x[3], s[3];
      PetscScalar     block[9];
      ConePoint(m, &r[3 * c], &v[3 * c], x, s);
      TalusLorentzScaling(x, s, Wc, &ipm->inv[9 * c], &ipm->lambda[3 * c]);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) /* (T W_c^2 T)_ij, W_c symmetric */
          block[3 * i + j] = T[i] * T[j] *
                             (Wc[3 * i] * Wc[3 * j] + Wc[3 * i + 1] * Wc[3 * j + 1] + Wc[3 * i + 2] * Wc[3 * j + 2]);
      PetscCall(MatSetValues(ipm->K, 3, rows, 3, rows, block, ADD_VALUES));
    } else { /* the normal row alone, a cone of dimension 1; the tangential rows are held at 0 below */
      const PetscInt    row = rstart + 3 * c;
      const PetscReal   x = PetscRealPart(r[3 * c]), s = PetscRealPart(v[3 * c]);
      const PetscScalar g = s / x;
      ipm->scaling[9 * c] = PetscSqrtReal(s / x), ipm->inv[9 * c] = PetscSqrtReal(x / s);
      ipm->lambda[3 * c] = PetscSqrtReal(x * s);
      PetscCall(MatSetValues(ipm->K, 1, &row, 1, &row, &g, ADD_VALUES));
    }
  }
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) {
    const PetscInt    row = rstart + i;
    const PetscReal   x = PetscRealPart(r[i]), s = PetscRealPart(v[i]);
    const PetscScalar g = s / x;
    ipm->scaling[9 * i] = PetscSqrtReal(s / x), ipm->inv[9 * i] = PetscSqrtReal(x / s),
                     ipm->lambda[i] = PetscSqrtReal(x * s);
    PetscCall(MatSetValues(ipm->K, 1, &row, 1, &row, &g, ADD_VALUES));
  }
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(ipm->v, &v));
  PetscCall(VecRestoreArrayRead(tao->solution, &r));
  PetscCall(MatAssemblyBegin(ipm->K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ipm->K, MAT_FINAL_ASSEMBLY));
  if (ipm->regularization > 0.0) PetscCall(MatShift(ipm->K, ipm->regularization));
  if (ipm->any_fixed) /* collective: every rank calls it */
    PetscCall(MatZeroRowsColumns(ipm->K, ipm->nfixed, ipm->fixed, 1.0, NULL, NULL));
  PetscFunctionReturn(0);
}

/*
 * One Newton direction: the centring target d of each cone, from lambda and, for the corrector, the
 * predictor's steps (dra, dva) and sigma mu:
 *   predictor d = -lambda o lambda;  corrector d = -lambda o lambda - (W_c^-1 ds_a) o (W_c dx_a) + sigma mu e.
 * Then g = lambda \ d, rhs = T W_c g - r_p, K dr = rhs, and dv = T W_c (g - W_c T dr).
 */
PetscErrorCode IPMDirection(Tao tao, PetscBool corrector, PetscReal sigma_mu, Vec dr, Vec dv, PetscBool *solved)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu, *rp, *dra = NULL, *dva = NULL, *x;
  PetscScalar       *rhs, *y;
  PetscReal         *g;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ipm->n, &g));
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  PetscCall(VecGetArrayRead(ipm->rp, &rp));
  if (corrector) PetscCall(VecGetArrayRead(ipm->dra, &dra));
  if (corrector) PetscCall(VecGetArrayRead(ipm->dva, &dva));
  PetscCall(VecGetArray(ipm->rhs, &rhs));
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscReal m = ConeMu(mu, c), *lam = &ipm->lambda[3 * c];
    if (m > 0.0) {
      const PetscReal T[3] = {m, 1.0, 1.0};
      PetscReal       d[3], wg[3];
      TalusLorentzProduct(lam, lam, d);
      for (int i = 0; i < 3; i++) d[i] = -d[i];
      if (corrector) {
        PetscReal dx[3], ds[3], a[3], b[3], ab[3];
        ConePoint(m, &dra[3 * c], &dva[3 * c], dx, ds);
        MatVec3(&ipm->inv[9 * c], ds, a);
        MatVec3(&ipm->scaling[9 * c], dx, b);
        TalusLorentzProduct(a, b, ab);
        for (int i = 0; i < 3; i++) d[i] -= ab[i];
        d[0] += sigma_mu;
      }
      TalusLorentzDivide(lam, d, &g[3 * c]);
      MatVec3(&ipm->scaling[9 * c], &g[3 * c], wg);
      for (int i = 0; i < 3; i++) rhs[3 * c + i] = T[i] * wg[i] - rp[3 * c + i];
    } else {
      PetscReal d = -lam[0] * lam[0];
      if (corrector)
        d += sigma_mu -
             (ipm->inv[9 * c] * PetscRealPart(dva[3 * c])) * (ipm->scaling[9 * c] * PetscRealPart(dra[3 * c]));
      g[3 * c]       = d / lam[0];
      rhs[3 * c]     = ipm->scaling[9 * c] * g[3 * c] - rp[3 * c];
      rhs[3 * c + 1] = rhs[3 * c + 2] = 0.0;
    }
  }
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) {
    PetscReal d = -ipm->lambda[i] * ipm->lambda[i];
    if (corrector)
      d += sigma_mu - (ipm->inv[9 * i] * PetscRealPart(dva[i])) * (ipm->scaling[9 * i] * PetscRealPart(dra[i]));
    g[i]   = d / ipm->lambda[i];
    rhs[i] = ipm->scaling[9 * i] * g[i] - rp[i];
  }
  PetscCall(VecRestoreArray(ipm->rhs, &rhs));
  if (corrector) PetscCall(VecRestoreArrayRead(ipm->dva, &dva));
  if (corrector) PetscCall(VecRestoreArrayRead(ipm->dra, &dra));
  PetscCall(KSPSolve(ipm->ksp, ipm->rhs, dr));
  PetscCall(KSPGetConvergedReason(ipm->ksp, &reason));
  *solved = (PetscBool)(reason > 0);
  /* dv = T W_c (g - W_c T dr) per cone; where dr is held at 0, dv follows r_p (v_t of mu = 0 is free) */
  PetscCall(VecGetArrayRead(dr, &x));
  PetscCall(VecGetArray(dv, &y));
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscReal m = ConeMu(mu, c);
    if (m > 0.0) {
      const PetscReal T[3] = {m, 1.0, 1.0};
      PetscReal       dx[3], wdx[3], e[3], ds[3];
      for (int i = 0; i < 3; i++) dx[i] = T[i] * PetscRealPart(x[3 * c + i]);
      MatVec3(&ipm->scaling[9 * c], dx, wdx);
      for (int i = 0; i < 3; i++) e[i] = g[3 * c + i] - wdx[i];
      MatVec3(&ipm->scaling[9 * c], e, ds);
      for (int i = 0; i < 3; i++) y[3 * c + i] = T[i] * ds[i];
    } else {
      const PetscReal w = ipm->scaling[9 * c];
      y[3 * c]          = w * (g[3 * c] - w * PetscRealPart(x[3 * c]));
      y[3 * c + 1] = y[3 * c + 2] = 0.0;
    }
  }
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) {
    const PetscReal w = ipm->scaling[9 * i];
    y[i]              = w * (g[i] - w * PetscRealPart(x[i]));
  }
  PetscCall(VecRestoreArray(dv, &y));
  PetscCall(VecRestoreArrayRead(dr, &x));
  PetscCall(VecRestoreArrayRead(ipm->rp, &rp));
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* The longest step (at most 1 / fraction, all ranks) with r + alpha dr in K and v + alpha dv in K* */
PetscErrorCode IPMMaxStep(Tao tao, Vec dr, Vec dv, PetscReal *alpha)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu, *r, *v, *x, *y;
  PetscReal          a = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  PetscCall(VecGetArrayRead(tao->solution, &r));
  PetscCall(VecGetArrayRead(ipm->v, &v));
  PetscCall(VecGetArrayRead(dr, &x));
  PetscCall(VecGetArrayRead(dv, &y));
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscReal m = ConeMu(mu, c);
    if (m > 0.0) {
      PetscReal px[3], ps[3], dx[3], ds[3];
      ConePoint(m, &r[3 * c], &v[3 * c], px, ps);
      ConePoint(m, &x[3 * c], &y[3 * c], dx, ds);
      a = PetscMin(a, PetscMin(TalusLorentzMaxStep(px, dx), TalusLorentzMaxStep(ps, ds)));
    } else {
      if (PetscRealPart(x[3 * c]) < 0.0) a = PetscMin(a, -PetscRealPart(r[3 * c] / x[3 * c]));
      if (PetscRealPart(y[3 * c]) < 0.0) a = PetscMin(a, -PetscRealPart(v[3 * c] / y[3 * c]));
    }
  }
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) {
    if (PetscRealPart(x[i]) < 0.0) a = PetscMin(a, -PetscRealPart(r[i] / x[i]));
    if (PetscRealPart(y[i]) < 0.0) a = PetscMin(a, -PetscRealPart(v[i] / y[i]));
  }
  PetscCall(VecRestoreArrayRead(dv, &y));
  PetscCall(VecRestoreArrayRead(dr, &x));
  PetscCall(VecRestoreArrayRead(ipm->v, &v));
  PetscCall(VecRestoreArrayRead(tao->solution, &r));
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &a, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)tao)));
  *alpha = a;
  PetscFunctionReturn(0);
}

/*
 * A point well inside the cones, scaled to the problem: s = zeta e with zeta the largest entry of
 * T^-1 q_s (at least 1e-12 of 1), and x = zeta / max_i (T^-1 W T^-1)_ii e; held rows at 0.
 */
PetscErrorCode IPMStartInside(Tao tao)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu, *q, *d;
  PetscScalar       *r, *v;
  PetscReal          zeta = 0.0, amax = 0.0, xi;
  Vec                diag;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(ipm->W, &diag, NULL));
  PetscCall(MatGetDiagonal(ipm->W, diag));
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  PetscCall(VecGetArrayRead(ipm->qs, &q));
  PetscCall(VecGetArrayRead(diag, &d));
  for (PetscInt i = 0; i < ipm->n; i++) {
    const PetscReal m = i < 3 * ipm->nc ? ConeMu(mu, i / 3) : 1.0,
                    t = (i < 3 * ipm->nc && i % 3 == 0 && m > 0.0) ? m : 1.0;
    if (i < 3 * ipm->nc && m <= 0.0 && i % 3) continue;
    zeta = PetscMax(zeta, PetscAbsReal(PetscRealPart(q[i])) / t);
    amax = PetscMax(amax, PetscRealPart(d[i]) / (t * t));
  }
  PetscCall(VecRestoreArrayRead(diag, &d));
  PetscCall(VecRestoreArrayRead(ipm->qs, &q));
  PetscCall(VecDestroy(&diag));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &zeta, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)tao)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &amax, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)tao)));
  if (zeta <= 0.0) zeta = 1.0;
  xi = zeta / (amax > 0.0 ? amax : 1.0);
  PetscCall(VecGetArray(tao->solution, &r));
  PetscCall(VecGetArray(ipm->v, &v));
  for (PetscInt c = 0; c < ipm->nc; c++) {
    const PetscReal m = ConeMu(mu, c);
    r[3 * c] = m > 0.0 ? xi / m : xi, v[3 * c] = m > 0.0 ? zeta * m : zeta;
    r[3 * c + 1] = r[3 * c + 2] = v[3 * c + 1] = v[3 * c + 2] = 0.0;
  }
  for (PetscInt i = 3 * ipm->nc; i < ipm->n; i++) r[i] = xi, v[i] = zeta;
  PetscCall(VecRestoreArray(ipm->v, &v));
  PetscCall(VecRestoreArray(tao->solution, &r));
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscFunctionReturn(0);
}
