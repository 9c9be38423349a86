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

/* Seed 004's Hertzian contacts that carry no force this step leave the list (contact_law.c); one with a
   box, whose corners have no radius of curvature, stops the run on every rank. */
static PetscErrorCode DropSlackHertzContacts(TalusSim sim)
{
  TalusBodies      *b    = sim->bodies;
  TalusContactList *list = &sim->contacts;
  PetscInt          kept = 0, box = PETSC_MAX_INT, hertz = 0;

  PetscFunctionBegin;
  for (PetscInt m = 0; m < b->nmaterials; m++) hertz += b->materials[m].modulus > 0.0;
  if (!hertz) PetscFunctionReturn(0);
  for (PetscInt c = 0; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    PetscReal           K, B, share;
    if (TalusContactHertzModulus(b, ct->a, ct->b) > 0.0 && TalusContactHertzRadius(b, ct->a, ct->b) == 0.0)
      box = PetscMin(box, b->shape[ct->a] == TALUS_BOX ? ct->id_a : ct->id_b);
    if (TalusContactNormalLaw(b, ct, sim->dt, &K, &B, &share)) list->c[kept++] = *ct;
  }
  list->n = kept;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &box, 1, MPIU_INT, MPI_MIN, sim->comm));
  PetscCheck(box == PETSC_MAX_INT, sim->comm, PETSC_ERR_USER_INPUT,
             "body %" PetscInt_FMT " is a box in a Hertzian contact (a material with a compliance modulus): Hertz's "
             "law needs the radius of curvature a box's corners do not have: give the box a linear (stiffness) or "
             "rigid material",
             box);
  PetscFunctionReturn(0);
}

