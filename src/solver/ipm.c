/*
 * The Tao type "ipm": a primal-dual interior-point method for the cone complementarity problem
 * u = W r + q, r in K, u in K*, r . u = 0 (seed 000 eq. 14, the relaxed problem) with W assembled,
 * and for the Coulomb problem by a fixed point on De Saxce's shift (below). Issue 14's study found
 * its Newton steps independent of the mass ratio where first-order methods (apgd, nbgs) slow down
 * with it: a heavy body on light ones.
 *
 * Each friction cone maps onto the Lorentz cone L by x = (mu r_n, r_t) and its dual by
 * s = (v_n / mu, v_t) (lorentz.h), v the dual slack that tends to u; non-negative rows are cones of
 * dimension 1; a cone with mu = 0 is a non-negative normal row and two tangential rows held at 0.
 * Mehrotra's predictor-corrector with the Nesterov-Todd scaling W_c of each cone (W_c x = W_c^-1 s =
 * lambda; L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010): the
 * linearised centring condition lambda o (W_c dx + W_c^-1 ds) = d gives ds = W_c (g - W_c dx),
 * g = lambda \ d, and with ds = A dx + (A x + b - s) the Newton system in r's units
 *
 *     (W + T W_c^2 T) dr = T W_c g - r_p,   r_p = W r + q - v,   T = diag(mu, 1, 1),
 *
 * whose matrix is W plus a 3 x 3 block on each cone's diagonal: it is factored once per iteration by
 * the KSP (prefix -tao_ipm_: Cholesky by default, MUMPS where PETSc has it, so on any number of
 * ranks) and solved twice (predictor d = -lambda o lambda; corrector with Mehrotra's second-order
 * term and sigma = (mu_affine / mu)^3). Both steps take a common length (the problem couples r and
 * v), 0.99 of the way to the cones' boundary.
 *
 * The residual it reports and stops on (-tao_gatol) is the same as nbgs's, seed 001 eq. 39 of r and
 * u = W r + q (with the De Saxce velocity for the Coulomb problem), g_d = 1e-3 / max W_ii, after each
 * Newton step; the best iterate is kept. The warm start is used only if it already meets the
 * tolerance: an interior-point method starts inside the cones.
 *
 * The Coulomb problem (TaoIPMSetProblem's coulomb): the relaxed problem with q_n shifted by
 * mu ||u_t|| of the last solution is solved, the shift updated and the method restarted from inside
 * the cones, until the Coulomb residual meets the tolerance (Acary, Armand, Nguyen and Shpakovych's
 * fixed point for second-order cone programming of frictional contact). Each relaxed solve stops
 * when its own residual is below -tao_ipm_inner_fraction times the Coulomb residual it started from.
 */
#include <petsc/private/taoimpl.h>
#include <talus.h>
#include "lorentz.h"
#include "residual_tolerances.h"

typedef struct {
  Mat                     W;
  Vec                     q;
  const TalusFeasibleSet *set;
  PetscBool               coulomb;
  PetscReal               step_fraction;  /* of the way to the boundary */
  PetscReal               residual_scale; /* g_d = residual_scale / max_i W_ii */
  PetscReal               inner_fraction; /* Coulomb: a relaxed solve ends at this fraction of the start's residual */
  PetscInt                polish;         /* natural-map steps at the end */
  KSP                     ksp;
  /* per solve */
  Mat        K0, K;          /* W with room for the diagonal blocks; W + T W_c^2 T */
  Vec        qs, v, u, rp;   /* shifted q, dual slack, W r + q, r_p */
  Vec        rhs, dr, dv;    /* a Newton system's right-hand side and its solution (dr), dv */
  Vec        dra, dva, best; /* the predictor's steps; the best iterate */
  PetscReal *scaling, *inv;  /* per local row block: W_c (9 a cone, 1 a row) and W_c^-1 */
  PetscReal *lambda;         /* per local row: W_c x */
  PetscInt   nc, n, nfixed;  /* local cones and rows; rows held at 0 (tangential rows of mu = 0) */
  PetscInt  *fixed;          /* their global indices */
  PetscBool  any_fixed;      /* on any rank */
  PetscInt   units;          /* cones of all ranks plus 1-dimensional rows: mu = r . v / units */
  PetscReal  gd, complementarity, infeasibility;
  PetscInt   outer;           /* Coulomb: fixed-point updates of the shift in the last solve */
  PetscInt   factor_failures; /* Newton systems the KSP could not solve, in the last solve */
  PetscReal  regularization;  /* delta I added to K after a failed factorisation (W may be singular) */
  PetscReal  dmax;            /* max_i W_ii */
} TAO_IPM;

