/*
 * A step's contact problem for others to read: the problem monitor TalusSimStep calls after the
 * solve, and the step's problem in FCLib's local and global forms (seed 000 eq. 13-14), assembled
 * on the side with the assembled builder (body-frame angular velocities, diagonal M) whatever form
 * the run's B takes, so that the run itself is unchanged.
 */
#include "jacobian_builder.h"
#include <talus/relaxation.h>

PetscErrorCode TalusSimSetProblemMonitor(TalusSim sim, TalusSimProblemMonitorFn fn, void *ctx,
                                         PetscErrorCode (*destroy)(void **))
{
  PetscFunctionBegin;
  if (sim->problem_monitor_destroy) PetscCall((*sim->problem_monitor_destroy)(&sim->problem_monitor_ctx));
  sim->problem_monitor         = fn;
  sim->problem_monitor_ctx     = ctx;
  sim->problem_monitor_destroy = destroy;
  PetscFunctionReturn(0);
}

/* A diagonal matrix with the layout of d. */
static PetscErrorCode DiagonalMatrix(Vec d, Mat *D)
{
  PetscInt n, N;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetSize(d, &N));
  PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)d), n, n, N, N, 1, NULL, 0, NULL, D));
  PetscCall(MatDiagonalSet(*D, d, INSERT_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetStepProblem(TalusSim sim, TalusFCLibProblem *local, TalusFCLibGlobal *global, Vec *warm_start)
{
  TalusStepCCP ccp = {0};
  Vec          mass;

  PetscFunctionBegin;
  PetscCheck(sim->in_problem_monitor, sim->comm, PETSC_ERR_ARG_WRONGSTATE,
             "TalusSimGetStepProblem is called from a problem monitor only (TalusSimSetProblemMonitor)");
  /* FCLib's local form has friction cones only; its global form's bilateral part (G, b) is not written yet */
  PetscCheck(!sim->joints_info.njoints, sim->comm, PETSC_ERR_SUP,
             "a step's problem with joints cannot be written in FCLib's form yet (its rows are contacts only): "
             "the scene has %" PetscInt_FMT " joints",
             sim->joints_info.njoints);
  PetscCall(TalusSimAssembleCCPAssembled(sim, &ccp));
  PetscCall(PetscMemzero(local, sizeof(*local)));
  PetscCall(PetscMemzero(global, sizeof(*global)));
  PetscCall(VecGetSize(ccp.mu, &local->ncontacts));
  PetscCall(VecGetSize(ccp.v_free, &local->ndofs));

  /* local: W = B M^-1 B^T (+ E: the problem the step solves, with compliant rows or the contacts'
     floor), q, mu */
  PetscCall(TalusStepCCPFormOperator(&ccp, &local->W));
  PetscCall(VecDuplicate(ccp.q, &local->q));
  PetscCall(VecCopy(ccp.q, local->q));
  PetscCall(VecDuplicate(ccp.mu, &local->mu));
  PetscCall(VecCopy(ccp.mu, local->mu));

  if (warm_start) {
    PetscCall(VecDuplicate(ccp.gamma, warm_start));
    PetscCall(VecCopy(ccp.gamma, *warm_start));
  }
  /* global: M, H = B^T, f = M v_free, w = q - B v_free = b; FCLib's global form has no E, so a
     problem with one has its local form only (global->M stays NULL) */
  if (ccp.compliance) {
    PetscCall(TalusStepCCPDestroy(&ccp));
    PetscFunctionReturn(0);
  }
  PetscCall(VecDuplicate(ccp.inverse_mass, &mass));
  PetscCall(VecCopy(ccp.inverse_mass, mass));
  PetscCall(VecReciprocal(mass));
  PetscCall(DiagonalMatrix(mass, &global->M));
  PetscCall(MatTranspose(ccp.B, MAT_INITIAL_MATRIX, &global->H));
  PetscCall(VecDuplicate(ccp.v_free, &global->f));
  PetscCall(VecPointwiseMult(global->f, mass, ccp.v_free));
  PetscCall(VecDuplicate(ccp.q, &global->w));
  PetscCall(MatMult(ccp.B, ccp.v_free, global->w));
  PetscCall(VecAYPX(global->w, -1.0, ccp.q));
  PetscCall(VecDuplicate(ccp.mu, &global->mu));
  PetscCall(VecCopy(ccp.mu, global->mu));
  PetscCall(VecDestroy(&mass));
  PetscCall(TalusStepCCPDestroy(&ccp));
  PetscFunctionReturn(0);
}
