/*
 * The Tao type "nbgs": nonsmooth block Gauss-Seidel for the Coulomb problem u = W r + q (De Saxce's
 * form, FCLib's Coulomb problem) with W assembled, the family Acary, Bremond and Huber (2018) found
 * the most robust on rigid piles. A sweep visits this rank's contacts in order and solves each one's
 * Coulomb problem exactly (TalusCoulombLocalSolve) with the others' impulses as they are: those of
 * this rank already updated in the sweep (Gauss-Seidel), those of other ranks as they were at its
 * start (Jacobi across ranks, one exchange per sweep, as Preclik and Ruede do). Undamped, that Jacobi
 * part oscillates on stacks (LMGC90's box and Siconos's box stacks on 3 ranks did not converge in
 * 5,000 sweeps): the blocks coupled to other ranks take half steps by default. Non-negative rows and
 * free rows are solved the same way, one at a time.
 *
 * The residual it reports and stops on (-tao_gatol) is that of seed 001 eq. 39 with the De Saxce
 * velocity, ||r - Pi_K(r - g_d (u + mu ||u_t|| e_n))|| / g_d, g_d = 1e-3 / max_i W_ii, after each
 * sweep (one product with W).
 *
 * Two forms of the sweep: on the rows of an assembled W (nbgs_rows.c: talus ccp's problems, FCLib
 * files, dumps) and, where N = B M^-1 B^T is given by the row blocks of a matrix-free B (the
 * simulator's), on body velocities (nbgs_bodies.c). Both visit the contacts in the same order and
 * solve the same local problems: on one rank they give the same iterates to rounding.
 */
#include "nbgs_impl.h"
#include "residual_tolerances.h"

static PetscErrorCode NBGSRelease(TAO_NBGS *nb)
{
  PetscFunctionBegin;
  if (nb->form && nb->data) PetscCall(nb->form->release(nb->data));
  PetscCall(PetscFree(nb->data));
  nb->form = NULL;
  PetscCall(VecDestroy(&nb->u));
  PetscCall(PetscFree(nb->blocks));
  PetscCall(PetscFree(nb->interface));
  PetscFunctionReturn(0);
}

/* The form's data for this solve, and g_d */
static PetscErrorCode NBGSSetUpProblem(Tao tao)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;
  PetscBool aij, seq;
  PetscInt  nc, n;
  PetscReal dmax = 0.0;

  PetscFunctionBegin;
  PetscCheck(nb->W && nb->q && nb->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "nbgs needs its problem (TaoNBGSSetProblem) before it solves");
  PetscCall(NBGSRelease(nb));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)nb->W, MATMPIAIJ, &aij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)nb->W, MATSEQAIJ, &seq));
  nb->form = (aij || seq) ? &NBGSRows : &NBGSBodies;
  PetscCall(VecDuplicate(nb->q, &nb->u));
  PetscCall(VecGetLocalSize(nb->q, &n));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCall(PetscCalloc1(n, &nb->interface));
  PetscCall(PetscCalloc1(9 * nc, &nb->blocks));
  PetscCall(nb->form->setup(tao, &dmax));
  nb->residual_step = nb->residual_scale / (dmax > 0.0 ? dmax : 1.0);
  PetscFunctionReturn(0);
}

/* Seed 001 eq. 39 with the De Saxce velocity, u = W r + q from the form. */
static PetscErrorCode NBGSResidual(Tao tao, Vec r, PetscReal *residual)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(nb->form->velocity(tao, r));
  PetscCall(
    TalusFeasibleSetResidual(nb->set, r, nb->u, nb->residual_step, PETSC_TRUE, TalusResidualNormOf(tao), residual));
  PetscFunctionReturn(0);
}

/*
 * Nonsmooth nonlinear conjugate gradients (Silcowitz, Niebe and Erleben 2010, "A nonsmooth nonlinear
 * conjugate gradient method for interactive contact force problems"): the sweep's step d = G(x) - x
 * plays the part of the negative gradient, and the next iterate adds beta times the previous search
 * direction, beta = |d|^2 / |d_prev|^2 (Fletcher-Reeves), restarting when beta > 1. The sum can
 * leave the cones by a little; the next sweep projects, and the solve ends on a projection.
 */
typedef struct {
  Vec       step, direction; /* d, and the search direction p = d + beta p_prev */
  PetscReal step2;           /* |d_prev|^2 */
} NNCG;

