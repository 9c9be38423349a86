/*
 * Bodies linked across any distance: the bodies joints, springs, loads and prescribed motions name
 * (a sorted list of ids, the same on every rank), found among a rank's bodies by id each step, and
 * the ghosts their links need. A joint is kept by the owner of its lower-id dynamic body, which
 * needs the other body; a spring's force is applied by the owner of each end, which needs the other
 * end. When that body is not a ghost by distance already, its owner sends it as one
 * (TalusSimBuildGhosts, distribute.c), so a link's span, not the contact reach, decides.
 */
#include "sim_impl.h"

PetscInt TalusSimFindBody(TalusSim sim, PetscInt id)
{
  const TalusBodies *b = sim->bodies;

  if (id >= 0 && id < b->n && b->id[id] == id) return id; /* a scene's bodies: ids are their places */
  for (PetscInt k = 0; k < b->n; k++)
    if (b->id[k] == id) return k;
  return -1;
}

PetscErrorCode TalusSimLinkBodies(TalusSim sim, PetscInt n, const PetscInt ids[])
{
  PetscFunctionBegin;
  PetscCall(PetscRealloc(sizeof(PetscInt) * (sim->nlinked + n + 1), &sim->linked_ids));
  for (PetscInt i = 0; i < n; i++)
    if (ids[i] != TALUS_WORLD) sim->linked_ids[sim->nlinked++] = ids[i];
  PetscCall(PetscSortRemoveDupsInt(&sim->nlinked, sim->linked_ids));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimMapLinked(TalusSim sim, PetscInt from)
{
  const TalusBodies *b = sim->bodies;

  PetscFunctionBegin;
  if (!sim->nlinked) PetscFunctionReturn(0); /* nothing to find: no pass over the bodies */
  if (from == 0) {
    PetscCall(PetscRealloc(sizeof(PetscInt) * sim->nlinked, &sim->linked_local));
    for (PetscInt i = 0; i < sim->nlinked; i++) sim->linked_local[i] = -1;
  }
  for (PetscInt k = from; k < b->n; k++) {
    PetscInt where;
    PetscCall(PetscFindInt(b->id[k], sim->nlinked, sim->linked_ids, &where));
    if (where >= 0) sim->linked_local[where] = k;
  }
  PetscFunctionReturn(0);
}

PetscInt TalusSimLinkedIndex(TalusSim sim, PetscInt id)
{
  PetscInt where;

  if (id == TALUS_WORLD) return -1;
  (void)PetscFindInt(id, sim->nlinked, sim->linked_ids, &where);
  return where >= 0 && sim->linked_local[where] >= 0 ? sim->linked_local[where] : -2;
}

/* The links as (keeper, other): the keeper's rank needs the other body */
static PetscErrorCode LinkPairs(TalusSim sim, PetscInt *n, PetscInt (**pairs)[2])
{
  PetscInt nmodules;

  PetscFunctionBegin;
  PetscCall(TalusSimModulesLinks(sim, &nmodules, NULL));
  PetscCall(PetscMalloc1(nmodules + 1, pairs));
  PetscCall(TalusSimModulesLinks(sim, n, *pairs)); /* the joints', then the springs' */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimLinkedGhostRequests(TalusSim sim, PetscInt *n, PetscInt **body, PetscMPIInt **rank)
{
  TalusBodies *b = sim->bodies;
  PetscInt    *owner_rank, npairs;
  PetscInt(*pairs)[2];

  PetscFunctionBegin;
  *n = 0;
  PetscCall(LinkPairs(sim, &npairs, &pairs));
  PetscCall(PetscMalloc2(npairs + 1, body, npairs + 1, rank));
  if (!npairs || sim->size == 1) {
    PetscCall(PetscFree(pairs));
    PetscFunctionReturn(0);
  }
  /* which rank owns each finite linked body (TalusSimMapLinked's map covers the owned bodies here;
     planes, on every rank, need no ghost) */
  PetscCall(PetscMalloc1(sim->nlinked + 1, &owner_rank));
  for (PetscInt i = 0; i < sim->nlinked; i++) {
    const PetscInt k = sim->linked_local[i];
    owner_rank[i]    = (k >= 0 && k < b->nowned && TalusBodiesIsFinite(b, k)) ? sim->rank : -1;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, owner_rank, sim->nlinked, MPIU_INT, MPI_MAX, sim->comm));
  for (PetscInt i = 0; i < npairs; i++) {
    PetscInt o, p;
    if (pairs[i][0] == TALUS_WORLD || pairs[i][1] == TALUS_WORLD) continue;
    PetscCall(PetscFindInt(pairs[i][0], sim->nlinked, sim->linked_ids, &o));
    PetscCall(PetscFindInt(pairs[i][1], sim->nlinked, sim->linked_ids, &p));
    if (owner_rank[p] != sim->rank || owner_rank[o] == sim->rank || owner_rank[o] < 0) continue;
    (*body)[*n] = sim->linked_local[p], (*rank)[(*n)++] = (PetscMPIInt)owner_rank[o];
  }
  /* by body, then rank, without repeats (two links of one pair ask once): one sort of body * P + rank */
  {
    PetscInt64 *key;
    PetscInt    m = 0;
    PetscCall(PetscMalloc1(*n + 1, &key));
    for (PetscInt i = 0; i < *n; i++) key[i] = (PetscInt64)(*body)[i] * sim->size + (*rank)[i];
    PetscCall(PetscSortInt64(*n, key));
    for (PetscInt i = 0; i < *n; i++)
      if (!m || key[i] != key[m - 1]) key[m++] = key[i];
    for (PetscInt i = 0; i < m; i++)
      (*body)[i] = (PetscInt)(key[i] / sim->size), (*rank)[i] = (PetscMPIInt)(key[i] % sim->size);
    *n = m;
    PetscCall(PetscFree(key));
  }
  PetscCall(PetscFree(owner_rank));
  PetscCall(PetscFree(pairs));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGatherPoses(TalusSim sim, PetscInt n, const PetscInt ids[], TalusPose poses[])
{
  TalusBodies *b = sim->bodies;
  PetscReal   *state;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(7 * n + 1, &state));
  for (PetscInt i = 0; i < n; i++) {
    if (ids[i] == TALUS_WORLD) {
      state[7 * i + 3] = sim->rank == 0 ? 1.0 : 0.0; /* the identity rotation, once over the ranks */
      continue;
    }
    for (PetscInt k = 0; k < b->nowned; k++)
      if (b->id[k] == ids[i] && (TalusBodiesIsFinite(b, k) || sim->rank == 0)) {
        PetscCall(PetscArraycpy(&state[7 * i], &b->position[3 * k], 3));
        PetscCall(PetscArraycpy(&state[7 * i + 3], &b->quaternion[4 * k], 4));
      }
  }
  /* one rank holds each body (planes: rank 0 counts): the sum is that rank's values exactly */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, state, 7 * n, MPIU_REAL, MPIU_SUM, sim->comm));
  for (PetscInt i = 0; i < n; i++) {
    for (int d = 0; d < 3; d++) poses[i].r[d] = state[7 * i + d];
    TalusQuatToMatrix(&state[7 * i + 3], poses[i].A);
  }
  PetscCall(PetscFree(state));
  PetscFunctionReturn(0);
}
