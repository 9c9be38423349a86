/*
 * TalusCCP: one cone complementarity problem
 *     u = N g + q,   g_i in K_i,   u_i in K*_i,   g_i . u_i = 0      (seed 000 eq. 14)
 * solved as the convex QP  min 1/2 g^T N g + q^T g  over the product of friction cones
 * (seed 000 eq. 15) with the Tao type "apgd".
 *
 * N is any Mat: an assembled W read from a file, or (in the simulator) a shell applying
 * B M^-1 B^T. Rows are ncontacts triplets then nfree bilateral rows on every rank.
 *
 * The "coulomb" problem replaces the relaxed dual condition by the De Saxce one,
 * u_i + mu_i ||u_i,t|| e_n in K*_i, by the anti-relaxation of seed 001 (eq. 28, lines 33-37):
 * after each iterate the normal linear term becomes q_n + mu ||u_t||, with u_t the tangential
 * part of the gradient N g + q (the tangential linear term never changes, so that part is u_t).
 * The shift s = mu ||u_t|| is kept per contact (8 B) and added to the normal rows by the product
 * with N (TalusMatMultAddNormalShift): a full linear-term vector updated every iteration and read
 * by every product moved about 100 B per contact and iteration, the shift 32.
 */
#include <talus.h>

const char *const TalusCCPTypes[] = {"relaxed", "coulomb", "TalusCCPType", "TALUS_CCP_", NULL};

struct _p_TalusCCP {
  MPI_Comm           comm;
  Mat                N;
  Vec                q;      /* the problem's linear term */
  Vec                shift;  /* per contact: the anti-relaxation shift of the normal linear term */
  TalusFrictionCones cones;
  TalusCCPType       type;
  Tao                tao;
  char              *prefix;
  PetscBool          setup;
};

/* The anti-relaxation shift in use, or NULL when the linear term is q alone */
static Vec Shift(TalusCCP ccp)
{
  return ccp->type == TALUS_CCP_COULOMB ? ccp->shift : NULL;
}

/* g = N x + r alone, r = q + s e_n: what apgd asks for inside its loop (it follows f by its own sums) */
static PetscErrorCode CCPGradient(Tao tao, Vec x, Vec g, void *ctx)
{
  TalusCCP ccp = (TalusCCP)ctx;

  PetscFunctionBegin;
  (void)tao;
  PetscCall(TalusMatMultAddNormalShift(ccp->N, x, ccp->q, Shift(ccp), g)); /* the matrix-free N adds r in its last pass */
  PetscFunctionReturn(0);
}

static PetscErrorCode CCPObjectiveAndGradient(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  TalusCCP           ccp   = (TalusCCP)ctx;
  Vec                shift = Shift(ccp);
  const PetscScalar *xv, *gv, *qv, *sv = NULL;
  PetscInt           n, nc = 0;
  PetscReal          sum = 0.0;

  PetscFunctionBegin;
  PetscCall(CCPGradient(tao, x, g, ctx));
  /* f = 1/2 x.N x + r.x = 1/2 x.(g + r), r = q + s e_n: one pass and one reduction */
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArrayRead(g, &gv));
  PetscCall(VecGetArrayRead(ccp->q, &qv));
  for (PetscInt i = 0; i < n; i++) sum += PetscRealPart(xv[i] * (gv[i] + qv[i]));
  if (shift) {
    PetscCall(VecGetLocalSize(shift, &nc));
    PetscCall(VecGetArrayRead(shift, &sv));
    for (PetscInt c = 0; c < nc; c++) sum += PetscRealPart(xv[3 * c] * sv[c]);
    PetscCall(VecRestoreArrayRead(shift, &sv));
  }
  PetscCall(VecRestoreArrayRead(ccp->q, &qv));
  PetscCall(VecRestoreArrayRead(g, &gv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, ccp->comm));
  *f = 0.5 * sum;
  PetscFunctionReturn(0);
}

/* Anti-relaxation (seed 001 eq. 28, lines 33-37) of local rows [start, start + n), whole triplets:
   r_n = q_n + s with s = mu ||u_t||, u_t = (N x + r)_t the tangential part of the gradient g. */