static PetscErrorCode NNCGAccelerate(Tao tao, NNCG *cg)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;
  PetscReal step2, beta;

  PetscFunctionBegin;
  PetscCall(VecAYPX(cg->step, -1.0, tao->solution)); /* d = G(x) - x: step held x before the sweep */
  PetscCall(VecDot(cg->step, cg->step, &step2));
  beta      = cg->step2 > 0.0 ? step2 / cg->step2 : 0.0;
  cg->step2 = step2;
  if (beta > 1.0 || beta == 0.0) {
    PetscCall(VecCopy(cg->step, cg->direction));
    nb->restarts += beta > 1.0;
    PetscFunctionReturn(0);
  }
  PetscCall(VecAXPY(tao->solution, beta, cg->direction));
  PetscCall(VecAYPX(cg->direction, beta, cg->step));
  if (nb->form->sync) PetscCall(nb->form->sync(tao, tao->solution));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSolve_NBGS(Tao tao)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;
  PetscReal residual;
  PetscInt  n;
  NNCG      cg = {NULL, NULL, 0.0};

  PetscFunctionBegin;
  tao->reason  = TAO_CONTINUE_ITERATING;
  tao->niter   = 0;
  nb->restarts = 0;
  PetscCall(VecGetSize(tao->solution, &n));
  if (n == 0) {
    tao->reason = TAO_CONVERGED_GATOL;
    PetscCall(TaoMonitor(tao, 0, 0.0, 0.0, 0.0, 0.0));
    PetscFunctionReturn(0);
  }
  PetscCall(NBGSSetUpProblem(tao));
  if (nb->nncg) {
    PetscCall(VecDuplicate(tao->solution, &cg.step));
    PetscCall(VecDuplicate(tao->solution, &cg.direction));
  }
  PetscCall(NBGSResidual(tao, tao->solution, &residual));
  PetscCall(TaoLogConvergenceHistory(tao, 0.0, residual, 0.0, tao->ksp_its));
  PetscCall(TaoMonitor(tao, tao->niter, 0.0, residual, 0.0, 1.0));
  PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  while (tao->reason == TAO_CONTINUE_ITERATING) {
    nb->states[0] = nb->states[1] = nb->states[2] = 0;
    if (nb->nncg) PetscCall(VecCopy(tao->solution, cg.step));
    PetscCall(nb->form->sweep(tao, tao->solution));
    if (nb->nncg) PetscCall(NNCGAccelerate(tao, &cg));
    PetscCall(NBGSResidual(tao, tao->solution, &residual));
    tao->niter++;
    PetscCall(TaoLogConvergenceHistory(tao, 0.0, residual, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, 0.0, residual, 0.0, 1.0));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  }
  if (nb->nncg) { /* the last step may have left the cones by a little */
    PetscCall(TalusFeasibleSetProject(nb->set, tao->solution, tao->solution));
    if (nb->form->sync) PetscCall(nb->form->sync(tao, tao->solution));
    PetscCall(NBGSResidual(tao, tao->solution, &residual));
    PetscCall(VecDestroy(&cg.step));
    PetscCall(VecDestroy(&cg.direction));
  }
  tao->residual = residual;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_NBGS(Tao tao)
{
  PetscFunctionBegin;
  (void)tao;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_NBGS(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Nonsmooth block Gauss-Seidel (nbgs) options");
  PetscCall(TalusResidualNormSetFromOptions(tao, PetscOptionsObject));
  PetscCall(PetscOptionsReal("-tao_nbgs_omega", "Relaxation of each block's update (1: plain Gauss-Seidel)", "",
                             nb->omega, &nb->omega, NULL));
  PetscCall(PetscOptionsReal("-tao_nbgs_interface_omega",
                             "Relaxation of the blocks coupled to other ranks' blocks, which are updated once a sweep "
                             "(Jacobi across ranks: undamped it can oscillate)",
                             "", nb->interface_omega, &nb->interface_omega, NULL));
  PetscCall(PetscOptionsReal("-tao_nbgs_residual_scale",
                             "g_d of the residual (seed 001 eq. 39) as a fraction of 1 / max_i W_ii", "",
                             nb->residual_scale, &nb->residual_scale, NULL));
  PetscCall(PetscOptionsBool("-tao_nbgs_nncg",
                             "Accelerate the sweeps by nonsmooth nonlinear conjugate gradients (Silcowitz et al. 2010)",
                             "", nb->nncg, &nb->nncg, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(nb->omega > 0.0 && nb->omega < 2.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_nbgs_omega must be in (0, 2), got %g", (double)nb->omega);
  PetscCheck(nb->interface_omega > 0.0 && nb->interface_omega < 2.0, PetscObjectComm((PetscObject)tao),
             PETSC_ERR_ARG_OUTOFRANGE, "-tao_nbgs_interface_omega must be in (0, 2), got %g",
             (double)nb->interface_omega);
  PetscCheck(nb->residual_scale > 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_nbgs_residual_scale must be positive, got %g", (double)nb->residual_scale);
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_NBGS(Tao tao, PetscViewer viewer)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "relaxation %g (blocks coupled to other ranks: %g); residual step g_d (eq. 39) %g / "
                                   "max W_ii (last: %g)\n",
                                   (double)nb->omega, (double)nb->interface_omega, (double)nb->residual_scale,
                                   (double)nb->residual_step));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "last sweep on rank 0: %" PetscInt_FMT " contacts separating, %" PetscInt_FMT
                                   " sticking, %" PetscInt_FMT " sliding\n",
                                   nb->states[0], nb->states[1], nb->states[2]));
  if (nb->nncg)
    PetscCall(PetscViewerASCIIPrintf(viewer, "nonsmooth nonlinear conjugate gradients: %" PetscInt_FMT " restarts\n",
                                     nb->restarts));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_NBGS(Tao tao)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(NBGSRelease(nb));
  PetscCall(MatDestroy(&nb->W));
  PetscCall(VecDestroy(&nb->q));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSSetProblem_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSGetStates_C", NULL));
  PetscCall(TalusResidualNormDecompose(tao));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoNBGSSetProblem_NBGS(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  if (W) { /* a sweep reads W's rows, or visits the row blocks of N's B on body velocities */
    PetscBool      mpi, seq, blocks;
    TalusBlockRows rows;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATMPIAIJ, &mpi));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATSEQAIJ, &seq));
    PetscCall(TalusMatGetBlockRows(W, &rows, &blocks));
    PetscCheck(mpi || seq || blocks, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
               "nbgs visits the rows of an assembled N (an AIJ matrix, as talus ccp reads) or the row blocks of a "
               "matrix-free B (a scene's N with -ccp_matrix_free true); this N is neither: use -tao_type apgd");
  }
  PetscCall(NBGSRelease(nb));
  if (W) PetscCall(PetscObjectReference((PetscObject)W));
  if (q) PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(MatDestroy(&nb->W));
  PetscCall(VecDestroy(&nb->q));
  nb->W = W, nb->q = q, nb->set = set;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoNBGSGetStates_NBGS(Tao tao, PetscInt states[3])
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(nb->states, states, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  PetscFunctionReturn(0);
}