/* Local row i's kind: a cone with mu > 0 spans 3 rows; others are 1-dimensional or held at 0 */
static inline PetscReal ConeMu(const PetscScalar *mu, PetscInt c)
{
  return PetscRealPart(mu[c]);
}

static PetscErrorCode IPMRelease(TAO_IPM *ipm)
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
static PetscErrorCode IPMSetUpProblem(Tao tao)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu;
  PetscInt           rstart, units, dmax_row;
  PetscReal          dmax;
  Vec                diag;

  PetscFunctionBegin;
  PetscCheck(ipm->W && ipm->q && ipm->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "ipm needs its problem (TaoIPMSetProblem) before it solves");
  PetscCall(MPIU_Allreduce(&ipm->set->nfree_local, &units, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  PetscCheck(units == 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
             "ipm does not take free (bilateral) rows yet (this problem has %" PetscInt_FMT "): use -tao_type apgd",
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
static PetscErrorCode IPMScale(Tao tao)
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
static PetscErrorCode IPMDirection(Tao tao, PetscBool corrector, PetscReal sigma_mu, Vec dr, Vec dv, PetscBool *solved)
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
static PetscErrorCode IPMMaxStep(Tao tao, Vec dr, Vec dv, PetscReal *alpha)
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
static PetscErrorCode IPMStartInside(Tao tao)
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

/* u = W r + q, r_p = W r + q_s - v, and the residual of the problem as given (eq. 39) */
static PetscErrorCode IPMResidual(Tao tao, PetscReal *residual)
{
  TAO_IPM  *ipm = (TAO_IPM *)tao->data;
  PetscReal rv;

  PetscFunctionBegin;
  PetscCall(MatMult(ipm->W, tao->solution, ipm->u));
  PetscCall(VecAXPY(ipm->u, 1.0, ipm->q));
  PetscCall(VecWAXPY(ipm->rp, -1.0, ipm->v, ipm->u));
  PetscCall(VecAXPY(ipm->rp, 1.0, ipm->qs));
  PetscCall(VecAXPY(ipm->rp, -1.0, ipm->q));
  if (ipm->nfixed) { /* the tangential velocity of a cone with mu = 0 is free: no constraint to violate */
    PetscScalar *rp;
    PetscInt     rstart;
    PetscCall(MatGetOwnershipRange(ipm->W, &rstart, NULL));
    PetscCall(VecGetArray(ipm->rp, &rp));
    for (PetscInt k = 0; k < ipm->nfixed; k++) rp[ipm->fixed[k] - rstart] = 0.0;
    PetscCall(VecRestoreArray(ipm->rp, &rp));
  }
  PetscCall(VecNorm(ipm->rp, NORM_INFINITY, &ipm->infeasibility));
  PetscCall(VecDot(tao->solution, ipm->v, &rv));
  ipm->complementarity = PetscRealPart(rv) / (ipm->units > 0 ? ipm->units : 1);
  PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->u, ipm->gd, ipm->coulomb, residual));
  PetscFunctionReturn(0);
}

/* Coulomb: q_s = q + mu ||u_t|| e_n from the current u (the relaxed problem keeps q_s = q) */
static PetscErrorCode IPMShift(Tao tao)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu, *u;
  PetscScalar       *qs;

  PetscFunctionBegin;
  PetscCall(VecCopy(ipm->q, ipm->qs));
  if (!ipm->coulomb) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  PetscCall(VecGetArrayRead(ipm->u, &u));
  PetscCall(VecGetArray(ipm->qs, &qs));
  for (PetscInt c = 0; c < ipm->nc; c++)
    qs[3 * c] += ConeMu(mu, c) *
                 PetscSqrtReal(PetscRealPart(u[3 * c + 1] * u[3 * c + 1] + u[3 * c + 2] * u[3 * c + 2]));
  PetscCall(VecRestoreArray(ipm->qs, &qs));
  PetscCall(VecRestoreArrayRead(ipm->u, &u));
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscFunctionReturn(0);
}

