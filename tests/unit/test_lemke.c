/*
 * Lemke's method and seed 002's faceted LCP (include/talus/lcp.h; the formulations note, S2-2 and S2-3):
 *   - a 2 x 2 LCP with its solution by hand (z = (4/3, 7/3)); q >= 0 gives z = 0; a degenerate q
 *     (ties in every ratio test) is solved without cycling;
 *   - random LCPs with M = A A^T + S (S skew: copositive-plus) and random faceted LCPs of eq. 34's
 *     structure (W SPD, nd = 4 and 8): min(w, z) = 0 and w = M z + q hold to 1e-12 (S2-2);
 *   - the same positive definite LCP solved by PETSc's semismooth complementarity solver (ssfls) agrees
 *     to 1e-8;
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
      PetscCall(TalusFacetedLCPBuild(nc, facets[f], W, q, mu, &n, &M, &b));
      CHECK(n == (facets[f] + 2) * nc,
            "faceted LCP of %" PetscInt_FMT " contacts, %" PetscInt_FMT " facets: size %" PetscInt_FMT, nc, facets[f],
            n);
      PetscCall(PetscMalloc2(n, &z, 3 * nc, &r));
      PetscCall(TalusLemkeSolve(n, M, b, 0, z, &info));
      c = Complementarity(n, M, b, z);
      TalusFacetedLCPImpulses(nc, facets[f], z, r);
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

/* F(z) = M z + q and its Jacobian M for TAO's complementarity solvers */
typedef struct {
  Mat M;
  Vec q;
} Affine;

static PetscErrorCode AffineF(Tao tao, Vec z, Vec F, void *ctx)
{
  Affine *a = (Affine *)ctx;
  PetscFunctionBegin;
  PetscCall(MatMultAdd(a->M, z, a->q, F));
  PetscFunctionReturn(0);
}

/* J = M afresh each time: ssfls turns the Jacobian it is given into the Fischer-Burmeister one in place */
static PetscErrorCode AffineJ(Tao tao, Vec z, Mat J, Mat Jpre, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatCopy(((Affine *)ctx)->M, J, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

/* PETSc's ssfls on the same positive definite LCP as Lemke: the unique solution twice */
static PetscErrorCode AgainstSSFLS(void)
{
  const PetscInt     n = 30;
  PetscReal         *M, *q, z[30], gap = 0.0;
  TalusLemkeInfo     info;
  Affine             a;
  Tao                tao;
  Vec                x, F, lo, hi;
  Mat                J;
  KSP                ksp;
  PC                 pc;
  const PetscScalar *xs;
  TaoConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(RandomLCP(n, 0.5, 77, &M, &q));
  PetscCall(TalusLemkeSolve(n, M, q, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_SOLVED, "Lemke on the ssfls problem: %s", TalusLemkeReasonName(info.reason));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &a.M));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) PetscCall(MatSetValue(a.M, i, j, M[i * n + j], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(a.M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(a.M, MAT_FINAL_ASSEMBLY));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &a.q));
  for (PetscInt i = 0; i < n; i++) PetscCall(VecSetValue(a.q, i, q[i], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(a.q));
  PetscCall(VecAssemblyEnd(a.q));
  PetscCall(VecDuplicate(a.q, &x));
  PetscCall(VecDuplicate(a.q, &F));
  PetscCall(VecDuplicate(a.q, &lo));
  PetscCall(VecDuplicate(a.q, &hi));
  PetscCall(VecSet(x, 0.0));
  PetscCall(VecSet(lo, 0.0));
  PetscCall(VecSet(hi, PETSC_INFINITY));
  PetscCall(TaoCreate(PETSC_COMM_SELF, &tao));
  PetscCall(TaoSetType(tao, TAOSSFLS));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSetConstraintsRoutine(tao, F, AffineF, &a));
  PetscCall(MatDuplicate(a.M, MAT_COPY_VALUES, &J));
  PetscCall(TaoSetJacobianRoutine(tao, J, J, AffineJ, &a));
  PetscCall(TaoGetKSP(tao, &ksp)); /* a dense 30 x 30 Newton system: LU */
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(TaoSetVariableBounds(tao, lo, hi));
  PetscCall(TaoSetTolerances(tao, 1e-12, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 1000));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  PetscCall(VecGetArrayRead(x, &xs));
  for (PetscInt i = 0; i < n; i++) gap = PetscMax(gap, PetscAbsReal(PetscRealPart(xs[i]) - z[i]));
  PetscCall(VecRestoreArrayRead(x, &xs));
  CHECK(reason > 0 && gap <= 1e-8, "ssfls (%s) and Lemke differ by %g", TaoConvergedReasons[reason], (double)gap);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "ssfls and Lemke on a 30 x 30 positive definite LCP: %.1e apart (%" PetscInt_FMT " pivots)\n",
                        (double)gap, info.pivots));
  PetscCall(TaoDestroy(&tao));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&lo));
  PetscCall(VecDestroy(&hi));
  PetscCall(VecDestroy(&a.q));
  PetscCall(MatDestroy(&a.M));
  PetscCall(PetscFree2(M, q));
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
  PetscCall(TalusFacetedLCPBuild(nc, 2, W, q, mu, &n, &M, &b));
  PetscCall(TalusLemkeSolve(n, M, b, 0, z, &info));
  CHECK(info.reason == TALUS_LEMKE_SOLVED, "planar faceted LCP: %s", TalusLemkeReasonName(info.reason));
  TalusFacetedLCPImpulses(nc, 2, z, r);
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, m, m, NULL, &N));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) PetscCall(MatSetValue(N, i, j, W[i * m + j], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(N, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(N, MAT_FINAL_ASSEMBLY));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &qv));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nc, &muv));
  for (PetscInt i = 0; i < m; i++) PetscCall(VecSetValue(qv, i, q[i], INSERT_VALUES));
  for (PetscInt c = 0; c < nc; c++) PetscCall(VecSetValue(muv, c, mu[c], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(qv));
  PetscCall(VecAssemblyEnd(qv));
  PetscCall(VecAssemblyBegin(muv));
  PetscCall(VecAssemblyEnd(muv));
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
  PetscCall(AgainstSSFLS());
  PetscCall(Planar());
  {
    int status = TestSummary("test_lemke");
    PetscCall(TalusFinalize());
    return status;
  }
}
