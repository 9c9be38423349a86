/*
 * The Tao type newton_ccp: the compliant (regularised) relaxed contact problem solved in its primal form,
 * the body velocities, by Newton's method with an exact line search (newton_ccp_model.c; Drake's SAP).
 * Where apgd and nbgs iterate on the impulses and stall on the ill-conditioned N of a settled pile
 * (docs/solver-types.md), the primal problem is smooth and strongly convex (M > 0), its Hessian M + B^T G B is
 * sparse over the contact graph, and a few Newton steps reach the tolerance whatever the pile's height:
 * the work moves into the linear solves, which go through KSP (CG by default) so that the
 * preconditioner is the user's choice (-tao_newton_pc_type gamg, hypre, bjacobi, icc, cholesky).
 *
 * The problem must be regularised on every row (E > 0: the near-rigid floor on normal rows,
 * -contact_friction_sigma on friction rows, compliant joints): the primal energy of a rigid row is not
 * finite. The reported residual ||B M^-1 grad|| is in m/s, like apgd's, so -ccp_force_rtol means the same.
 */
#include "newton_ccp_impl.h"
#include "residual_tolerances.h"
#include "ccp_impl.h"
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcimpl.h>

static PetscErrorCode TaoSolve_NewtonCCP(Tao tao)
{
  TAO_NEWTONCCP     *nt = (TAO_NEWTONCCP *)tao->data;
  PetscReal          f, residual;
  PetscInt           its;
  KSPConvergedReason kreason;

  PetscFunctionBegin;
  if (!nt->delta) PetscCall(NewtonCCPSetUpProblem(tao));
  /* warm start: the velocities the given impulses make, delta = M^-1 B^T r0 */
  PetscCall(MatMultTranspose(nt->B, tao->solution, nt->delta));
  PetscCall(VecPointwiseMult(nt->delta, nt->inverse_mass, nt->delta));
  tao->niter = 0, tao->ksp_its = 0, nt->ls_evaluations = 0, nt->alpha = 0.0;
  tao->reason = TAO_CONTINUE_ITERATING;
  for (;;) {
    PetscCall(NewtonCCPEvaluate(tao, &f, &residual));
    PetscCheck(!PetscIsInfOrNanReal(f) && !PetscIsInfOrNanReal(residual), PetscObjectComm((PetscObject)tao),
               PETSC_ERR_FP,
               "newton_ccp's iterate became non-finite at Newton step %" PetscInt_FMT
               " (objective %g, residual %g): the problem's data (q, E, M) hold a non-finite or extreme value",
               tao->niter, (double)f, (double)residual);
    PetscCall(TaoLogConvergenceHistory(tao, f, residual, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, f, residual, 0.0, nt->alpha));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
    if (tao->reason != TAO_CONTINUE_ITERATING) break;
    /* H dir = -grad, H assembled only for a step that is taken */
    PetscCall(NewtonCCPAssembleHessian(tao));
    PetscCall(KSPSetOperators(nt->ksp, nt->H, nt->H));
    PetscCall(VecScale(nt->grad, -1.0));
    PetscCall(KSPSolve(nt->ksp, nt->grad, nt->dir));
    PetscCall(VecScale(nt->grad, -1.0));
    PetscCall(KSPGetIterationNumber(nt->ksp, &its));
    PetscCall(KSPGetConvergedReason(nt->ksp, &kreason));
    tao->ksp_its += its, tao->ksp_tot_its += its;
    if (kreason < 0 && kreason != KSP_DIVERGED_ITS) { /* M + B^T G B is SPD: the PC is unusable here */
      PC          pc;
      PCType      pc_type;
      const char *prefix;
      PetscCall(KSPGetPC(nt->ksp, &pc));
      PetscCall(PCGetType(pc, &pc_type));
      PetscCall(KSPGetOptionsPrefix(nt->ksp, &prefix));
      SETERRQ(PetscObjectComm((PetscObject)tao), PETSC_ERR_NOT_CONVERGED,
              "newton_ccp's linear system (M + B^T G B, symmetric positive definite) failed with -%spc_type %s: %s; "
              "choose another PC (-%spc_type icc, bjacobi with -%ssub_pc_type icc, cholesky, hypre)",
              prefix ? prefix : "", pc_type, KSPConvergedReasons[kreason], prefix ? prefix : "", prefix ? prefix : "");
    }
    PetscCall(MatMult(nt->B, nt->dir, nt->w));
    PetscCall(NewtonCCPLineSearch(tao, &nt->alpha));
    if (nt->alpha <= 0.0) {
      tao->reason = TAO_DIVERGED_LS_FAILURE;
      break;
    }
    PetscCall(VecAXPY(nt->delta, nt->alpha, nt->dir));
    PetscCall(PetscInfo(tao,
                        "Newton step %" PetscInt_FMT ": %" PetscInt_FMT
                        " linear iterations, step length %g, regions %" PetscInt_FMT " stick %" PetscInt_FMT
                        " separate %" PetscInt_FMT " slide\n",
                        tao->niter, its, (double)nt->alpha, nt->regions[0], nt->regions[1], nt->regions[2]));
    tao->niter++;
  }
  PetscCall(VecCopy(nt->gamma, tao->solution)); /* the impulses of the last iterate evaluated */
  tao->residual = residual;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_NewtonCCP(Tao tao)
{
  PetscFunctionBegin;
  (void)tao;
  PetscFunctionReturn(0);
}

/* The Newton systems' KSP, CG with ICC (block Jacobi on several ranks) unless the options say otherwise;
   made anew for each problem (a problem's bodies may sit on other ranks than the last one's, and a PC's
   inner solvers keep their sizes through KSPReset) */
static PetscErrorCode NewtonCCPCreateKSP(Tao tao, PetscBool from_options)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;
  const char    *prefix;
  PC             pc;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCall(KSPDestroy(&nt->ksp));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)tao), &nt->ksp));
  PetscCall(PetscObjectIncrementTabLevel((PetscObject)nt->ksp, (PetscObject)tao, 1));
  PetscCall(KSPSetType(nt->ksp, KSPCG));
  PetscCall(KSPGetPC(nt->ksp, &pc));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)tao), &size));
  PetscCall(PCSetType(pc, size == 1 ? PCICC : PCBJACOBI)); /* block Jacobi's blocks: ILU unless -sub_pc_type icc */
  PetscCall(KSPSetTolerances(nt->ksp, 1.0e-4, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetErrorIfNotConverged(nt->ksp, PETSC_FALSE));
  PetscCall(TaoGetOptionsPrefix(tao, &prefix));
  PetscCall(KSPSetOptionsPrefix(nt->ksp, prefix));
  PetscCall(KSPAppendOptionsPrefix(nt->ksp, "tao_newton_"));
  if (from_options) PetscCall(KSPSetFromOptions(nt->ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_NewtonCCP(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;
  const char    *prefix;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Newton on the compliant contact problem (newton_ccp) options");
  PetscCall(TalusResidualNormSetFromOptions(tao, PetscOptionsObject));
  PetscCall(PetscOptionsReal("-tao_newton_ls_rtol",
                             "The exact line search stops when |phi'(alpha)| is this fraction of |phi'(0)|", "",
                             nt->ls_rtol, &nt->ls_rtol, NULL));
  PetscCall(PetscOptionsInt("-tao_newton_ls_max_it", "Steps of the line search at most", "", nt->ls_max_it,
                            &nt->ls_max_it, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(nt->ls_rtol > 0.0 && nt->ls_rtol < 1.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_newton_ls_rtol must be in (0, 1), got %g", (double)nt->ls_rtol);
  PetscCheck(nt->ls_max_it >= 1, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_newton_ls_max_it must be at least 1, got %" PetscInt_FMT, nt->ls_max_it);
  PetscCall(NewtonCCPCreateKSP(tao, PETSC_FALSE)); /* with the Tao's prefix as it is now */
  PetscCall(KSPGetOptionsPrefix(nt->ksp, &prefix));
  PetscCall(TalusCheckTypeOption(PetscObjectComm((PetscObject)tao), prefix, "-ksp_type", KSPList));
  PetscCall(TalusCheckTypeOption(PetscObjectComm((PetscObject)tao), prefix, "-pc_type", PCList));
  PetscCall(KSPSetFromOptions(nt->ksp));
  nt->ksp_from_options = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_NewtonCCP(Tao tao, PetscViewer viewer)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;
  PetscBool      isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "last solve: %" PetscInt_FMT " Newton steps, %" PetscInt_FMT
                                   " linear iterations, %" PetscInt_FMT " line-search evaluations (last step %g)\n",
                                   tao->niter, tao->ksp_its, nt->ls_evaluations, (double)nt->alpha));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "contacts at the end: %" PetscInt_FMT " sticking, %" PetscInt_FMT
                                   " separating, %" PetscInt_FMT " sliding\n",
                                   nt->regions[0], nt->regions[1], nt->regions[2]));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "exact line search to |phi'| <= %g |phi'(0)|, at most %" PetscInt_FMT " steps\n",
                                   (double)nt->ls_rtol, nt->ls_max_it));
  PetscCall(KSPView(nt->ksp, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoNewtonCCPSetProblem_NewtonCCP(Tao tao, Mat B, Vec inverse_mass, Vec E, Vec q,
                                                       const TalusFeasibleSet *set)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;

  PetscFunctionBegin;
  if (B) {
    PetscBool mpi, seq;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &mpi));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATSEQAIJ, &seq));
    PetscCheck(mpi || seq, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
               "newton_ccp forms B^T G B, so it needs B assembled (an AIJ matrix)");
  }
  PetscCall(NewtonCCPRelease(nt));
  PetscCall(NewtonCCPCreateKSP(tao, nt->ksp_from_options));
  if (B) PetscCall(PetscObjectReference((PetscObject)B));
  if (inverse_mass) PetscCall(PetscObjectReference((PetscObject)inverse_mass));
  if (E) PetscCall(PetscObjectReference((PetscObject)E));
  if (q) PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(MatDestroy(&nt->B));
  PetscCall(VecDestroy(&nt->inverse_mass));
  PetscCall(VecDestroy(&nt->E));
  PetscCall(VecDestroy(&nt->q));
  nt->B = B, nt->inverse_mass = inverse_mass, nt->E = E, nt->q = q, nt->set = set;
  PetscFunctionReturn(0);
}