/* u + mu ||u_t|| e_n on the cones, in place */
static PetscErrorCode IPMDeSaxceVelocity(Tao tao, Vec u)
{
  TAO_IPM           *ipm = (TAO_IPM *)tao->data;
  const PetscScalar *mu;
  PetscScalar       *v;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(ipm->set->mu, &mu));
  PetscCall(VecGetArray(u, &v));
  for (PetscInt c = 0; c < ipm->nc; c++)
    v[3 * c] += ConeMu(mu, c) * PetscSqrtReal(PetscRealPart(v[3 * c + 1] * v[3 * c + 1] + v[3 * c + 2] * v[3 * c + 2]));
  PetscCall(VecRestoreArray(u, &v));
  PetscCall(VecRestoreArrayRead(ipm->set->mu, &mu));
  PetscFunctionReturn(0);
}

/* mu after a step alpha along (dr, dv): (r + alpha dr) . (v + alpha dv) / units */
static PetscErrorCode IPMComplementarityAfter(Tao tao, Vec dr, Vec dv, PetscReal alpha, PetscReal *mu)
{
  TAO_IPM    *ipm = (TAO_IPM *)tao->data;
  PetscScalar dots[4];
  Vec         x[2] = {ipm->v, dv};

  PetscFunctionBegin;
  PetscCall(VecMDot(tao->solution, 2, x, dots));
  PetscCall(VecMDot(dr, 2, x, &dots[2]));
  *mu = PetscRealPart(dots[0] + alpha * (dots[1] + dots[2]) + alpha * alpha * dots[3]) /
        (ipm->units > 0 ? ipm->units : 1);
  PetscFunctionReturn(0);
}

/*
 * An interior point leaves impulses of the order mu / u_n on separating contacts, which eq. 39 weighs by
 * 1 / g_d: a step of the natural map, r <- Pi_K(r - g_d v) (v the velocity of the residual), sets them
 * to 0 and moves the others by g_d v. Kept while it lowers the residual, at most -tao_ipm_polish times.
 */
