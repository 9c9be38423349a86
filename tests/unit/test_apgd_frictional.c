/*
 * Frictional random problems: at convergence r is in K, u = N r + q in K* and r.u = 0 within the
 * tolerance, for the relaxed and the Coulomb problem; the residual falls; the best iterate is
 * returned when the iteration limit stops the solver; the gradient reuse changes nothing; the wide
 * kernels (-simd) give the scalar code's bits; bad options are refused; an empty problem is solved at once.
 */
#include "../common/check.h"
#include "../common/random_problem.h"
#include <string.h>

/* Eq. 39 computed here, independently of the solver: ||(x - Pi(x - g_d (N x + q))) / g_d||. */
/* eq. 39's residual of x in the norm given, computed apart from the solver (TalusFeasibleSetNorm's blocks) */
static PetscErrorCode Residual39(RandomProblem *prob, Vec x, PetscReal g_d, TaoResidualNorm norm, PetscReal *res)
{
  Vec                    g, p;
  const TalusFeasibleSet set = {.mu = prob->mu, .nnonneg_local = 0, .nfree_local = 0};

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x, &g));
  PetscCall(VecDuplicate(x, &p));
  PetscCall(MatMult(prob->N, x, g));
  PetscCall(VecAXPY(g, 1.0, prob->q));
  PetscCall(VecAYPX(g, -g_d, x));
  PetscCall(TalusFeasibleSetProject(&set, g, p));
  PetscCall(VecAYPX(p, -1.0, x));
  PetscCall(TalusFeasibleSetNorm(&set, p, norm, res));
  *res /= g_d;
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&p));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckConverged(TalusCCPType type)
{
  RandomProblemSpec spec = {
    .ncontacts = 300, .nbodies = 250, .mu_max = 0.6, .ground = 0.05, .velocity = 1.0, .gap = 0.1, .seed = 11};
  RandomProblem      prob;
  TalusCCP           ccp;
  Tao                tao;
  Vec                r;
  TalusCCPChecks     checks;
  TaoConvergedReason reason;
  PetscReal         *hist, rnorm;
  PetscInt           nhist, its;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  PetscCall(TestCCPCreate(PETSC_COMM_WORLD, prob.N, prob.q, prob.mu, type, 1e-10, 5000, &ccp));
  PetscCall(VecDuplicate(prob.q, &r));
  PetscCall(TestCCPSolveCold(ccp, r, &its));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  PetscCall(TalusCCPCheck(ccp, r, &checks));
  PetscCall(VecNorm(r, NORM_INFINITY, &rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %s: %s in %" PetscInt_FMT " its; r in K %.1e, u in K* %.1e, |r.u| %.1e (|r| %.2g)\n", type,
                        TaoConvergedReasons[reason], its, (double)checks.primal, (double)checks.dual,
                        (double)checks.complementarity, (double)rnorm));
  CHECK(reason == TAO_CONVERGED_GATOL, "%s problem did not converge: %s", type, TaoConvergedReasons[reason]);
  CHECK(checks.primal <= 1e-14 * (1 + rnorm), "r outside K by %g", (double)checks.primal);
  CHECK(checks.dual <= 1e-9, "u outside K* by %g", (double)checks.dual);
  CHECK(checks.complementarity <= 1e-9 * (1 + rnorm), "|r.u| = %g", (double)checks.complementarity);
  PetscCall(TaoGetConvergenceHistory(tao, NULL, &hist, NULL, NULL, &nhist));
  CHECK(nhist > 2 && hist[nhist - 1] < 1e-6 * hist[0], "residual did not fall: %g -> %g", nhist ? (double)hist[0] : 0.0,
        nhist ? (double)hist[nhist - 1] : 0.0);
  if (!strcmp(type, TALUSCCPRELAXED)) { /* apgd follows f by recurrence (no pass of its own): against f computed here */
    Vec         Nr;
    PetscScalar rNr, qr;
    PetscReal   f;
    PetscCall(VecDuplicate(r, &Nr));
    PetscCall(MatMult(prob.N, r, Nr));
    PetscCall(VecDot(r, Nr, &rNr));
    PetscCall(VecDot(prob.q, r, &qr));
    PetscCall(TaoGetSolutionStatus(tao, NULL, &f, NULL, NULL, NULL, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  objective reported %.15g, computed %.15g\n", (double)f,
                          (double)(0.5 * rNr + qr)));
    CHECK(PetscAbsReal(f - (0.5 * rNr + qr)) <= 1e-10 * (PetscAbsReal(0.5 * rNr) + PetscAbsReal(qr)),
          "reported objective %.15g, computed %.15g", (double)f, (double)(0.5 * rNr + qr));
    PetscCall(VecDestroy(&Nr));
  }
  PetscCall(VecDestroy(&r));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

/*
 * Seed 001 lines 20-23 and 39: when the limit stops the solver, the best iterate comes back, for
 * every limit from 20 to 69 iterations: some stop on a best last iterate, others (APGD is not
 * monotone) after a worse one, when the best comes from apgd's best-iterate vector; both kinds
 * must occur, on both problems.
 */
static PetscErrorCode CheckBestIterate(TalusCCPType type)
{
  RandomProblemSpec spec = {
    .ncontacts = 400, .nbodies = 150, .mu_max = 0.5, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 21};
  RandomProblem prob;
  PetscInt      earlier = 0, last = 0;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  for (PetscInt limit = 20; limit < 70; limit++) {
    TalusCCP           ccp;
    Tao                tao;
    Vec                r;
    TaoConvergedReason reason;
    PetscReal         *hist, best = PETSC_INFINITY, reported, recomputed, g_d;
    PetscInt           nhist, best_it;
    TaoResidualNorm    norm;
    PetscCall(TestCCPCreate(PETSC_COMM_WORLD, prob.N, prob.q, prob.mu, type, 1e-14, limit, &ccp));
    PetscCall(VecDuplicate(prob.q, &r));
    PetscCall(TestCCPSolveCold(ccp, r, NULL));
    PetscCall(TalusCCPGetTao(ccp, &tao));
    PetscCall(TaoGetSolutionStatus(tao, NULL, NULL, &reported, NULL, NULL, &reason));
    PetscCall(TaoAPGDGetStatistics(tao, NULL, NULL, &best_it, NULL));
    PetscCall(TaoGetConvergenceHistory(tao, NULL, &hist, NULL, NULL, &nhist));
    for (PetscInt k = 0; k < nhist; k++) best = PetscMin(best, hist[k]);
    PetscCall(TaoAPGDGetResidualStep(tao, &g_d));
    PetscCall(TalusTaoGetResidualNorm(tao, &norm));
    if (!strcmp(type, TALUSCCPRELAXED)) PetscCall(Residual39(&prob, r, g_d, norm, &recomputed));
    else recomputed = reported; /* eq. 39 with the anti-relaxed linear term: the solver's own */
    if (best_it < limit) earlier++;
    else last++;
    CHECK(reason == TAO_DIVERGED_MAXITS, "limit %" PetscInt_FMT ": expected the iteration limit, got %s", limit,
          TaoConvergedReasons[reason]);
    CHECK(reported == best, "limit %" PetscInt_FMT ": reported residual %g is not the best %g", limit, (double)reported,
          (double)best);
    CHECK(PetscAbsReal(recomputed - best) <= 1e-6 * best,
          "limit %" PetscInt_FMT ": returned iterate has residual %g, the best was %g (at iteration %" PetscInt_FMT ")",
          limit, (double)recomputed, (double)best, best_it);
    PetscCall(VecDestroy(&r));
    PetscCall(TalusCCPDestroy(&ccp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %s, limits 20-69: best iterate earlier than the last %" PetscInt_FMT
                        " times, the last one %" PetscInt_FMT " times\n",
                        type, earlier, last));
  CHECK(earlier > 0 && last > 0,
        "the limits did not exercise both cases (%" PetscInt_FMT " earlier, %" PetscInt_FMT " last)", earlier, last);
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

/* The gradient at the extrapolated point by linearity is an exact shortcut: same answer both ways. */
static PetscErrorCode CheckReuseGradients(void)
{
  RandomProblemSpec spec = {
    .ncontacts = 200, .nbodies = 200, .mu_max = 0.5, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 31};
  RandomProblem prob;
  TalusCCP      ccp;
  Vec           r1, r2;
  PetscReal     rel;
  PetscInt      its1, its2;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  PetscCall(VecDuplicate(prob.q, &r1));
  PetscCall(VecDuplicate(prob.q, &r2));
  for (int reuse = 0; reuse < 2; reuse++) {
    PetscCall(PetscOptionsSetValue(NULL, "-tao_apgd_reuse_gradients", reuse ? "true" : "false"));
    PetscCall(TestCCPCreate(PETSC_COMM_WORLD, prob.N, prob.q, prob.mu, TALUSCCPRELAXED, 1e-10, 5000,
                            &ccp)); /* convex and W definite: one solution */
    PetscCall(TestCCPSolveCold(ccp, reuse ? r2 : r1, reuse ? &its2 : &its1));
    PetscCall(TalusCCPDestroy(&ccp));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-tao_apgd_reuse_gradients"));
  PetscCall(VecRelativeDifference(r1, r2, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  reuse gradients: %" PetscInt_FMT " vs %" PetscInt_FMT
                        " iterations, solutions differ by %.1e\n",
                        its1, its2, (double)rel));
  CHECK(rel < 1e-8, "reusing gradients changed the solution by %g", (double)rel);
  PetscCall(VecDestroy(&r1));
  PetscCall(VecDestroy(&r2));
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

/*
 * The same solve with the wide kernels (apgd's passes, the cone projection, the anti-relaxation: AVX-512, then
 * AVX2) and with -simd false: every iterate's objective and residual (the convergence history), the iterations and the solution
 * bit for bit, for the Coulomb problem (the anti-relaxation's pass too) and the relaxed one. (The scaled problem,
 * whose residual is weighted, is tests/cli/test_simd.py's: a scene's N gives its diagonal.)
 */
static PetscErrorCode CheckWideEqualsScalar(void)
{
  RandomProblemSpec spec = {
    .ncontacts = 333, .nbodies = 250, .mu_max = 0.6, .ground = 0.05, .velocity = 1.0, .gap = 0.1, .seed = 41};
  RandomProblem prob;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  for (int k = 0; k < 4; k++) { /* AVX-512, then AVX2 (on a processor with AVX-512 too), each problem */
    const int        coulomb = k % 2;
    Vec              r[2];
    PetscInt         its[2], nhist[2];
    const PetscReal *f[2], *res[2];
    TalusCCP         ccp[2];
    PetscBool        same;
    TalusSIMDSetWidth(k < 2 ? 8 : 4);
    for (int wide = 0; wide < 2; wide++) {
      Tao tao;
      PetscCall(PetscOptionsSetValue(NULL, "-simd", wide ? "true" : "false"));
      PetscCall(TestCCPCreate(PETSC_COMM_WORLD, prob.N, prob.q, prob.mu, coulomb ? TALUSCCPCOULOMB : TALUSCCPRELAXED,
                              1e-8, 400, &ccp[wide]));
      PetscCall(VecDuplicate(prob.q, &r[wide]));
      PetscCall(TestCCPSolveCold(ccp[wide], r[wide], &its[wide]));
      PetscCall(TalusCCPGetTao(ccp[wide], &tao));
      PetscCall(
        TaoGetConvergenceHistory(tao, (PetscReal **)&f[wide], (PetscReal **)&res[wide], NULL, NULL, &nhist[wide]));
    }
    PetscCall(PetscOptionsClearValue(NULL, "-simd"));
    TalusSIMDEnable(PETSC_TRUE);
    PetscCall(VecEqual(r[0], r[1], &same));
    CHECK(same && its[0] == its[1], "%s: the wide kernels' solution is not the scalar one's bit for bit",
          coulomb ? "Coulomb" : "relaxed");
    same = (PetscBool)(nhist[0] == nhist[1]);
    for (PetscInt k = 0; same && k < nhist[0]; k++)
      same = (PetscBool)(!memcmp(&f[0][k], &f[1][k], sizeof(PetscReal)) &&
                         !memcmp(&res[0][k], &res[1][k], sizeof(PetscReal)));
    CHECK(same, "%s: the wide kernels' iterates differ from the scalar ones'", coulomb ? "Coulomb" : "relaxed");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  wide kernels (%" PetscInt_FMT " lanes) against scalar, %s: %" PetscInt_FMT
                          " iterations, history and solution %s\n",
                          TalusSIMDWidth(), coulomb ? "Coulomb" : "relaxed", its[1], same ? "the same" : "differ"));
    for (int wide = 0; wide < 2; wide++) {
      PetscCall(VecDestroy(&r[wide]));
      PetscCall(TalusCCPDestroy(&ccp[wide]));
    }
  }
  TalusSIMDSetWidth(8);
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

/*
 * A solver kept across problems, as the simulator keeps it across steps: after TalusCCPReset (which
 * also frees apgd's work vectors) the same problem set again is solved to the same answer in the
 * same iterations, and a problem of another size solves too; using the reset solver without a
 * problem is an error, not a crash.
 */
static PetscErrorCode CheckReset(void)
{
  RandomProblemSpec spec = {
    .ncontacts = 150, .nbodies = 120, .mu_max = 0.4, .ground = 0.1, .velocity = 1.0, .gap = 0.1, .seed = 47};
  RandomProblemSpec other = {
    .ncontacts = 90, .nbodies = 80, .mu_max = 0.4, .ground = 0.1, .velocity = 1.0, .gap = 0.1, .seed = 48};
  RandomProblem  prob, prob2;
  TalusCCP       ccp;
  Vec            r1, r2, r3;
  PetscInt       its1, its2, its3;
  PetscReal      rel;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &other, &prob2));
  PetscCall(VecDuplicate(prob.q, &r1));
  PetscCall(VecDuplicate(prob.q, &r2));
  PetscCall(VecDuplicate(prob2.q, &r3));
  PetscCall(TestCCPCreate(PETSC_COMM_WORLD, prob.N, prob.q, prob.mu, TALUSCCPCOULOMB, 1e-9, 5000, &ccp));
  PetscCall(TestCCPSolveCold(ccp, r1, &its1));
  PetscCall(TalusCCPReset(ccp));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TalusCCPSolve(ccp, r2);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ORDER, "solving after TalusCCPReset without a problem gave error %d", (int)ierr);
  PetscCall(TalusCCPSetOperator(ccp, prob2.N));
  PetscCall(TalusCCPSetLinearTerm(ccp, prob2.q));
  PetscCall(TalusCCPSetFeasibleSet(ccp, prob2.mu, 0, 0));
  PetscCall(TestCCPSolveCold(ccp, r3, &its3));
  CHECK(its3 > 0, "the smaller problem after a reset took %" PetscInt_FMT " iterations", its3);
  PetscCall(TalusCCPReset(ccp));
  PetscCall(TalusCCPSetOperator(ccp, prob.N));
  PetscCall(TalusCCPSetLinearTerm(ccp, prob.q));
  PetscCall(TalusCCPSetFeasibleSet(ccp, prob.mu, 0, 0));
  PetscCall(TestCCPSolveCold(ccp, r2, &its2));
  PetscCall(VecRelativeDifference(r1, r2, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  reset and solved again: %" PetscInt_FMT " vs %" PetscInt_FMT
                        " iterations, solutions differ by %.1e\n",
                        its1, its2, (double)rel));
  CHECK(its1 == its2 && rel == 0.0,
        "after a reset the same problem took %" PetscInt_FMT " iterations (first %" PetscInt_FMT
        ") and the solution moved by %g",
        its2, its1, (double)rel);
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(VecDestroy(&r1));
  PetscCall(VecDestroy(&r2));
  PetscCall(VecDestroy(&r3));
  PetscCall(RandomProblemDestroy(&prob));
  PetscCall(RandomProblemDestroy(&prob2));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckBadOptionsAndEmpty(void)
{
  Tao            tao;
  Vec            x;
  PetscErrorCode ierr;
  const char    *bad[][2] = {
       {"-tao_apgd_step_growth",    "1.5"},
       {"-tao_apgd_backtrack",      "0.5"},
       {"-tao_apgd_residual_step",  "-1" },
       {"-tao_apgd_residual_scale", "0"  },
       {"-tao_apgd_max_backtracks", "0"  }
  };
  TaoConvergedReason reason;

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
    PetscCall(TaoSetType(tao, TAOAPGD));
    PetscCall(PetscOptionsSetValue(NULL, bad[k][0], bad[k][1]));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TaoSetFromOptions(tao);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscOptionsClearValue(NULL, bad[k][0]));
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "%s %s was accepted", bad[k][0], bad[k][1]);
    PetscCall(TaoDestroy(&tao));
  }
  /* no contacts at all: converged at once, no division by zero */
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 0, 0, &x));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAOAPGD));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  CHECK(reason == TAO_CONVERGED_GATOL, "empty problem: %s", TaoConvergedReasons[reason]);
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(CheckConverged(TALUSCCPRELAXED));
  PetscCall(CheckConverged(TALUSCCPCOULOMB));
  PetscCall(CheckBestIterate(TALUSCCPRELAXED));
  PetscCall(CheckBestIterate(TALUSCCPCOULOMB));
  PetscCall(CheckReuseGradients());
  PetscCall(CheckWideEqualsScalar());
  PetscCall(CheckReset());
  PetscCall(CheckBadOptionsAndEmpty());
  int status = TestSummary("test_apgd_frictional");
  PetscCall(TalusFinalize());
  return status;
}
