/*
 * Lemke's method and seed 002's faceted LCP (include/talus/lcp.h; the formulations note, S2-2 and S2-3):
 *   - a 2 x 2 LCP with its solution by hand (z = (4/3, 7/3)); q >= 0 gives z = 0; a degenerate q
 *     (ties in every ratio test) is solved without cycling;
 *   - random LCPs with M = A A^T + S (S skew: copositive-plus) and random faceted LCPs of eq. 34's
 *     structure (W SPD, nd = 4 and 8): min(w, z) = 0 and w = M z + q hold to 1e-12 (S2-2);
 *   - a faceted contact problem solved by Lemke and by PETSc's semismooth complementarity solvers
 *     (ssfls, asfls) through TalusFacetedLCPSolve: the same impulses to 1e-8; one over
 *     -lcp_max_size refused;
 *   - a 2D problem with two facets (+-t1, nothing coupling t2) equals the Coulomb CCP solved by apgd
 *     (anti-relaxed, seed 001) to 1e-8 (S2-3);
 *   - no solution (M = -1, q = -1) ends on a secondary ray; a pivot cap of 1 ends on the cap.
 */
#include "../common/check.h"
#include "../common/random_problem.h"

static PetscReal Uniform(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (PetscReal)(*state >> 8) / (PetscReal)(1u << 24);
}

/* max |min(w, z)| with w = M z + q computed here, relative to the problem's scale */
static PetscReal Complementarity(PetscInt n, const PetscReal M[], const PetscReal q[], const PetscReal z[])
{
  PetscReal worst = 0.0, scale = 1.0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal w = q[i];
    for (PetscInt k = 0; k < n; k++) w += M[i * n + k] * z[k];
    worst = PetscMax(worst, PetscAbsReal(PetscMin(w, z[i])));
    scale = PetscMax(scale, PetscAbsReal(q[i]));
  }
  return worst / scale;
}

