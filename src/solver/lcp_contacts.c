/*
 * A distributed contact problem (W, q, mu) solved as seed 002's faceted LCP (include/talus/lcp.h,
 * docs/lcp.md): Lemke's method is dense and serial, so the problem is gathered whole to rank 0, built
 * there (faceted_lcp.c), solved, and the impulses scattered back into the caller's layout. PETSc's
 * semismooth complementarity solvers (ssfls, asfls) solve the same LCP as cross-checks: they are
 * Newton methods on the Fischer-Burmeister function that converge on monotone LCPs but are not
 * guaranteed to on the faceted one (it is only copositive-plus), which is why Lemke is the reference.
 * Joints come in as rows after each rank's contacts (talus's CCP layout): their one-sided rows (limits)
 * become LCP unknowns of their own, their free rows are eliminated first (lcp_free_rows.c).
 */
#include "lcp_impl.h"

const char *const TalusLCPSolvers[] = {"lemke", "ssfls", "asfls", "TalusLCPSolver", "TALUS_LCP_", NULL};

void TalusFacetedLCPSettingsDefault(TalusFacetedLCPSettings *s)
{
  s->facets = 8, s->solver = TALUS_LCP_LEMKE, s->max_pivots = 0, s->max_size = 2000;
}

/* The -lcp_ options inside the caller's options block (PetscOptionsBegin, or a Tao type's PetscOptionsHeadBegin) */
PetscErrorCode TalusFacetedLCPSettingsOptions(PetscOptionItems *PetscOptionsObject, TalusFacetedLCPSettings *s)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-lcp_facets",
                            "Friction directions per contact (edges of the pyramid that replaces Coulomb's cone), >= 2",
                            "TalusFacetedLCPBuild", s->facets, &s->facets, NULL));
  PetscCall(PetscOptionsEnum("-lcp_solver",
                             "lemke (complementary pivoting, the reference) or PETSc's ssfls or asfls (cross-checks)",
                             "TalusFacetedLCPSolveContacts", TalusLCPSolvers, (PetscEnum)s->solver,
                             (PetscEnum *)&s->solver, NULL));
  PetscCall(PetscOptionsInt("-lcp_max_pivots",
                            "Lemke's pivot cap (0: 50 n); ssfls and asfls: their iteration cap (0: 1000)",
                            "TalusLemkeSolve", s->max_pivots, &s->max_pivots, NULL));
  PetscCall(PetscOptionsInt("-lcp_max_size",
                            "The most LCP unknowns, (facets + 2) x contacts, solved (dense on one rank: n^2 doubles)",
                            "TalusFacetedLCPSolveContacts", s->max_size, &s->max_size, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFacetedLCPSettingsCheck(MPI_Comm comm, const TalusFacetedLCPSettings *s)
{
  PetscFunctionBegin;
  PetscCheck(s->facets >= 2, comm, PETSC_ERR_USER_INPUT,
             "-lcp_facets %" PetscInt_FMT ": a faceted cone needs at least 2 friction directions", s->facets);
  PetscCheck(s->max_pivots >= 0 && s->max_size > 0, comm, PETSC_ERR_USER_INPUT,
             "-lcp_max_pivots must be >= 0 and -lcp_max_size > 0, got %" PetscInt_FMT " and %" PetscInt_FMT,
             s->max_pivots, s->max_size);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFacetedLCPSettingsFromOptions(MPI_Comm comm, TalusFacetedLCPSettings *s)
{
  PetscFunctionBegin;
  TalusFacetedLCPSettingsDefault(s);
  PetscOptionsBegin(comm, NULL, "Faceted-cone LCP (seed 002 eq. 34-35; talus ccp -ccp_problem lcp)", "TalusFacetedLCP");
  PetscCall(TalusFacetedLCPSettingsOptions(PetscOptionsObject, s));
  PetscOptionsEnd();
  PetscCall(TalusFacetedLCPSettingsCheck(comm, s));
  PetscFunctionReturn(0);
}

/* W whole on rank 0 as a row-major array (NULL elsewhere) */
static PetscErrorCode GatherDense(Mat W, PetscMPIInt rank, PetscReal **Wd)
{
  PetscInt           m, lda;
  IS                 all;
  Mat               *sub, D;
  const PetscScalar *a;

  PetscFunctionBegin;
  *Wd = NULL;
  PetscCall(MatGetSize(W, &m, NULL));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, rank == 0 ? m : 0, 0, 1, &all));
  PetscCall(MatCreateSubMatrices(W, 1, &all, &all, MAT_INITIAL_MATRIX, &sub));
  if (rank == 0) {
    PetscCall(MatConvert(sub[0], MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
    PetscCall(MatDenseGetLDA(D, &lda));
    PetscCall(MatDenseGetArrayRead(D, &a));
    PetscCall(PetscMalloc1(m * m + 1, Wd));
    for (PetscInt i = 0; i < m; i++) /* column-major to row-major */
      for (PetscInt j = 0; j < m; j++) (*Wd)[i * m + j] = PetscRealPart(a[j * lda + i]);
    PetscCall(MatDenseRestoreArrayRead(D, &a));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(MatDestroySubMatrices(1, &sub));
  PetscCall(ISDestroy(&all));
  PetscFunctionReturn(0);
}

/* F(z) = M z + b and its Jacobian for the Tao complementarity types */
typedef struct {
  Mat M;
  Vec b;
} Affine;

static PetscErrorCode AffineFunction(Tao tao, Vec z, Vec F, void *ctx)
{
  Affine *a = (Affine *)ctx;
  PetscFunctionBegin;
  PetscCall(MatMultAdd(a->M, z, a->b, F));
  PetscFunctionReturn(0);
}

/* J = M afresh each time: ssfls and asfls turn the Jacobian they are given into their own in place */
static PetscErrorCode AffineJacobian(Tao tao, Vec z, Mat J, Mat Jpre, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatCopy(((Affine *)ctx)->M, J, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

/* The LCP by a Tao complementarity type on this rank alone (dense, Newton steps by LU) */
static PetscErrorCode SolveByTao(PetscInt n, const PetscReal M[], const PetscReal b[], const TalusFacetedLCPSettings *s,
                                 PetscReal z[], TalusFacetedLCPResult *res)
{
  Affine             a;
  Mat                J;
  Vec                x, F, lo, hi;
  Tao                tao;
  KSP                ksp;
  PC                 pc;
  PetscInt           its;
  TaoConvergedReason reason;
  const PetscScalar *xs;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, &a.M));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++)
      if (M[i * n + j] != 0.0) PetscCall(MatSetValue(a.M, i, j, M[i * n + j], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(a.M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(a.M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDuplicate(a.M, MAT_COPY_VALUES, &J));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &a.b));
  for (PetscInt i = 0; i < n; i++) PetscCall(VecSetValue(a.b, i, b[i], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(a.b));
  PetscCall(VecAssemblyEnd(a.b));
  PetscCall(VecDuplicate(a.b, &x));
  PetscCall(VecDuplicate(a.b, &F));
  PetscCall(VecDuplicate(a.b, &lo));
  PetscCall(VecDuplicate(a.b, &hi));
  PetscCall(VecSet(x, 0.0));
  PetscCall(VecSet(lo, 0.0));
  PetscCall(VecSet(hi, PETSC_INFINITY));
  PetscCall(TaoCreate(PETSC_COMM_SELF, &tao));
  PetscCall(TaoSetType(tao, s->solver == TALUS_LCP_SSFLS ? TAOSSFLS : TAOASFLS));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSetConstraintsRoutine(tao, F, AffineFunction, &a));
  PetscCall(TaoSetJacobianRoutine(tao, J, J, AffineJacobian, &a));
  PetscCall(TaoSetVariableBounds(tao, lo, hi));
  PetscCall(TaoSetTolerances(tao, 1e-13, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, s->max_pivots > 0 ? s->max_pivots : 1000));
  PetscCall(TaoGetKSP(tao, &ksp));
  if (ksp) { /* the Newton systems may be singular (the sigma rows, redundant contacts): GMRES without a
                factorisation that would stop on a zero pivot */
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 2 * n)); /* n steps solve it exactly */
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
  }
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, &its, NULL, NULL, NULL, NULL, &reason));
  PetscCall(VecGetArrayRead(x, &xs));
  for (PetscInt i = 0; i < n; i++) z[i] = PetscMax(PetscRealPart(xs[i]), 0.0);
  PetscCall(VecRestoreArrayRead(x, &xs));
  res->solved       = (PetscBool)(reason > 0);
  res->lemke.pivots = its;
  PetscCall(PetscSNPrintf(res->reason, sizeof(res->reason), "%s %s", s->solver == TALUS_LCP_SSFLS ? "ssfls" : "asfls",
                          TaoConvergedReasons[reason]));
  PetscCall(TaoDestroy(&tao));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&a.M));
  PetscCall(VecDestroy(&a.b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&lo));
  PetscCall(VecDestroy(&hi));
  PetscFunctionReturn(0);
}