/* Between problems (TalusCCPReset): the problem and its work let go, the KSP and the options kept */
static PetscErrorCode TaoNewtonCCPRelease(Tao tao)
{
  PetscFunctionBegin;
  PetscCall(TaoNewtonCCPSetProblem_NewtonCCP(tao, NULL, NULL, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_NewtonCCP(Tao tao)
{
  TAO_NEWTONCCP *nt = (TAO_NEWTONCCP *)tao->data;

  PetscFunctionBegin;
  PetscCall(NewtonCCPRelease(nt));
  PetscCall(KSPDestroy(&nt->ksp));
  PetscCall(MatDestroy(&nt->B));
  PetscCall(VecDestroy(&nt->inverse_mass));
  PetscCall(VecDestroy(&nt->E));
  PetscCall(VecDestroy(&nt->q));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNewtonCCPSetProblem_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDReleaseWorkVectors_C", NULL));
  PetscCall(TalusResidualNormDecompose(tao));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

/*MC
  TAONEWTONCCP - "newton_ccp": Newton's method with an exact line search on the primal form of the compliant
  relaxed contact problem (Drake's SAP): min over the body velocities of the kinetic energy of the change
  plus each regularised row's energy; its dual is min 1/2 r.(N + E) r + q.r over the friction cones.

  Options Database Keys:
+ -tao_newton_ls_rtol <1e-3> - the exact line search's tolerance on phi'
. -tao_newton_ls_max_it <40> - its steps at most
- -tao_newton_ksp_type, -tao_newton_pc_type, ... - the Newton systems' solver (CG and ICC by default)

  The reported gradient norm (TaoMonitor, -tao_gatol) is ||B M^-1 grad||, m/s; an iteration is a Newton
  step (one linear solve).
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_NewtonCCP(Tao tao)
{
  TAO_NEWTONCCP *nt;

  PetscFunctionBegin;
  tao->ops->setup          = TaoSetUp_NewtonCCP;
  tao->ops->solve          = TaoSolve_NewtonCCP;
  tao->ops->view           = TaoView_NewtonCCP;
  tao->ops->setfromoptions = TaoSetFromOptions_NewtonCCP;
  tao->ops->destroy        = TaoDestroy_NewtonCCP;
  PetscCall(PetscNew(&nt));
  tao->data = (void *)nt;
  PetscCall(TalusResidualNormCompose(tao));
  nt->ls_rtol   = 1.0e-3;
  nt->ls_max_it = 40;
  PetscCall(NewtonCCPCreateKSP(tao, PETSC_FALSE));
  TalusTaoSetResidualTolerances(tao);
  if (!tao->max_it_changed) tao->max_it = 50; /* Newton steps, each a linear solve */
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNewtonCCPSetProblem_C", TaoNewtonCCPSetProblem_NewtonCCP));
  /* the release TalusCCPReset looks for, so that the solver (its KSP) lives from step to step */
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoAPGDReleaseWorkVectors_C", TaoNewtonCCPRelease));
  PetscFunctionReturn(0);
}

/*@C
  TaoNewtonCCPSetProblem - the problem TAONEWTONCCP solves: the relaxed contact problem with operator
  N + diag(E), N = B diag(inverse_mass) B^T (B assembled: rows as the set's, columns the bodies'
  velocities), and linear term q. E > 0 on every row (friction rows of a cone with mu = 0 excepted).
  The set is referenced, not copied: it must outlive the solves.
@*/
PetscErrorCode TaoNewtonCCPSetProblem(Tao tao, Mat B, Vec inverse_mass, Vec E, Vec q, const TalusFeasibleSet *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoNewtonCCPSetProblem_C", (Tao, Mat, Vec, Vec, Vec, const TalusFeasibleSet *),
                 (tao, B, inverse_mass, E, q, set));
  PetscFunctionReturn(0);
}