/*MC
  TAONBGS - "nbgs": nonsmooth block Gauss-Seidel for the Coulomb contact problem with an assembled
  Delassus matrix, an exact Coulomb solve per contact, Jacobi across ranks.

  Options Database Keys:
+ -tao_nbgs_omega <1> - relaxation of each block's update
. -tao_nbgs_interface_omega <0.5> - that of blocks coupled to other ranks' blocks
- -tao_nbgs_residual_scale <1e-3> - g_d of the residual as a fraction of 1 / max_i W_ii

  The reported gradient norm (TaoMonitor, -tao_gatol) is the residual of seed 001 eq. 39 with the De
  Saxce velocity; an iteration is one sweep.
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_NBGS(Tao tao)
{
  TAO_NBGS *nb;

  PetscFunctionBegin;
  tao->ops->setup          = TaoSetUp_NBGS;
  tao->ops->solve          = TaoSolve_NBGS;
  tao->ops->view           = TaoView_NBGS;
  tao->ops->setfromoptions = TaoSetFromOptions_NBGS;
  tao->ops->destroy        = TaoDestroy_NBGS;
  PetscCall(PetscNew(&nb));
  tao->data = (void *)nb;
  PetscCall(TalusResidualNormCompose(tao));
  nb->omega           = 1.0;
  nb->interface_omega = 0.5;
  nb->residual_scale  = 1.0e-3;
  TalusTaoSetResidualTolerances(tao);
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSSetProblem_C", TaoNBGSSetProblem_NBGS));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSGetStates_C", TaoNBGSGetStates_NBGS));
  PetscFunctionReturn(0);
}

/*@C
  TaoNBGSSetProblem - the Coulomb problem u = W r + q over the set's cones (and rows) that TAONBGS solves;
  W assembled (AIJ). The set is referenced, not copied: it must outlive the solves.
@*/
PetscErrorCode TaoNBGSSetProblem(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoNBGSSetProblem_C", (Tao, Mat, Vec, const TalusFeasibleSet *), (tao, W, q, set));
  PetscFunctionReturn(0);
}

/*@
  TaoNBGSGetStates - how many contacts separate, stick and slide after the last sweep (all ranks)
@*/
PetscErrorCode TaoNBGSGetStates(Tao tao, PetscInt states[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscUseMethod(tao, "TaoNBGSGetStates_C", (Tao, PetscInt *), (tao, states));
  PetscFunctionReturn(0);
}
