/*
 * One time step (seed 000 eq. 9, the half-implicit symplectic Euler scheme):
 *   1. collide: contacts of the current configuration, warm-started from the last step's; the
 *      rows of the joints (seed 000 eq. 9c);
 *   2. assemble: B = D^T, v_free = v + h M^-1 F, q = b + B v_free;
 *   3. solve: the CCP min 1/2 g.N g + q.g over the friction cones, N = B M^-1 B^T (apgd);
 *   4. integrate: v+ = v_free + M^-1 B^T g; r += h v+; orientation by the exact rotation h omega+.
 */
#include "jacobian_builder.h"
#include <talus/relaxation.h>

static PetscErrorCode Collide(TalusSim sim, TalusStepStats *stats)
{
  TalusBodies              *b    = sim->bodies;
  TalusContactList         *list = &sim->contacts;
  PetscInt                  matched, kept = 0;
  const TalusSimJointsInfo *jointed = &sim->joints_info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventCollide, 0, 0, 0, 0));
  PetscCall(TalusFindContacts(b, sim->envelope, list));
  /* keep the contacts whose lower-id dynamic body this rank owns: each contact on exactly one rank;
     bodies a joint holds together do not collide (docs/mechanisms.md) */
  for (PetscInt c = 0; c < list->n; c++) {
    const PetscInt owner = b->fixed[list->c[c].a] ? list->c[c].b : list->c[c].a;
    if (owner < b->nowned) list->c[kept++] = list->c[c];
  }
  list->n = kept;
  TalusContactsDropPairs(list, jointed->njointed, jointed->jointed);
  PetscCall(TalusContactsWarmStart(b, sim->history, sim->nhistory, list, &matched));
  stats->warm_started = matched;
  PetscCall(PetscLogEventEnd(TALUS_EventCollide, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* This step's contacts, with world-frame impulses, become the next step's warm starts. */
static PetscErrorCode RecordHistory(TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(
    TalusContactsRecordHistory(sim->bodies, &sim->contacts, &sim->history, &sim->history_capacity, &sim->nhistory));
  PetscFunctionReturn(0);
}

/* The step in the assembled form: the step itself when B is assembled already, else the same rows in the same
   order assembled into formed (the caller destroys it) */
static PetscErrorCode AssembledStep(TalusSim sim, TalusStepCCP *ccp, TalusStepCCP *formed, const TalusStepCCP **with)
{
  PetscFunctionBegin;
  if (!ccp->inverse_mass) PetscCall(TalusSimAssembleCCPAssembled(sim, formed));
  *with = ccp->inverse_mass ? ccp : formed;
  PetscFunctionReturn(0);
}

/* W = B M^-1 B^T + E formed, from the assembled B: for solvers that factorise or gather it (ipm, faceted_lcp) */
static PetscErrorCode AssembledDelassus(TalusSim sim, TalusStepCCP *ccp, Mat *N)
{
  TalusStepCCP        formed = {0};
  const TalusStepCCP *with;

  PetscFunctionBegin;
  PetscCall(AssembledStep(sim, ccp, &formed, &with));
  PetscCall(TalusStepCCPFormOperator(with, N));
  PetscCall(TalusStepCCPDestroy(&formed));
  PetscFunctionReturn(0);
}

/* N as the solver asks for it (TalusCCPMakeOperator): formed from the assembled B (ipm and faceted_lcp factorise
   or gather it); a shell on the assembled B, which with M^-1 gives its factors (newton_ccp forms B^T G B); or the
   matrix-free shell (apgd, nbgs). A shell has the rows' compliance, N + E, and the blocks give its diagonal when the
   solve is scaled (the shell cannot find it). */
typedef struct {
  TalusSim      sim;
  TalusStepCCP *ccp;
  TalusStepCCP  formed; /* the assembled B of a matrix-free run, for newton_ccp: destroyed after the solve */
} StepOperator;

static PetscErrorCode MakeOperator(TalusCCP solver, TalusCCPOperatorForm form, PetscBool with_diagonal, void *ctx,
                                   Mat *N)
{
  StepOperator *op  = (StepOperator *)ctx;
  TalusStepCCP *ccp = op->ccp;

  PetscFunctionBegin;
  if (form == TALUS_CCP_OPERATOR_ASSEMBLED) {
    PetscCall(AssembledDelassus(op->sim, ccp, N));
    PetscFunctionReturn(0);
  }
  if (form == TALUS_CCP_OPERATOR_FACTORS) {
    const TalusStepCCP *with;
    PetscCall(AssembledStep(op->sim, ccp, &op->formed, &with));
    PetscCall(TalusDelassusCreateShell(with->B, with->inverse_mass, N));
    PetscCall(TalusCCPSetOperatorFactors(solver, with->B, with->inverse_mass, with->compliance));
  } else
    PetscCall(TalusDelassusCreateShellWithMass(ccp->B, ccp->v_free, ccp->apply_inverse_mass, ccp->inverse_mass_ctx, N));
  if (ccp->compliance) PetscCall(TalusDelassusSetCompliance(*N, ccp->compliance)); /* N + E */
  if (with_diagonal) {
    Vec diagonal;
    PetscCall(TalusSimGetDelassusDiagonal(op->sim, &diagonal));
    PetscCall(TalusDelassusSetDiagonal(*N, diagonal));
    PetscCall(VecDestroy(&diagonal));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  Tao          tao;
  StepOperator op = {.sim = sim, .ccp = ccp};

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventSolve, 0, 0, 0, 0));
  PetscCall(TalusCCPMakeOperator(sim->ccp, MakeOperator, &op));
  PetscCall(TalusCCPSetLinearTerm(sim->ccp, ccp->q));
  /* the cones, then the non-negative rows (the joints' limits), then the free rows (step_ccp.c's kinds) */
  PetscCall(TalusCCPSetFeasibleSet(sim->ccp, ccp->mu, ccp->nnonneg, ccp->nfree));
  PetscCall(TalusCCPSolve(sim->ccp, ccp->gamma));
  stats->bytes_per_product = ccp->bytes_per_product;
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TaoGetLinearSolveIterations(tao, &stats->linear_iterations)); /* TaoSolve counts from 0 */
  /* with -ccp_finish, a solve that stopped short goes on: the answer's residual and reason are then the finisher's */
  PetscCall(
    TalusCCPGetSolveStatus(sim->ccp, &stats->iterations, &stats->residual, &stats->reason, &stats->finish_iterations));
  { /* a solver with no partial answer (a pivoting one) that failed stops the run */
    const char *why;
    PetscCall(TalusTaoGetFailure(tao, &why));
    PetscCheck(!why, sim->comm, PETSC_ERR_NOT_CONVERGED, "step %" PetscInt_FMT ": %s", sim->step + 1, why);
  }
  PetscCall(
    TalusSimForceCheck(sim, ccp, stats)); /* -ccp_force_check: against a tight reference, the problem still set */
  PetscCall(TalusStepCCPDestroy(&op.formed));
  /* the solver outlives the step, its problem must not: this step's B and vectors would otherwise
     still be held when the next step builds its own, at the memory peak */
  PetscCall(TalusCCPReset(sim->ccp));
  PetscCall(PetscLogEventEnd(TALUS_EventSolve, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Assemble and solve; when a screened pair would close, it joins the problem, which is solved again from the
   impulses found (step_screen.c). The iterations are the solves' together. */
static PetscErrorCode SolveScreened(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats,
                                    PetscLogDouble *wall_assemble)
{
  PetscInt iterations = 0, finish_iterations = 0, linear_iterations = 0, joined;

  PetscFunctionBegin;
  *wall_assemble = 0.0;
  for (stats->solves = 1;; stats->solves++) {
    PetscLogDouble t0, t1;
    PetscInt       total; /* the rows of every rank: q's global size, known without a reduction of its own */
    PetscCall(PetscTime(&t0));
    PetscCall(TalusSimAssembleCCP(sim, ccp));
    PetscCall(PetscTime(&t1));
    *wall_assemble += t1 - t0;
    PetscCall(VecGetSize(ccp->q, &total));
    if (total > 0) PetscCall(Solve(sim, ccp, stats));
    else stats->reason = TAO_CONVERGED_GATOL;
    iterations += stats->iterations, linear_iterations += stats->linear_iterations;
    finish_iterations += stats->finish_iterations;
    PetscCall(TalusStepCCPVelocities(ccp));
    PetscCall(TalusSimCheckScreened(sim, ccp, &joined));
    if (!joined) break;
    PetscCall(PetscInfo(NULL, "step %" PetscInt_FMT ": %" PetscInt_FMT " screened pairs would close: solving again\n",
                        sim->step + 1, joined));
    PetscCall(TalusSimKeepBodyVector(sim, ccp));
    PetscCall(TalusStepCCPDestroy(ccp));
  }
  stats->iterations = iterations, stats->linear_iterations = linear_iterations;
  stats->finish_iterations = finish_iterations;
  stats->screened          = sim->contacts.n - sim->contacts_active;
  PetscFunctionReturn(0);
}

static PetscErrorCode Integrate(TalusSim sim)
{
  TalusBodies *b = sim->bodies;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventIntegrate, 0, 0, 0, 0));
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->fixed[k]) continue;
    for (int d = 0; d < 3; d++) b->position[3 * k + d] += sim->dt * b->velocity[3 * k + d]; /* seed 000 eq. 9a */
    TalusQuatIntegrate(&b->quaternion[4 * k], &b->omega[3 * k], sim->dt);
  }
  PetscCall(TalusSimRunHook(sim, TALUS_HOOK_AFTER_INTEGRATE)); /* the prescribed bodies' poses: set, never integrated */
  PetscCall(PetscLogEventEnd(TALUS_EventIntegrate, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimStep(TalusSim sim, TalusStepStats *stats)
{
  TalusStepCCP    ccp = {0};
  TalusStepTotals totals;
  PetscLogDouble  t0, t1, t3, t4, t5, wall_assemble;
  PetscBool       rebalance;
  PetscReal       migrate0 = sim->seconds_migrate, ghost0 = sim->seconds_ghost;

  PetscFunctionBegin;
  /* the solver is made with the settings, not in the middle of a step (its -ccp_problem may change sim->anti_relax,
     which the contacts' rows follow) */
  PetscCheck(sim->ccp, sim->comm, PETSC_ERR_ORDER,
             "the simulation is not set up: call TalusSimSetUp (after TalusSimSetFromOptions, if it reads options) "
             "before the first step");
  PetscCall(PetscMemzero(stats, sizeof(*stats)));
  PetscCall(TalusSimDistribute(sim));
  PetscCall(PetscTime(&t0));
  /* the materials' and joints' relaxation checked (the first step), the prescribed velocities set before the
     ghosts copy them */
  PetscCall(TalusSimRunHook(sim, TALUS_HOOK_BEFORE_GHOSTS));
  PetscCall(TalusSimNumberDofs(sim));
  PetscCall(TalusSimBuildGhosts(sim));
  PetscCall(Collide(sim, stats));
  /* the slack Hertzian contacts dropped, the joints' rows, the loads' and springs' wrenches */
  PetscCall(TalusSimRunHook(sim, TALUS_HOOK_AFTER_COLLIDE));
  PetscCall(TalusSimScreenContacts(sim)); /* separated pairs out of the problem (step_screen.c) */
  PetscCall(PetscTime(&t1));
  PetscCall(SolveScreened(sim, &ccp, stats, &wall_assemble));
  if (sim->problem_monitor) { /* before the impulses change the velocities the problem was made from */
    stats->step = sim->step + 1, stats->t = sim->t + sim->dt;
    sim->in_problem_monitor = PETSC_TRUE;
    PetscCall((*sim->problem_monitor)(sim, stats, sim->problem_monitor_ctx));
    sim->in_problem_monitor = PETSC_FALSE;
  }
  PetscCall(PetscTime(&t3));
  PetscCall(TalusSimApplyImpulses(sim, &ccp));
  PetscCall(TalusSimRunHook(sim, TALUS_HOOK_AFTER_SOLVE)); /* the joints' impulses shared, the watches measured */
  stats->joints = sim->joints_info.njoints;
  PetscCall(TalusSimContactStatistics(sim, &ccp, stats, &totals));
  PetscCall(Integrate(sim));
  PetscCall(TalusSimKeepBodyVector(sim, &ccp));
  PetscCall(TalusStepCCPDestroy(&ccp));
  PetscCall(RecordHistory(sim));
  PetscCall(PetscTime(&t4));
  sim->t += sim->dt;
  sim->step++;
  PetscCall(TalusSimReduceStatistics(sim, stats, &totals));
  PetscCall(TalusSimRunHook(sim, TALUS_HOOK_END_OF_STEP));
  PetscCall(TalusSimDropGhosts(sim));
  PetscCall(TalusDecompWantsRebalance(sim->decomp, sim->step, stats->imbalance, &rebalance));
  PetscCall(TalusSimMigrate(sim, rebalance));
  PetscCall(PetscTime(&t5));
  stats->step           = sim->step;
  stats->t              = sim->t;
  stats->wall_collide   = t1 - t0;
  stats->wall_assemble  = wall_assemble;
  stats->wall_solve     = t3 - t1 - wall_assemble;
  stats->wall_integrate = t4 - t3;
  stats->wall_migrate   = sim->seconds_migrate - migrate0;
  stats->wall_ghost     = sim->seconds_ghost - ghost0;
  stats->wall_step      = t5 - t0;
  PetscFunctionReturn(0);
}