static PetscErrorCode IPMPolish(Tao tao, PetscReal *best)
{
  TAO_IPM  *ipm = (TAO_IPM *)tao->data;
  PetscReal residual;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < ipm->polish && tao->reason != TAO_CONVERGED_GATOL; k++) {
    PetscCall(VecCopy(tao->solution, ipm->dr));
    PetscCall(MatMult(ipm->W, tao->solution, ipm->u));
    PetscCall(VecAXPY(ipm->u, 1.0, ipm->q));
    if (ipm->coulomb) PetscCall(IPMDeSaxceVelocity(tao, ipm->u));
    PetscCall(VecAXPY(tao->solution, -ipm->gd, ipm->u));
    PetscCall(TalusFeasibleSetProject(ipm->set, tao->solution, tao->solution));
    PetscCall(MatMult(ipm->W, tao->solution, ipm->u));
    PetscCall(VecAXPY(ipm->u, 1.0, ipm->q));
    PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->u, ipm->gd, ipm->coulomb, &residual));
    PetscCall(PetscInfo(tao, "polishing step %" PetscInt_FMT ": residual %g (from %g)\n", k + 1, (double)residual,
                        (double)*best));
    if (!(residual < *best)) {
      PetscCall(VecCopy(ipm->dr, tao->solution));
      break;
    }
    *best = residual;
    if (residual <= tao->gatol) tao->reason = TAO_CONVERGED_GATOL;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSolve_IPM(Tao tao)
{
  TAO_IPM  *ipm = (TAO_IPM *)tao->data;
  PetscReal residual, best = PETSC_MAX_REAL, inner_target = 0.0, start_residual;
  PetscBool restart = PETSC_TRUE;
  PetscInt  n;

  PetscFunctionBegin;
  tao->reason          = TAO_CONTINUE_ITERATING;
  tao->niter           = 0;
  ipm->outer           = 0;
  ipm->factor_failures = 0;
  ipm->regularization  = 0.0;
  PetscCall(VecGetSize(tao->solution, &n));
  if (n == 0) {
    tao->reason = TAO_CONVERGED_GATOL;
    PetscCall(TaoMonitor(tao, 0, 0.0, 0.0, 0.0, 0.0));
    PetscFunctionReturn(0);
  }
  PetscCall(IPMSetUpProblem(tao));
  /* the warm start, if it already solves the problem; its u gives the first Coulomb shift */
  PetscCall(VecSet(ipm->v, 0.0));
  PetscCall(VecCopy(ipm->q, ipm->qs));
  PetscCall(IPMResidual(tao, &start_residual));
  PetscCall(VecCopy(tao->solution, ipm->best));
  best = start_residual;
  PetscCall(TaoLogConvergenceHistory(tao, 0.0, start_residual, 0.0, tao->ksp_its));
  PetscCall(TaoMonitor(tao, tao->niter, 0.0, start_residual, 0.0, 1.0));
  PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  while (tao->reason == TAO_CONTINUE_ITERATING) {
    PetscReal alpha, alpha_a, mu_now, mu_a, sigma, inner;
    PetscBool solved;

    if (restart) { /* (re)start inside the cones, for the problem with q_s */
      restart = PETSC_FALSE;
      PetscCall(IPMShift(tao));
      PetscCall(IPMStartInside(tao));
      inner_target = ipm->coulomb ? ipm->inner_fraction * PetscMin(best, start_residual) : 0.0;
      if (ipm->coulomb) ipm->outer++;
      PetscCall(IPMResidual(tao, &residual));
    }
    PetscCall(IPMScale(tao));
    PetscCall(IPMDirection(tao, PETSC_FALSE, 0.0, ipm->dra, ipm->dva, &solved));
    if (solved) {
      PetscCall(IPMMaxStep(tao, ipm->dra, ipm->dva, &alpha_a));
      alpha_a = PetscMin(1.0, alpha_a);
      PetscCall(IPMComplementarityAfter(tao, ipm->dra, ipm->dva, 0.0, &mu_now));
      PetscCall(IPMComplementarityAfter(tao, ipm->dra, ipm->dva, alpha_a, &mu_a));
      sigma = mu_now > 0.0 ? PetscPowReal(PetscMax(mu_a, 0.0) / mu_now, 3.0) : 0.0;
      PetscCall(IPMDirection(tao, PETSC_TRUE, PetscMin(sigma, 1.0) * mu_now, ipm->dr, ipm->dv, &solved));
    }
    if (!solved) { /* W + T W_c^2 T numerically singular (W is, where contacts outnumber the bodies' freedoms,
                      and W_c^2 vanishes on sticking contacts as mu -> 0): regularise, 1e-12 max W_ii and up */
      ipm->factor_failures++;
      ipm->regularization = ipm->regularization > 0.0 ? 100.0 * ipm->regularization : 1e-12 * ipm->dmax;
      PetscCall(PetscInfo(tao, "Newton system not solved: regularised by %g\n", (double)ipm->regularization));
      PetscCall(KSPReset(ipm->ksp)); /* a failed factorisation is not reused: factor anew */
      PetscCall(KSPSetOperators(ipm->ksp, ipm->K, ipm->K));
      if (ipm->regularization <= 1e-6 * ipm->dmax) continue;
      tao->reason = TAO_DIVERGED_USER;
      break;
    }
    PetscCall(IPMMaxStep(tao, ipm->dr, ipm->dv, &alpha));
    alpha = PetscMin(1.0, ipm->step_fraction * alpha);
    PetscCall(VecAXPY(tao->solution, alpha, ipm->dr));
    PetscCall(VecAXPY(ipm->v, alpha, ipm->dv));
    tao->niter++;
    PetscCall(IPMResidual(tao, &residual));
    PetscCall(
      PetscInfo(tao, "Newton step %" PetscInt_FMT ": alpha %g (predictor %g), sigma %g, r.v / cones %g, max |r_p| %g\n",
                tao->niter, (double)alpha, (double)alpha_a, (double)sigma, (double)ipm->complementarity,
                (double)ipm->infeasibility));
    if (residual < best) {
      best = residual;
      PetscCall(VecCopy(tao->solution, ipm->best));
    }
    PetscCall(TaoLogConvergenceHistory(tao, 0.0, residual, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, 0.0, residual, 0.0, alpha));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
    if (tao->reason != TAO_CONTINUE_ITERATING) break;
    if (alpha < 1e-12) { /* no progress possible from here */
      tao->reason = TAO_DIVERGED_LS_FAILURE;
      break;
    }
    if (ipm->coulomb) { /* the relaxed problem with this shift solved well enough: shift again */
      PetscCall(VecWAXPY(ipm->rhs, 1.0, ipm->qs, ipm->u)); /* W r + q_s */
      PetscCall(VecAXPY(ipm->rhs, -1.0, ipm->q));
      PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->rhs, ipm->gd, PETSC_FALSE, &inner));
      if (inner <= inner_target || inner <= 0.1 * tao->gatol) restart = PETSC_TRUE;
    }
  }
  PetscCall(VecCopy(ipm->best, tao->solution));
  PetscCall(IPMPolish(tao, &best));
  tao->residual = best;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_IPM(Tao tao)
{
  PetscFunctionBegin;
  (void)tao;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_IPM(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_IPM    *ipm = (TAO_IPM *)tao->data;
  const char *prefix;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Interior-point (ipm) options");
  PetscCall(PetscOptionsReal("-tao_ipm_step_fraction", "Fraction of the way to the cones' boundary a step goes", "",
                             ipm->step_fraction, &ipm->step_fraction, NULL));
  PetscCall(PetscOptionsReal("-tao_ipm_residual_scale",
                             "g_d of the residual (seed 001 eq. 39) as a fraction of 1 / max_i W_ii", "",
                             ipm->residual_scale, &ipm->residual_scale, NULL));
  PetscCall(PetscOptionsReal("-tao_ipm_inner_fraction",
                             "Coulomb problem: a relaxed solve ends when its residual is this fraction of the Coulomb "
                             "residual it started from",
                             "", ipm->inner_fraction, &ipm->inner_fraction, NULL));
  PetscCall(PetscOptionsInt("-tao_ipm_polish",
                            "Steps of the natural map r <- Pi_K(r - g_d u) at the end while they lower the residual "
                            "(an interior point leaves small impulses on separating contacts)",
                            "", ipm->polish, &ipm->polish, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(ipm->polish >= 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_ipm_polish must be 0 or more, got %" PetscInt_FMT, ipm->polish);
  PetscCheck(ipm->step_fraction > 0.0 && ipm->step_fraction < 1.0, PetscObjectComm((PetscObject)tao),
             PETSC_ERR_ARG_OUTOFRANGE, "-tao_ipm_step_fraction must be in (0, 1), got %g", (double)ipm->step_fraction);
  PetscCheck(ipm->residual_scale > 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_ipm_residual_scale must be positive, got %g", (double)ipm->residual_scale);
  PetscCheck(ipm->inner_fraction > 0.0 && ipm->inner_fraction < 1.0, PetscObjectComm((PetscObject)tao),
             PETSC_ERR_ARG_OUTOFRANGE, "-tao_ipm_inner_fraction must be in (0, 1), got %g",
             (double)ipm->inner_fraction);
  PetscCall(TaoGetOptionsPrefix(tao, &prefix));
  PetscCall(KSPSetOptionsPrefix(ipm->ksp, prefix));
  PetscCall(KSPAppendOptionsPrefix(ipm->ksp, "tao_ipm_"));
  PetscCall(KSPSetFromOptions(ipm->ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_IPM(Tao tao, PetscViewer viewer)
{
  TAO_IPM  *ipm = (TAO_IPM *)tao->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "steps %g of the way to the boundary; residual step g_d (eq. 39) %g / max W_ii "
                                   "(last: %g)\n",
                                   (double)ipm->step_fraction, (double)ipm->residual_scale, (double)ipm->gd));
  PetscCall(PetscViewerASCIIPrintf(viewer, "last iterate: complementarity r.v / cones %g, max |W r + q - v| %g\n",
                                   (double)ipm->complementarity, (double)ipm->infeasibility));
  if (ipm->coulomb)
    PetscCall(PetscViewerASCIIPrintf(viewer, "Coulomb problem: %" PetscInt_FMT " relaxed solves (De Saxce shifts)\n",
                                     ipm->outer));
  if (ipm->factor_failures)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "%" PetscInt_FMT " Newton systems not solved (KSP below); regularised by %g I%s\n",
                                     ipm->factor_failures, (double)ipm->regularization,
                                     tao->reason == TAO_DIVERGED_USER ? ", in vain: stopped there" : ""));
  PetscCall(KSPView(ipm->ksp, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_IPM(Tao tao)
{
  TAO_IPM *ipm = (TAO_IPM *)tao->data;

  PetscFunctionBegin;
  PetscCall(IPMRelease(ipm));
  PetscCall(KSPDestroy(&ipm->ksp));
  PetscCall(MatDestroy(&ipm->W));
  PetscCall(VecDestroy(&ipm->q));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoIPMSetProblem_C", NULL));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoIPMSetProblem_IPM(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set, PetscBool coulomb)
{
  TAO_IPM *ipm = (TAO_IPM *)tao->data;

  PetscFunctionBegin;
  if (W) {
    PetscBool mpi, seq;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATMPIAIJ, &mpi));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATSEQAIJ, &seq));
    PetscCheck(mpi || seq, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
               "ipm factors W plus a block per cone, so it needs W assembled (an AIJ matrix, as talus ccp reads); "
               "this N is not: use -tao_type apgd or nbgs");
  }
  PetscCall(IPMRelease(ipm));
  if (W) PetscCall(PetscObjectReference((PetscObject)W));
  if (q) PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(MatDestroy(&ipm->W));
  PetscCall(VecDestroy(&ipm->q));
  ipm->W = W, ipm->q = q, ipm->set = set, ipm->coulomb = coulomb;
  PetscFunctionReturn(0);
}

/*MC
  TAOIPM - "ipm": primal-dual interior point (Mehrotra predictor-corrector, Nesterov-Todd scaling) for
  the contact problem with an assembled Delassus matrix; the Coulomb problem by a fixed point on De
  Saxce's shift.

  Options Database Keys:
+ -tao_ipm_step_fraction <0.99> - fraction of the way to the cones' boundary a step goes
. -tao_ipm_residual_scale <1e-3> - g_d of the residual as a fraction of 1 / max_i W_ii
. -tao_ipm_inner_fraction <0.1> - Coulomb: when a relaxed solve hands over to the next shift
- -tao_ipm_ksp_type, -tao_ipm_pc_type, -tao_ipm_pc_factor_mat_solver_type - the Newton systems' solver
  (preonly, cholesky, mumps by default)

  The reported gradient norm (TaoMonitor, -tao_gatol) is the residual of seed 001 eq. 39 (with the De
  Saxce velocity for the Coulomb problem); an iteration is one Newton step (one factorisation).
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_IPM(Tao tao)
{
  TAO_IPM *ipm;
  PC       pc;

  PetscFunctionBegin;
  tao->ops->setup          = TaoSetUp_IPM;
  tao->ops->solve          = TaoSolve_IPM;
  tao->ops->view           = TaoView_IPM;
  tao->ops->setfromoptions = TaoSetFromOptions_IPM;
  tao->ops->destroy        = TaoDestroy_IPM;
  PetscCall(PetscNew(&ipm));
  tao->data           = (void *)ipm;
  ipm->step_fraction  = 0.99;
  ipm->residual_scale = 1.0e-3;
  ipm->inner_fraction = 0.1;
  ipm->polish         = 3;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)tao), &ipm->ksp));
  PetscCall(PetscObjectIncrementTabLevel((PetscObject)ipm->ksp, (PetscObject)tao, 1));
  PetscCall(KSPSetType(ipm->ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ipm->ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
#if defined(PETSC_HAVE_MUMPS)
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
#endif
  PetscCall(KSPSetErrorIfNotConverged(ipm->ksp, PETSC_FALSE));
  TalusTaoSetResidualTolerances(tao);
  if (!tao->max_it_changed) tao->max_it = 200; /* Newton steps, each a factorisation */
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoIPMSetProblem_C", TaoIPMSetProblem_IPM));
  PetscFunctionReturn(0);
}

/*@C
  TaoIPMSetProblem - the contact problem u = W r + q over the set's cones and non-negative rows that TAOIPM
  solves, W assembled (AIJ); coulomb: De Saxce's problem instead of the relaxed one. The set is
  referenced, not copied: it must outlive the solves.
@*/
PetscErrorCode TaoIPMSetProblem(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set, PetscBool coulomb)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoIPMSetProblem_C", (Tao, Mat, Vec, const TalusFeasibleSet *, PetscBool),
                 (tao, W, q, set, coulomb));
  PetscFunctionReturn(0);
}