static PetscErrorCode Small(void)
{
  const PetscReal M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, positive[2] = {1, 0}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1},
                  tied[3] = {-1, -1, -1}, minus[1] = {-1};
  PetscReal      z[3];
  TalusLemkeInfo info;

  PetscFunctionBegin;
  PetscCall(TalusLemkeSolve(2, M, q, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_SOLVED && PetscAbsReal(z[0] - 4.0 / 3) < 1e-14 &&
          PetscAbsReal(z[1] - 7.0 / 3) < 1e-14,
        "2 x 2: %s, z = (%g, %g), (4/3, 7/3) expected", TalusLemkeReasonName(info.reason), (double)z[0], (double)z[1]);
  PetscCall(TalusLemkeSolve(2, M, positive, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_TRIVIAL && z[0] == 0.0 && z[1] == 0.0, "q >= 0: %s",
        TalusLemkeReasonName(info.reason));
  PetscCall(TalusLemkeSolve(3, I3, tied, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_SOLVED && z[0] == 1.0 && z[1] == 1.0 && z[2] == 1.0,
        "degenerate: %s after %" PetscInt_FMT " pivots, z = (%g, %g, %g)", TalusLemkeReasonName(info.reason),
        info.pivots, (double)z[0], (double)z[1], (double)z[2]);
  PetscCall(TalusLemkeSolve(1, minus, minus, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_RAY, "w = -z - 1 >= 0 has no solution: %s", TalusLemkeReasonName(info.reason));
  PetscCall(TalusLemkeSolve(2, M, q, 1, z, &info));
  CHECK(info.reason == TALUS_LEMKE_PIVOT_CAP, "a cap of 1 pivot: %s", TalusLemkeReasonName(info.reason));
  PetscFunctionReturn(0);
}

/* M = A A^T + S (+ shift I when positive definite is wanted), q uniform in [-1, 1] */
static PetscErrorCode RandomLCP(PetscInt n, PetscReal shift, unsigned seed, PetscReal **M, PetscReal **q)
{
  PetscReal *A;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n * n, &A));
  PetscCall(PetscCalloc2(n * n, M, n, q));
  for (PetscInt i = 0; i < n * n; i++) A[i] = 2.0 * Uniform(&seed) - 1.0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt k = 0; k < n / 2; k++) (*M)[i * n + j] += A[i * n + k] * A[j * n + k]; /* rank n/2: PSD */
    (*M)[i * n + i] += shift;
    (*q)[i] = 2.0 * Uniform(&seed) - 1.0;
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      const PetscReal s = Uniform(&seed) - 0.5;
      (*M)[i * n + j] += s, (*M)[j * n + i] -= s;
    }
  PetscCall(PetscFree(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode RandomCopositive(void)
{
  PetscFunctionBegin;
  for (unsigned seed = 1; seed <= 5; seed++) {
    const PetscInt n = 40;
    PetscReal     *M, *q, z[40], c;
    TalusLemkeInfo info;

    PetscCall(RandomLCP(n, 0.0, seed, &M, &q));
    PetscCall(TalusLemkeSolve(n, M, q, 0, z, &info));
    c = Complementarity(n, M, q, z);
    CHECK(info.reason == TALUS_LEMKE_SOLVED && c <= 1e-12 && info.residual <= 1e-12,
          "random LCP %u: %s, min(w, z) %g, w - (M z + q) %g", seed, TalusLemkeReasonName(info.reason), (double)c,
          (double)info.residual);
    PetscCall(PetscFree2(M, q));
  }
  PetscFunctionReturn(0);
}

/* A random contact problem in talus's layout: W = J J^T + 1e-3 I (SPD), q, mu in [0.1, 1] */
static PetscErrorCode RandomContacts(PetscInt nc, unsigned seed, PetscReal **W, PetscReal **q, PetscReal **mu)
{
  const PetscInt m = 3 * nc, cols = 2 * m;
  PetscReal     *J;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m * cols, &J));
  PetscCall(PetscCalloc3(m * m, W, m, q, nc, mu));
  for (PetscInt i = 0; i < m * cols; i++) J[i] = Uniform(&seed) < 0.2 ? 2.0 * Uniform(&seed) - 1.0 : 0.0;
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt k = 0; k < cols; k++) (*W)[i * m + j] += J[i * cols + k] * J[j * cols + k];
    (*W)[i * m + i] += 1e-3;
    (*q)[i] = 2.0 * Uniform(&seed) - 1.0;
  }
  for (PetscInt c = 0; c < nc; c++) (*mu)[c] = 0.1 + 0.9 * Uniform(&seed);
  PetscCall(PetscFree(J));
  PetscFunctionReturn(0);
}

static PetscErrorCode RandomFaceted(void)
{
  const PetscInt nc = 12, facets[2] = {4, 8};

  PetscFunctionBegin;
  for (unsigned seed = 1; seed <= 3; seed++)
    for (int f = 0; f < 2; f++) {
      PetscReal     *W, *q, *mu, *M, *b, *z, *r, worst_cone = 0.0, c;
      PetscInt       n;
      TalusLemkeInfo info;

      PetscCall(RandomContacts(nc, 100 + seed, &W, &q, &mu));
      PetscCall(TalusFacetedLCPBuild(nc, facets[f], 0, W, q, mu, &n, &M, &b));
      CHECK(n == (facets[f] + 2) * nc,
            "faceted LCP of %" PetscInt_FMT " contacts, %" PetscInt_FMT " facets: size %" PetscInt_FMT, nc, facets[f],
            n);
      PetscCall(PetscMalloc2(n, &z, 3 * nc, &r));
      PetscCall(TalusLemkeSolve(n, M, b, 0, z, &info));
      c = Complementarity(n, M, b, z);
      TalusFacetedLCPImpulses(nc, facets[f], 0, z, r);
      for (PetscInt k = 0; k < nc; k++) /* the pyramid lies inside Coulomb's cone: |r_t| <= mu r_n */
        worst_cone = PetscMax(worst_cone, PetscSqrtReal(r[3 * k + 1] * r[3 * k + 1] + r[3 * k + 2] * r[3 * k + 2]) -
                                            mu[k] * r[3 * k]);
      CHECK(info.reason == TALUS_LEMKE_SOLVED && c <= 1e-12 && info.residual <= 1e-12 && worst_cone <= 1e-12,
            "faceted LCP seed %u, %" PetscInt_FMT " facets: %s after %" PetscInt_FMT
            " pivots, min(w, z) %g, residual %g, outside the cone by %g",
            seed, facets[f], TalusLemkeReasonName(info.reason), info.pivots, (double)c, (double)info.residual,
            (double)worst_cone);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "faceted LCP (%" PetscInt_FMT " contacts, %" PetscInt_FMT " facets, n = %" PetscInt_FMT
                            "): %" PetscInt_FMT " pivots, min(w, z) %.1e\n",
                            nc, facets[f], n, info.pivots, (double)c));
      PetscCall(PetscFree2(z, r));
      PetscCall(PetscFree2(M, b));
      PetscCall(PetscFree3(W, q, mu));
    }
  PetscFunctionReturn(0);
}

