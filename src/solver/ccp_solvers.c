/*
 * How Tao types take a TalusCCP: one attachment per Tao type, in its solver record
 * (TalusCCPSolverTypeRegister; register.c registers those below), looked up by TalusCCPSetUp from the
 * type the Tao has when it is set up (so -tao_type chooses, as for any Tao).
 *
 * apgd takes every set: the projection onto cones, non-negative and free rows, and the variant's
 * change of the linear term (the anti-relaxation of the Coulomb problem).
 *
 * TAO's bound-constrained types take the sets that are boxes: friction cones with mu = 0
 * (n >= 0, t = 0), non-negative rows and free rows. With mu = 0 the Coulomb problem is the relaxed
 * one (its shift mu ||u_t|| is 0), so they solve both variants of a frictionless problem. A type
 * whose data cannot follow a change of the problem's size (TAO's own keep their work vectors) is
 * made anew by TalusCCPReset with the same type, prefix, options and tolerances.
 *
 * What the record says also decides the problem the solver is given: N in the form it needs (which
 * TalusCCPMakeOperator, in ccp_problem.c, reads from it), and whether a scene's problem is scaled per
 * contact for it (the scaling's choice, below; the scaled problem itself is ccp_scaling.c's). And its
 * check refuses what the options alone decide, before any problem (TalusCCPCheckSolver).
 */
#include "ccp_impl.h"

/*
 * The refusals the options alone decide: a Tao type without a solver record, a problem variant that one
 * solver only solves (lcp) given to another, and the type's own (its record's check: the variants it
 * solves, -ccp_scale). TalusCCPSetFromOptions calls it, so that a scene's run is refused before its first
 * step (its first problem may come long after: the pairs apart are screened out), and each attachment
 * again (a program may change the type or the scaling between solves). The record found, if record is not NULL.
 */
PetscErrorCode TalusCCPCheckSolver(TalusCCP ccp, const TalusCCPSolverType **record)
{
  const TalusCCPSolverType *solver;
  TaoType                   type;
  char                      names[512];

  PetscFunctionBegin;
  PetscCall(TaoGetType(ccp->tao, &type));
  PetscCall(TalusCCPSolverTypeFind(type, &solver));
  if (!solver) {
    PetscCall(TalusCCPSolverTypeNames(names, sizeof(names)));
    SETERRQ(ccp->comm, PETSC_ERR_SUP, "The Tao type %s cannot solve a contact problem: -tao_type must be one of %s",
            type, names);
  }
  if (ccp->ops.tao_type) { /* a variant that only one solver solves (lcp) */
    PetscBool same;
    PetscCall(PetscStrcmp(type, ccp->ops.tao_type, &same));
    PetscCheck(same, ccp->comm, PETSC_ERR_USER_INPUT,
               "-ccp_problem %s is solved by the Tao type %s, not %s: drop -tao_type or choose another -ccp_problem",
               ccp->type_name, ccp->ops.tao_type, type);
  }
  PetscCall(TalusCCPResolveScaling(ccp));
  if (solver->check) PetscCall((*solver->check)(ccp));
  if (record) *record = solver;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSolverAttach(TalusCCP ccp)
{
  const TalusCCPSolverType *solver;

  PetscFunctionBegin;
  PetscCall(TalusCCPCheckSolver(ccp, &solver));
  PetscCall((*solver->attach)(ccp, ccp->tao));
  PetscFunctionReturn(0);
}

/* A type whose iterates the per-contact scaling would not change, only the units of its residual (ipm's check) */
PetscErrorCode TalusCCPRefuseScaling(TalusCCP ccp)
{
  TaoType type;

  PetscFunctionBegin;
  PetscCall(TaoGetType(ccp->tao, &type));
  PetscCheck(!ccp->scale, ccp->comm, PETSC_ERR_SUP,
             "The Tao type %s is invariant to the per-contact scaling, which would change only the units of its "
             "residual: drop -ccp_scale (it is for apgd)",
             type);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPAttach_APGD(TalusCCP ccp, Tao tao)
{
  PetscFunctionBegin;
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, TalusCCPObjectiveAndGradient, ccp));
  PetscCall(TaoSetGradient(tao, NULL, TalusCCPGradient, ccp));
  PetscCall(TaoAPGDSetProjection(tao, 3, TalusFeasibleSetProjectTao, &ccp->set));
  PetscCall(TaoAPGDSetLinearTermUpdate(tao, ccp->ops.update_linear_term, ccp));
  PetscCall(TaoAPGDSetResidualWeights(tao, ccp->scale_residual ? ccp->residual_weight : NULL)); /* NULL unscaled */
  PetscFunctionReturn(0);
}

