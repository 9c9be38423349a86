/*
 * Lemke's complementary pivoting for the dense LCP w = M z + q >= 0, z >= 0, w^T z = 0 (include/talus/lcp.h;
 * Cottle, Pang & Stone, "The Linear Complementarity Problem", sec. 4.4; the method seed 004 sec. 2.2
 * names for seed 002's faceted problems).
 *
 * The system is [I  -M  -e] (w; z; z0) = q with the covering vector e = 1. It starts from the basis of
 * the w's, brings z0 in at the most negative q_i, and then brings in the complement of whatever
 * variable left, until z0 leaves (a solution) or no entering column is bounded (a secondary ray).
 * The basis inverse is kept explicitly and updated by each pivot (O(n^2) a pivot); ties in the
 * ratio test are broken lexicographically on (q~, B^-1) rows, which keeps degenerate problems from
 * cycling. Once the basis is complementary, z is solved afresh from it by LAPACK's LU, so the answer
 * carries no rounding from the pivots (kept unless the pivots' own values do better: a nearly
 * singular final basis). Each pivot streams B^-1 twice (a product, an update), O(n^2): the method
 * costs O(n^3) for about n pivots, which is why callers cap n (-lcp_max_size).
 */
#include <talus/lcp.h>
#include <petscblaslapack.h>

const char *TalusLemkeReasonName(TalusLemkeReason reason)
{
  switch (reason) {
  case TALUS_LEMKE_SOLVED:
    return "solved (complementary basis)";
  case TALUS_LEMKE_TRIVIAL:
    return "solved (q >= 0: z = 0)";
  case TALUS_LEMKE_RAY:
    return "secondary ray: no bounded pivot (the LCP may have no solution; M is not copositive-plus?)";
  case TALUS_LEMKE_PIVOT_CAP:
    return "pivot cap reached (-lcp_max_pivots)";
  case TALUS_LEMKE_ILL_CONDITIONED:
    return "the final basis is ill-conditioned: w = M z + q does not hold to the tolerance";
  }
  return "unknown";
}

typedef struct {
  PetscInt   n;
  PetscReal *Mt;    /* M transposed (row j: column j of M), so that an entering column is contiguous */
  PetscReal *a;     /* an entering variable's column of [I, -M, -e] */
  PetscReal *Binv;  /* n x n row-major: the basis inverse */
  PetscReal *qbar;  /* B^-1 q: the basic variables' values */
  PetscReal *d;     /* the entering column in the basis, B^-1 a */
  PetscInt  *basis; /* the variable in each row: w_i = i, z_i = n + i, z0 = 2 n */
} Tableau;

/* d = B^-1 a for variable v's column a of [I, -M, -e]: a column of B^-1 for a w, else one product by
   BLAS (B^-1 row-major is its transpose column-major: gemv with "T") */
static PetscErrorCode EnteringColumn(const Tableau *t, PetscInt v)
{
  const PetscInt  n = t->n;
  PetscBLASInt    bn, one = 1;
  const PetscReal alpha = -1.0, beta = 0.0;

  PetscFunctionBegin;
  if (v < n) {
    for (PetscInt i = 0; i < n; i++) t->d[i] = t->Binv[i * n + v];
    PetscFunctionReturn(0);
  }
  PetscCall(PetscBLASIntCast(n, &bn));
  if (v < 2 * n) PetscCall(PetscArraycpy(t->a, &t->Mt[(v - n) * n], n));
  else
    for (PetscInt k = 0; k < n; k++) t->a[k] = 1.0;
  PetscCallBLAS("BLASgemv", BLASgemv_("T", &bn, &bn, &alpha, t->Binv, &bn, t->a, &one, &beta, t->d, &one));
  PetscFunctionReturn(0);
}

/* The leaving row by the lexicographic minimum ratio over rows with d_i > tol; z0's row wins a tie
   (the method ends there). -1: no bounded row. Ratios tie within tie (absolute, of q's scale) and a
   relative 1e-12, not within the pivot tolerance: a tie taken too widely drives a basic value
   negative. A basic value that rounding left at -1e-17 counts as 0: its negative ratio would let the
   entering variable in at a negative value. */
static PetscInt RatioTest(const Tableau *t, PetscReal tol, PetscReal tie, PetscInt *candidates)
{
  const PetscInt n    = t->n;
  PetscInt       m    = 0, kept;
  PetscReal      best = PETSC_INFINITY;

  for (PetscInt i = 0; i < n; i++)
    if (t->d[i] > tol) best = PetscMin(best, PetscMax(t->qbar[i], 0.0) / t->d[i]);
  if (best == PETSC_INFINITY) return -1;
  for (PetscInt i = 0; i < n; i++)
    if (t->d[i] > tol && PetscMax(t->qbar[i], 0.0) / t->d[i] <= best * (1.0 + 1e-12) + tie) candidates[m++] = i;
  for (PetscInt k = 0; k < m; k++)
    if (t->basis[candidates[k]] == 2 * n) return candidates[k];
  for (PetscInt col = 0; col < n && m > 1; col++) { /* lexicographic on the rows of B^-1 */
    PetscReal least = PETSC_INFINITY;
    for (PetscInt k = 0; k < m; k++) least = PetscMin(least, t->Binv[candidates[k] * n + col] / t->d[candidates[k]]);
    kept = 0;
    for (PetscInt k = 0; k < m; k++)
      if (t->Binv[candidates[k] * n + col] / t->d[candidates[k]] <= least + 1e-12 * (1.0 + PetscAbsReal(least)))
        candidates[kept++] = candidates[k];
    m = kept;
  }
  return candidates[0];
}

