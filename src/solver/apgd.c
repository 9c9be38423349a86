/*
 * The Tao type "apgd": accelerated projected gradient descent with adaptive step, gradient-based
 * restart and best-iterate fallback, as stated in seed 001 section 2.3 (the algorithm box, lines
 * 1-39). It minimises the quadratic f(x) = 1/2 x^T N x + r^T x over a closed convex set C.
 *
 * The solver never sees N: it calls the objective-and-gradient callback (one product with N per
 * call) and the projection. Its vector work is three fused passes per iteration over the local
 * rows (apgd_kernels.c) and one reduction, so it runs unchanged on distributed Vecs on any
 * number of ranks.
 *
 * The feasible set is a product of sets within each rank's rows; in order of precedence:
 *   - the projection given with TaoAPGDSetProjection() (e.g. products of friction cones), or
 *   - the box of TaoSetVariableBounds(), or
 *   - the whole space (plain accelerated gradient descent).
 */
#include "apgd_impl.h"
#include "reproducible_sum.h"

/*
 * Line 6: L_0 = ||N (x_0 - xhat_0)|| / ||x_0 - xhat_0|| with xhat_0 = x_0 + 1 (the paper's gamma_0 = 0,
 * gammahat_0 = 1, shifted to the warm start). N (x_0 - xhat_0) = g(x_0) - g(xhat_0) needs one
 * extra gradient and no access to N. y and g(y) are free before the loop and serve as scratch.
 */
static PetscErrorCode APGDEstimateLipschitz(Tao tao, Vec x, Vec g_x, PetscReal *L)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;
  PetscReal f_hat, num;
  PetscInt  n;

  PetscFunctionBegin;
  if (apgd->lipschitz0 > 0.0) {
    *L = apgd->lipschitz0;
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetSize(x, &n));
  PetscCall(VecCopy(x, apgd->y));
  PetscCall(VecShift(apgd->y, 1.0));
  PetscCall(TaoComputeObjectiveAndGradient(tao, apgd->y, &f_hat, apgd->g_y));
  PetscCall(VecAYPX(apgd->g_y, -1.0, g_x));
  /* not VecNorm: its sum of the ranks' partial sums differs in the last bit between rank counts, and 1/L is the
     step of every iteration after (reproducible_sum.c); VecNorm only where a checkpoint's run used it */
  if (apgd->reproducible_lipschitz) PetscCall(TalusVecNormReproducible(apgd->g_y, &num));
  else PetscCall(VecNorm(apgd->g_y, NORM_2, &num));
  *L = num / PetscSqrtReal((PetscReal)n);
  /* N = 0 (no coupling) or a non-finite estimate: any positive L is a valid start, backtracking fixes it */
  if (!(*L > 0.0) || PetscIsInfOrNanReal(*L)) *L = 1.0;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_APGD(Tao);

/*
 * A problem whose linear term follows the iterate (the Coulomb problem's anti-relaxation, lines
 * 33-37) moves it one iteration behind: x's residual is measured against the linear term of the
 * previous iterate. A residual below the tolerance may then be that of another problem: a single
 * sliding contact, whose scaled problem one step solves exactly, would stop at the relaxed
 * solution (lifting off at mu |u_t|). So a convergence is confirmed with the update applied at x,
 * and the iteration goes on if the residual is then above the tolerance. Before the first iteration
 * y is x, and its gradient follows x's.
 */
