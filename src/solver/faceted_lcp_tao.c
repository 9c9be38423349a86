/*
 * The Tao type "faceted_lcp": a contact problem solved as seed 002's faceted-cone LCP (lcp_contacts.c,
 * include/talus/lcp.h), so that the faceted LCP is one solver among the others (register.c) and a scene
 * chooses it like any other (-ccp_problem lcp names it, ccp_variants.c). It needs W assembled: the LCP is
 * built dense on rank 0. Its iterations are Lemke's pivots (or ssfls/asfls's iterations) and its residual
 * the LCP's complementarity, as stats.csv reports them.
 *
 * An LCP that Lemke cannot solve (a secondary ray, redundant joint rows, the pivot cap) ends the solve
 * with TAO_DIVERGED_USER and the reason in words (TalusTaoGetFailure): unlike an iterative method there is
 * no partial answer to go on with, so a simulation stops there, naming the step.
 */
#include <petsc/private/taoimpl.h>
#include <talus.h>

typedef struct {
  TalusFacetedLCPSettings settings;
  Mat                     W; /* the problem (TaoFacetedLCPSetProblem): referenced, not owned */
  Vec                     q;
  const TalusFeasibleSet *set;
  char                    failure[256]; /* why the last solve failed, or empty */
} TAO_FacetedLCP;

static PetscErrorCode TaoSolve_FacetedLCP(Tao tao)
{
  TAO_FacetedLCP       *lcp = (TAO_FacetedLCP *)tao->data;
  TalusFacetedLCPResult res;

  PetscFunctionBegin;
  PetscCheck(lcp->W && lcp->q && lcp->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "The Tao type faceted_lcp needs its problem: TaoFacetedLCPSetProblem (TalusCCP gives it)");
  PetscCall(TalusFacetedLCPSolve(lcp->W, lcp->q, lcp->set->mu, lcp->set->nnonneg_local, lcp->set->nfree_local,
                                 &lcp->settings, tao->solution, &res));
  lcp->failure[0] = 0;
  if (!res.solved) /* the same on every rank (TalusFacetedLCPSolve broadcasts its result) */
    PetscCall(PetscSNPrintf(lcp->failure, sizeof(lcp->failure),
                            "%s did not solve the faceted LCP (%" PetscInt_FMT " unknowns): %s",
                            TalusLCPSolvers[lcp->settings.solver], res.n, res.reason));
  tao->niter    = res.lemke.pivots;
  tao->residual = res.lemke.complementarity;
  tao->reason   = res.solved ? TAO_CONVERGED_USER : TAO_DIVERGED_USER;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_FacetedLCP(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_FacetedLCP *lcp = (TAO_FacetedLCP *)tao->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Faceted-cone LCP (seed 002 eq. 34-35; -ccp_problem lcp)");
  PetscCall(TalusFacetedLCPSettingsOptions(PetscOptionsObject, &lcp->settings));
  PetscOptionsHeadEnd();
  PetscCall(TalusFacetedLCPSettingsCheck(PetscObjectComm((PetscObject)tao), &lcp->settings));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_FacetedLCP(Tao tao, PetscViewer viewer)
{
  TAO_FacetedLCP *lcp = (TAO_FacetedLCP *)tao->data;
  PetscBool       isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " friction directions per contact, solved by %s\n",
                                   lcp->settings.facets, TalusLCPSolvers[lcp->settings.solver]));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoFacetedLCPSetProblem_FacetedLCP(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  TAO_FacetedLCP *lcp = (TAO_FacetedLCP *)tao->data;

  PetscFunctionBegin;
  lcp->W = W, lcp->q = q, lcp->set = set;
  PetscFunctionReturn(0);
}

static PetscErrorCode TalusTaoGetFailure_FacetedLCP(Tao tao, const char **why)
{
  TAO_FacetedLCP *lcp = (TAO_FacetedLCP *)tao->data;

  PetscFunctionBegin;
  *why = lcp->failure[0] ? lcp->failure : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_FacetedLCP(Tao tao)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoFacetedLCPSetProblem_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoGetFailure_C", NULL));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

/*MC
  TAOFACETEDLCP - "faceted_lcp": the contact problem as seed 002's faceted-cone LCP, solved whole on rank 0.

  Options Database Keys:
+ -lcp_facets <8> - friction directions per contact
. -lcp_solver <lemke> - lemke, or PETSc's ssfls or asfls
. -lcp_max_pivots <0> - Lemke's pivot cap (0: 50 n)
- -lcp_max_size <2000> - the most LCP unknowns accepted
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_FacetedLCP(Tao tao)
{
  TAO_FacetedLCP *lcp;

  PetscFunctionBegin;
  tao->ops->solve          = TaoSolve_FacetedLCP;
  tao->ops->view           = TaoView_FacetedLCP;
  tao->ops->setfromoptions = TaoSetFromOptions_FacetedLCP;
  tao->ops->destroy        = TaoDestroy_FacetedLCP;
  PetscCall(PetscNew(&lcp));
  TalusFacetedLCPSettingsDefault(&lcp->settings);
  tao->data = (void *)lcp;
  PetscCall(
    PetscObjectComposeFunction((PetscObject)tao, "TaoFacetedLCPSetProblem_C", TaoFacetedLCPSetProblem_FacetedLCP));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoGetFailure_C", TalusTaoGetFailure_FacetedLCP));
  PetscFunctionReturn(0);
}

/*@
  TaoFacetedLCPSetProblem - the contact problem (W assembled, q, the cones and rows) that TAOFACETEDLCP solves;
  the objects are referenced, not copied, and must outlive the solve
@*/
PetscErrorCode TaoFacetedLCPSetProblem(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoFacetedLCPSetProblem_C", (Tao, Mat, Vec, const TalusFeasibleSet *), (tao, W, q, set));
  PetscFunctionReturn(0);
}

/*@C
  TalusTaoGetFailure - why the last TaoSolve() of a type with no partial answer (a pivoting method) failed, in words
  (the same on every rank), or NULL: it did not fail, or the type says nothing more than its converged reason
@*/
PetscErrorCode TalusTaoGetFailure(Tao tao, const char **why)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  *why = NULL;
  PetscTryMethod(tao, "TalusTaoGetFailure_C", (Tao, const char **), (tao, why));
  PetscFunctionReturn(0);
}