/* Variable v enters at row r: Gauss-Jordan on (B^-1 | q~) with the column d (a BLAS axpy a row) */
static PetscErrorCode Pivot(Tableau *t, PetscInt r, PetscInt v)
{
  const PetscInt  n   = t->n;
  const PetscReal inv = 1.0 / t->d[r];
  PetscReal      *pr  = &t->Binv[r * n];
  PetscBLASInt    bn, one = 1;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  for (PetscInt k = 0; k < n; k++) pr[k] *= inv;
  t->qbar[r] *= inv;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal f = -t->d[i];
    if (i == r || f == 0.0) continue;
    PetscCallBLAS("BLASaxpy", BLASaxpy_(&bn, &f, pr, &one, &t->Binv[i * n], &one));
    t->qbar[i] += f * t->qbar[r];
  }
  t->basis[r] = v;
  PetscFunctionReturn(0);
}

/* z and w from the final complementary basis solved afresh, B x = q by LU (B's columns: e_i for a
   basic w_i, -M e_j for a basic z_j; the nonbasic are 0); FALSE if LAPACK finds B singular */
static PetscErrorCode SolveBasis(const Tableau *t, const PetscReal M[], const PetscReal q[], PetscReal z[],
                                 PetscReal w[], PetscBool *ok)
{
  const PetscInt n = t->n;
  PetscReal     *B, *x;
  PetscBLASInt   bn, one = 1, info, *piv;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc3(n * n, &B, n, &x, n, &piv));
  for (PetscInt r = 0; r < n; r++) { /* column r of B, column-major for LAPACK */
    const PetscInt v = t->basis[r];
    for (PetscInt i = 0; i < n; i++) B[r * n + i] = v < n ? (i == v ? 1.0 : 0.0) : -M[i * n + (v - n)];
  }
  for (PetscInt i = 0; i < n; i++) x[i] = q[i];
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &one, B, &bn, piv, x, &bn, &info));
  *ok = (PetscBool)(info == 0);
  for (PetscInt i = 0; i < n; i++) z[i] = w[i] = 0.0;
  for (PetscInt r = 0; r < n && *ok; r++) {
    if (t->basis[r] >= n) z[t->basis[r] - n] = PetscMax(x[r], 0.0); /* a basic z at -1e-17 is a degenerate 0 */
    else w[t->basis[r]] = x[r];
  }
  PetscCall(PetscFree3(B, x, piv));
  PetscFunctionReturn(0);
}

/* info's complementarity, max |min(M z + q, z)|, and residual, max |w - (M z + q)| for the basis's w */
static void Measure(PetscInt n, const PetscReal M[], const PetscReal q[], const PetscReal z[], const PetscReal wB[],
                    TalusLemkeInfo *info)
{
  info->complementarity = 0.0, info->residual = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal w = q[i];
    for (PetscInt k = 0; k < n; k++) w += M[i * n + k] * z[k];
    info->complementarity = PetscMax(info->complementarity, PetscAbsReal(PetscMin(w, z[i])));
    info->residual        = PetscMax(info->residual, PetscAbsReal(w - wB[i]));
  }
}