/* max |min(M z + b, z)| */
static PetscReal Complementarity(PetscInt n, const PetscReal M[], const PetscReal b[], const PetscReal z[])
{
  PetscReal worst = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal w = b[i];
    for (PetscInt k = 0; k < n; k++) w += M[i * n + k] * z[k];
    worst = PetscMax(worst, PetscAbsReal(PetscMin(w, z[i])));
  }
  return worst;
}

/* On rank 0, the gathered rows in the order [cones | one-sided | free] from every rank's counts
   (mine: this rank's contacts, one-sided and free rows; total: all ranks'); NULL elsewhere */
static PetscErrorCode GatherOrder(MPI_Comm comm, const PetscInt mine[3], const PetscInt total[3], PetscInt **order)
{
  PetscMPIInt rank, size;
  PetscInt   *all = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  *order = NULL;
  if (rank == 0) PetscCall(PetscMalloc1(3 * size, &all));
  PetscCallMPI(MPI_Gather(mine, 3, MPIU_INT, all, 3, MPIU_INT, 0, comm));
  if (rank == 0) {
    PetscInt at[3] = {0, 3 * total[0], 3 * total[0] + total[1]}, row = 0;
    PetscCall(PetscMalloc1(3 * total[0] + total[1] + total[2] + 1, order));
    for (PetscMPIInt p = 0; p < size; p++)
      for (int kind = 0; kind < 3; kind++)
        for (PetscInt i = 0; i < (kind ? all[3 * p + kind] : 3 * all[3 * p]); i++) (*order)[at[kind]++] = row++;
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFacetedLCPSolve(Mat W, Vec q, Vec mu, PetscInt nl_local, PetscInt nf_local,
                                    const TalusFacetedLCPSettings *s, Vec r, TalusFacetedLCPResult *res)
{
  MPI_Comm    comm;
  PetscMPIInt rank;
  PetscInt    nc, m, nc_local, m_local, nl = 0, nf = 0, *order = NULL;
  VecScatter  to_q, to_mu;
  Vec         q0, mu0, r0;
  PetscReal  *Wd;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)W, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(VecGetSize(mu, &nc));
  PetscCall(VecGetSize(q, &m));
  PetscCall(VecGetLocalSize(mu, &nc_local));
  PetscCall(VecGetLocalSize(q, &m_local));
  PetscCheck(nl_local >= 0 && nf_local >= 0 && m_local == 3 * nc_local + nl_local + nf_local, PETSC_COMM_SELF,
             PETSC_ERR_ARG_SIZ,
             "a faceted LCP's rows: 3 per contact, then one-sided, then free rows; this rank has %" PetscInt_FMT
             " rows for %" PetscInt_FMT " contacts, %" PetscInt_FMT " one-sided and %" PetscInt_FMT " free rows",
             m_local, nc_local, nl_local, nf_local);
  {
    PetscInt counts[2] = {nl_local, nf_local};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, counts, 2, MPIU_INT, MPI_SUM, comm));
    nl = counts[0], nf = counts[1];
  }
  PetscCall(PetscMemzero(res, sizeof(*res)));
  res->n = (s->facets + 2) * nc + nl;
  PetscCheck(PetscMax(res->n, m) <= s->max_size, comm, PETSC_ERR_SUP,
             "the faceted LCP of %" PetscInt_FMT " contacts with %" PetscInt_FMT " facets and %" PetscInt_FMT
             " joint rows has %" PetscInt_FMT " unknowns, more than -lcp_max_size %" PetscInt_FMT
             ": it is solved dense on one rank (%.3g GB for its matrix); raise the cap or use fewer facets",
             nc, s->facets, nl + nf, PetscMax(res->n, m), s->max_size,
             (double)(PetscMax(res->n, m) * PetscMax(res->n, m) * 8.0 * 2 / 1e9));
  {
    const PetscInt mine[3] = {nc_local, nl_local, nf_local}, total[3] = {nc, nl, nf};
    PetscCall(GatherOrder(comm, mine, total, &order));
  }
  PetscCall(GatherDense(W, rank, &Wd));
  PetscCall(VecScatterCreateToZero(q, &to_q, &q0));
  PetscCall(VecScatterCreateToZero(mu, &to_mu, &mu0));
  PetscCall(VecScatterBegin(to_q, q, q0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(to_q, q, q0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(to_mu, mu, mu0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(to_mu, mu, mu0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecDuplicate(q0, &r0));
  PetscCall(VecSet(r0, 0.0));
  if (rank == 0) {
    const PetscInt     u = 3 * nc + nl;
    const PetscScalar *qa, *mua;
    PetscScalar       *ra;
    PetscReal         *M, *b, *z, *Wu, *qu, *X, *rr;
    PetscInt           n;
    PetscBool          definite;
    PetscCall(VecGetArrayRead(q0, &qa));
    PetscCall(VecGetArrayRead(mu0, &mua));
    PetscCall(TalusLCPEliminateFreeRows(m, Wd, qa, order, u, nf, &Wu, &qu, &X, &definite));
    if (!definite) {
      PetscCall(PetscStrncpy(res->reason,
                             "the joints' free rows are redundant (their block of W = B M^-1 B^T is singular): the "
                             "LCP needs them independent",
                             sizeof(res->reason)));
      n = 0, M = b = z = NULL;
    } else PetscCall(TalusFacetedLCPBuild(nc, s->facets, nl, Wu, qu, mua, &n, &M, &b));
    PetscCall(VecRestoreArrayRead(q0, &qa));
    PetscCall(VecRestoreArrayRead(mu0, &mua));
    PetscCall(PetscMalloc1(n + 1, &z));
    if (!definite) res->solved = PETSC_FALSE;
    else if (s->solver == TALUS_LCP_LEMKE) {
      PetscCall(TalusLemkeSolve(n, M, b, s->max_pivots, z, &res->lemke));
      res->solved = (PetscBool)(res->lemke.reason > 0);
      PetscCall(PetscStrncpy(res->reason, TalusLemkeReasonName(res->lemke.reason), sizeof(res->reason)));
      if (res->lemke.perturbation > 0.0) { /* degenerate: said, so that a user knows the second try happened */
        char more[64];
        PetscCall(
          PetscSNPrintf(more, sizeof(more), ", degenerate: q perturbed by %.1e", (double)res->lemke.perturbation));
        PetscCall(PetscStrlcat(res->reason, more, sizeof(res->reason)));
      }
    } else {
      PetscCall(SolveByTao(n, M, b, s, z, res));
      res->lemke.complementarity = Complementarity(n, M, b, z); /* Lemke measures its own answer */
    }
    if (definite) { /* the impulses of the rows that stayed, the free rows' from them, in the gathered order */
      PetscCall(PetscMalloc1(m + 1, &rr));
      TalusFacetedLCPImpulses(nc, s->facets, nl, z, rr);
      TalusLCPRecoverFreeRows(u, nf, X, rr, &rr[u]);
      PetscCall(VecGetArray(r0, &ra));
      for (PetscInt i = 0; i < m; i++) ra[order[i]] = rr[i];
      PetscCall(VecRestoreArray(r0, &ra));
      PetscCall(PetscFree(rr));
      PetscCall(PetscFree2(M, b));
    }
    PetscCall(PetscFree(z));
    PetscCall(PetscFree(Wu));
    PetscCall(PetscFree(qu));
    PetscCall(PetscFree(X));
    PetscCall(PetscFree(order));
  }
  PetscCallMPI(MPI_Bcast(res, (PetscMPIInt)sizeof(*res), MPI_BYTE, 0, comm));
  PetscCall(VecScatterBegin(to_q, r0, r, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(to_q, r0, r, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(PetscFree(Wd));
  PetscCall(VecDestroy(&r0));
  PetscCall(VecDestroy(&q0));
  PetscCall(VecDestroy(&mu0));
  PetscCall(VecScatterDestroy(&to_q));
  PetscCall(VecScatterDestroy(&to_mu));
  PetscFunctionReturn(0);
}