/* nbgs solves the Coulomb problem itself (an exact local solve per contact): the problem as it is. */
PetscErrorCode TalusCCPCheck_NBGS(TalusCCP ccp)
{
  PetscBool coulomb;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(ccp->type_name, TALUSCCPCOULOMB, &coulomb));
  PetscCheck(coulomb, ccp->comm, PETSC_ERR_SUP,
             "The Tao type nbgs solves the Coulomb problem (its local solve is Coulomb's law): use -ccp_problem "
             "coulomb (the default in a scene), or -tao_type apgd for the %s problem",
             ccp->type_name);
  /* Each block is solved exactly, and the cone scaled by (a, b, b) is a cone: the iterates would be the
     unscaled ones, with a residual in other units */
  PetscCheck(!ccp->scale, ccp->comm, PETSC_ERR_SUP,
             "The Tao type nbgs solves each contact exactly, so -ccp_scale would change only the units of its "
             "residual: drop -ccp_scale (it is for apgd)");
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPAttach_NBGS(TalusCCP ccp, Tao tao)
{
  PetscFunctionBegin;
  PetscCall(TaoNBGSSetProblem(tao, ccp->N, ccp->q, &ccp->set));
  PetscFunctionReturn(0);
}

/* ipm solves either problem (the Coulomb one by a fixed point on De Saxce's shift) with N assembled;
   -ccp_scale would change the units of its residual only (its Newton steps are invariant to it: its check is
   TalusCCPRefuseScaling). */
PetscErrorCode TalusCCPAttach_IPM(TalusCCP ccp, Tao tao)
{
  PetscBool coulomb;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(ccp->type_name, TALUSCCPCOULOMB, &coulomb));
  PetscCall(TaoIPMSetProblem(tao, ccp->N, ccp->q, &ccp->set, coulomb));
  PetscFunctionReturn(0);
}

/* newton_ccp solves the relaxed problem's primal form, from N's factors; -ccp_scale has no meaning there (its
   Newton steps are invariant to a scaling of the rows) */
PetscErrorCode TalusCCPCheck_NewtonCCP(TalusCCP ccp)
{
  PetscBool coulomb;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(ccp->type_name, TALUSCCPCOULOMB, &coulomb));
  PetscCheck(!coulomb, ccp->comm, PETSC_ERR_SUP,
             "The Tao type newton_ccp solves the relaxed problem (the convex one whose primal form it minimises): use "
             "-ccp_problem relaxed, or -tao_type apgd or nbgs for the Coulomb problem");
  PetscCall(TalusCCPRefuseScaling(ccp));
  PetscFunctionReturn(0);
}

/* what the problem holds: N's factors, and compliant rows */
PetscErrorCode TalusCCPAttach_NewtonCCP(TalusCCP ccp, Tao tao)
{
  PetscFunctionBegin;
  PetscCheck(
    ccp->factor_B, ccp->comm, PETSC_ERR_SUP,
    "The Tao type newton_ccp solves the problem in the bodies' velocities and needs N's factors B and M "
    "(TalusCCPSetOperatorFactors): a problem given by W alone (talus ccp, FCLib files) has none; use -tao_type "
    "apgd, nbgs or ipm");
  PetscCheck(ccp->factor_E, ccp->comm, PETSC_ERR_USER_INPUT,
             "The Tao type newton_ccp solves the compliant problem, and this one has rigid rows only: give "
             "-contact_near_rigid > 0 and -contact_friction_sigma > 0 (such as 1e-3)");
  PetscCall(TaoNewtonCCPSetProblem(tao, ccp->factor_B, ccp->factor_inverse_mass, ccp->factor_E, ccp->q, &ccp->set));
  PetscFunctionReturn(0);
}