/* Lemke's pivots on the LCP with linear term q from the basis of the w's: info's reason and pivots */
static PetscErrorCode Run(Tableau *t, const PetscReal q[], PetscInt max_pivots, PetscReal tol, PetscReal tie,
                          PetscInt *candidates, TalusLemkeInfo *info)
{
  const PetscInt n   = t->n;
  PetscInt       row = 0, entering;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++)
    if (q[i] < q[row]) row = i;
  PetscCall(PetscArrayzero(t->Binv, n * n));
  for (PetscInt i = 0; i < n; i++) t->Binv[i * n + i] = 1.0, t->qbar[i] = q[i], t->basis[i] = i;
  PetscCall(EnteringColumn(t, 2 * n)); /* z0 enters where q is most negative: every q~ becomes >= 0 */
  entering = n + row;                  /* the complement of w_row, which leaves */
  PetscCall(Pivot(t, row, 2 * n));
  info->pivots = 1;
  info->reason = TALUS_LEMKE_PIVOT_CAP;
  while (info->pivots < max_pivots) {
    PetscInt leaving;
    PetscCall(EnteringColumn(t, entering));
    row = RatioTest(t, tol, tie, candidates);
    if (row < 0) {
      info->reason = TALUS_LEMKE_RAY;
      break;
    }
    leaving = t->basis[row];
    PetscCall(Pivot(t, row, entering));
    info->pivots++;
    if (leaving == 2 * n) {
      info->reason = TALUS_LEMKE_SOLVED;
      break;
    }
    entering = leaving < n ? leaving + n : leaving - n; /* the complement of what left */
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusLemkeSolve(PetscInt n, const PetscReal M[], const PetscReal q[], PetscInt max_pivots, PetscReal z[],
                               TalusLemkeInfo *info)
{
  Tableau   t = {.n = n};
  PetscInt *candidates, row = 0, first;
  PetscReal scale = 1.0, qscale = 0.0, tol, *wB, *zp, *qp;
  PetscBool ok = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "an LCP of size %" PetscInt_FMT, n);
  info->pivots = 0, info->complementarity = 0.0, info->residual = 0.0, info->perturbation = 0.0;
  for (PetscInt i = 0; i < n; i++) z[i] = 0.0;
  for (PetscInt i = 0; i < n; i++)
    if (q[i] < q[row]) row = i;
  if (n == 0 || q[row] >= 0.0) {
    info->reason = TALUS_LEMKE_TRIVIAL;
    PetscFunctionReturn(0);
  }
  if (max_pivots <= 0) max_pivots = 50 * n;
  for (PetscInt i = 0; i < n * n; i++) scale = PetscMax(scale, PetscAbsReal(M[i]));
  tol = 1e-12 * scale;
  for (PetscInt i = 0; i < n; i++) qscale = PetscMax(qscale, PetscAbsReal(q[i]));
  PetscCall(PetscCalloc6(n * n, &t.Binv, n, &t.qbar, n, &t.d, n, &t.basis, n, &candidates, n, &wB));
  PetscCall(PetscMalloc3(n * n, &t.Mt, n, &t.a, n, &qp));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) t.Mt[j * n + i] = M[i * n + j];

  PetscCall(Run(&t, q, max_pivots, tol, 1e-15 * qscale, candidates, info));
  if (info->reason == TALUS_LEMKE_RAY || info->reason == TALUS_LEMKE_PIVOT_CAP) {
    /* Degenerate problems (resting contacts: many zero rows of q) can defeat the lexicographic rule in
       floating point, and end on a ray although the LCP is solvable (found on a frictionless pile whose
       LCP ssfls solves). Again with q perturbed by a deterministic 1e-10 of its scale, the classic
       cure for degeneracy; the final basis is then solved with the true q. */
    unsigned state     = 12345u;
    first              = info->pivots;
    info->perturbation = 1e-10 * PetscMax(qscale, 1e-300);
    for (PetscInt i = 0; i < n; i++) {
      state = state * 1664525u + 1013904223u;
      qp[i] = q[i] + info->perturbation * (0.5 + 0.5 * (PetscReal)(state >> 8) / (PetscReal)(1u << 24));
    }
    PetscCall(Run(&t, qp, max_pivots, tol, 1e-15 * qscale, candidates, info));
    info->pivots += first;
  }
  if (info->reason == TALUS_LEMKE_SOLVED) { /* the basis re-solved by LU, or the pivots' own values where
                                              that is worse (a nearly singular basis: redundant contacts) */
    TalusLemkeInfo pivoted = *info;
    for (PetscInt i = 0; i < n; i++) z[i] = wB[i] = 0.0;
    for (PetscInt r = 0; r < n; r++) {
      if (t.basis[r] >= n) z[t.basis[r] - n] = PetscMax(t.qbar[r], 0.0);
      else wB[t.basis[r]] = t.qbar[r];
    }
    Measure(n, M, q, z, wB, &pivoted);
    PetscCall(PetscMalloc1(n, &zp));
    PetscCall(PetscArraycpy(zp, z, n));
    PetscCall(SolveBasis(&t, M, q, z, wB, &ok));
    Measure(n, M, q, z, wB, info);
    if (!ok || PetscMax(info->complementarity, info->residual) > PetscMax(pivoted.complementarity, pivoted.residual)) {
      *info = pivoted;
      PetscCall(PetscArraycpy(z, zp, n));
    }
    PetscCall(PetscFree(zp));
    if (!(info->complementarity <= 1e-9 * (scale + 1.0) && info->residual <= 1e-9 * (scale + 1.0)))
      info->reason = TALUS_LEMKE_ILL_CONDITIONED;
  } else Measure(n, M, q, z, wB, info); /* z = 0: how far from solved the failure leaves it */
  PetscCall(PetscFree6(t.Binv, t.qbar, t.d, t.basis, candidates, wB));
  PetscCall(PetscFree3(t.Mt, t.a, qp));
  PetscFunctionReturn(0);
}