/* The arrays of a contact problem as PETSc objects on this rank: W dense, q, mu */
static PetscErrorCode ContactObjects(PetscInt nc, const PetscReal W[], const PetscReal q[], const PetscReal mu[],
                                     Mat *Wm, Vec *qv, Vec *muv)
{
  const PetscInt m = 3 * nc;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, m, m, NULL, Wm));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) PetscCall(MatSetValue(*Wm, i, j, W[i * m + j], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*Wm, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*Wm, MAT_FINAL_ASSEMBLY));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, qv));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nc, muv));
  for (PetscInt i = 0; i < m; i++) PetscCall(VecSetValue(*qv, i, q[i], INSERT_VALUES));
  for (PetscInt c = 0; c < nc; c++) PetscCall(VecSetValue(*muv, c, mu[c], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(*qv));
  PetscCall(VecAssemblyEnd(*qv));
  PetscCall(VecAssemblyBegin(*muv));
  PetscCall(VecAssemblyEnd(*muv));
  PetscFunctionReturn(0);
}

static PetscReal MaxDifference(Vec a, Vec b)
{
  PetscReal          gap = 0.0;
  const PetscScalar *x, *y;
  PetscInt           n;

  if (VecGetLocalSize(a, &n) || VecGetArrayRead(a, &x) || VecGetArrayRead(b, &y)) return PETSC_INFINITY;
  for (PetscInt i = 0; i < n; i++) gap = PetscMax(gap, PetscAbsReal(PetscRealPart(x[i] - y[i])));
  if (VecRestoreArrayRead(a, &x) || VecRestoreArrayRead(b, &y)) return PETSC_INFINITY;
  return gap;
}

/* TalusFacetedLCPSolve with Lemke and with PETSc's ssfls and asfls on one contact problem: the same
   impulses (1e-8); a problem over -lcp_max_size is refused with a message */
static PetscErrorCode AgainstTao(void)
{
  const PetscInt          nc       = 10;
  TalusFacetedLCPSettings settings = {.facets = 6, .solver = TALUS_LCP_LEMKE, .max_pivots = 0, .max_size = 4000};
  TalusFacetedLCPResult   res;
  PetscReal              *W, *q, *mu;
  Mat                     Wm;
  Vec                     qv, muv, lemke, other;
  PetscErrorCode          ierr;

  PetscFunctionBegin;
  PetscCall(RandomContacts(nc, 31, &W, &q, &mu));
  PetscCall(ContactObjects(nc, W, q, mu, &Wm, &qv, &muv));
  PetscCall(VecDuplicate(qv, &lemke));
  PetscCall(VecDuplicate(qv, &other));
  PetscCall(TalusFacetedLCPSolve(Wm, qv, muv, 0, 0, &settings, lemke, &res));
  CHECK(res.solved && res.n == 80 && res.lemke.complementarity <= 1e-12,
        "Lemke through the driver: %s, n %" PetscInt_FMT ", min(w, z) %g", res.reason, res.n,
        (double)res.lemke.complementarity);
  for (TalusLCPSolver t = TALUS_LCP_SSFLS; t <= TALUS_LCP_ASFLS; t++) {
    PetscReal gap;
    settings.solver = t;
    PetscCall(TalusFacetedLCPSolve(Wm, qv, muv, 0, 0, &settings, other, &res));
    gap = MaxDifference(lemke, other);
    CHECK(res.solved && gap <= 1e-8, "%s and Lemke: %s, impulses %g apart", TalusLCPSolvers[t], res.reason,
          (double)gap);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "faceted LCP (10 contacts, 6 facets): %s (%" PetscInt_FMT " its) and Lemke %.1e apart\n",
                          res.reason, res.lemke.pivots, (double)gap));
  }
  settings.solver   = TALUS_LCP_LEMKE;
  settings.max_size = 79;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TalusFacetedLCPSolve(Wm, qv, muv, 0, 0, &settings, other, &res);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_SUP, "80 unknowns with -lcp_max_size 79: error %d, PETSC_ERR_SUP expected", (int)ierr);
  PetscCall(VecDestroy(&lemke));
  PetscCall(VecDestroy(&other));
  PetscCall(VecDestroy(&qv));
  PetscCall(VecDestroy(&muv));
  PetscCall(MatDestroy(&Wm));
  PetscCall(PetscFree3(W, q, mu));
  PetscFunctionReturn(0);
}

