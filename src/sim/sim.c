/* TalusSim life cycle and settings (see include/talus/sim.h). */
#include "sim_impl.h"

PetscErrorCode TalusSimCreate(MPI_Comm comm, TalusSim *sim)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(sim));
  PetscCallMPI(MPI_Comm_rank(comm, &(*sim)->rank));
  PetscCallMPI(MPI_Comm_size(comm, &(*sim)->size));
  PetscCall(TalusDecompCreate(comm, &(*sim)->decomp));
  (*sim)->comm        = comm;
  (*sim)->dt          = 0.01;
  (*sim)->t_final     = 1.0;
  (*sim)->envelope    = 0.0;
  (*sim)->anti_relax  = PETSC_TRUE;
  (*sim)->matrix_free = PETSC_TRUE;
  (*sim)->gravity[2]  = -9.81;
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
  PetscCall(TalusDecompDestroy(&(*sim)->decomp));
  PetscCall(TalusCCPDestroy(&(*sim)->ccp));
  if ((*sim)->problem_monitor_destroy) PetscCall((*(*sim)->problem_monitor_destroy)(&(*sim)->problem_monitor_ctx));
  PetscCall(PetscFree(*sim));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetBodies(TalusSim sim, TalusBodies **bodies)
{
  PetscFunctionBegin;
  *bodies = sim->bodies;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetContacts(TalusSim sim, const TalusContactList **contacts)
{
  PetscFunctionBegin;
  *contacts = &sim->contacts;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetGravity(TalusSim sim, const PetscReal g[3])
{
  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) sim->gravity[d] = g[d];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetTimeStep(TalusSim sim, PetscReal dt)
{
  PetscFunctionBegin;
  PetscCheck(dt > 0.0, sim->comm, PETSC_ERR_USER_INPUT, "the time step must be positive, got dt = %g", (double)dt);
  sim->dt = dt;
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
  sim->matrix_free = on;
  PetscFunctionReturn(0);
}

/* One solver for the whole run (made here on first use, from the options): apgd follows the
   changing problem size from step to step. */
PetscErrorCode TalusSimGetCCP(TalusSim sim, TalusCCP *ccp)
{
  PetscFunctionBegin;
  if (
    !sim
       ->ccp) { /* -ccp_problem relaxed|coulomb chooses; the default is the simulation's (coulomb, or a checkpoint's) */
    TalusCCPType type;
    PetscCall(TalusCCPCreate(sim->comm, &sim->ccp));
    PetscCall(TalusCCPSetType(sim->ccp, sim->anti_relax ? TALUSCCPCOULOMB : TALUSCCPRELAXED));
    PetscCall(TalusCCPSetFromOptions(sim->ccp));
    PetscCall(TalusCCPGetType(sim->ccp, &type));
    PetscCheck(!strcmp(type, TALUSCCPCOULOMB) || !strcmp(type, TALUSCCPRELAXED), sim->comm, PETSC_ERR_USER_INPUT,
               "-ccp_problem %s: a scene is stepped with the problem coulomb or relaxed", type);
    sim->anti_relax = (PetscBool)!strcmp(type, TALUSCCPCOULOMB);
  }
  if (ccp) *ccp = sim->ccp;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetTime(TalusSim sim, PetscReal *t, PetscReal *t_final, PetscReal *dt)
{
  PetscFunctionBegin;
  if (t) *t = sim->t;
  if (t_final) *t_final = sim->t_final;
  if (dt) *dt = sim->dt;
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
  PetscReal dt = sim->dt, t_final = sim->t_final, envelope = sim->envelope;

  PetscFunctionBegin;
  PetscOptionsBegin(sim->comm, NULL, "Time stepping (seed 000 eq. 9)", "TalusSim");
  PetscCall(PetscOptionsReal("-dt", "Time step h (s)", "TalusSimSetTimeStep", dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-t_final", "End time (s)", "TalusSimSetFinalTime", t_final, &t_final, NULL));
  PetscCall(
    PetscOptionsReal("-envelope",
                     "Contact envelope delta_K (m): pairs closer than this are active contacts (seed 000 sec. 1)",
                     "TalusSimSetEnvelope", envelope, &envelope, NULL));
  PetscCall(PetscOptionsBool(
    "-ccp_matrix_free",
    "Apply B = D^T from a compact record per contact (false: an assembled MPIAIJ matrix, for cross-checking)",
    "TalusSimSetMatrixFree", sim->matrix_free, &sim->matrix_free, NULL));
  PetscOptionsEnd();
  PetscCall(TalusSimSetTimeStep(sim, dt));
  PetscCall(TalusSimSetFinalTime(sim, t_final));
  PetscCall(TalusSimSetEnvelope(sim, envelope));
  PetscCall(TalusDecompSetFromOptions(sim->decomp));
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