/* faceted_lcp faceting the cones of the Coulomb problem: seed 002 has no relaxed form of it, and no scaling */
PetscErrorCode TalusCCPCheck_FacetedLCP(TalusCCP ccp)
{
  PetscBool relaxed;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(ccp->type_name, TALUSCCPRELAXED, &relaxed));
  PetscCheck(!relaxed, ccp->comm, PETSC_ERR_SUP,
             "The Tao type faceted_lcp solves the Coulomb problem with its cones faceted (seed 002): use -ccp_problem "
             "lcp");
  PetscCall(TalusCCPRefuseScaling(ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPAttach_FacetedLCP(TalusCCP ccp, Tao tao)
{
  PetscFunctionBegin;
  PetscCall(TaoFacetedLCPSetProblem(tao, ccp->N, ccp->q, &ccp->set));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetSolverType(TalusCCP ccp, const TalusCCPSolverType **solver)
{
  TaoType type;

  PetscFunctionBegin;
  PetscCall(TaoGetType(ccp->tao, &type));
  PetscCall(TalusCCPSolverTypeFind(type, solver));
  PetscFunctionReturn(0);
}

/* What the chosen Tao type needs of N (TALUS_CCP_OPERATOR for a type without a record: it is refused at
   the set-up, with the choices) */
/* The Hessian is N whatever the point: nothing to compute. */
static PetscErrorCode ConstantHessian(Tao tao, Vec x, Mat H, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)tao, (void)x, (void)H, (void)P, (void)ctx;
  PetscFunctionReturn(0);
}

/* The box of a frictionless set: cones n >= 0, t = 0; non-negative rows >= 0; free rows unbounded. */
static PetscErrorCode FeasibleSetBox(const TalusFeasibleSet *set, Vec like, Vec *lower, Vec *upper)
{
  PetscScalar *lo, *up;
  PetscInt     nc, n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(set->mu, &nc));
  PetscCall(VecGetLocalSize(like, &n));
  PetscCall(VecDuplicate(like, lower));
  PetscCall(VecDuplicate(like, upper));
  PetscCall(VecGetArray(*lower, &lo));
  PetscCall(VecGetArray(*upper, &up));
  for (PetscInt i = 0; i < n; i++) {
    const PetscBool cone = (PetscBool)(i < 3 * nc), free_row = (PetscBool)(i >= 3 * nc + set->nnonneg_local);
    lo[i] = free_row ? PETSC_NINFINITY : 0.0;
    up[i] = (cone && i % 3) ? 0.0 : PETSC_INFINITY;
  }
  PetscCall(VecRestoreArray(*lower, &lo));
  PetscCall(VecRestoreArray(*upper, &up));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPAttach_Bounds(TalusCCP ccp, Tao tao)
{
  Vec       lower, upper;
  PetscReal mu_max;
  PetscInt  ncones;
  TaoType   type;

  PetscFunctionBegin;
  PetscCall(VecGetSize(ccp->set.mu, &ncones));
  PetscCall(VecMax(ccp->set.mu, NULL, &mu_max));
  PetscCall(TaoGetType(tao, &type));
  /* mu = 0 everywhere also makes any change of the linear term by anti-relaxation vanish */
  PetscCheck(ncones == 0 || mu_max <= 0.0, ccp->comm, PETSC_ERR_SUP,
             "The Tao type %s handles box constraints only, and this problem has friction cones (mu up to %g): use "
             "-tao_type apgd, or friction coefficients of 0",
             type, (double)mu_max);
  PetscCall(FeasibleSetBox(&ccp->set, ccp->q, &lower, &upper));
  PetscCall(TaoSetVariableBounds(tao, lower, upper));
  PetscCall(VecDestroy(&lower));
  PetscCall(VecDestroy(&upper));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, TalusCCPObjectiveAndGradient, ccp));
  PetscCall(TaoSetGradient(tao, NULL, TalusCCPGradient, ccp));
  PetscCall(TaoSetHessian(tao, ccp->N, ccp->N, ConstantHessian, NULL));
  PetscFunctionReturn(0);
}

