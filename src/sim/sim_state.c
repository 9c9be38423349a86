/*
 * The simulator's state as checkpoints see it: read between steps (TalusSimGetState,
 * TalusSimGetHistory, the bodies through TalusSimGetBodies) and loaded into a new simulator
 * (TalusSimRestore), which owns the warm-start buffer and the repartition. The checkpoint code
 * talks to the simulator only through these and never sees its private struct.
 */
#include "sim_impl.h"

PetscErrorCode TalusSimGetState(TalusSim sim, TalusSimState *state)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(state, sizeof(*state)));
  state->step        = sim->step;
  state->t           = sim->t;
  state->dt          = sim->dt;
  state->t_final     = sim->t_final;
  state->envelope    = sim->envelope;
  state->anti_relax  = sim->anti_relax;
  state->has_domain  = sim->has_domain;
  state->rmax        = sim->rmax;
  state->nfinite     = sim->nfinite;
  state->bodies_lost = sim->bodies_lost;
  state->rebalances  = sim->rebalances;
  for (int d = 0; d < 3; d++)
    state->gravity[d] = sim->gravity[d], state->domain_min[d] = sim->domain_min[d],
    state->domain_max[d] = sim->domain_max[d];
  PetscCall(TalusDecompGetBackoff(sim->decomp, &state->decomp_last_rebalance, &state->decomp_cooldown));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetHistory(TalusSim sim, PetscInt *n, const TalusContactHistory **history)
{
  PetscFunctionBegin;
  *n       = sim->nhistory;
  *history = sim->history;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimExchange(TalusSim sim, PetscInt n, const PetscMPIInt dest[], size_t bytes, void *items,
                                PetscInt *nrecv, void **recv)
{
  PetscInt k, stays, all_stay;

  PetscFunctionBegin;
  for (k = 0; k < n && dest[k] == sim->rank; k++) { }
  stays = k == n;
  PetscCall(MPIU_Allreduce(&stays, &all_stay, 1, MPIU_INT, MPI_MIN, sim->comm));
  /* nothing moves (one rank, or every item already where it goes): neither a copy nor fresh memory */
  if (all_stay) *recv = items, *nrecv = n;
  else PetscCall(TalusDecompExchange(sim->decomp, n, dest, bytes, items, nrecv, recv));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimRestore(TalusSim sim, const TalusSimSnapshot *snap)
{
  TalusBodies         *b = sim->bodies;
  const TalusSimState *s = &snap->state;
  TalusBodyRecord     *in;
  TalusContactHistory *hin;
  PetscInt             nin, hnin;

  PetscFunctionBegin;
  PetscCheck(b->n == 0 && !sim->distributed, sim->comm, PETSC_ERR_ORDER,
             "a snapshot is loaded into a new, empty simulation");
  sim->perturbed = PETSC_TRUE; /* a restart's bodies are the run's: -perturb_positions moved them at its start */
  for (PetscInt m = 0; m < snap->nmaterials; m++) {
    PetscCall(
      TalusBodiesAddMaterial(b, snap->materials[m].name, snap->materials[m].mu, snap->materials[m].density, NULL));
    PetscCall(TalusBodiesSetMaterialRelaxation(b, m, snap->materials[m].zeta, snap->materials[m].delta));
    PetscCall(TalusBodiesSetMaterialCompliance(b, m, snap->materials[m].stiffness, snap->materials[m].damping));
    PetscCall(TalusBodiesSetMaterialFoundation(b, m, snap->materials[m].grid));
    if (snap->materials[m].modulus > 0.0)
      PetscCall(TalusBodiesSetMaterialHertz(b, m, snap->materials[m].modulus, snap->materials[m].damping));
  }
  if (snap->mu_pair) {
    PetscCall(PetscMalloc1(snap->nmaterials * snap->nmaterials, &b->mu_pair));
    PetscCall(PetscArraycpy(b->mu_pair, snap->mu_pair, snap->nmaterials * snap->nmaterials));
  }
  PetscCall(
    TalusSimExchange(sim, snap->nbodies, snap->body_rank, sizeof(TalusBodyRecord), snap->bodies, &nin, (void **)&in));
  PetscCall(TalusBodiesReserve(b, snap->nplanes + nin));
  for (PetscInt p = 0; p < snap->nplanes; p++) PetscCall(TalusBodiesAppendRecord(b, &snap->planes[p]));
  for (PetscInt k = 0; k < nin; k++) PetscCall(TalusBodiesAppendRecord(b, &in[k]));
  if (in != snap->bodies) PetscCall(PetscFree(in));
  b->nowned = b->n;
  PetscCall(TalusBodiesSortById(b));
  /* warm starts where the body that keeps them now lives, in the order TalusContactsWarmStart searches */
  PetscCall(TalusDecompExchange(sim->decomp, snap->nhistory, snap->history_rank, sizeof(TalusContactHistory),
                                snap->history, &hnin, (void **)&hin));
  qsort(hin, (size_t)hnin, sizeof(TalusContactHistory), TalusContactHistoryCompare);
  PetscCall(PetscFree(sim->history));
  sim->history          = hin;
  sim->nhistory         = hnin;
  sim->history_capacity = hnin;

  sim->step        = s->step;
  sim->t           = s->t;
  sim->t_final     = s->t_final;
  sim->nfinite     = s->nfinite;
  sim->bodies_lost = s->bodies_lost;
  sim->rebalances  = s->rebalances;
  sim->anti_relax  = s->anti_relax;
  sim->has_domain  = s->has_domain;
  sim->envelope    = s->envelope;
  sim->rmax        = s->rmax;
  for (int d = 0; d < 3; d++) sim->domain_min[d] = s->domain_min[d], sim->domain_max[d] = s->domain_max[d];
  /* through the setters: a solver made already takes the tolerance of the restored h and g (-ccp_force_rtol) */
  PetscCall(TalusSimSetTimeStep(sim, s->dt));
  PetscCall(TalusSimSetGravity(sim, s->gravity));
  PetscCall(TalusDecompSetBackoff(sim->decomp, s->decomp_last_rebalance, s->decomp_cooldown));
  sim->distributed = PETSC_TRUE;
  /* the partition the run that wrote the snapshot made right after writing it (TalusCheckpointWrite) */
  PetscCall(TalusSimRepartition(sim));
  PetscFunctionReturn(0);
}
