/*
 * One step's figures for stats.csv and the checks that need every rank (a body's travel), each rank's
 * share gathered first and reduced together at the step's end: one sum and one maximum, where each
 * figure had a reduction of its own (about 15 a step). On ranks that share cores every reduction waits
 * for each rank to be scheduled: a 1-body pendulum on 4 ranks of 2 cores spent most of its step in them.
 */
#include "jacobian_builder.h"

/* the figures summed over the ranks */
enum {
  SUM_SUPPORT,       /* the load the fixed bodies carry along gravity */
  SUM_WEIGHT,        /* the dynamic bodies' weight */
  SUM_FORCE_SQUARES, /* the contacts' force residuals squared */
  SUM_BODIES,        /* finite bodies */
  SUM_CONTACTS,
  SUM_WARM_STARTED,
  SUM_KINETIC,
  SUM_GRAVITY, /* gravity's potential energy */
  SUM_WORK,    /* bodies and contacts (for the imbalance) */
  SUM_SCREENED,
  NSUMS
};

/* and those whose largest counts (a rank's least count as the largest of its negative) */
enum {
  MAX_FORCE_RESIDUAL,
  MAX_FORCE_RESIDUAL_OVER_WEIGHT, /* over the weight of the contact's lighter dynamic body */
  MAX_PENETRATION,
  MAX_COMPLEMENTARITY,
  MAX_BODIES,
  MAX_CONTACTS,
  MAX_MINUS_BODIES,
  MAX_MINUS_CONTACTS,
  MAX_BYTES_PER_PRODUCT,
  MAX_GHOST_BYTES,
  MAX_WORK,
  MAX_TRAVEL, /* h |v| of the fastest body */
  MAX_JOINT_DRIFT,
  MAX_JOINT_ANGLE_DRIFT,
  NMAXIMA
};

_Static_assert(NSUMS <= TALUS_STEP_TOTALS && NMAXIMA <= TALUS_STEP_TOTALS, "TalusStepTotals is too short");

/*
 * A contact's natural-map residual in force units: e = r - Pi_K(r - u~ / N_nn), zero exactly when r
 * and u~ are complementary (any positive step gives the same zeros), with the step 1 / N_nn, the
 * contact's effective mass along its normal, so that e is an impulse: the impulse that would stop
 * the velocity error u~ of this contact alone. Divided by h, a force. u~ = (Phi/h + u_n, u_t) for
 * the relaxed problem, plus mu ||u_t|| on the normal for the Coulomb one. Over the weight of the contact's
 * lighter dynamic body, it is what the stopping test promises (docs/solver.md, "The stopping test"): the
 * largest, with that body's id, is where a step's problem is least solved.
 */
static void ForceResidual(TalusSim sim, const TalusContact *ct, PetscReal rate, const PetscScalar u[3],
                          TalusStepTotals *totals)
{
  PetscReal diag[3], y[3], p[3], e = 0.0;
  PetscReal ut   = PetscSqrtReal(PetscRealPart(u[1] * u[1] + u[2] * u[2]));
  PetscReal v[3] = {rate + (sim->anti_relax ? ct->mu * ut : 0.0), PetscRealPart(u[1]), PetscRealPart(u[2])};

  TalusContactKind.diagonal(sim->bodies, ct, diag);
  if (!(diag[0] > 0.0)) return;
  for (int k = 0; k < 3; k++) y[k] = ct->impulse[k] - v[k] / diag[0];
  TalusProjectTriplet(ct->mu, y, p);
  for (int k = 0; k < 3; k++) e += PetscSqr(ct->impulse[k] - p[k]);
  e                               = PetscSqrtReal(e) / sim->dt;
  totals->max[MAX_FORCE_RESIDUAL] = PetscMax(totals->max[MAX_FORCE_RESIDUAL], e);
  totals->sum[SUM_FORCE_SQUARES] += e * e;
  if (sim->gravity_norm > 0.0) {
    const TalusBodies *b    = sim->bodies;
    const PetscInt  lighter = b->fixed[ct->a] || (!b->fixed[ct->b] && b->mass[ct->b] < b->mass[ct->a]) ? ct->b : ct->a;
    const PetscReal over    = e / (b->mass[lighter] * sim->gravity_norm);
    if (b->mass[lighter] > 0.0 && over > totals->max[MAX_FORCE_RESIDUAL_OVER_WEIGHT])
      totals->max[MAX_FORCE_RESIDUAL_OVER_WEIGHT] = over, totals->force_residual_body = b->id[lighter];
  }
}

/* Complementarity of seed 001 eq. 8 after the step, the load carried by fixed bodies, and the
   force residual per contact: this rank's share, into totals (zeroed here). */
