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
#include "residual_tolerances.h"

#include "ipm_state.h"

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
  PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->u, ipm->gd, ipm->coulomb, TalusResidualNormOf(tao),
                                     residual));
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
    PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->u, ipm->gd, ipm->coulomb, TalusResidualNormOf(tao),
                                       &residual));
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
      PetscCall(TalusFeasibleSetResidual(ipm->set, tao->solution, ipm->rhs, ipm->gd, PETSC_FALSE,
                                         TalusResidualNormOf(tao), &inner));
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
  PetscCall(TalusResidualNormSetFromOptions(tao, PetscOptionsObject));
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
  PetscCall(TalusResidualNormDecompose(tao));
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
  tao->data = (void *)ipm;
  PetscCall(TalusResidualNormCompose(tao));
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