static PetscErrorCode APGDConfirmConvergence(Tao tao, Vec x, Vec g_x, Vec g_prev, PetscReal *f_x, PetscReal *residual)
{
  TAO_APGD    *apgd = (TAO_APGD *)tao->data;
  APGDTestSums t;
  PetscReal    dr_dot_x;

  PetscFunctionBegin;
  if (!apgd->confirm || !apgd->linear_update || tao->reason != TAO_CONVERGED_GATOL) PetscFunctionReturn(0);
  PetscCall(APGDUpdateLinearTerm(tao, x, g_x, g_prev, &dr_dot_x));
  if (tao->niter == 0) PetscCall(VecCopy(g_x, apgd->g_y));
  *f_x += dr_dot_x;
  PetscCall(APGDTest(tao, x, g_x, &t)); /* only its residual is wanted here */
  *residual     = t.residual;
  tao->residual = *residual, tao->fc = *f_x;
  if (apgd->best_iteration == tao->niter) apgd->best_residual = *residual; /* x is the best iterate */
  if (*residual > tao->gatol) tao->reason = tao->niter >= tao->max_it ? TAO_DIVERGED_MAXITS : TAO_CONTINUE_ITERATING;
  PetscFunctionReturn(0);
}

/* The feasible set of this solve: the user's projection, else the bounds' box, else none. */
static PetscErrorCode APGDBeginSolveSet(Tao tao)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  if (apgd->user_projection || !tao->bounded) PetscFunctionReturn(0);
  PetscCall(TaoComputeVariableBounds(tao));
  PetscCall(VecGetArrayRead(tao->XL, &apgd->lower));
  PetscCall(VecGetArrayRead(tao->XU, &apgd->upper));
  apgd->project     = APGDProjectBounds;
  apgd->project_ctx = apgd;
  apgd->block_size  = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode APGDEndSolveSet(Tao tao)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  if (!apgd->lower) PetscFunctionReturn(0);
  PetscCall(VecRestoreArrayRead(tao->XL, &apgd->lower));
  PetscCall(VecRestoreArrayRead(tao->XU, &apgd->upper));
  apgd->lower = apgd->upper = NULL;
  apgd->project             = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSolve_APGD(Tao tao)
{
  TAO_APGD    *apgd = (TAO_APGD *)tao->data;
  Vec          x, g_x, x_prev, g_prev, swap;
  PetscReal    f_x, L = 1.0, step, theta = 1.0, beta = 0.0, residual;
  PetscReal    progress_residual  = PETSC_INFINITY; /* the best residual when it last fell by 1 % */
  PetscInt     progress_iteration = 0;
  PetscBool    save_best          = PETSC_FALSE; /* x is the best iterate so far and apgd->best does not hold it yet */
  APGDTestSums t;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(TaoSetUp_APGD(tao)); /* TaoSolve sets up once; the problem's size may have changed since */
  /* x, g_x: the iterate and its gradient; x_prev, g_prev: the previous ones. The four buffers
     trade roles at each iteration instead of being copied, so x may end in a work vector: it is
     copied back to tao->solution after the loop. */
  x = tao->solution, g_x = tao->gradient, x_prev = apgd->x_prev, g_prev = apgd->g_prev;
  apgd->restarts = apgd->backtracks = 0;
  apgd->best_iteration              = 0;
  apgd->stagnated                   = 0;
  tao->reason                       = TAO_CONTINUE_ITERATING;

  PetscCall(VecGetSize(x, &n));
  if (n == 0) { /* no contacts: nothing to solve, and line 6 would divide by zero */
    apgd->best_residual = 0.0;
    tao->reason         = TAO_CONVERGED_GATOL;
    PetscCall(TaoMonitor(tao, 0, 0.0, 0.0, 0.0, 0.0));
    PetscFunctionReturn(0);
  }
  if (apgd->residual_weight) {
    PetscInt nw;
    PetscCall(VecGetSize(apgd->residual_weight, &nw));
    PetscCheck(nw == n, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_SIZ,
               "apgd's residual weights have %" PetscInt_FMT " rows and the solution %" PetscInt_FMT, nw, n);
  }
  PetscCall(APGDBeginSolveSet(tao));

  /* Lines 1-5, with the caller's initial vector as a warm start made feasible */
  PetscCall(APGDProjectInPlace(tao, x));
  PetscCall(TaoComputeObjectiveAndGradient(tao, x, &f_x, g_x));
  PetscCall(APGDEstimateLipschitz(tao, x, g_x, &L)); /* line 6 */
  step = 1.0 / L;                                    /* line 7 */
  /* g_d has the units of 1/N. A fixed number (seed 001 only says "small") is not scale-free, and
     forming x - g_d g loses about eps ||x|| / g_d to rounding, which floors the residual; a fixed
     fraction of the first step 1/L_0 is scale-free and keeps that floor near eps ||g|| / scale. */
  apgd->residual_step = apgd->residual_step_option > 0.0 ? apgd->residual_step_option : apgd->residual_scale / L;
  PetscCall(VecCopy(x, apgd->y));
  PetscCall(VecCopy(g_x, apgd->g_y));
  for (int k = 0; k < 4; k++) apgd->extrapolation_sums[k] = 0.0;
  PetscCall(APGDTest(tao, x, g_x, &t)); /* only its residual is wanted here */
  residual = t.residual;
  PetscCall(VecCopy(x, apgd->best));
  apgd->best_residual = residual;

  tao->niter = 0;
  PetscCall(TaoLogConvergenceHistory(tao, f_x, residual, 0.0, tao->ksp_its));
  PetscCall(TaoMonitor(tao, tao->niter, f_x, residual, 0.0, step));
  PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  PetscCall(APGDConfirmConvergence(tao, x, g_x, NULL, &f_x, &residual));

  while (tao->reason == TAO_CONTINUE_ITERATING) {
    const PetscBool extrapolated_gradient = (PetscBool)(apgd->reuse_gradients || beta == 0.0);
    PetscReal       theta_next, beta_next, f_y = f_x, g_dot_step;
    PetscInt        tries = 0;

    PetscTryTypeMethod(tao, update, tao->niter, tao->user_update);
    /* Lines 33-37 (the previous iteration's linear-term update), 18 and 9-10 in one pass: y, g(y)
       and the trial step, written over x_prev, which y no longer needs. Before the first
       iteration y = x and g(y) = g(x) already. */
    if (tao->niter == 0) PetscCall(APGDTrial(tao, step, x_prev)); /* extrapolation_sums are still zero */
    else {
      PetscCall(
        APGDExtrapolate(tao, beta, x, g_x, x_prev, g_prev, save_best ? apgd->best : NULL, step, extrapolated_gradient));
      save_best = PETSC_FALSE;
      if (!extrapolated_gradient) { /* -tao_apgd_reuse_gradients false: g(y) by a product with N */
        PetscCall(TaoComputeObjectiveAndGradient(tao, apgd->y, &f_y, apgd->g_y));
        PetscCall(APGDTrial(tao, step, x_prev));
      }
    }
    /* the trial becomes x; gamma_k and its gradient become the previous ones */
    swap = x_prev, x_prev = x, x = swap;
    swap = g_prev, g_prev = g_x, g_x = swap;

    /* Lines 11-15: double L until the quadratic upper bound of f at y holds, (x - y)^T N (x - y)
       <= L ||x - y||^2; the same pass gives the residual (line 19) and the restart test (line 27). */
    while (PETSC_TRUE) {
      PetscCall(TaoComputeGradient(tao, x, g_x));
      PetscCall(APGDTest(tao, x, g_x, &t));
      if (t.curvature <= L * t.step2) break;
      if (++tries > apgd->max_backtracks) break;
      L *= apgd->backtrack; /* line 12 */
      step = 1.0 / L;       /* line 13 */
      apgd->backtracks++;
      PetscCall(APGDTrial(tao, step, x));
    }
    if (tries > apgd->max_backtracks) { /* x is a rejected trial: the best iterate is restored below */
      tao->reason = TAO_DIVERGED_LS_FAILURE;
      residual    = PETSC_INFINITY;
      break;
    }

    /* f is quadratic: f(y) from f(x_k) (after the linear term moved by dr), then f(x) from f(y),
       with the sums of the two passes (no pass of its own; see APGDTestSums) */
    if (extrapolated_gradient) f_y = f_x + t.dr_dot_x + beta * t.g_dot_e + 0.5 * beta * beta * t.e_N_e;
    f_x        = f_y + t.gy_dot_d + 0.5 * t.curvature;
    g_dot_step = t.gy_dot_d + beta * t.gy_dot_e; /* g(y).(x - x_k), since y - x_k = beta e */

    /* Lines 16-17 */
    theta_next = 0.5 * (-theta * theta + theta * PetscSqrtReal(theta * theta + 4.0));
    beta_next  = theta * (1.0 - theta) / (theta * theta + theta_next);

    /* Lines 19-23: remember the best iterate (copied during the next pass over x) */
    residual = t.residual;
    if (residual < apgd->best_residual) {
      apgd->best_residual  = residual;
      apgd->best_iteration = tao->niter + 1;
      save_best            = PETSC_TRUE;
    }

    /* Lines 27-30: restart when the step goes uphill for the gradient at y */
    if (apgd->restart && g_dot_step > 0.0) {
      theta_next = 1.0;
      beta_next  = 0.0;
      apgd->restarts++;
    }
    theta = theta_next;
    beta  = beta_next;

    /* Line 31: let the step grow again */
    L *= apgd->step_growth;
    step = 1.0 / L;

    tao->niter++;
    /* before TaoMonitor's bare "compute function generated Inf or NaN": the problem's data are finite (checked as
       they are read or built), so only an objective unbounded below on the set takes the iterates there */
    PetscCheck(!PetscIsInfOrNanReal(f_x) && !PetscIsInfOrNanReal(residual), PetscObjectComm((PetscObject)tao),
               PETSC_ERR_USER_INPUT,
               "apgd's iterates grew without bound at iteration %" PetscInt_FMT " (objective %g, residual %g): the "
               "problem's operator N (W) is not positive semi-definite on the feasible set",
               tao->niter, (double)f_x, (double)residual);
    PetscCall(TaoLogConvergenceHistory(tao, f_x, residual, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, f_x, residual, 0.0, step));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
    PetscCall(APGDConfirmConvergence(tao, x, g_x, g_prev, &f_x, &residual));

    /* Stagnation: the anti-relaxed iteration can cycle without approaching a solution (issue 14's
       settled piles); the best iterate is kept as at the iteration limit */
    if (apgd->best_residual < 0.99 * progress_residual) {
      progress_residual  = apgd->best_residual;
      progress_iteration = tao->niter;
    }
    if (tao->reason == TAO_CONTINUE_ITERATING && apgd->stagnation > 0 &&
        tao->niter - progress_iteration >= apgd->stagnation) {
      apgd->stagnated = tao->niter;
      tao->reason     = TAO_DIVERGED_MAXITS;
    }
  }
  PetscCall(APGDEndSolveSet(tao));
  apgd->lipschitz = L;
  if (x != tao->solution) {
    PetscCall(VecCopy(x, tao->solution));
    PetscCall(VecCopy(g_x, tao->gradient));
  }

  /* Line 39: return the best iterate. If it is not the last one (when it is, save_best may still
     be pending: nothing to do), refresh f and g there. */
  if (apgd->best_residual < residual) {
    PetscCall(VecCopy(apgd->best, tao->solution));
    PetscCall(TaoComputeObjectiveAndGradient(tao, tao->solution, &f_x, tao->gradient));
    tao->fc       = f_x;
    tao->residual = apgd->best_residual;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode APGDDestroyWork(TAO_APGD *apgd)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&apgd->x_prev));
  PetscCall(VecDestroy(&apgd->g_prev));
  PetscCall(VecDestroy(&apgd->y));
  PetscCall(VecDestroy(&apgd->g_y));
  PetscCall(VecDestroy(&apgd->best));
  PetscFunctionReturn(0);
}