PetscErrorCode TalusSimContactStatistics(TalusSim sim, TalusStepCCP *ccp, TalusStepStats *stats,
                                         TalusStepTotals *totals)
{
  TalusBodies       *b = sim->bodies;
  Vec                u;
  const PetscScalar *un, *E = NULL;
  const PetscReal    gnorm           = sim->gravity_norm;
  PetscReal          complementarity = 0.0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(totals, sizeof(*totals)));
  totals->force_residual_body = -1;
  /* every pair of the list, the screened ones too, as the modules left it after the collision (the materials
     module drops seed 004's slack Hertzian contacts) */
  stats->contacts        = sim->contacts.n;
  stats->max_penetration = 0.0;
  for (PetscInt c = 0; c < sim->contacts.n; c++)
    stats->max_penetration = PetscMax(stats->max_penetration, -sim->contacts.c[c].phi);
  u = ccp->q; /* q is not needed after the solve: its storage takes u (one vector less at the memory peak) */
  PetscCall(MatMult(ccp->B, ccp->v_plus, u)); /* D^T v+: relative velocities in the contact frames */
  PetscCall(VecGetArrayRead(u, &un));
  if (ccp->compliance) PetscCall(VecGetArrayRead(ccp->compliance, &E));
  for (PetscInt c = 0; c < sim->contacts_active; c++) { /* the problem's: the screened carry nothing */
    const TalusContact *ct = &sim->contacts.c[c];
    PetscScalar         uc[3]; /* its rows of the solved problem's velocity: D^T v+, plus E gamma (seed 004 eq. 60) */
    PetscReal           rate;
    const PetscInt      row = TalusContactKind.rows * c;
    for (int r = 0; r < 3; r++) uc[r] = un[row + r] + (E ? E[row + r] * ct->impulse[r] : 0.0);
    rate            = ct->phi / sim->dt + PetscRealPart(uc[0]); /* its normal row */
    complementarity = PetscMax(complementarity, PetscAbsReal(ct->impulse[0] * rate));
    ForceResidual(sim, ct, rate, uc, totals);
    if (gnorm > 0.0 && (b->fixed[ct->a] || b->fixed[ct->b])) {
      /* the impulse acts on b as +F and on a as -F; count what the fixed body receives */
      PetscReal F[3], along;
      for (int k = 0; k < 3; k++)
        F[k] = ct->impulse[0] * ct->frame[k] + ct->impulse[1] * ct->frame[3 + k] + ct->impulse[2] * ct->frame[6 + k];
      along = TalusDot3(F, sim->gravity) / gnorm / sim->dt;
      totals->sum[SUM_SUPPORT] += b->fixed[ct->b] ? along : -along;
    }
  }
  PetscCall(VecRestoreArrayRead(u, &un));
  if (E) PetscCall(VecRestoreArrayRead(ccp->compliance, &E));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (!b->fixed[k]) totals->sum[SUM_WEIGHT] += b->mass[k] * gnorm;
  totals->max[MAX_COMPLEMENTARITY] = complementarity;
  PetscFunctionReturn(0);
}

/* A body that moves more than r_max in one step may tunnel and outrun its ghost copies: the step stops,
   naming the body (found by a reduction of its own, only then). */
static PetscErrorCode CheckTravel(TalusSim sim, PetscReal travel, PetscReal fastest, PetscInt culprit)
{
  const PetscReal fall = sim->gravity_norm * sim->dt * sim->dt;
  PetscInt        id;

  PetscFunctionBegin;
  if (travel <= sim->rmax || sim->rmax == 0.0) PetscFunctionReturn(0); /* NaN goes on */
  /* the scene's gravity alone, when it is the cause, is named as such */
  PetscCheck(!(fall > sim->rmax), sim->comm, PETSC_ERR_USER_INPUT,
             "the scene's gravity (|g| = %g m/s^2) moves a body |g| h^2 = %g m in one step, more than the largest body "
             "radius %g m: contacts would be missed; use a smaller -dt (now %g s) or a smaller gravity",
             (double)sim->gravity_norm, (double)fall, (double)sim->rmax, (double)sim->dt);
  id = fastest == travel ? culprit : -1;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &id, 1, MPIU_INT, MPI_MAX, sim->comm));
  SETERRQ(sim->comm, PETSC_ERR_USER_INPUT,
          "body %" PetscInt_FMT " moved %g m in one step (t = %g s), more than the largest body radius %g m: "
          "contacts would be missed; use a smaller -dt (now %g s)",
          id, (double)travel, (double)sim->t, (double)sim->rmax, (double)sim->dt);
}

