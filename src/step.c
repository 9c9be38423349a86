/*
 * One time step (seed 000 eq. 9, the half-implicit symplectic Euler scheme):
 *   1. collide: contacts of the current configuration, warm-started from the last step's;
 *   2. assemble: B = D^T, v_free = v + h M^-1 F, q = b + B v_free;
 *   3. solve: the CCP min 1/2 g.N g + q.g over the friction cones, N = B M^-1 B^T (apgd);
 *   4. integrate: v+ = v_free + M^-1 B^T g; r += h v+; orientation by the exact rotation h omega+.
 */
#include "sim_impl.h"

static PetscErrorCode Collide(TalusSim sim, TalusStepStats *stats)
{
  TalusContactList swap;
  PetscInt         matched;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventCollide, 0, 0, 0, 0));
  /* keep this step's contacts, with their body ids, as the next step's history */
  if (sim->contacts.n > sim->previous_capacity) {
    PetscCall(PetscFree(sim->previous_ids));
    PetscCall(PetscMalloc1(2 * sim->contacts.n, &sim->previous_ids));
    sim->previous_capacity = sim->contacts.n;
  }
  for (PetscInt c = 0; c < sim->contacts.n; c++) {
    sim->previous_ids[2 * c]     = sim->bodies->id[sim->contacts.c[c].a];
    sim->previous_ids[2 * c + 1] = sim->bodies->id[sim->contacts.c[c].b];
  }
  swap          = sim->previous;
  sim->previous = sim->contacts;
  sim->contacts = swap;
  PetscCall(TalusFindContacts(sim->bodies, sim->envelope, &sim->contacts));
  PetscCall(TalusContactsWarmStart(sim->bodies, &sim->previous, sim->previous_ids, &sim->contacts, &matched));
  stats->contacts     = sim->contacts.n;
  stats->warm_started = matched;
  stats->max_penetration = 0.0;
  for (PetscInt c = 0; c < sim->contacts.n; c++) stats->max_penetration = PetscMax(stats->max_penetration, -sim->contacts.c[c].phi);
  PetscCall(PetscLogEventEnd(TALUS_EventCollide, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  Mat      N;
  Tao      tao;
  PetscInt rows;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventSolve, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(ccp->q, &rows));
  /* the Tao's work vectors are sized at set-up: a new contact count needs a new solver */
  if (!sim->ccp || sim->ccp_rows != rows) {
    PetscCall(TalusCCPDestroy(&sim->ccp));
    PetscCall(TalusCCPCreate(sim->comm, &sim->ccp));
    PetscCall(TalusCCPSetFromOptions(sim->ccp));
    sim->ccp_rows = rows;
  }
  PetscCall(TalusCCPSetType(sim->ccp, sim->anti_relax ? TALUS_CCP_COULOMB : TALUS_CCP_RELAXED));
  PetscCall(TalusDelassusCreateShell(ccp->B, ccp->inverse_mass, &N));
  PetscCall(TalusCCPSetOperator(sim->ccp, N));
  PetscCall(TalusCCPSetLinearTerm(sim->ccp, ccp->q));
  PetscCall(TalusCCPSetFriction(sim->ccp, ccp->mu, 0));
  PetscCall(TalusCCPSolve(sim->ccp, ccp->gamma));
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TaoGetSolutionStatus(tao, &stats->iterations, NULL, &stats->residual, NULL, NULL, &stats->reason));
  PetscCall(MatDestroy(&N));
  PetscCall(PetscLogEventEnd(TALUS_EventSolve, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Complementarity of seed 001 eq. 8 after the step, and the load carried by fixed bodies. */
static PetscErrorCode ContactStatistics(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  TalusBodies       *b = sim->bodies;
  Vec                u;
  const PetscScalar *un;
  const PetscReal    gnorm = TalusNorm3(sim->gravity);
  PetscReal          support = 0.0, weight = 0.0;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ccp->q, &u));
  PetscCall(MatMult(ccp->B, ccp->v_plus, u)); /* D^T v+: relative velocities in the contact frames */
  PetscCall(VecGetArrayRead(u, &un));
  stats->complementarity_error = 0.0;
  for (PetscInt c = 0; c < sim->contacts.n; c++) {
    const TalusContact *ct = &sim->contacts.c[c];
    const PetscReal     rate = ct->phi / sim->dt + PetscRealPart(un[3 * c]);
    stats->complementarity_error = PetscMax(stats->complementarity_error, PetscAbsReal(ct->impulse[0] * rate));
    if (gnorm > 0.0 && (b->fixed[ct->a] || b->fixed[ct->b])) {
      /* the impulse acts on b as +F and on a as -F; count what the fixed body receives */
      PetscReal F[3], along;
      for (int k = 0; k < 3; k++) F[k] = ct->impulse[0] * ct->frame[k] + ct->impulse[1] * ct->frame[3 + k] + ct->impulse[2] * ct->frame[6 + k];
      along = TalusDot3(F, sim->gravity) / gnorm / sim->dt;
      support += b->fixed[ct->b] ? along : -along;
    }
  }
  PetscCall(VecRestoreArrayRead(u, &un));
  PetscCall(VecDestroy(&u));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (!b->fixed[k]) weight += b->mass[k] * gnorm;
  stats->support_force_over_weight = weight > 0.0 ? support / weight : 0.0;
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
  PetscCall(PetscLogEventEnd(TALUS_EventIntegrate, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimStep(TalusSim sim, TalusStepStats *stats)
{
  TalusStepCCP   ccp = {0};
  PetscLogDouble t0, t1, t2, t3, t4;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(stats, sizeof(*stats)));
  PetscCall(PetscTime(&t0));
  PetscCall(Collide(sim, stats));
  PetscCall(PetscTime(&t1));
  PetscCall(TalusSimAssembleCCP(sim, &ccp));
  PetscCall(PetscTime(&t2));
  if (sim->contacts.n > 0) PetscCall(Solve(sim, &ccp, stats));
  else stats->reason = TAO_CONVERGED_GATOL;
  PetscCall(PetscTime(&t3));
  PetscCall(TalusSimApplyImpulses(sim, &ccp));
  PetscCall(ContactStatistics(sim, &ccp, stats));
  PetscCall(Integrate(sim));
  PetscCall(TalusStepCCPDestroy(&ccp));
  PetscCall(PetscTime(&t4));
  sim->t += sim->dt;
  sim->step++;
  stats->step           = sim->step;
  stats->t              = sim->t;
  stats->bodies         = sim->bodies->nowned;
  stats->kinetic_energy = TalusBodiesKineticEnergyLocal(sim->bodies);
  stats->wall_collide   = t1 - t0;
  stats->wall_assemble  = t2 - t1;
  stats->wall_solve     = t3 - t2;
  stats->wall_integrate = t4 - t3;
  stats->wall_step      = t4 - t0;
  PetscFunctionReturn(0);
}
