/* TalusSim life cycle and settings (see include/talus/sim.h). */
#include "sim_impl.h"
#include "jacobian_builder.h"

PetscErrorCode TalusSimCreate(MPI_Comm comm, TalusSim *sim)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(sim));
  PetscCallMPI(MPI_Comm_rank(comm, &(*sim)->rank));
  PetscCallMPI(MPI_Comm_size(comm, &(*sim)->size));
  PetscCall(TalusDecompCreate(comm, &(*sim)->decomp));
  (*sim)->comm          = comm;
  (*sim)->dt            = 0.01;
  (*sim)->t_final       = 1.0;
  (*sim)->envelope      = 0.0;
  (*sim)->anti_relax    = PETSC_TRUE;
  (*sim)->screen        = 2.0; /* separated pairs out of the problem, checked (step_screen.c) */
  (*sim)->rank_order    = PETSC_TRUE;
  (*sim)->builder       = &TalusJacobianBuilderMatrixFree;
  (*sim)->contact_floor = (TalusContactFloor){.beta = 1.0, .sigma = 0.0};
  (*sim)->force_check   = (TalusForceCheck){.rtol = 0.0, .every = 1, .max_it = 20000};
  (*sim)->gravity[2]    = -9.81;
  (*sim)->nreplicated   = PETSC_DETERMINE; /* every body on every rank, unless the scene says */
  PetscCall(TalusBodiesCreate(&(*sim)->bodies));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDestroy(TalusSim *sim)
{
  PetscFunctionBegin;
  if (!*sim) PetscFunctionReturn(0);
  PetscCall(TalusBodiesDestroy(&(*sim)->bodies));
  PetscCall(TalusContactListDestroy(&(*sim)->contacts));
  PetscCall(PetscFree((*sim)->history));
  PetscCall(PetscFree3((*sim)->jacobian_slot, (*sim)->jacobian_kind, (*sim)->jacobian));
  PetscCall(PetscFree((*sim)->inverse_mass));
  PetscCall(VecDestroy(&(*sim)->body_vector));
  PetscCall(PetscFree((*sim)->body_vector_ghosts));
  PetscCall(PetscFree((*sim)->body_slot));
  PetscCall(PetscFree2((*sim)->joint_record, (*sim)->joint_record_slot));
  PetscCall(PetscFree((*sim)->wrench));
  PetscCall(PetscFree((*sim)->linked_ids));
  PetscCall(PetscFree((*sim)->linked_local));
  PetscCall(TalusSimDestroyModules(*sim));
  PetscCall(TalusDecompDestroy(&(*sim)->decomp));
  PetscCall(TalusCCPDestroy(&(*sim)->ccp));
  if ((*sim)->problem_monitor_destroy) PetscCall((*(*sim)->problem_monitor_destroy)(&(*sim)->problem_monitor_ctx));
  PetscCall(PetscFree(*sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetForceTolerance(TalusSim);

/* The solver's tolerance in force units is rho |g| h (SetForceTolerance): once the solver is made, it follows a
   new gravity or time step instead of keeping the old one's */
PetscErrorCode TalusSimSetGravity(TalusSim sim, const PetscReal g[3])
{
  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) sim->gravity[d] = g[d];
  sim->gravity_norm = TalusNorm3(sim->gravity);
  if (sim->ccp) PetscCall(SetForceTolerance(sim));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetGravity(TalusSim sim, PetscReal g[3])
{
  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) g[d] = sim->gravity[d];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetTimeStep(TalusSim sim, PetscReal dt)
{
  PetscFunctionBegin;
  PetscCheck(dt > 0.0, sim->comm, PETSC_ERR_USER_INPUT, "the time step must be positive, got dt = %g", (double)dt);
  sim->dt = dt;
  if (sim->ccp) PetscCall(SetForceTolerance(sim));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetFinalTime(TalusSim sim, PetscReal t_final)
{
  PetscFunctionBegin;
  PetscCheck(t_final >= 0.0, sim->comm, PETSC_ERR_USER_INPUT, "the end time must be >= 0, got t_final = %g",
             (double)t_final);
  sim->t_final = t_final;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetEnvelope(TalusSim sim, PetscReal envelope)
{
  PetscFunctionBegin;
  PetscCheck(envelope >= 0.0, sim->comm, PETSC_ERR_USER_INPUT, "the contact envelope must be >= 0, got %g",
             (double)envelope);
  sim->envelope = envelope;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetAntiRelaxation(TalusSim sim, PetscBool on)
{
  PetscFunctionBegin;
  sim->anti_relax = on;
  if (sim->ccp) PetscCall(TalusCCPSetType(sim->ccp, on ? TALUSCCPCOULOMB : TALUSCCPRELAXED));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetMatrixFree(TalusSim sim, PetscBool on)
{
  PetscFunctionBegin;
  sim->builder = on ? &TalusJacobianBuilderMatrixFree : &TalusJacobianBuilderAssembled;
  PetscFunctionReturn(0);
}

/*
 * -ccp_force_rtol rho: the contact problem of every step is solved to the residual (seed 001 eq. 39,
 * in m/s) rho |g| h instead of a fixed -tao_gatol. Why this bounds what users read: a body's
 * velocity error dv against the exact solution is an impulse error m dv, a force error m dv / h,
 * that is dv / (|g| h) times its weight, whatever its mass (the heavy slab of the compaction as a
 * grain). The solvers stop when every contact's residual is below the tolerance (-tao_residual_norm
 * max), which is not dv; measured against tight references (-ccp_force_check; docs/solver.md, "The
 * stopping test") the largest body's force error was 0.2 to 4.2 times rho on beds of 10^3 to 10^6
 * contacts and clumps, so rho = 0.002 keeps them within 1 % of their weight. The tolerance then
 * follows h and g, where a fixed one in m/s is too strict at large steps and too loose at small ones.
 */
static PetscErrorCode SetForceTolerance(TalusSim sim)
{
  Tao                       tao;
  const char               *prefix;
  PetscBool                 gatol_given, in_m_per_s;
  const TalusCCPSolverType *solver;
  TaoType                   type;
  PetscReal                 grtol, gttol;
  PetscReal                 g = sim->gravity_norm;

  PetscFunctionBegin;
  if (sim->force_rtol <= 0.0) PetscFunctionReturn(0);
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TaoGetOptionsPrefix(tao, &prefix));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-tao_gatol", &gatol_given));
  PetscCheck(!gatol_given, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_rtol and -tao_gatol both set the contact solver's tolerance: give one of them");
  PetscCheck(g > 0.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_rtol %g is relative to the weight, and this scene has no gravity: give -tao_gatol (m/s)",
             (double)sim->force_rtol);
  PetscCall(TalusCCPResidualInProblemUnits(sim->ccp, &in_m_per_s));
  PetscCall(TaoGetType(tao, &type));
  PetscCall(TalusCCPSolverTypeFind(type, &solver)); /* a scaled type: only -ccp_scale_residual 0 leaves it scaled */
  PetscCheck(in_m_per_s, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_rtol with -ccp_scale and -tao_type %s%s: that solver would stop on the scaled problem's "
             "residual, which is not in m/s, so the tolerance would not bound the forces; give -tao_gatol with "
             "-ccp_scale, or use apgd with its residual in m/s",
             type, solver && solver->scaled ? " -ccp_scale_residual 0" : "");
  PetscCall(TaoGetTolerances(tao, NULL, &grtol, &gttol));
  PetscCall(TaoSetTolerances(tao, sim->force_rtol * g * sim->dt, grtol, gttol));
  PetscFunctionReturn(0);
}

/* One solver for the whole run (made here, from the options, before the first step): apgd follows the
   changing problem size from step to step. */
PetscErrorCode TalusSimSetUp(TalusSim sim)
{
  PetscFunctionBegin;
  if (!sim->ccp) { /* -ccp_problem relaxed|coulomb|lcp chooses; the default is the simulation's (coulomb, or a
                      checkpoint's) */
    TalusCCPType type;
    PetscCall(TalusCCPCreate(sim->comm, &sim->ccp));
    PetscCall(TalusCCPSetType(sim->ccp, sim->anti_relax ? TALUSCCPCOULOMB : TALUSCCPRELAXED));
    /* apgd solves a scene's problem scaled per contact unless told otherwise (-ccp_scale, TalusCCPSetScaling):
       the scaled floor a^2 E_n = beta^2 / (4 pi^2) is the same for every contact and the scaled diagonal 1 on
       every normal row, so a pile of spheres on planes takes about a third fewer iterations (docs/solver.md,
       "Scaling per contact"); the other solvers are invariant to the scaling. Set before the options, so that
       -help shows it. */
    PetscCall(TalusCCPSetScalingForAPGD(sim->ccp, PETSC_TRUE));
    PetscCall(TalusCCPSetFromOptions(sim->ccp));
    PetscCall(TalusCCPGetType(sim->ccp, &type));
    PetscCheck(!strcmp(type, TALUSCCPCOULOMB) || !strcmp(type, TALUSCCPRELAXED) || !strcmp(type, TALUSCCPLCP),
               sim->comm, PETSC_ERR_USER_INPUT,
               "-ccp_problem %s: a scene is stepped with the problem coulomb, relaxed or lcp", type);
    sim->anti_relax = (PetscBool)strcmp(type, TALUSCCPRELAXED); /* the faceted LCP is Coulomb's problem too */
    PetscCall(SetForceTolerance(sim));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetCCP(TalusSim sim, TalusCCP *ccp)
{
  PetscFunctionBegin;
  PetscCall(TalusSimSetUp(sim));
  if (ccp) *ccp = sim->ccp;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetContactForceTolerance(TalusSim sim, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscCheck(rtol >= 0.0 && !PetscIsInfOrNanReal(rtol), sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "the contact force tolerance must be a finite number >= 0, got %g", (double)rtol);
  PetscCheck(!sim->ccp, sim->comm, PETSC_ERR_ORDER, "set the contact force tolerance before the solver is made");
  sim->force_rtol = rtol;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetResidualNorm(TalusSim sim, TaoResidualNorm *norm)
{
  Tao tao;

  PetscFunctionBegin;
  PetscCall(TalusSimSetUp(sim));
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  PetscCall(TalusTaoGetResidualNorm(tao, norm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetContactTolerance(TalusSim sim, PetscReal *tolerance, PetscReal *force_rtol)
{
  Tao tao;

  PetscFunctionBegin;
  PetscCall(TalusSimSetUp(sim));
  PetscCall(TalusCCPGetTao(sim->ccp, &tao));
  if (tolerance) PetscCall(TaoGetTolerances(tao, tolerance, NULL, NULL));
  if (force_rtol) *force_rtol = sim->force_rtol;
  PetscFunctionReturn(0);
}

/* The contacts' regularisation floor (contact_kind.c, ContactFloor; docs/compliance.md) */
PetscErrorCode TalusSimSetContactFloor(TalusSim sim, PetscReal beta, PetscReal sigma)
{
  PetscFunctionBegin;
  PetscCheck(beta >= 0.0 && beta <= 100.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-contact_near_rigid must be in [0, 100] (1: a contact's period at least h; 0: rigid rows), got %g",
             (double)beta);
  PetscCheck(sigma >= 0.0 && sigma <= 1.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-contact_friction_sigma must be in [0, 1] (1e-3: static contacts creep at 0.1 %% of their friction's "
             "velocity; 0: rigid tangents), got %g",
             (double)sigma);
  sim->contact_floor = (TalusContactFloor){.beta = beta, .sigma = sigma};
  PetscFunctionReturn(0);
}

/* Separated pairs out of each step's problem, checked after its solve (step_screen.c; docs/solver.md) */
PetscErrorCode TalusSimSetContactScreen(TalusSim sim, PetscReal factor)
{
  PetscFunctionBegin;
  PetscCheck(factor >= 0.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-contact_screen must be >= 0 (0: every pair in the envelope in the problem; 2: the default), got %g",
             (double)factor);
  sim->screen = factor;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetStep(TalusSim sim, PetscInt *step)
{
  PetscFunctionBegin;
  *step = sim->step;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetFromOptions(TalusSim sim)
{
  PetscReal dt = sim->dt, t_final = sim->t_final, envelope = sim->envelope, force_rtol = sim->force_rtol;
  PetscReal beta = sim->contact_floor.beta, sigma = sim->contact_floor.sigma, screen = sim->screen;
  PetscBool matrix_free  = (PetscBool)(sim->builder == &TalusJacobianBuilderMatrixFree);
  PetscReal perturb      = 0.0;
  PetscInt  perturb_seed = 0;

  PetscFunctionBegin;
  PetscOptionsBegin(sim->comm, NULL, "Time stepping (seed 000 eq. 9)", "TalusSim");
  PetscCall(PetscOptionsReal("-dt", "Time step h (s)", "TalusSimSetTimeStep", dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-t_final", "End time (s)", "TalusSimSetFinalTime", t_final, &t_final, NULL));
  PetscCall(
    PetscOptionsReal("-envelope",
                     "Contact envelope delta_K (m): pairs closer than this are active contacts (seed 000 sec. 1)",
                     "TalusSimSetEnvelope", envelope, &envelope, NULL));
  PetscCall(
    PetscOptionsReal("-ccp_force_rtol",
                     "Solve each step's contact problem to the residual RTOL |g| h (m/s) in every contact: the force "
                     "that would stop a contact's velocity error is then at most RTOL times its lighter body's weight "
                     "(docs/solver.md, \"The stopping test\"); replaces -tao_gatol",
                     "TalusSimSetContactForceTolerance", force_rtol, &force_rtol, NULL));
  PetscCheck(force_rtol >= 0.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-ccp_force_rtol must be >= 0 (a fraction of the weight, such as 0.002; 0: -tao_gatol), got %g",
             (double)force_rtol);
  PetscCall(PetscOptionsBool(
    "-ccp_matrix_free",
    "Apply B = D^T from a compact record per contact (false: an assembled MPIAIJ matrix, for cross-checking)",
    "TalusSimSetMatrixFree", matrix_free, &matrix_free, NULL));
  PetscCall(PetscOptionsReal("-contact_near_rigid",
                             "Floor BETA of contacts' normal compliance, E_n >= BETA^2 w_n / (4 pi^2), w_n the row's "
                             "diagonal of N: near-rigid contacts whose problem stays well conditioned (0: rigid rows)",
                             "TalusSimSetContactFloor", beta, &beta, NULL));
  PetscCall(PetscOptionsReal("-contact_friction_sigma",
                             "Floor SIGMA of contacts' tangential compliance, E_t >= SIGMA w_t (0: rigid tangents)",
                             "TalusSimSetContactFloor", sigma, &sigma, NULL));
  PetscCall(
    PetscOptionsReal("-contact_screen",
                     "Leave out of each step's problem the pairs that would stay apart at the step's start velocities "
                     "with FACTOR (their speeds + |g| h) to spare, checked after the solve (0: every pair)",
                     "TalusSimSetContactScreen", screen, &screen, NULL));
  PetscCall(
    PetscOptionsBool("-contact_rank_order",
                     "Add each body's contact terms in the contacts' order on any number of ranks, the screened "
                     "pairs that join a problem merged into it: the same bits on any number of ranks (false: "
                     "the ranks' partial sums, as runs before checkpoint format 11)",
                     "", sim->rank_order, &sim->rank_order, NULL));
  PetscCall(TalusSimForceCheckSetFromOptions(sim, PetscOptionsObject));
  PetscCall(PetscOptionsReal("-perturb_positions",
                             "Move every dynamic body of a new run by a random vector of [-EPS, EPS]^3 (m) before the "
                             "first step (members of an ensemble, scripts/ensemble: EPS 1e-9)",
                             "TalusBodiesPerturbPositions", perturb, &perturb, NULL));
  PetscCall(PetscOptionsInt("-perturb_seed", "Seed of -perturb_positions (one per member)",
                            "TalusBodiesPerturbPositions", perturb_seed, &perturb_seed, NULL));
  PetscCall(TalusSimModulesSetFromOptions(sim, PetscOptionsObject)); /* the joints' -joint_lookahead, ... */
  PetscOptionsEnd();
  PetscCall(TalusSimSetTimeStep(sim, dt));
  PetscCall(TalusSimSetFinalTime(sim, t_final));
  PetscCall(TalusSimSetEnvelope(sim, envelope));
  PetscCall(TalusSimSetContactForceTolerance(sim, force_rtol));
  PetscCall(TalusSimSetContactFloor(sim, beta, sigma));
  PetscCall(TalusSimSetContactScreen(sim, screen));
  PetscCall(TalusSimSetMatrixFree(sim, matrix_free));
  PetscCheck(perturb >= 0.0, sim->comm, PETSC_ERR_USER_INPUT,
             "-perturb_positions must be a length >= 0 (m; 1e-9 for an ensemble's members), got %g", (double)perturb);
  if (!sim->perturbed) { /* once, on a new run's bodies (the scene's, loaded before) */
    PetscCall(TalusBodiesPerturbPositions(sim->bodies, perturb, perturb_seed));
    sim->perturbed = (PetscBool)(perturb > 0.0);
  }
  PetscCall(TalusDecompSetFromOptions(sim->decomp));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetReplicatedBodies(TalusSim sim, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(!sim->distributed, sim->comm, PETSC_ERR_ORDER, "the bodies are distributed already");
  PetscCheck(n >= 0 && n <= sim->bodies->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "%" PetscInt_FMT " replicated bodies of %" PetscInt_FMT, n, sim->bodies->n);
  sim->nreplicated = n;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetDomain(TalusSim sim, const PetscReal lo[3], const PetscReal hi[3])
{
  PetscFunctionBegin;
  sim->has_domain = PETSC_TRUE;
  for (int d = 0; d < 3; d++) sim->domain_min[d] = lo[d], sim->domain_max[d] = hi[d];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetParallelStatistics(TalusSim sim, TalusParallelStats *ps)
{
  PetscFunctionBegin;
  ps->bodies_lost     = sim->bodies_lost;
  ps->imbalance       = sim->imbalance;
  ps->rebalances      = sim->rebalances;
  ps->seconds_migrate = sim->seconds_migrate;
  ps->seconds_ghost   = sim->seconds_ghost;
  ps->ghosts          = sim->nghost;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetFiniteBodyCount(TalusSim sim, PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  *n = sim->nfinite;
  PetscFunctionReturn(0);
}
