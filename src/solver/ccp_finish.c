/*
 * -ccp_finish nbgs: a second solver for the solves the first one leaves above the tolerance (issue 54, item 2).
 *
 * apgd is a first-order method on the whole problem: where a light body is wedged under a heavy one (a clump
 * under the rig's 80 N wheel, a grain under a slab) the few contacts that carry the load are coupled far more
 * strongly than the rest, and apgd's one step length, set by the largest curvature, moves them by too little:
 * measured on the clump rig's capped steps (t = 0.339-0.346 s of one member), apgd was still 2-40 times the
 * tolerance after 5,000 iterations while nbgs, which solves each contact's Coulomb problem exactly with its
 * neighbours' impulses as they are, met it in 271-593 sweeps from the same state (docs/solver.md, "Finishing a
 * stalled solve"). So when the first solver ends without meeting its tolerance, the finishing solver goes on from
 * its answer, on the problem as given (unscaled: nbgs is invariant to the per-contact scaling), to the same
 * tolerance in the same norm. Its answer is kept when its residual is smaller; otherwise the first solver's stays.
 *
 * The finishing Tao has the options prefix ccp_finish_ (after the problem's own): -ccp_finish_tao_max_it bounds
 * its sweeps (default 1000), -ccp_finish_tao_nbgs_* its own settings.
 */
#include "ccp_impl.h"

#define FINISH_MAX_IT_DEFAULT 1000

PetscErrorCode TalusCCPFinishSetFromOptions(TalusCCP ccp, PetscOptionItems *PetscOptionsObject)
{
  const char *const choices[] = {"none", TAONBGS};
  PetscInt          choice    = ccp->finish ? 1 : 0;
  PetscBool         set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEList("-ccp_finish",
                              "A second solver for the solves that end above the tolerance: it goes on from the first "
                              "one's answer to the same tolerance (nbgs: exact per contact, where apgd stalls on a "
                              "light body under a heavy one; options -ccp_finish_tao_*)",
                              "", choices, 2, choices[choice], &choice, &set));
  if (set && choice == 0) PetscCall(TaoDestroy(&ccp->finish));
  if (set && choice == 1 && !ccp->finish) { /* its options are read after the problem's Tao's */
    char prefix[256];
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%sccp_finish_", ccp->prefix ? ccp->prefix : ""));
    PetscCall(TaoCreate(ccp->comm, &ccp->finish));
    PetscCall(TaoSetType(ccp->finish, TAONBGS));
    PetscCall(TaoSetOptionsPrefix(ccp->finish, prefix));
    PetscCall(TaoSetMaximumIterations(ccp->finish, FINISH_MAX_IT_DEFAULT));
  }
  PetscFunctionReturn(0);
}

/* After the problem's Tao has its options: the finishing one's, and what it cannot finish */
PetscErrorCode TalusCCPFinishSetUpFromOptions(TalusCCP ccp)
{
  PetscBool coulomb;
  TaoType   type;

  PetscFunctionBegin;
  if (!ccp->finish) PetscFunctionReturn(0);
  PetscCall(PetscStrcmp(ccp->type_name, TALUSCCPCOULOMB, &coulomb));
  PetscCheck(coulomb, ccp->comm, PETSC_ERR_USER_INPUT,
             "-ccp_finish nbgs finishes the Coulomb problem (its local solve is Coulomb's law), not the %s problem: "
             "drop -ccp_finish or use -ccp_problem coulomb",
             ccp->type_name);
  PetscCall(TaoGetType(ccp->tao, &type));
  PetscCall(PetscStrcmp(type, TAONBGS, &coulomb));
  PetscCheck(!coulomb, ccp->comm, PETSC_ERR_USER_INPUT,
             "-ccp_finish nbgs would go on with the solver that stopped (-tao_type nbgs): raise -tao_max_it instead");
  PetscCall(TaoSetFromOptions(ccp->finish));
  { /* the first solver's norm, read from the options with it */
    TaoResidualNorm norm;
    PetscCall(TalusTaoGetResidualNorm(ccp->tao, &norm));
    PetscCall(TalusTaoSetResidualNorm(ccp->finish, norm));
  }
  PetscFunctionReturn(0);
}

/*
 * r: the first solver's answer in the problem's units. When that solve did not converge, the finishing solver
 * goes on from it; r ends with the better of the two answers (ccp->finish_used says whether that is the second).
 */
PetscErrorCode TalusCCPFinishSolve(TalusCCP ccp, Vec r)
{
  TaoConvergedReason reason;
  PetscReal          gatol, grtol, gttol, first, second;
  Vec                kept;

  PetscFunctionBegin;
  ccp->finish_used = PETSC_FALSE;
  if (!ccp->finish) PetscFunctionReturn(0);
  PetscCall(TaoGetSolutionStatus(ccp->tao, NULL, NULL, &first, NULL, NULL, &reason));
  if (reason > 0) PetscFunctionReturn(0);
  /* the first solver's tolerance now (the force check changes it for its reference); its norm is set with the
     options */
  PetscCall(TaoGetTolerances(ccp->tao, &gatol, &grtol, &gttol));
  PetscCall(TaoSetTolerances(ccp->finish, gatol, grtol, gttol));
  PetscCall(TaoNBGSSetProblem(ccp->finish, ccp->user_N, ccp->user_q, &ccp->user_set));
  PetscCall(VecDuplicate(r, &kept));
  PetscCall(VecCopy(r, kept));
  PetscCall(TaoSetSolution(ccp->finish, r));
  PetscCall(TaoSolve(ccp->finish));
  PetscCall(TaoGetSolutionStatus(ccp->finish, NULL, NULL, &second, NULL, NULL, NULL));
  PetscCall(PetscInfo(NULL, "the finishing solve went from the residual %g to %g\n", (double)first, (double)second));
  if (second < first) ccp->finish_used = PETSC_TRUE;
  else PetscCall(VecCopy(kept, r));
  PetscCall(VecDestroy(&kept));
  /* it lets go of the problem at once (the step's N must not outlive it); nbgs keeps no vector of a problem's size
     between solves, so the next problem may have another */
  PetscCall(TaoNBGSSetProblem(ccp->finish, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

/* The finishing solver (-ccp_finish), or NULL; TalusCCPGetSolveStatus says whether the last answer is its own */
PetscErrorCode TalusCCPGetFinish(TalusCCP ccp, Tao *finish)
{
  PetscFunctionBegin;
  *finish = ccp->finish;
  PetscFunctionReturn(0);
}