/* The work vectors and the gradient go; the next solve makes them again (TaoSetUp_APGD). */
static PetscErrorCode TaoAPGDReleaseWorkVectors_APGD(Tao tao)
{
  PetscFunctionBegin;
  PetscCall(APGDDestroyWork((TAO_APGD *)tao->data));
  PetscCall(VecDestroy(&tao->gradient));
  PetscFunctionReturn(0);
}

/*
 * Work vectors like the solution. A time stepper solves a CCP of a different size every step with
 * the same Tao: when the solution's layout changes, the work vectors follow (no new Tao needed).
 */
static PetscErrorCode TaoSetUp_APGD(Tao tao)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;
  PetscBool same = PETSC_TRUE;

  PetscFunctionBegin;
  if (apgd->y) {
    PetscInt n, N, m, M;
    PetscCall(VecGetLocalSize(tao->solution, &n));
    PetscCall(VecGetSize(tao->solution, &N));
    PetscCall(VecGetLocalSize(apgd->y, &m));
    PetscCall(VecGetSize(apgd->y, &M));
    same = (PetscBool)(n == m && N == M);
    /* a rank whose share did not change must still follow the others: duplication is collective */
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)tao)));
  }
  if (!same) {
    PetscCall(APGDDestroyWork(apgd));
    PetscCall(VecDestroy(&tao->gradient));
  }
  if (!tao->gradient) PetscCall(VecDuplicate(tao->solution, &tao->gradient));
  if (!apgd->y) {
    PetscCall(VecDuplicate(tao->solution, &apgd->x_prev));
    PetscCall(VecDuplicate(tao->solution, &apgd->g_prev));
    PetscCall(VecDuplicate(tao->solution, &apgd->y));
    PetscCall(VecDuplicate(tao->solution, &apgd->g_y));
    PetscCall(VecDuplicate(tao->solution, &apgd->best));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_APGD(Tao tao)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  PetscCall(APGDDestroyWork(apgd));
  PetscCall(VecDestroy(&apgd->residual_weight));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetResidualWeights_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetProjection_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetLinearTermUpdate_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetResidualStep_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDGetStatistics_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDGetResidualStep_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDReleaseWorkVectors_C", NULL));
  PetscCall(TalusResidualNormDecompose(tao));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_APGD(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Accelerated projected gradient descent (APGD, seed 001 section 2.3)");
  PetscCall(TalusResidualNormSetFromOptions(tao, PetscOptionsObject));
  PetscCall(PetscOptionsReal("-tao_apgd_residual_step",
                             "Step g_d of the projected-gradient residual (seed 001 eq. 39); 0: residual_scale / L_0",
                             "TaoAPGDSetResidualStep", apgd->residual_step_option, &apgd->residual_step_option, NULL));
  PetscCall(PetscOptionsReal("-tao_apgd_residual_scale",
                             "g_d as a fraction of the first step 1/L_0 when -tao_apgd_residual_step is 0", "",
                             apgd->residual_scale, &apgd->residual_scale, NULL));
  PetscCall(PetscOptionsReal("-tao_apgd_lipschitz",
                             "Initial Lipschitz estimate L_0; <= 0 estimates it from N (x0 - (x0 + 1)) (line 6)", "",
                             apgd->lipschitz0, &apgd->lipschitz0, NULL));
  PetscCall(PetscOptionsBool("-tao_apgd_reproducible_lipschitz",
                             "Sum L_0's 2-norm exactly, the same bits on any number of ranks (false: VecNorm, as runs "
                             "before checkpoint format 11)",
                             "", apgd->reproducible_lipschitz, &apgd->reproducible_lipschitz, NULL));
  PetscCall(PetscOptionsReal("-tao_apgd_step_growth",
                             "Factor applied to L after each iteration so the step can grow (line 31)", "",
                             apgd->step_growth, &apgd->step_growth, NULL));
  PetscCall(PetscOptionsReal("-tao_apgd_backtrack",
                             "Factor applied to L when the quadratic upper bound fails (line 12)", "", apgd->backtrack,
                             &apgd->backtrack, NULL));
  PetscCall(PetscOptionsInt("-tao_apgd_max_backtracks",
                            "Backtracking steps allowed per iteration before a line-search failure", "",
                            apgd->max_backtracks, &apgd->max_backtracks, NULL));
  PetscCall(PetscOptionsInt("-tao_apgd_stagnation",
                            "Stop (as at the iteration limit, with the best iterate) when the best residual has not "
                            "fallen by 1 percent in this many iterations; 0: never",
                            "", apgd->stagnation, &apgd->stagnation, NULL));
  PetscCall(PetscOptionsBool("-tao_apgd_restart", "Gradient-based adaptive restart (lines 27-30)", "", apgd->restart,
                             &apgd->restart, NULL));
  PetscCall(PetscOptionsBool("-tao_apgd_confirm",
                             "Confirm a convergence of a problem whose linear term follows the iterate (the Coulomb "
                             "problem) with the term updated at the last iterate (false: stop on the stale term, as "
                             "talus did before checkpoint format 8)",
                             "", apgd->confirm, &apgd->confirm, NULL));
  PetscCall(PetscOptionsBool("-tao_apgd_reuse_gradients",
                             "Get the gradient at the extrapolated point from those at the iterates (saves one product "
                             "with N per iteration; exact for quadratics)",
                             "", apgd->reuse_gradients, &apgd->reuse_gradients, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(apgd->residual_step_option >= 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_apgd_residual_step must be >= 0 (0: automatic), got %g", (double)apgd->residual_step_option);
  PetscCheck(apgd->residual_scale > 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_apgd_residual_scale must be positive, got %g", (double)apgd->residual_scale);
  PetscCheck(apgd->step_growth > 0.0 && apgd->step_growth <= 1.0, PetscObjectComm((PetscObject)tao),
             PETSC_ERR_ARG_OUTOFRANGE, "-tao_apgd_step_growth must be in (0, 1], got %g", (double)apgd->step_growth);
  PetscCheck(apgd->backtrack > 1.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_apgd_backtrack must be > 1, got %g", (double)apgd->backtrack);
  PetscCheck(apgd->stagnation >= 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_apgd_stagnation must be >= 0 (0: never), got %" PetscInt_FMT, apgd->stagnation);
  PetscCheck(apgd->max_backtracks >= 1, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_apgd_max_backtracks must be >= 1, got %" PetscInt_FMT, apgd->max_backtracks);
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_APGD(Tao tao, PetscViewer viewer)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (apgd->user_projection)
    PetscCall(PetscViewerASCIIPrintf(viewer, "feasible set: user projection, blocks of %" PetscInt_FMT " rows\n",
                                     apgd->block_size));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "feasible set: %s\n", tao->bounded ? "variable bounds" : "unconstrained"));
  if (apgd->residual_step_option > 0.0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "residual step g_d (eq. 39): %g\n", (double)apgd->residual_step_option));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "residual step g_d (eq. 39): %g / L_0 (last solve: %g)\n",
                                     (double)apgd->residual_scale, (double)apgd->residual_step));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "step growth %g, backtrack factor %g (max %" PetscInt_FMT
                                   " per iteration), restart %s, reuse gradients %s\n",
                                   (double)apgd->step_growth, (double)apgd->backtrack, apgd->max_backtracks,
                                   PetscBools[apgd->restart], PetscBools[apgd->reuse_gradients]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "linear-term update: %s%s\n", apgd->linear_update ? "yes" : "no",
                                   apgd->linear_update && apgd->confirm ? ", convergence confirmed with it" : ""));
  if (apgd->residual_weight) PetscCall(PetscViewerASCIIPrintf(viewer, "residual weighted per row\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "last solve: %" PetscInt_FMT " restarts, %" PetscInt_FMT
                                   " backtracks, best residual %g at iteration %" PetscInt_FMT ", final L %g\n",
                                   apgd->restarts, apgd->backtracks, (double)apgd->best_residual, apgd->best_iteration,
                                   (double)apgd->lipschitz));
  if (apgd->stagnated)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "stopped at iteration %" PetscInt_FMT
                                     ": the best residual had not fallen by 1 %% in %" PetscInt_FMT " iterations\n",
                                     apgd->stagnated, apgd->stagnation));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDSetProjection_APGD(Tao tao, PetscInt bs, TaoAPGDProjectionFn fn, void *ctx)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  PetscCheck(bs >= 1, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "The projection's block size must be >= 1, got %" PetscInt_FMT, bs);
  apgd->project         = fn;
  apgd->project_ctx     = ctx;
  apgd->block_size      = fn ? bs : 1;
  apgd->user_projection = (PetscBool)(fn != NULL);
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDSetLinearTermUpdate_APGD(Tao tao, TaoAPGDLinearTermUpdateFn fn, void *ctx)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  apgd->linear_update     = fn;
  apgd->linear_update_ctx = ctx;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDSetResidualStep_APGD(Tao tao, PetscReal g_d)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  PetscCheck(g_d >= 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "Residual step must be >= 0 (0: automatic), got %g", (double)g_d);
  apgd->residual_step_option = g_d;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDSetResidualWeights_APGD(Tao tao, Vec weight)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  if (weight) PetscCall(PetscObjectReference((PetscObject)weight));
  PetscCall(VecDestroy(&apgd->residual_weight));
  apgd->residual_weight = weight;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDGetResidualStep_APGD(Tao tao, PetscReal *g_d)
{
  PetscFunctionBegin;
  *g_d = ((TAO_APGD *)tao->data)->residual_step;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoAPGDGetStatistics_APGD(Tao tao, PetscInt *restarts, PetscInt *backtracks,
                                                PetscInt *best_iteration, PetscReal *lipschitz)
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  if (restarts) *restarts = apgd->restarts;
  if (backtracks) *backtracks = apgd->backtracks;
  if (best_iteration) *best_iteration = apgd->best_iteration;
  if (lipschitz) *lipschitz = apgd->lipschitz;
  PetscFunctionReturn(0);
}