static PetscErrorCode Collide(TalusSim sim, TalusStepStats *stats)
{
  TalusBodies      *b    = sim->bodies;
  TalusContactList *list = &sim->contacts;
  PetscInt          matched, kept = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventCollide, 0, 0, 0, 0));
  PetscCall(TalusFindContacts(b, sim->envelope, list));
  /* keep the contacts whose lower-id dynamic body this rank owns: each contact on exactly one rank;
     bodies a joint holds together do not collide (docs/mechanisms.md) */
  for (PetscInt c = 0; c < list->n; c++) {
    const PetscInt owner = b->fixed[list->c[c].a] ? list->c[c].b : list->c[c].a;
    if (owner < b->nowned && !(sim->njointed && TalusSimJointed(sim, list->c[c].id_a, list->c[c].id_b)))
      list->c[kept++] = list->c[c];
  }
  list->n = kept;
  PetscCall(TalusContactsWarmStart(b, sim->history, sim->nhistory, list, &matched));
  PetscCall(DropSlackHertzContacts(sim)); /* by their warm starts too */
  stats->contacts        = list->n;
  stats->warm_started    = matched;
  stats->max_penetration = 0.0;
  for (PetscInt c = 0; c < list->n; c++) stats->max_penetration = PetscMax(stats->max_penetration, -list->c[c].phi);
  PetscCall(PetscLogEventEnd(TALUS_EventCollide, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* This step's contacts, with world-frame impulses, become the next step's warm starts. */
static PetscErrorCode RecordHistory(TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(TalusGrowArray(sizeof(TalusContactHistory), sim->contacts.n, &sim->history_capacity, &sim->history));
  for (PetscInt c = 0; c < sim->contacts.n; c++)
    TalusContactRecordHistory(sim->bodies, &sim->contacts.c[c], &sim->history[c]);
  sim->nhistory = sim->contacts.n; /* already sorted: contacts come sorted by (id_a, id_b, feature) */
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

/* W = B M^-1 B^T + E formed, from the assembled B: for solvers that factorise or gather it (ipm, the faceted
   LCP) */
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

/* -ccp_problem lcp: the step's contacts as seed 002's faceted LCP, solved on rank 0 (docs/lcp.md); a
   step it cannot solve stops the run with the reason */
static PetscErrorCode SolveFacetedLCP(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  Mat                   N;
  TalusFacetedLCPResult res;

  PetscFunctionBegin;
  PetscCall(AssembledDelassus(sim, ccp, &N));
  /* the joints' rows after the contacts: the limits' one-sided, the others' free (eliminated) */
  PetscCall(TalusFacetedLCPSolve(N, ccp->q, ccp->mu, sim->nlimit_rows_local,
                                 sim->njoint_rows_local - sim->nlimit_rows_local, &sim->lcp_settings, ccp->gamma,
                                 &res));
  PetscCall(MatDestroy(&N));
  PetscCheck(res.solved, sim->comm, PETSC_ERR_NOT_CONVERGED,
             "step %" PetscInt_FMT ": %s did not solve the faceted LCP (%" PetscInt_FMT " unknowns): %s", sim->step + 1,
             TalusLCPSolvers[sim->lcp_settings.solver], res.n, res.reason);
  stats->iterations        = res.lemke.pivots;
  stats->residual          = res.lemke.complementarity;
  stats->reason            = TAO_CONVERGED_USER;
  stats->bytes_per_product = ccp->bytes_per_product;
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  Mat          N;
  Tao          tao;
  PetscBool    scale, assembled, factors;
  TalusStepCCP formed = {0}; /* the assembled B of a matrix-free run, for newton_ccp */

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventSolve, 0, 0, 0, 0));
  PetscCall(TalusSimGetCCP(sim, NULL)); /* its type (-ccp_problem) agrees with sim->anti_relax */
  if (sim->lcp) {
    PetscCall(SolveFacetedLCP(sim, ccp, stats));
    PetscCall(PetscLogEventEnd(TALUS_EventSolve, 0, 0, 0, 0));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusCCPNeedsAssembledOperator(sim->ccp, &assembled));
  PetscCall(TalusCCPNeedsOperatorFactors(sim->ccp, &factors));
  if (assembled) PetscCall(AssembledDelassus(sim, ccp, &N)); /* ipm factorises N */
  else if (factors) { /* newton_ccp forms B^T G B */ const TalusStepCCP *with;
    PetscCall(AssembledStep(sim, ccp, &formed, &with));
    PetscCall(TalusDelassusCreateShell(with->B, with->inverse_mass, &N));
    PetscCall(TalusCCPSetOperatorFactors(sim->ccp, with->B, with->inverse_mass, with->compliance));
  } else
    PetscCall(
      TalusDelassusCreateShellWithMass(ccp->B, ccp->v_free, ccp->apply_inverse_mass, ccp->inverse_mass_ctx, &N));
  if (ccp->compliance && !assembled) PetscCall(TalusDelassusSetCompliance(N, ccp->compliance)); /* N + E */
  PetscCall(TalusCCPGetScaling(sim->ccp, &scale));
  if (scale && !assembled) { /* the shell cannot find its own diagonal: the blocks give it */
    Vec diagonal;
    PetscCall(TalusSimGetDelassusDiagonal(sim, &diagonal));
    PetscCall(TalusDelassusSetDiagonal(N, diagonal));
    PetscCall(VecDestroy(&diagonal));
  }
  PetscCall(TalusCCPSetOperator(sim->ccp, N));
  PetscCall(TalusCCPSetLinearTerm(sim->ccp, ccp->q));
  /* the limits' rows are non-negative, the other joints' free (joints.c puts them in that order) */
  PetscCall(
    TalusCCPSetFeasibleSet(sim->ccp, ccp->mu, sim->nlimit_rows_local, sim->njoint_rows_local - sim->nlimit_rows_local));
  PetscCall(TalusCCPSolve(sim->ccp, ccp->gamma));
  stats->bytes_per_product = ccp->bytes_per_product;
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TaoGetLinearSolveIterations(tao, &stats->linear_iterations)); /* TaoSolve counts from 0 */
  PetscCall(TaoGetSolutionStatus(tao, &stats->iterations, NULL, &stats->residual, NULL, NULL, &stats->reason));
  PetscCall(MatDestroy(&N));
  PetscCall(TalusStepCCPDestroy(&formed));
  /* the solver outlives the step, its problem must not: this step's B and vectors would otherwise
     still be held when the next step builds its own, at the memory peak */
  PetscCall(TalusCCPReset(sim->ccp));
  PetscCall(PetscLogEventEnd(TALUS_EventSolve, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*
 * A contact's natural-map residual in force units: e = r - Pi_K(r - u~ / N_nn), zero exactly when r
 * and u~ are complementary (any positive step gives the same zeros), with the step 1 / N_nn, the
 * contact's effective mass along its normal, so that e is an impulse: the impulse that would stop
 * the velocity error u~ of this contact alone. Divided by h, a force. u~ = (Phi/h + u_n, u_t) for
 * the relaxed problem, plus mu ||u_t|| on the normal for the Coulomb one. forces: max, sum of squares.
 */
static void ForceResidual(TalusSim sim, const TalusContact *ct, PetscReal rate, const PetscScalar u[3],
                          PetscReal forces[2])
{
  PetscReal diag[3], y[3], p[3], e = 0.0;
  PetscReal ut   = PetscSqrtReal(PetscRealPart(u[1] * u[1] + u[2] * u[2]));
  PetscReal v[3] = {rate + (sim->anti_relax ? ct->mu * ut : 0.0), PetscRealPart(u[1]), PetscRealPart(u[2])};

  TalusContactKind.diagonal(sim->bodies, ct, diag);
  if (!(diag[0] > 0.0)) return;
  for (int k = 0; k < 3; k++) y[k] = ct->impulse[k] - v[k] / diag[0];
  TalusProjectTriplet(ct->mu, y, p);
  for (int k = 0; k < 3; k++) e += PetscSqr(ct->impulse[k] - p[k]);
  e         = PetscSqrtReal(e) / sim->dt;
  forces[0] = PetscMax(forces[0], e);
  forces[1] += e * e;
}

/* Complementarity of seed 001 eq. 8 after the step, the load carried by fixed bodies, and the
   force residual per contact. */
static PetscErrorCode ContactStatistics(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats)
{
  TalusBodies       *b = sim->bodies;
  Vec                u;
  const PetscScalar *un, *E = NULL;
  const PetscReal    gnorm   = TalusNorm3(sim->gravity);
  PetscReal          support = 0.0, weight = 0.0, forces[2] = {0.0, 0.0}; /* max, sum of squares */

  PetscFunctionBegin;
  u = ccp->q; /* q is not needed after the solve: its storage takes u (one vector less at the memory peak) */
  PetscCall(MatMult(ccp->B, ccp->v_plus, u)); /* D^T v+: relative velocities in the contact frames */
  PetscCall(VecGetArrayRead(u, &un));
  if (ccp->compliance) PetscCall(VecGetArrayRead(ccp->compliance, &E));
  stats->complementarity_error = 0.0;
  for (PetscInt c = 0; c < sim->contacts.n; c++) {
    const TalusContact *ct = &sim->contacts.c[c];
    PetscScalar         uc[3]; /* its rows of the solved problem's velocity: D^T v+, plus E gamma (seed 004 eq. 60) */
    PetscReal           rate;
    const PetscInt      row = TalusContactKind.rows * c;
    for (int r = 0; r < 3; r++) uc[r] = un[row + r] + (E ? E[row + r] * ct->impulse[r] : 0.0);
    rate                         = ct->phi / sim->dt + PetscRealPart(uc[0]); /* its normal row */
    stats->complementarity_error = PetscMax(stats->complementarity_error, PetscAbsReal(ct->impulse[0] * rate));
    ForceResidual(sim, ct, rate, uc, forces);
    if (gnorm > 0.0 && (b->fixed[ct->a] || b->fixed[ct->b])) {
      /* the impulse acts on b as +F and on a as -F; count what the fixed body receives */
      PetscReal F[3], along;
      for (int k = 0; k < 3; k++)
        F[k] = ct->impulse[0] * ct->frame[k] + ct->impulse[1] * ct->frame[3 + k] + ct->impulse[2] * ct->frame[6 + k];
      along = TalusDot3(F, sim->gravity) / gnorm / sim->dt;
      support += b->fixed[ct->b] ? along : -along;
    }
  }
  PetscCall(VecRestoreArrayRead(u, &un));
  if (E) PetscCall(VecRestoreArrayRead(ccp->compliance, &E));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (!b->fixed[k]) weight += b->mass[k] * gnorm;
  {
    PetscReal sums[3] = {support, weight, forces[1]};
    PetscInt  n       = sim->contacts.n;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 3, MPIU_REAL, MPIU_SUM, sim->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &forces[0], 1, MPIU_REAL, MPIU_MAX, sim->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &n, 1, MPIU_INT, MPI_SUM, sim->comm));
    stats->support_force_over_weight = sums[1] > 0.0 ? sums[0] / sums[1] : 0.0;
    stats->force_residual_max        = forces[0];
    stats->force_residual_rms        = n > 0 ? PetscSqrtReal(sums[2] / n) : 0.0;
  }
  PetscFunctionReturn(0);
}

/* Global totals and the per-rank spread of one step's figures. */
static PetscErrorCode ReduceStatistics(TalusSim sim, TalusStepStats *stats)
{
  TalusBodies *b      = sim->bodies;
  PetscInt     finite = 0, counts[4], spread[4];
  PetscReal    maxima[2], energy, work;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < b->nowned; k++) finite += TalusBodiesIsFinite(b, k);
  counts[0] = finite, counts[1] = stats->contacts, counts[2] = -finite, counts[3] = -stats->contacts;
  PetscCall(MPIU_Allreduce(counts, spread, 4, MPIU_INT, MPI_MAX, sim->comm));
  stats->bodies_max = spread[0], stats->contacts_max = spread[1], stats->bodies_min = -spread[2],
  stats->contacts_min = -spread[3];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &finite, 1, MPIU_INT, MPI_SUM, sim->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stats->contacts, 1, MPIU_INT, MPI_SUM, sim->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stats->warm_started, 1, MPIU_INT, MPI_SUM, sim->comm));
  stats->bodies = finite;
  maxima[0] = stats->max_penetration, maxima[1] = stats->complementarity_error;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, maxima, 2, MPIU_REAL, MPIU_MAX, sim->comm));
  stats->max_penetration = maxima[0], stats->complementarity_error = maxima[1];
  energy = TalusBodiesKineticEnergyLocal(b);
  { /* kinetic and gravity's energy in one reduction, then the springs' (they have one of their own) */
    PetscReal local[2] = {energy, TalusSimGravityEnergyLocal(sim)}, total[2], springs;
    PetscCall(MPIU_Allreduce(local, total, 2, MPIU_REAL, MPIU_SUM, sim->comm));
    PetscCall(TalusSimSpringEnergy(sim, &springs));
    stats->kinetic_energy = total[0], stats->potential_energy = total[1] + springs;
  }
  stats->ghost_bytes = (PetscReal)(sim->nghost * sizeof(TalusBodyRecord));
  maxima[0] = stats->bytes_per_product, maxima[1] = stats->ghost_bytes;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, maxima, 2, MPIU_REAL, MPIU_MAX, sim->comm));
  stats->bytes_per_product = maxima[0], stats->ghost_bytes = maxima[1];
  work = (PetscReal)(counts[0] + sim->contacts.n); /* bodies and contacts this rank handles */
  PetscCall(TalusDecompImbalance(sim->decomp, work, &stats->imbalance));
  sim->imbalance = stats->imbalance;
  PetscFunctionReturn(0);
}