/* Global totals and the per-rank spread of the step's figures, after the bodies moved; then the travel check. */
PetscErrorCode TalusSimReduceStatistics(TalusSim sim, TalusStepStats *stats, TalusStepTotals *totals)
{
  TalusBodiesSums bodies;
  PetscInt        finite;
  PetscReal      *sum = totals->sum, *max = totals->max, springs, local_over_weight;

  PetscFunctionBegin;
  TalusBodiesSumsLocal(sim->bodies, sim->gravity, sim->dt, &bodies);
  finite          = bodies.finite;
  sum[SUM_BODIES] = finite, sum[SUM_CONTACTS] = stats->contacts, sum[SUM_WARM_STARTED] = stats->warm_started;
  sum[SUM_KINETIC] = bodies.kinetic, sum[SUM_GRAVITY] = bodies.gravity;
  sum[SUM_SCREENED] = stats->screened;
  sum[SUM_WORK] = max[MAX_WORK] = (PetscReal)(finite + sim->contacts.n); /* bodies and contacts this rank handles */
  max[MAX_PENETRATION]          = stats->max_penetration;
  max[MAX_BODIES] = finite, max[MAX_CONTACTS] = stats->contacts;
  max[MAX_MINUS_BODIES] = -finite, max[MAX_MINUS_CONTACTS] = -stats->contacts;
  max[MAX_BYTES_PER_PRODUCT] = stats->bytes_per_product;
  max[MAX_GHOST_BYTES]       = (PetscReal)(sim->nghost * sizeof(TalusBodyRecord));
  max[MAX_TRAVEL]            = bodies.travel;
  max[MAX_JOINT_DRIFT] = sim->joint_drift[0], max[MAX_JOINT_ANGLE_DRIFT] = sim->joint_drift[1];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, NSUMS, MPIU_REAL, MPIU_SUM, sim->comm));
  local_over_weight = max[MAX_FORCE_RESIDUAL_OVER_WEIGHT];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, max, NMAXIMA, MPIU_REAL, MPIU_MAX, sim->comm));
  /* where the largest is: the body of the rank that holds it (the largest id where ranks tie) */
  stats->force_residual_max_body = local_over_weight == max[MAX_FORCE_RESIDUAL_OVER_WEIGHT]
                                   ? totals->force_residual_body
                                   : -1;
  if (sim->size > 1)
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stats->force_residual_max_body, 1, MPIU_INT, MPI_MAX, sim->comm));
  stats->force_residual_max_over_weight = max[MAX_FORCE_RESIDUAL_OVER_WEIGHT];
  PetscCall(TalusSimModulesEnergy(sim, &springs)); /* the modules' (the springs': their ends from their owners) */
  stats->support_force_over_weight = sum[SUM_WEIGHT] > 0.0 ? sum[SUM_SUPPORT] / sum[SUM_WEIGHT] : 0.0;
  stats->force_residual_max        = max[MAX_FORCE_RESIDUAL];
  stats->force_residual_rms = sum[SUM_CONTACTS] > 0.0 ? PetscSqrtReal(sum[SUM_FORCE_SQUARES] / sum[SUM_CONTACTS]) : 0.0;
  stats->bodies             = (PetscInt)sum[SUM_BODIES];
  stats->contacts           = (PetscInt)sum[SUM_CONTACTS];
  stats->warm_started       = (PetscInt)sum[SUM_WARM_STARTED];
  stats->screened           = (PetscInt)sum[SUM_SCREENED];
  stats->bodies_max = (PetscInt)max[MAX_BODIES], stats->contacts_max = (PetscInt)max[MAX_CONTACTS];
  stats->bodies_min = -(PetscInt)max[MAX_MINUS_BODIES], stats->contacts_min = -(PetscInt)max[MAX_MINUS_CONTACTS];
  stats->max_penetration       = max[MAX_PENETRATION];
  stats->complementarity_error = max[MAX_COMPLEMENTARITY];
  stats->kinetic_energy = sum[SUM_KINETIC], stats->potential_energy = sum[SUM_GRAVITY] + springs;
  stats->bytes_per_product = max[MAX_BYTES_PER_PRODUCT], stats->ghost_bytes = max[MAX_GHOST_BYTES];
  stats->joint_drift = max[MAX_JOINT_DRIFT], stats->joint_angle_drift = max[MAX_JOINT_ANGLE_DRIFT];
  stats->imbalance = sim->imbalance = TalusDecompImbalanceOf(sim->decomp, max[MAX_WORK], sum[SUM_WORK]);
  PetscCall(CheckTravel(sim, max[MAX_TRAVEL], bodies.travel, bodies.fastest));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetPotentialEnergy(TalusSim sim, PetscReal *energy)
{
  PetscReal gravity, springs;

  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  gravity = TalusBodiesGravityEnergyLocal(sim->bodies, sim->gravity);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &gravity, 1, MPIU_REAL, MPIU_SUM, sim->comm));
  PetscCall(TalusSimModulesEnergy(sim, &springs)); /* the springs' (the drives module's) */
  *energy = gravity + springs;
  PetscFunctionReturn(0);
}