/*MC
  TAOAPGD - "apgd": accelerated projected gradient descent for convex quadratics over a closed
  convex set (seed 001 section 2.3), with adaptive step, gradient restart and best-iterate fallback.

  Options Database Keys:
+ -tao_apgd_residual_step <0> - g_d of the residual (seed 001 eq. 39); 0: residual_scale / L_0
. -tao_apgd_residual_scale <1e-3> - g_d as a fraction of the first step
. -tao_apgd_lipschitz <0> - initial Lipschitz estimate (0: estimate, line 6)
. -tao_apgd_step_growth <0.9> - step growth factor (line 31)
. -tao_apgd_backtrack <2> - backtracking factor (line 12)
. -tao_apgd_max_backtracks <60> - backtracking steps per iteration
. -tao_apgd_restart <true> - gradient-based restart (lines 27-30)
. -tao_apgd_confirm <true> - confirm a convergence with the linear term updated at the last iterate
- -tao_apgd_reuse_gradients <true> - gradient at the extrapolated point by linearity

  The reported gradient norm (TaoMonitor, -tao_gatol) is the residual of eq. 39.
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_APGD(Tao tao)
{
  TAO_APGD *apgd;

  PetscFunctionBegin;
  tao->ops->setup          = TaoSetUp_APGD;
  tao->ops->solve          = TaoSolve_APGD;
  tao->ops->view           = TaoView_APGD;
  tao->ops->setfromoptions = TaoSetFromOptions_APGD;
  tao->ops->destroy        = TaoDestroy_APGD;

  PetscCall(PetscNew(&apgd));
  tao->data = (void *)apgd;
  PetscCall(TalusResidualNormCompose(tao));
  apgd->residual_step_option   = 0.0;
  apgd->residual_scale         = 1.0e-3;
  apgd->reproducible_lipschitz = PETSC_TRUE;
  apgd->step_growth            = 0.9;
  apgd->backtrack              = 2.0;
  apgd->max_backtracks         = 60;
  apgd->restart                = PETSC_TRUE;
  apgd->reuse_gradients        = PETSC_TRUE;
  apgd->confirm                = PETSC_TRUE;
  apgd->best_residual          = PETSC_INFINITY;
  apgd->block_size             = 1;

  TalusTaoSetResidualTolerances(tao);

  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetProjection_C", TaoAPGDSetProjection_APGD));
  PetscCall(
    PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetLinearTermUpdate_C", TaoAPGDSetLinearTermUpdate_APGD));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetResidualStep_C", TaoAPGDSetResidualStep_APGD));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDGetStatistics_C", TaoAPGDGetStatistics_APGD));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDGetResidualStep_C", TaoAPGDGetResidualStep_APGD));
  PetscCall(
    PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDSetResidualWeights_C", TaoAPGDSetResidualWeights_APGD));
  PetscCall(
    PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDReleaseWorkVectors_C", TaoAPGDReleaseWorkVectors_APGD));
  PetscFunctionReturn(0);
}

/*@C
  TaoAPGDSetProjection - sets the projection onto the feasible set used by TAOAPGD: a product of
  sets within each rank's rows, in blocks of bs rows (see TaoAPGDProjectionFn)
@*/
PetscErrorCode TaoAPGDSetProjection(Tao tao, PetscInt bs, TaoAPGDProjectionFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoAPGDSetProjection_C", (Tao, PetscInt, TaoAPGDProjectionFn, void *), (tao, bs, fn, ctx));
  PetscFunctionReturn(0);
}