static PetscErrorCode CCPAntiRelax(Tao tao, PetscInt start, PetscInt n, const PetscScalar x[], const PetscScalar g[], PetscScalar dr[], void *ctx)
{
  TalusCCP           ccp = (TalusCCP)ctx;
  const PetscScalar *mu;
  PetscScalar       *sv;
  PetscInt           nc, j = 0, c = start / 3;

  PetscFunctionBegin;
  (void)tao, (void)x;
  PetscCall(VecGetLocalSize(ccp->cones.mu, &nc));
  PetscCall(VecGetArrayRead(ccp->cones.mu, &mu));
  PetscCall(VecGetArray(ccp->shift, &sv));
  for (; j < n && start + j < 3 * nc; j += 3, c++) { /* the contact index counted, as in cones.c */
    /* this is the chunk's first touch (apgd calls the update before its own pass): prefetch
       768 B ahead in g and 256 B ahead in the per-contact arrays */
    __builtin_prefetch(&g[j + 96]), __builtin_prefetch(&mu[c + 32]), __builtin_prefetch(&sv[c + 32]);
    const PetscReal s_next = PetscRealPart(mu[c]) * PetscSqrtReal(PetscRealPart(g[j + 1] * g[j + 1] + g[j + 2] * g[j + 2]));
    dr[j]                  = s_next - sv[c];
    dr[j + 1] = dr[j + 2] = 0.0;
    sv[c]                  = s_next;
  }
  for (; j < n; j++) dr[j] = 0.0; /* bilateral rows keep their linear term */
  PetscCall(VecRestoreArray(ccp->shift, &sv));
  PetscCall(VecRestoreArrayRead(ccp->cones.mu, &mu));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPCreate(MPI_Comm comm, TalusCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ccp));
  (*ccp)->comm = comm;
  (*ccp)->type = TALUS_CCP_RELAXED;
  PetscCall(TaoCreate(comm, &(*ccp)->tao));
  PetscCall(TaoSetType((*ccp)->tao, TAOAPGD));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetOperator(TalusCCP ccp, Mat N)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)N));
  PetscCall(MatDestroy(&ccp->N));
  ccp->N     = N;
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetLinearTerm(TalusCCP ccp, Vec q)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(VecDestroy(&ccp->q));
  ccp->q     = q;
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetFriction(TalusCCP ccp, Vec mu, PetscInt nfree_local)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)mu));
  PetscCall(VecDestroy(&ccp->cones.mu));
  ccp->cones.mu          = mu;
  ccp->cones.nfree_local = nfree_local;
  ccp->setup             = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetType(TalusCCP ccp, TalusCCPType type)
{
  PetscFunctionBegin;
  ccp->type  = type;
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetType(TalusCCP ccp, TalusCCPType *type)
{
  PetscFunctionBegin;
  *type = ccp->type;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetOptionsPrefix(TalusCCP ccp, const char prefix[])
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ccp->prefix));
  PetscCall(PetscStrallocpy(prefix, &ccp->prefix));
  PetscCall(TaoSetOptionsPrefix(ccp->tao, prefix));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetFromOptions(TalusCCP ccp)
{
  char      name[64];
  PetscBool set;

  PetscFunctionBegin;
  /* Read as a string and matched here: PETSc 3.18's enum parsing overruns a buffer on an unknown
     value (seen under AddressSanitizer), and this way the error names the valid choices. */
  PetscCall(PetscStrncpy(name, TalusCCPTypes[ccp->type], sizeof(name)));
  PetscOptionsBegin(ccp->comm, ccp->prefix, "Cone complementarity problem", "TalusCCP");
  PetscCall(PetscOptionsString("-ccp_problem", "relaxed: the CCP of seed 000 eq. 14; coulomb: De Saxce's Coulomb problem by anti-relaxation (seed 001 eq. 28)", "TalusCCPSetType", name, name, sizeof(name), &set));
  PetscOptionsEnd();
  if (set) {
    PetscBool relaxed, coulomb;
    PetscCall(PetscStrcasecmp(name, TalusCCPTypes[TALUS_CCP_RELAXED], &relaxed));
    PetscCall(PetscStrcasecmp(name, TalusCCPTypes[TALUS_CCP_COULOMB], &coulomb));
    PetscCheck(relaxed || coulomb, ccp->comm, PETSC_ERR_USER_INPUT, "-ccp_problem %s is not known: use relaxed or coulomb", name);
    PetscCall(TalusCCPSetType(ccp, coulomb ? TALUS_CCP_COULOMB : TALUS_CCP_RELAXED));
  }
  PetscCall(TaoSetFromOptions(ccp->tao));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetUp(TalusCCP ccp)
{
  PetscBool is_apgd;
  PetscInt  nrows, ncols, nq, nc;

  PetscFunctionBegin;
  if (ccp->setup) PetscFunctionReturn(0);
  PetscCheck(ccp->N && ccp->q && ccp->cones.mu, ccp->comm, PETSC_ERR_ORDER, "TalusCCP needs TalusCCPSetOperator(), TalusCCPSetLinearTerm() and TalusCCPSetFriction() before TalusCCPSetUp()");
  PetscCall(MatGetLocalSize(ccp->N, &nrows, &ncols));
  PetscCall(VecGetLocalSize(ccp->q, &nq));
  PetscCall(VecGetLocalSize(ccp->cones.mu, &nc));
  PetscCheck(nrows == ncols && nrows == nq && nq == 3 * nc + ccp->cones.nfree_local, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "TalusCCP local sizes disagree: N is %" PetscInt_FMT " x %" PetscInt_FMT ", q has %" PetscInt_FMT ", and %" PetscInt_FMT " contacts + %" PetscInt_FMT " free rows need %" PetscInt_FMT, nrows, ncols, nq, nc, ccp->cones.nfree_local, 3 * nc + ccp->cones.nfree_local);
  PetscCall(PetscObjectTypeCompare((PetscObject)ccp->tao, TAOAPGD, &is_apgd));
  PetscCheck(is_apgd, ccp->comm, PETSC_ERR_SUP, "Only the Tao type \"apgd\" handles friction cones; remove -tao_type or set it to apgd");
  PetscCall(VecDestroy(&ccp->shift));
  PetscCall(VecDuplicate(ccp->cones.mu, &ccp->shift));
  PetscCall(TaoSetObjectiveAndGradient(ccp->tao, NULL, CCPObjectiveAndGradient, ccp));
  PetscCall(TaoSetGradient(ccp->tao, NULL, CCPGradient, ccp));
  PetscCall(TaoAPGDSetProjection(ccp->tao, 3, TalusFrictionConesProjectTao, &ccp->cones));
  PetscCall(TaoAPGDSetLinearTermUpdate(ccp->tao, ccp->type == TALUS_CCP_COULOMB ? CCPAntiRelax : NULL, ccp));
  ccp->setup = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPReset(TalusCCP ccp)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ccp->N));
  PetscCall(VecDestroy(&ccp->q));
  PetscCall(VecDestroy(&ccp->cones.mu));
  PetscCall(VecDestroy(&ccp->shift));
  PetscCall(TaoAPGDReleaseWorkVectors(ccp->tao));
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Solves the CCP; r holds the warm start on entry and the solution (the best iterate) on exit. */
PetscErrorCode TalusCCPSolve(TalusCCP ccp, Vec r)
{
  PetscFunctionBegin;
  PetscCall(TalusCCPSetUp(ccp));
  PetscCall(VecSet(ccp->shift, 0.0));
  PetscCall(TaoSetSolution(ccp->tao, r));
  PetscCall(TaoSolve(ccp->tao));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPComputeVelocity(TalusCCP ccp, Vec r, Vec u)
{
  PetscFunctionBegin;
  PetscCall(MatMult(ccp->N, r, u));
  PetscCall(VecAXPY(u, 1.0, ccp->q));
  PetscFunctionReturn(0);
}

/*
 * Distances used to judge a solution, per contact with the cone K = {||t|| <= mu n}:
 *   primal: ||r - Pi_K(r)||;
 *   dual:   distance of v from the dual cone K* = {mu ||v_t|| <= v_n}; by Moreau's decomposition
 *           v = Pi_K*(v) + Pi_(K*)°(v) and (K*)° = -K, so it is ||Pi_K(-v)||;
 *   complementarity: |r . v|;
 * with v = u (relaxed) or v = u + mu ||u_t|| e_n (Coulomb).
 */
PetscErrorCode TalusCCPCheck(TalusCCP ccp, Vec r, TalusCCPChecks *checks)
{
  Vec                u;
  const PetscScalar *rv, *uv, *mu;
  PetscInt           nc;
  PetscReal          local[3] = {0, 0, 0}, global[3];
  PetscScalar        ru, qr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(r, &u));
  PetscCall(TalusCCPComputeVelocity(ccp, r, u));
  PetscCall(VecGetLocalSize(ccp->cones.mu, &nc));
  PetscCall(VecGetArrayRead(r, &rv));
  PetscCall(VecGetArrayRead(u, &uv));
  PetscCall(VecGetArrayRead(ccp->cones.mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscReal m = PetscRealPart(mu[c]);
    PetscReal       ri[3], vi[3], p[3], neg[3];
    for (PetscInt k = 0; k < 3; k++) {
      ri[k] = PetscRealPart(rv[3 * c + k]);
      vi[k] = PetscRealPart(uv[3 * c + k]);
    }
    if (ccp->type == TALUS_CCP_COULOMB) vi[0] += m * PetscSqrtReal(vi[1] * vi[1] + vi[2] * vi[2]);
    TalusProjectTriplet(m, ri, p);
    local[0] = PetscMax(local[0], PetscSqrtReal(PetscSqr(ri[0] - p[0]) + PetscSqr(ri[1] - p[1]) + PetscSqr(ri[2] - p[2])));
    for (PetscInt k = 0; k < 3; k++) neg[k] = -vi[k];
    TalusProjectTriplet(m, neg, p); /* mu = 0 too: K = {n >= 0, t = 0}, K* = {v_n >= 0} */
    local[1] = PetscMax(local[1], PetscSqrtReal(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    local[2] = PetscMax(local[2], PetscAbsReal(ri[0] * vi[0] + ri[1] * vi[1] + ri[2] * vi[2]));
  }
  PetscCall(VecRestoreArrayRead(ccp->cones.mu, &mu));
  PetscCall(VecRestoreArrayRead(u, &uv));
  PetscCall(VecRestoreArrayRead(r, &rv));
  PetscCall(MPIU_Allreduce(local, global, 3, MPIU_REAL, MPIU_MAX, ccp->comm));
  checks->primal          = global[0];
  checks->dual            = global[1];
  checks->complementarity = global[2];
  /* objective 1/2 r.(u - q) + q.r = 1/2 (r.u + q.r) */
  PetscCall(VecDot(r, u, &ru));
  PetscCall(VecDot(r, ccp->q, &qr));
  checks->objective = 0.5 * PetscRealPart(ru + qr);
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetTao(TalusCCP ccp, Tao *tao)
{
  PetscFunctionBegin;
  *tao = ccp->tao;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPView(TalusCCP ccp, PetscViewer viewer)
{
  PetscInt n = 0, nc = 0;

  PetscFunctionBegin;
  if (ccp->q) PetscCall(VecGetSize(ccp->q, &n));
  if (ccp->cones.mu) PetscCall(VecGetSize(ccp->cones.mu, &nc));
  PetscCall(PetscViewerASCIIPrintf(viewer, "TalusCCP: %s problem, %" PetscInt_FMT " rows (%" PetscInt_FMT " contacts)\n", TalusCCPTypes[ccp->type], n, nc));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(TaoView(ccp->tao, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPDestroy(TalusCCP *ccp)
{
  PetscFunctionBegin;
  if (!*ccp) PetscFunctionReturn(0);
  PetscCall(MatDestroy(&(*ccp)->N));
  PetscCall(VecDestroy(&(*ccp)->q));
  PetscCall(VecDestroy(&(*ccp)->shift));
  PetscCall(VecDestroy(&(*ccp)->cones.mu));
  PetscCall(TaoDestroy(&(*ccp)->tao));
  PetscCall(PetscFree((*ccp)->prefix));
  PetscCall(PetscFree(*ccp));
  PetscFunctionReturn(0);
}
