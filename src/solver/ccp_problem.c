/*
 * TalusCCP: one cone complementarity problem
 *     u = N r + q,   r_i in K_i,   u_i in K*_i,   r_i . u_i = 0      (seed 000 eq. 14)
 * posed as the convex QP  min 1/2 r^T N r + q^T r  over the product of the sets K_i (seed 000
 * eq. 15): friction cones, non-negative rows and free rows (TalusFeasibleSet).
 *
 * N is any Mat: an assembled W read from a file, or (in the simulator) a shell applying
 * B M^-1 B^T. The object names its set and leaves the solving to a Tao: any type registered with
 * TalusCCPSolverTypeRegister (register.c, ccp_solvers.c) that can handle the set. The problem variants (relaxed,
 * Coulomb, ...) live in a PetscFunctionList (ccp_variants.c).
 */
#include "ccp_impl.h"

PetscErrorCode TalusCCPSetType(TalusCCP ccp, TalusCCPType type)
{
  PetscErrorCode (*create)(TalusCCP);
  char names[256];

  PetscFunctionBegin;
  PetscCall(TalusSolverRegisterAll());
  PetscCall(PetscFunctionListFind(TalusCCPList, type, &create));
  if (!create) {
    PetscCall(TalusFunctionListNames(TalusCCPList, names, sizeof(names)));
    SETERRQ(ccp->comm, PETSC_ERR_USER_INPUT, "-ccp_problem %s is not known: use one of %s", type, names);
  }
  PetscCall(PetscFree(ccp->type_name));
  PetscCall(PetscStrallocpy(type, &ccp->type_name));
  PetscCall(PetscMemzero(&ccp->ops, sizeof(ccp->ops)));
  PetscCall((*create)(ccp));
  if (ccp->ops.tao_type && ccp->tao) PetscCall(TaoSetType(ccp->tao, ccp->ops.tao_type));
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetType(TalusCCP ccp, TalusCCPType *type)
{
  PetscFunctionBegin;
  *type = ccp->type_name;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPCreate(MPI_Comm comm, TalusCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ccp));
  (*ccp)->comm           = comm;
  (*ccp)->scale_residual = PETSC_TRUE;
  PetscCall(TalusCCPSetType(*ccp, TALUSCCPRELAXED));
  PetscCall(TaoCreate(comm, &(*ccp)->tao));
  PetscCall(TaoSetType((*ccp)->tao, TAOAPGD)); /* the first variant, relaxed, names no type */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetOperator(TalusCCP ccp, Mat N)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)N));
  PetscCall(MatDestroy(&ccp->user_N));
  ccp->user_N = N;
  ccp->setup  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPMakeOperator(TalusCCP ccp, TalusCCPOperatorMaker maker, void *ctx)
{
  const TalusCCPSolverType *solver;
  PetscBool                 scale = PETSC_FALSE;
  Mat                       N;

  PetscFunctionBegin;
  PetscCall(TalusCCPGetSolverType(ccp, &solver));
  PetscCall(TalusCCPGetScaling(ccp, &scale));
  PetscCall((*maker)(ccp, solver ? solver->operator_form : TALUS_CCP_OPERATOR, scale, ctx, &N));
  PetscCall(TalusCCPSetOperator(ccp, N));
  PetscCall(MatDestroy(&N));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetOperatorFactors(TalusCCP ccp, Mat B, Vec inverse_mass, Vec E)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(PetscObjectReference((PetscObject)inverse_mass));
  if (E) PetscCall(PetscObjectReference((PetscObject)E));
  PetscCall(MatDestroy(&ccp->factor_B));
  PetscCall(VecDestroy(&ccp->factor_inverse_mass));
  PetscCall(VecDestroy(&ccp->factor_E));
  ccp->factor_B = B, ccp->factor_inverse_mass = inverse_mass, ccp->factor_E = E;
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetLinearTerm(TalusCCP ccp, Vec q)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(VecDestroy(&ccp->user_q));
  ccp->user_q = q;
  ccp->setup  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetFeasibleSet(TalusCCP ccp, Vec mu, PetscInt nnonneg_local, PetscInt nfree_local)
{
  PetscFunctionBegin;
  PetscCheck(nnonneg_local >= 0 && nfree_local >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Row counts must be >= 0, got %" PetscInt_FMT " non-negative and %" PetscInt_FMT " free rows",
             nnonneg_local, nfree_local);
  PetscCall(PetscObjectReference((PetscObject)mu));
  PetscCall(VecDestroy(&ccp->user_set.mu));
  ccp->user_set.mu            = mu;
  ccp->user_set.nnonneg_local = nnonneg_local;
  ccp->user_set.nfree_local   = nfree_local;
  ccp->setup                  = PETSC_FALSE;
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
  PetscBool set, scale = PETSC_FALSE, scale_set;

  PetscFunctionBegin;
  PetscCall(TalusSolverRegisterAll());
  PetscOptionsBegin(ccp->comm, ccp->prefix, "Cone complementarity problem", "TalusCCP");
  PetscCall(PetscOptionsFList(
    "-ccp_problem",
    "relaxed: the CCP of seed 000 eq. 14; coulomb: De Saxce's Coulomb problem by anti-relaxation (seed 001 eq. 28)",
    "TalusCCPSetType", TalusCCPList, ccp->type_name, name, sizeof(name), &set));
  PetscCall(
    PetscOptionsBool("-ccp_scale",
                     "Solve the problem scaled per contact by (a, b, b) from the diagonal of N, a = N_nn^-1/2, b = "
                     "(mean tangential N_tt)^-1/2, which maps each cone onto one of friction mu a / b (a scene: by "
                     "default when the solver is apgd)",
                     "TalusCCPSetScaling", ccp->scale, &scale, &scale_set));
  PetscCall(PetscOptionsBool("-ccp_scale_residual",
                             "With -ccp_scale, apgd measures its residual in the problem's units, weighting the scaled "
                             "one by 1 / d (false: in the scaled units, as talus did before checkpoint format 8)",
                             "", ccp->scale_residual, &ccp->scale_residual, NULL));
  PetscCall(TalusCCPFinishSetFromOptions(ccp, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(TalusSIMDSetFromOptions(ccp->comm));
  if (scale_set) PetscCall(TalusCCPSetScaling(ccp, scale));
  if (set) PetscCall(TalusCCPSetType(ccp, name));
  { /* a Tao type nobody registered: PETSc's own error reads as an internal one ("Unable to find ...") */
    const char *prefix;
    PetscCall(TaoGetOptionsPrefix(ccp->tao, &prefix));
    PetscCall(TaoInitializePackage());
    PetscCall(TalusCheckTypeOption(ccp->comm, prefix, "-tao_type", TaoList));
  }
  PetscCall(TaoSetFromOptions(ccp->tao));
  { /* values that would make the solve meaningless: no iteration, or a tolerance no residual can meet */
    PetscInt  max_it;
    PetscReal gatol, grtol, gttol;
    PetscCall(TaoGetMaximumIterations(ccp->tao, &max_it));
    PetscCall(TaoGetTolerances(ccp->tao, &gatol, &grtol, &gttol));
    PetscCheck(max_it >= 1, ccp->comm, PETSC_ERR_USER_INPUT,
               "-tao_max_it must be at least 1 (the contact problem would not be solved at all), got %" PetscInt_FMT,
               max_it);
    PetscCheck(gatol >= 0.0 && !PetscIsInfOrNanReal(gatol), ccp->comm, PETSC_ERR_USER_INPUT,
               "-tao_gatol must be a finite number >= 0, got %g", (double)gatol);
    PetscCheck(grtol >= 0.0 && !PetscIsInfOrNanReal(grtol) && gttol >= 0.0 && !PetscIsInfOrNanReal(gttol), ccp->comm,
               PETSC_ERR_USER_INPUT, "-tao_grtol and -tao_gttol must be finite numbers >= 0, got %g and %g",
               (double)grtol, (double)gttol);
  }
  /* the Tao type against the variant and -ccp_scale: now, not at the first solve */
  PetscCall(TalusCCPCheckSolver(ccp, NULL));
  PetscCall(TalusCCPFinishSetUpFromOptions(ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetUp(TalusCCP ccp)
{
  PetscInt nrows, ncols, nq, nset, nc;

  PetscFunctionBegin;
  if (ccp->setup) PetscFunctionReturn(0);
  PetscCheck(ccp->user_N && ccp->user_q && ccp->user_set.mu, ccp->comm, PETSC_ERR_ORDER,
             "TalusCCP needs TalusCCPSetOperator(), TalusCCPSetLinearTerm() and TalusCCPSetFeasibleSet() before "
             "TalusCCPSetUp()");
  PetscCall(MatGetLocalSize(ccp->user_N, &nrows, &ncols));
  PetscCall(VecGetLocalSize(ccp->user_q, &nq));
  PetscCall(VecGetLocalSize(ccp->user_set.mu, &nc));
  PetscCall(TalusFeasibleSetGetLocalSize(&ccp->user_set, &nset));
  PetscCheck(nrows == ncols && nrows == nq && nq == nset, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "TalusCCP local sizes disagree: N is %" PetscInt_FMT " x %" PetscInt_FMT ", q has %" PetscInt_FMT
             ", and %" PetscInt_FMT " cones + %" PetscInt_FMT " non-negative + %" PetscInt_FMT
             " free rows need %" PetscInt_FMT,
             nrows, ncols, nq, nc, ccp->user_set.nnonneg_local, ccp->user_set.nfree_local, nset);
  PetscCall(TalusCCPSetUpSolverProblem(ccp));
  PetscCall(VecDestroy(&ccp->shift));
  if (ccp->ops.update_linear_term) PetscCall(VecDuplicate(ccp->set.mu, &ccp->shift));
  PetscCall(TalusCCPSolverAttach(ccp));
  ccp->setup = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPReset(TalusCCP ccp)
{
  PetscFunctionBegin;
  PetscCall(TalusCCPResetSolverProblem(ccp));
  PetscCall(MatDestroy(&ccp->user_N));
  PetscCall(VecDestroy(&ccp->user_q));
  PetscCall(VecDestroy(&ccp->user_set.mu));
  PetscCall(VecDestroy(&ccp->shift));
  PetscCall(MatDestroy(&ccp->factor_B));
  PetscCall(VecDestroy(&ccp->factor_inverse_mass));
  PetscCall(VecDestroy(&ccp->factor_E));
  PetscCall(TalusCCPSolverRelease(ccp));
  ccp->setup = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Solves the CCP; r holds the warm start on entry and the solution (for apgd the best iterate) on exit; a solve
   that stopped short of its tolerance goes on with -ccp_finish's solver. */
PetscErrorCode TalusCCPSolve(TalusCCP ccp, Vec r)
{
  PetscFunctionBegin;
  PetscCall(TalusCCPSetUp(ccp));
  if (ccp->shift) PetscCall(VecSet(ccp->shift, 0.0));
  if (ccp->scaling) PetscCall(VecPointwiseDivide(r, r, ccp->scaling)); /* the warm start in the solver's variables */
  PetscCall(TaoSetSolution(ccp->tao, r));
  PetscCall(TaoSolve(ccp->tao));
  if (ccp->scaling) PetscCall(VecPointwiseMult(r, r, ccp->scaling));
  PetscCall(TalusCCPFinishSolve(ccp, r));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPComputeVelocity(TalusCCP ccp, Vec r, Vec u)
{
  PetscFunctionBegin;
  PetscCall(MatMult(ccp->user_N, r, u));
  PetscCall(VecAXPY(u, 1.0, ccp->user_q));
  PetscFunctionReturn(0);
}

/*
 * Distances used to judge a solution, per row block:
 *   friction cone K = {||t|| <= mu n}:
 *     primal: ||r - Pi_K(r)||;
 *     dual:   distance of v from the dual cone K* = {mu ||v_t|| <= v_n}; by Moreau's decomposition
 *             v = Pi_K*(v) + Pi_(K*)°(v) and (K*)° = -K, so it is ||Pi_K(-v)||;
 *     complementarity: |r . v|, with v = u or the variant's dual velocity (Coulomb: u + mu ||u_t|| e_n);
 *   non-negative row: primal max(0, -r), dual max(0, -u), complementarity |r u|;
 *   free row (K = R, K* = {0}): dual |u|.
 */
PetscErrorCode TalusCCPCheck(TalusCCP ccp, Vec r, TalusCCPChecks *checks)
{
  Vec                u;
  const PetscScalar *rv, *uv, *mu;
  PetscInt           nc, n;
  PetscReal          local[3] = {0, 0, 0}, global[3];
  PetscScalar        ru, qr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(r, &u));
  PetscCall(TalusCCPComputeVelocity(ccp, r, u));
  PetscCall(VecGetLocalSize(ccp->user_set.mu, &nc));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetArrayRead(r, &rv));
  PetscCall(VecGetArrayRead(u, &uv));
  PetscCall(VecGetArrayRead(ccp->user_set.mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscReal m = PetscRealPart(mu[c]);
    PetscReal       ri[3], vi[3], p[3], neg[3];
    for (PetscInt k = 0; k < 3; k++) {
      ri[k] = PetscRealPart(rv[3 * c + k]);
      vi[k] = PetscRealPart(uv[3 * c + k]);
    }
    if (ccp->ops.dual_velocity) ccp->ops.dual_velocity(m, vi);
    TalusProjectTriplet(m, ri, p);
    local[0] = PetscMax(local[0],
                        PetscSqrtReal(PetscSqr(ri[0] - p[0]) + PetscSqr(ri[1] - p[1]) + PetscSqr(ri[2] - p[2])));
    for (PetscInt k = 0; k < 3; k++) neg[k] = -vi[k];
    TalusProjectTriplet(m, neg, p); /* mu = 0 too: K = {n >= 0, t = 0}, K* = {v_n >= 0} */
    local[1] = PetscMax(local[1], PetscSqrtReal(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    local[2] = PetscMax(local[2], PetscAbsReal(ri[0] * vi[0] + ri[1] * vi[1] + ri[2] * vi[2]));
  }
  for (PetscInt i = 3 * nc; i < 3 * nc + ccp->user_set.nnonneg_local; i++) {
    const PetscReal ri = PetscRealPart(rv[i]), ui = PetscRealPart(uv[i]);
    local[0] = PetscMax(local[0], -ri);
    local[1] = PetscMax(local[1], -ui);
    local[2] = PetscMax(local[2], PetscAbsReal(ri * ui));
  }
  for (PetscInt i = 3 * nc + ccp->user_set.nnonneg_local; i < n; i++)
    local[1] = PetscMax(local[1], PetscAbsReal(PetscRealPart(uv[i])));
  PetscCall(VecRestoreArrayRead(ccp->user_set.mu, &mu));
  PetscCall(VecRestoreArrayRead(u, &uv));
  PetscCall(VecRestoreArrayRead(r, &rv));
  PetscCall(MPIU_Allreduce(local, global, 3, MPIU_REAL, MPIU_MAX, ccp->comm));
  checks->primal          = global[0];
  checks->dual            = global[1];
  checks->complementarity = global[2];
  /* objective 1/2 r.(u - q) + q.r = 1/2 (r.u + q.r) */
  PetscCall(VecDot(r, u, &ru));
  PetscCall(VecDot(r, ccp->user_q, &qr));
  checks->objective = 0.5 * PetscRealPart(ru + qr);
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(0);
}

/* The last solve's answer: its iterations (both solvers'), residual and reason (the finisher's where its answer is
   kept), and the finisher's sweeps in them (0: none) */
PetscErrorCode TalusCCPGetSolveStatus(TalusCCP ccp, PetscInt *iterations, PetscReal *residual,
                                      TaoConvergedReason *reason, PetscInt *finish_iterations)
{
  PetscInt its, sweeps = 0;

  PetscFunctionBegin;
  PetscCall(TaoGetSolutionStatus(ccp->tao, &its, NULL, residual, NULL, NULL, reason));
  if (ccp->finish_used) PetscCall(TaoGetSolutionStatus(ccp->finish, &sweeps, NULL, residual, NULL, NULL, reason));
  if (iterations) *iterations = its + sweeps;
  if (finish_iterations) *finish_iterations = sweeps;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetTao(TalusCCP ccp, Tao *tao)
{
  PetscFunctionBegin;
  *tao = ccp->tao;
  PetscFunctionReturn(0);
}

/* ASCII viewers get the problem and the Tao's own view; string viewers one line (variant, rows, solver). */
PetscErrorCode TalusCCPView(TalusCCP ccp, PetscViewer viewer)
{
  PetscInt  n = 0, nc = 0;
  PetscBool isascii, isstring;
  TaoType   tao_type;

  PetscFunctionBegin;
  if (ccp->user_q) PetscCall(VecGetSize(ccp->user_q, &n));
  if (ccp->user_set.mu) PetscCall(VecGetSize(ccp->user_set.mu, &nc));
  PetscCall(TaoGetType(ccp->tao, &tao_type));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERSTRING, &isstring));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "TalusCCP: %s problem, %" PetscInt_FMT " rows (%" PetscInt_FMT
                                     " friction cones, %" PetscInt_FMT " non-negative and %" PetscInt_FMT
                                     " free rows on this rank)\n",
                                     ccp->type_name, n, nc, ccp->user_set.nnonneg_local, ccp->user_set.nfree_local));
    if (ccp->scale)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  solved scaled per contact by the diagonal of N (-ccp_scale)\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(TaoView(ccp->tao, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    if (ccp->finish) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  a solve that stops short is finished by (-ccp_finish):\n"));
      PetscCall(PetscViewerASCIIPushTab(viewer));
      PetscCall(TaoView(ccp->finish, viewer));
      PetscCall(PetscViewerASCIIPopTab(viewer));
    }
  } else if (isstring) {
    PetscCall(PetscViewerStringSPrintf(viewer, "TalusCCP %s, %" PetscInt_FMT " rows, Tao %s", ccp->type_name, n,
                                       tao_type ? tao_type : "(none)"));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPDestroy(TalusCCP *ccp)
{
  PetscFunctionBegin;
  if (!*ccp) PetscFunctionReturn(0);
  PetscCall(TalusCCPResetSolverProblem(*ccp));
  PetscCall(MatDestroy(&(*ccp)->user_N));
  PetscCall(VecDestroy(&(*ccp)->user_q));
  PetscCall(VecDestroy(&(*ccp)->shift));
  PetscCall(VecDestroy(&(*ccp)->user_set.mu));
  PetscCall(MatDestroy(&(*ccp)->factor_B));
  PetscCall(VecDestroy(&(*ccp)->factor_inverse_mass));
  PetscCall(VecDestroy(&(*ccp)->factor_E));
  PetscCall(TaoDestroy(&(*ccp)->tao));
  PetscCall(TaoDestroy(&(*ccp)->finish));
  PetscCall(PetscFree((*ccp)->type_name));
  PetscCall(PetscFree((*ccp)->prefix));
  PetscCall(PetscFree(*ccp));
  PetscFunctionReturn(0);
}