/*
 * After a problem: apgd frees its work vectors (the next problem may have another size). Types that
 * cannot are made anew: same type, prefix and options, then the tolerances and iteration limits the
 * old one had (set in code or by options).
 */
PetscErrorCode TalusCCPSolverRelease(TalusCCP ccp)
{
  PetscErrorCode (*release)(Tao);
  Tao       fresh;
  TaoType   type;
  PetscReal gatol, grtol, gttol;
  PetscInt  max_it, max_funcs;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)ccp->tao, "TaoAPGDReleaseWorkVectors_C", &release));
  if (release) {
    PetscCall((*release)(ccp->tao));
    PetscFunctionReturn(0);
  }
  PetscCall(TaoGetType(ccp->tao, &type));
  PetscCall(TaoGetTolerances(ccp->tao, &gatol, &grtol, &gttol));
  PetscCall(TaoGetMaximumIterations(ccp->tao, &max_it));
  PetscCall(TaoGetMaximumFunctionEvaluations(ccp->tao, &max_funcs));
  PetscCall(TaoCreate(ccp->comm, &fresh));
  PetscCall(TaoSetType(fresh, type));
  PetscCall(TaoSetOptionsPrefix(fresh, ccp->prefix));
  PetscCall(TaoSetFromOptions(fresh));
  PetscCall(TaoSetTolerances(fresh, gatol, grtol, gttol));
  PetscCall(TaoSetMaximumIterations(fresh, max_it));
  PetscCall(TaoSetMaximumFunctionEvaluations(fresh, max_funcs));
  PetscCall(TaoDestroy(&ccp->tao));
  ccp->tao = fresh;
  PetscFunctionReturn(0);
}

/* Whether the Tao type's solver record says a scene's problem is scaled for it (and it takes the
   residual weights): apgd's */
static PetscErrorCode SolverTakesScaling(TalusCCP ccp, PetscBool *scaled)
{
  const TalusCCPSolverType *solver;

  PetscFunctionBegin;
  PetscCall(TalusCCPGetSolverType(ccp, &solver));
  *scaled = (PetscBool)(solver && solver->scaled);
  PetscFunctionReturn(0);
}

/* Whether the next solve is scaled: as chosen, else as scale_for_apgd says for the Tao type it has now (a program
   may change the type between solves). */
PetscErrorCode TalusCCPResolveScaling(TalusCCP ccp)
{
  PetscBool scale = ccp->scale;

  PetscFunctionBegin;
  if (!ccp->scale_given) {
    PetscBool scaled_type;
    PetscCall(SolverTakesScaling(ccp, &scaled_type));
    scale = (PetscBool)(ccp->scale_for_apgd && scaled_type);
  }
  if (scale != ccp->scale) ccp->setup = PETSC_FALSE;
  ccp->scale = scale;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetScaling(TalusCCP ccp, PetscBool scale)
{
  PetscFunctionBegin;
  if (scale != ccp->scale) ccp->setup = PETSC_FALSE;
  ccp->scale       = scale;
  ccp->scale_given = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetScalingForAPGD(TalusCCP ccp, PetscBool scale)
{
  PetscFunctionBegin;
  ccp->scale_for_apgd = scale;
  PetscCall(TalusCCPResolveScaling(ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPGetScaling(TalusCCP ccp, PetscBool *scale)
{
  PetscFunctionBegin;
  PetscCall(TalusCCPResolveScaling(ccp));
  *scale = ccp->scale;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPResidualInProblemUnits(TalusCCP ccp, PetscBool *same)
{
  PetscFunctionBegin;
  PetscCall(TalusCCPResolveScaling(ccp));
  *same = PETSC_TRUE;
  if (ccp->scale) PetscCall(SolverTakesScaling(ccp, same)); /* the Tao type that takes the weights */
  *same = (PetscBool)(*same && (!ccp->scale || ccp->scale_residual));
  PetscFunctionReturn(0);
}