/*@C
  TaoAPGDSetLinearTermUpdate - sets the hook that changes the linear term between iterations
@*/
PetscErrorCode TaoAPGDSetLinearTermUpdate(Tao tao, TaoAPGDLinearTermUpdateFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoAPGDSetLinearTermUpdate_C", (Tao, TaoAPGDLinearTermUpdateFn, void *), (tao, fn, ctx));
  PetscFunctionReturn(0);
}

/*@
  TaoAPGDSetResidualStep - sets g_d of the residual of seed 001 eq. 39
@*/
PetscErrorCode TaoAPGDSetResidualStep(Tao tao, PetscReal g_d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoAPGDSetResidualStep_C", (Tao, PetscReal), (tao, g_d));
  PetscFunctionReturn(0);
}

/*@
  TaoAPGDGetStatistics - restarts, backtracking steps, iteration of the returned (best) iterate and
  final Lipschitz estimate of the last TaoSolve(); any output may be NULL
@*/
PetscErrorCode TaoAPGDGetStatistics(Tao tao, PetscInt *restarts, PetscInt *backtracks, PetscInt *best_iteration,
                                    PetscReal *lipschitz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscUseMethod(tao, "TaoAPGDGetStatistics_C", (Tao, PetscInt *, PetscInt *, PetscInt *, PetscReal *),
                 (tao, restarts, backtracks, best_iteration, lipschitz));
  PetscFunctionReturn(0);
}