/* S2-3: contacts whose t2 rows are decoupled (W's t2 row and column only the diagonal, q_t2 = 0): a
   2D problem, where two facets +-t1 are Coulomb's cone; Lemke's faceted answer against apgd's Coulomb
   (anti-relaxed) CCP solved to 1e-13 */
static PetscErrorCode Planar(void)
{
  const PetscInt     nc = 8, m = 3 * nc;
  PetscReal         *W, *q, *mu, *M, *b, z[64], r[24], gap = 0.0;
  PetscInt           n, its;
  TalusLemkeInfo     info;
  Mat                N;
  Vec                qv, muv, rv;
  TalusCCP           ccp;
  const PetscScalar *rs;

  PetscFunctionBegin;
  PetscCall(RandomContacts(nc, 5, &W, &q, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt t2 = 3 * c + 2;
    for (PetscInt k = 0; k < m; k++)
      if (k != t2) W[t2 * m + k] = W[k * m + t2] = 0.0;
    q[t2] = 0.0;
  }
  PetscCall(TalusFacetedLCPBuild(nc, 2, 0, W, q, mu, &n, &M, &b));
  PetscCall(TalusLemkeSolve(n, M, b, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_SOLVED, "planar faceted LCP: %s", TalusLemkeReasonName(info.reason));
  TalusFacetedLCPImpulses(nc, 2, 0, z, r);
  PetscCall(ContactObjects(nc, W, q, mu, &N, &qv, &muv));
  PetscCall(TestCCPCreate(PETSC_COMM_SELF, N, qv, muv, TALUSCCPCOULOMB, 1e-13, 200000, &ccp));
  PetscCall(VecDuplicate(qv, &rv));
  PetscCall(TestCCPSolveCold(ccp, rv, &its));
  PetscCall(VecGetArrayRead(rv, &rs));
  for (PetscInt i = 0; i < m; i++) gap = PetscMax(gap, PetscAbsReal(PetscRealPart(rs[i]) - r[i]));
  PetscCall(VecRestoreArrayRead(rv, &rs));
  CHECK(gap <= 1e-8, "S2-3: the 2-facet LCP and the Coulomb CCP differ by %g", (double)gap);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "S2-3 planar: 2-facet LCP (Lemke, %" PetscInt_FMT
                        " pivots) and Coulomb CCP (apgd, %" PetscInt_FMT " its) %.1e apart\n",
                        info.pivots, its, (double)gap));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(VecDestroy(&rv));
  PetscCall(VecDestroy(&qv));
  PetscCall(VecDestroy(&muv));
  PetscCall(MatDestroy(&N));
  PetscCall(PetscFree2(M, b));
  PetscCall(PetscFree3(W, q, mu));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Small());
  PetscCall(RandomCopositive());
  PetscCall(RandomFaceted());
  PetscCall(AgainstTao());
  PetscCall(Planar());
  {
    int status = TestSummary("test_lemke");
    PetscCall(TalusFinalize());
    return status;
  }
}
