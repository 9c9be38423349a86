/*
 * TalusCCP is solver-neutral: the same frictionless random contact problems (W = B M^-1 B^T,
 * mu = 0) solved through TalusCCP by apgd and by TAO's bound-constrained types registered for it,
 * on 1-4 ranks. A convex QP has one optimal value and one u = W r + q (W may be singular), so those
 * are compared, together with the complementarity checks of each answer. Then the other row kinds:
 * the last contacts of each rank become 3 non-negative rows and 3 free rows, solved by apgd and
 * blmvm alike, and by seed 002's faceted LCP (Lemke, the free rows eliminated, the non-negative ones
 * LCP unknowns; frictionless, so the same QP: the same u = N r + q to 1e-7, u = 0 on the free rows).
 * And the unhappy paths: a type that cannot take friction cones with mu > 0, a type
 * with no attachment, an unknown problem variant, each refused with a message.
 */
#include "../common/check.h"
#include "../common/random_problem.h"
#include <talus/lcp.h>

/* Solves from r = 0 with the given Tao type; returns the objective, u = N r + q and the checks.
   apgd must converge. TAO's quasi-Newton and conjugate-gradient types often stop at their iteration
   cap or with a stalled line search short of their own gradient-norm tolerance (on 3-4 ranks even
   with W definite) while their answer already agrees with apgd's to 1e-9: for them the answer is
   what the caller judges, and only a failure of another kind (NaN, ...) counts here. */
static PetscErrorCode SolveWith(const char tao_type[], TalusCCPType variant, Mat N, Vec q, Vec mu, PetscInt nnonneg,
                                PetscInt nfree, PetscReal gatol, Vec u, TalusCCPChecks *checks, PetscInt *its)
{
  TalusCCP           ccp;
  Tao                tao;
  Vec                r;
  TaoConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(TalusCCPCreate(PETSC_COMM_WORLD, &ccp));
  PetscCall(TalusCCPSetOperator(ccp, N));
  PetscCall(TalusCCPSetLinearTerm(ccp, q));
  PetscCall(TalusCCPSetFeasibleSet(ccp, mu, nnonneg, nfree));
  PetscCall(TalusCCPSetType(ccp, variant));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetType(tao, tao_type));
  PetscCall(TaoSetTolerances(tao, gatol, 0.0, 0.0));
  /* apgd converges in a few hundred; TAO's types are capped at 300, where their answers agree with apgd's to
     6e-7 or better on 1-4 ranks, 17 times within the 1e-5 the checks allow (blmvm and bqnls reach any cap on most
     of these problems: at 1500 they agreed to 3e-7, and the test took 4 times as long) */
  PetscCall(TaoSetMaximumIterations(tao, strcmp(tao_type, TAOAPGD) ? 300 : 5000));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 1000000));
  PetscCall(TalusCCPSetFromOptions(ccp));
  PetscCall(VecDuplicate(q, &r));
  PetscCall(VecSet(r, 0.0));
  PetscCall(TalusCCPSolve(ccp, r));
  PetscCall(TaoGetSolutionStatus(tao, its, NULL, NULL, NULL, NULL, &reason));
  if (!strcmp(tao_type, TAOAPGD)) CHECK(reason > 0, "apgd did not converge: %s", TaoConvergedReasons[reason]);
  else
    CHECK(reason > 0 || reason == TAO_DIVERGED_MAXITS || reason == TAO_DIVERGED_LS_FAILURE, "%s failed: %s", tao_type,
          TaoConvergedReasons[reason]);
  PetscCall(TalusCCPComputeVelocity(ccp, r, u));
  PetscCall(TalusCCPCheck(ccp, r, checks));
  { /* the view names the variant and the solver */
    PetscViewer viewer;
    char        text[8192] = "";
    PetscCall(PetscViewerStringOpen(PETSC_COMM_WORLD, text, sizeof(text), &viewer));
    PetscCall(TalusCCPView(ccp, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    CHECK(strstr(text, variant) && strstr(text, tao_type),
          "TalusCCPView does not name the %s problem and the type %s:\n%s", variant, tao_type, text);
  }
  PetscCall(VecDestroy(&r));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareTypes(Mat N, Vec q, Vec mu, PetscInt nnonneg, PetscInt nfree, const char *what)
{
  const char *const types[]    = {TAOBLMVM, TAOBQNLS, TAOBNCG};
  const char *const variants[] = {TALUSCCPRELAXED, TALUSCCPCOULOMB};
  Vec               u_apgd, u;
  TalusCCPChecks    c_apgd, c;
  PetscInt          its_apgd, its;
  PetscReal         rel;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, &u_apgd));
  PetscCall(VecDuplicate(q, &u));
  PetscCall(SolveWith(TAOAPGD, TALUSCCPRELAXED, N, q, mu, nnonneg, nfree, 1e-10, u_apgd, &c_apgd, &its_apgd));
  CHECK(c_apgd.primal < 1e-12 && c_apgd.dual < 1e-7 && c_apgd.complementarity < 1e-7,
        "%s: apgd's answer is not complementary: %g %g %g", what, (double)c_apgd.primal, (double)c_apgd.dual,
        (double)c_apgd.complementarity);
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
    for (size_t v = 0; v < 2; v++) { /* mu = 0: the Coulomb problem is the relaxed one */
      PetscCall(SolveWith(types[k], variants[v], N, q, mu, nnonneg, nfree, 1e-9, u, &c, &its));
      PetscCall(VecRelativeDifference(u_apgd, u, &rel));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "  %s, %s %s: f = %.12g (%" PetscInt_FMT " its) against apgd's %.12g (%" PetscInt_FMT
                            " its); u differs by %.1e\n",
                            what, types[k], variants[v], (double)c.objective, its, (double)c_apgd.objective, its_apgd,
                            (double)rel));
      CHECK(PetscAbsReal(c.objective - c_apgd.objective) <= 1e-6 * PetscAbsReal(c_apgd.objective),
            "%s: objective %s %.12g vs apgd %.12g", what, types[k], (double)c.objective, (double)c_apgd.objective);
      CHECK(rel <= 1e-5, "%s: u = N r + q of %s and apgd differ by %g relative", what, types[k], (double)rel);
      CHECK(c.primal < 1e-10, "%s: %s's answer leaves the set by %g", what, types[k], (double)c.primal);
    }
  }
  PetscCall(VecDestroy(&u_apgd));
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(0);
}

