/*
 * -ccp_force_check RHO: what the stopping test buys, measured on the run itself (issue 54). At the
 * checked steps the step's problem, solved as the run solves it, is solved again from that solution to
 * the tight residual RHO |g| h (in the solver's norm), and every dynamic body's contact-force error
 * against that reference, |(M^-1 B^T (r_ref - r))_translation| m / h, is divided by its weight m |g|:
 * stats.csv's force_error_max_over_weight is the largest over the bodies, force_error_body the body's
 * id, force_check_converged whether the reference met RHO. The run goes on with its own solution, so a
 * checked run is the same run as an unchecked one (only slower).
 */
#include "sim_impl.h"

PetscErrorCode TalusSimForceCheckSetFromOptions(TalusSim sim, PetscOptionItems *PetscOptionsObject)
{
  TalusForceCheck *fc = &sim->force_check;

  PetscFunctionBegin;
  PetscCall(PetscOptionsReal("-ccp_force_check",
                             "At the checked steps, solve the problem again to the residual RHO |g| h and write each "
                             "step's largest body contact-force error over its weight to stats.csv (0: no check)",
                             "", fc->rtol, &fc->rtol, NULL));
  PetscCall(PetscOptionsInt("-ccp_force_check_every", "Check every this many steps (-ccp_force_check)", "", fc->every,
                            &fc->every, NULL));
  PetscCall(PetscOptionsInt("-ccp_force_check_max_it", "Iteration limit of the reference solves (-ccp_force_check)", "",
                            fc->max_it, &fc->max_it, NULL));
  PetscCheck(fc->rtol >= 0.0 && !PetscIsInfOrNanReal(fc->rtol), sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_check must be a fraction of the weight >= 0 (such as 1e-5; 0: no check), got %g",
             (double)fc->rtol);
  PetscCheck(fc->every >= 1, sim->comm, PETSC_ERR_USER_INPUT, "-ccp_force_check_every must be >= 1, got %" PetscInt_FMT,
             fc->every);
  PetscCheck(fc->max_it >= 1, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_check_max_it must be >= 1, got %" PetscInt_FMT, fc->max_it);
  PetscFunctionReturn(0);
}

/* the largest |dv_translation| / (|g| h) of this rank's dynamic bodies, dv = M^-1 B^T (r_ref - r), and its body */
static PetscErrorCode LargestBodyError(TalusSim sim, TalusStepCCP *ccp, Vec difference, PetscReal *largest,
                                       PetscInt *id)
{
  TalusBodies       *b = sim->bodies;
  Vec                dv;
  const PetscScalar *v;
  const PetscReal    gh = sim->gravity_norm * sim->dt;

  PetscFunctionBegin;
  *largest = 0.0, *id = -1;
  PetscCall(VecDuplicate(ccp->v_free, &dv));
  PetscCall(MatMultTranspose(ccp->B, difference, dv));
  PetscCall((*ccp->apply_inverse_mass)(dv, ccp->inverse_mass_ctx));
  PetscCall(VecGetArrayRead(dv, &v));
  for (PetscInt k = 0; k < b->nowned; k++) {
    const PetscInt d = b->dof[k] - sim->dof_start;
    PetscReal      e;
    if (b->dof[k] < 0) continue;
    e = PetscSqrtReal(PetscRealPart(v[d] * v[d] + v[d + 1] * v[d + 1] + v[d + 2] * v[d + 2])) / gh;
    if (e > *largest) *largest = e, *id = b->id[k];
  }
  PetscCall(VecRestoreArrayRead(dv, &v));
  PetscCall(VecDestroy(&dv));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimForceCheck(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  TalusForceCheck   *fc = &sim->force_check;
  Tao                tao;
  Vec                shipped;
  PetscReal          gatol, grtol, gttol, largest;
  PetscInt           max_it, id;
  TaoConvergedReason reason;
  struct {
    double value;
    int    rank;
  } where; /* MPI_DOUBLE_INT's layout, for MPI_MAXLOC */

  PetscFunctionBegin;
  stats->force_checked = PETSC_FALSE;
  if (fc->rtol <= 0.0 || (sim->step + 1) % fc->every) PetscFunctionReturn(0);
  PetscCheck(sim->gravity_norm > 0.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_check measures forces against the weight, and this scene has no gravity");
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TaoGetTolerances(tao, &gatol, &grtol, &gttol));
  PetscCall(TaoGetMaximumIterations(tao, &max_it));
  PetscCall(VecDuplicate(ccp->gamma, &shipped));
  PetscCall(VecCopy(ccp->gamma, shipped));
  PetscCall(TaoSetTolerances(tao, fc->rtol * sim->gravity_norm * sim->dt, grtol, gttol));
  PetscCall(TaoSetMaximumIterations(tao, fc->max_it));
  PetscCall(TalusCCPSolve(sim->ccp, ccp->gamma)); /* from the run's solution */
  PetscCall(TaoGetSolutionStatus(tao, NULL, NULL, NULL, NULL, NULL, &reason));
  PetscCall(TaoSetTolerances(tao, gatol, grtol, gttol));
  PetscCall(TaoSetMaximumIterations(tao, max_it));
  PetscCall(VecAYPX(ccp->gamma, -1.0, shipped)); /* r_ref - r */
  PetscCall(LargestBodyError(sim, ccp, ccp->gamma, &largest, &id));
  PetscCall(VecCopy(shipped, ccp->gamma)); /* the run goes on with its own solution */
  PetscCall(VecDestroy(&shipped));
  where.value = largest, where.rank = sim->rank;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &where, 1, MPI_DOUBLE_INT, MPI_MAXLOC, sim->comm));
  PetscCallMPI(MPI_Bcast(&id, 1, MPIU_INT, where.rank, sim->comm));
  stats->force_checked         = PETSC_TRUE;
  stats->force_error_max       = (PetscReal)where.value;
  stats->force_error_body      = id;
  stats->force_check_converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}