/*@
  TaoAPGDSetResidualWeights - measures the residual of seed 001 eq. 39 as ||w .* (x - Pi(x - g_d g))|| / g_d,
  w a Vec laid out like the solution (NULL: w = 1). A solver of a problem scaled by x = D x' passes
  w = 1 / D so that the residual, and the tolerance it is tested against, keep the units of the
  unscaled problem's (TalusCCP's -ccp_scale).
@*/
PetscErrorCode TaoAPGDSetResidualWeights(Tao tao, Vec weight)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  if (weight) PetscValidHeaderSpecific(weight, VEC_CLASSID, 2);
  PetscTryMethod(tao, "TaoAPGDSetResidualWeights_C", (Tao, Vec), (tao, weight));
  PetscFunctionReturn(0);
}

/*@
  TaoAPGDGetResidualStep - the g_d of seed 001 eq. 39 used by the last TaoSolve()
@*/
PetscErrorCode TaoAPGDGetResidualStep(Tao tao, PetscReal *g_d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscUseMethod(tao, "TaoAPGDGetResidualStep_C", (Tao, PetscReal *), (tao, g_d));
  PetscFunctionReturn(0);
}

PetscErrorCode TaoAPGDReleaseWorkVectors(Tao tao)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoAPGDReleaseWorkVectors_C", (Tao), (tao));
  PetscFunctionReturn(0);
}