/* The same problem with each rank's last two contacts turned into 3 non-negative and 3 free rows. */
static PetscErrorCode MixedRows(RandomProblem *prob)
{
  Vec      mu;
  PetscInt nc;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(prob->mu, &nc));
  PetscCheck(nc >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "test problem too small: %" PetscInt_FMT " contacts on a rank", nc);
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nc - 2, PETSC_DETERMINE, &mu));
  PetscCall(VecSet(mu, 0.0));
  PetscCall(CompareTypes(prob->N, prob->q, mu, 3, 3, "non-negative and free rows"));
  { /* seed 002's faceted LCP of the same rows (W gathered, free rows eliminated on rank 0) */
    TalusFacetedLCPSettings settings = {.facets = 4, .solver = TALUS_LCP_LEMKE, .max_pivots = 0, .max_size = 4000};
    TalusFacetedLCPResult   res;
    TalusCCPChecks          c;
    Vec                     r, u, u_apgd;
    Mat                     W;
    PetscInt                its, n;
    PetscReal               rel, free_rows = 0.0;
    const PetscScalar      *ua;
    PetscCall(VecDuplicate(prob->q, &r));
    PetscCall(VecDuplicate(prob->q, &u));
    PetscCall(VecDuplicate(prob->q, &u_apgd));
    PetscCall(SolveWith(TAOAPGD, TALUSCCPRELAXED, prob->N, prob->q, mu, 3, 3, 1e-10, u_apgd, &c, &its));
    PetscCall(TalusDelassusAssemble(prob->B, prob->inverse_mass, &W)); /* the LCP is dense: W formed */
    PetscCall(TalusFacetedLCPSolve(W, prob->q, mu, 3, 3, &settings, r, &res));
    PetscCall(MatDestroy(&W));
    PetscCall(MatMultAdd(prob->N, r, prob->q, u));
    PetscCall(VecRelativeDifference(u_apgd, u, &rel));
    PetscCall(VecGetLocalSize(u, &n));
    PetscCall(VecGetArrayRead(u, &ua));
    for (PetscInt i = n - 3; i < n; i++) free_rows = PetscMax(free_rows, PetscAbsReal(PetscRealPart(ua[i])));
    PetscCall(VecRestoreArrayRead(u, &ua));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &free_rows, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    CHECK(res.solved && res.lemke.complementarity < 1e-12 && rel < 1e-7 && free_rows < 1e-12,
          "faceted LCP with joint rows: %s, min(w, z) %g, u %g from apgd's (relative), free rows' u %g", res.reason,
          (double)res.lemke.complementarity, (double)rel, (double)free_rows);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  faceted LCP, free rows eliminated: %" PetscInt_FMT " unknowns, %s in %" PetscInt_FMT
                          " pivots; u %.1e from apgd's, free rows' u %.1e\n",
                          res.n, res.reason, res.lemke.pivots, (double)rel, (double)free_rows));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&u_apgd));
  }
  PetscCall(VecDestroy(&mu));
  PetscFunctionReturn(0);
}