/* A body that moves more than r_max in one step may tunnel and outrun its ghost copies. */
static PetscErrorCode CheckTravel(TalusSim sim)
{
  TalusBodies    *b       = sim->bodies;
  PetscInt        culprit = -1;
  PetscReal       travel = 0.0, worst = 0.0;
  const PetscReal fall = TalusNorm3(sim->gravity) * sim->dt * sim->dt;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->fixed[k]) continue;
    travel = sim->dt * TalusNorm3(&b->velocity[3 * k]);
    if (travel > worst) worst = travel, culprit = b->id[k];
  }
  {
    struct {
      PetscReal travel;
      PetscInt  id;
    } local = {worst, culprit}, global;
    PetscCall(MPIU_Allreduce(&local.travel, &global.travel, 1, MPIU_REAL, MPIU_MAX, sim->comm));
    global.id = (local.travel == global.travel) ? culprit : -1;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &global.id, 1, MPIU_INT, MPI_MAX, sim->comm));
    /* the scene's gravity alone, when it is the cause, is named as such */
    PetscCheck(
      global.travel <= sim->rmax || sim->rmax == 0.0 || !(fall > sim->rmax), sim->comm, PETSC_ERR_USER_INPUT,
      "the scene's gravity (|g| = %g m/s^2) moves a body |g| h^2 = %g m in one step, more than the largest body "
      "radius %g m: contacts would be missed; use a smaller -dt (now %g s) or a smaller gravity",
      (double)TalusNorm3(sim->gravity), (double)fall, (double)sim->rmax, (double)sim->dt);
    PetscCheck(global.travel <= sim->rmax || sim->rmax == 0.0, sim->comm, PETSC_ERR_USER_INPUT,
               "body %" PetscInt_FMT " moved %g m in one step (t = %g s), more than the largest body radius %g m: "
               "contacts would be missed; use a smaller -dt (now %g s)",
               global.id, (double)global.travel, (double)sim->t, (double)sim->rmax, (double)sim->dt);
  }
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
  PetscCall(TalusSimMovePrescribed(sim)); /* set, never integrated */
  PetscCall(PetscLogEventEnd(TALUS_EventIntegrate, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Each relaxed material's and joint's (zeta, delta) inside the stability region at this run's time step, once
   (the formulations note, sec. 3.4). */
static PetscErrorCode CheckRelaxationOnce(TalusSim sim)
{
  const TalusBodies *b = sim->bodies;

  PetscFunctionBegin;
  if (sim->relaxation_checked) PetscFunctionReturn(0);
  for (PetscInt m = 0; m < b->nmaterials; m++) {
    const TalusMaterial *mat = &b->materials[m];
    PetscCheck(mat->delta == 0.0 || TalusRelaxationStable(mat->zeta, mat->delta, sim->dt), sim->comm,
               PETSC_ERR_USER_INPUT,
               "material %s: the contact relaxation zeta = %g, delta = %g s is unstable at the time step h = %g s "
               "(it needs (h/delta)^2 + 4 zeta h/delta < 4 and zeta h/delta < 1: delta > %g s at this zeta)",
               mat->name, (double)mat->zeta, (double)mat->delta, (double)sim->dt,
               (double)TalusRelaxationMinDelta(mat->zeta, sim->dt));
  }
  for (PetscInt j = 0; j < sim->njoints; j++) {
    const TalusJoint *joint = &sim->joints[j];
    PetscCheck(joint->delta == 0.0 || TalusRelaxationStable(joint->zeta, joint->delta, sim->dt), sim->comm,
               PETSC_ERR_USER_INPUT,
               "joint %" PetscInt_FMT ": the relaxation zeta = %g, delta = %g s is unstable at the time step h = %g s "
               "(delta > %g s at this zeta)",
               j, (double)joint->zeta, (double)joint->delta, (double)sim->dt,
               (double)TalusRelaxationMinDelta(joint->zeta, sim->dt));
  }
  sim->relaxation_checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimStep(TalusSim sim, TalusStepStats *stats)
{
  TalusStepCCP   ccp = {0};
  PetscLogDouble t0, t1, t2, t3, t4, t5;
  PetscBool      rebalance;
  PetscReal      migrate0 = sim->seconds_migrate, ghost0 = sim->seconds_ghost;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(stats, sizeof(*stats)));
  PetscCall(TalusSimDistribute(sim));
  PetscCall(CheckRelaxationOnce(sim));
  PetscCall(PetscTime(&t0));
  PetscCall(TalusSimPrescribeVelocities(sim)); /* before the ghosts copy them */
  PetscCall(TalusSimNumberDofs(sim));
  PetscCall(TalusSimBuildGhosts(sim));
  PetscCall(Collide(sim, stats));
  PetscCall(TalusSimBuildJointRows(sim));
  PetscCall(TalusSimComputeWrenches(sim));
  PetscCall(PetscTime(&t1));
  PetscCall(TalusSimAssembleCCP(sim, &ccp));
  PetscCall(PetscTime(&t2));
  {
    PetscInt total = sim->contacts.n + sim->njoint_rows_local;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT, MPI_SUM, sim->comm));
    if (total > 0) PetscCall(Solve(sim, &ccp, stats));
    else stats->reason = TAO_CONVERGED_GATOL;
  }
  if (sim->problem_monitor) { /* before the impulses change the velocities the problem was made from */
    stats->step = sim->step + 1, stats->t = sim->t + sim->dt;
    sim->in_problem_monitor = PETSC_TRUE;
    PetscCall((*sim->problem_monitor)(sim, stats, sim->problem_monitor_ctx));
    sim->in_problem_monitor = PETSC_FALSE;
  }
  PetscCall(PetscTime(&t3));
  PetscCall(TalusSimApplyImpulses(sim, &ccp));
  PetscCall(TalusSimShareJointImpulses(sim));
  PetscCall(TalusSimComputeWatches(sim));
  stats->joints            = sim->njoints;
  stats->joint_drift       = sim->joint_drift[0];
  stats->joint_angle_drift = sim->joint_drift[1];
  PetscCall(ContactStatistics(sim, &ccp, stats));
  PetscCall(Integrate(sim));
  PetscCall(TalusStepCCPDestroy(&ccp));
  PetscCall(RecordHistory(sim));
  PetscCall(PetscTime(&t4));
  sim->t += sim->dt;
  sim->step++;
  PetscCall(ReduceStatistics(sim, stats));
  PetscCall(CheckTravel(sim));
  PetscCall(TalusSimDropGhosts(sim));
  PetscCall(TalusDecompWantsRebalance(sim->decomp, sim->step, stats->imbalance, &rebalance));
  PetscCall(TalusSimMigrate(sim, rebalance));
  PetscCall(PetscTime(&t5));
  stats->step           = sim->step;
  stats->t              = sim->t;
  stats->wall_collide   = t1 - t0;
  stats->wall_assemble  = t2 - t1;
  stats->wall_solve     = t3 - t2;
  stats->wall_integrate = t4 - t3;
  stats->wall_migrate   = sim->seconds_migrate - migrate0;
  stats->wall_ghost     = sim->seconds_ghost - ghost0;
  stats->wall_step      = t5 - t0;
  PetscFunctionReturn(0);
}