/* Expects err to be the code of a refusal, and says so. */
static PetscErrorCode ExpectRefusal(PetscErrorCode err, PetscErrorCode expected, const char *what)
{
  PetscFunctionBegin;
  CHECK(err == expected, "%s: error %d, expected %d", what, (int)err, (int)expected);
  PetscFunctionReturn(0);
}

static PetscErrorCode Refusals(RandomProblem *frictional)
{
  TalusCCP       ccp;
  Tao            tao;
  Vec            r;
  PetscErrorCode err;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(frictional->q, &r));
  PetscCall(VecSet(r, 0.0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (int k = 0; k < 2; k++) {
    PetscCall(TalusCCPCreate(PETSC_COMM_WORLD, &ccp));
    PetscCall(TalusCCPSetOperator(ccp, frictional->N));
    PetscCall(TalusCCPSetLinearTerm(ccp, frictional->q));
    PetscCall(TalusCCPSetFeasibleSet(ccp, frictional->mu, 0, 0));
    PetscCall(TalusCCPGetTao(ccp, &tao));
    PetscCall(TaoSetType(tao, k == 0 ? TAOBLMVM : TAONM));
    err = TalusCCPSolve(ccp, r);
    PetscCall(ExpectRefusal(err, PETSC_ERR_SUP, k == 0 ? "blmvm with friction cones" : "nm, which has no attachment"));
    PetscCall(TalusCCPDestroy(&ccp));
  }
  PetscCall(TalusCCPCreate(PETSC_COMM_WORLD, &ccp));
  err = TalusCCPSetType(ccp, "frictionless");
  PetscCall(ExpectRefusal(err, PETSC_ERR_USER_INPUT, "unknown problem variant"));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(PetscPopErrorHandler());
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  RandomProblemSpec frictionless = {
    .ncontacts = 120, .nbodies = 100, .mu_max = 0.0, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 11};
  RandomProblemSpec singular = {
    .ncontacts = 200, .nbodies = 50, .mu_max = 0.0, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 12};
  RandomProblemSpec frictional = {
    .ncontacts = 40, .nbodies = 30, .mu_max = 0.5, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 13};
  RandomProblem prob;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &frictionless, &prob));
  PetscCall(CompareTypes(prob.N, prob.q, prob.mu, 0, 0, "120 contacts, W definite"));
  PetscCall(MixedRows(&prob));
  PetscCall(RandomProblemDestroy(&prob));
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &singular, &prob));
  PetscCall(CompareTypes(prob.N, prob.q, prob.mu, 0, 0, "200 contacts, W singular"));
  PetscCall(RandomProblemDestroy(&prob));
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &frictional, &prob));
  PetscCall(Refusals(&prob));
  PetscCall(RandomProblemDestroy(&prob));
  int status = TestSummary("test_ccp_solvers");
  PetscCall(TalusFinalize());
  return status;
}
