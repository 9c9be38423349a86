/*
 * Bodies over ranks: the first distribution, velocity-dof numbering, ghost copies and migration.
 * The geometry of ownership lives in decomp/ (which knows no physics); this file packs bodies and
 * contact histories into records and decides what goes where.
 *
 * Ownership: a rank owns the finite bodies whose centres lie in its region; planes are replicated
 * on every rank. A contact is kept by the owner of its lower-id dynamic body. Ghosts: every owned
 * body is copied to each rank whose region comes within ghost_width of its centre, with
 * ghost_width = 2 r_max + envelope (so both bodies of any contact are seen by the rank that keeps
 * it) + r_max (the farthest a body may move in one step; TalusSimMigrate enforces it). A joint's
 * or a spring's other body goes, besides, to the rank that keeps the link, however far (linked.c).
 */
#include "sim_impl.h"

PetscErrorCode TalusSimDistribute(TalusSim sim)
{
  TalusBodies     *b    = sim->bodies;
  const PetscInt   nrep = sim->nreplicated == PETSC_DETERMINE ? b->n : sim->nreplicated;
  PetscInt         slot = 0, nlocal = 0, nout = 0, nin, others, *ids;
  PetscReal       *centres, *weights;
  PetscBool       *keep;
  PetscMPIInt     *dest;
  TalusBodyRecord *out, *in;
  PetscReal       *radius; /* the bounding radii, -1 for a plane */

  PetscFunctionBegin;
  if (sim->distributed) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(TALUS_EventDistribute, 0, 0, 0, 0));
  PetscCall(PetscMalloc1(b->n + 1, &radius));
  TalusBodiesBoundingRadii(b, radius);
  /* the replicated bodies, in id order on every rank: slots among the finite ones in that order */
  sim->rmax = 0.0;
  for (PetscInt k = 0; k < nrep; k++) {
    if (radius[k] < 0.0) continue;
    b->slot[k] = slot++;
    sim->rmax  = PetscMax(sim->rmax, radius[k]);
  }
  /* the others, one rank each, finite, with ids from nrep on: a slot follows from the id alone */
  for (PetscInt k = nrep; k < b->n; k++) {
    PetscCheck(radius[k] >= 0.0 && b->id[k] >= nrep, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "body %" PetscInt_FMT ", held by one rank, is a plane or has the id of a replicated body", b->id[k]);
    b->slot[k] = slot + b->id[k] - nrep;
    sim->rmax  = PetscMax(sim->rmax, radius[k]);
  }
  others = b->n - nrep;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &others, 1, MPIU_INT, MPI_SUM, sim->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sim->rmax, 1, MPIU_REAL, MPIU_MAX, sim->comm));
  sim->nfinite = slot + others;
  /* a first partition from a share of the replicated bodies and a sample of the others where they are:
     one in `stride` by id, about 2^17 a rank (the cuts of 4e6 bodies on 2 ranks took 0.25 s from all of
     them; a sample of 2^17 places a median within about 0.3 % of the bodies; the first rebalance then
     weighs every body by its contacts) */
  const PetscInt stride = PetscMax(1, sim->nfinite / (sim->size * 131072));
  PetscCall(PetscMalloc3(b->n, &ids, 3 * b->n, &centres, b->n, &weights));
  for (PetscInt k = 0; k < b->n; k++) {
    if (radius[k] < 0.0 || (k < nrep && b->slot[k] % sim->size != sim->rank) || (k >= nrep && b->id[k] % stride))
      continue;
    ids[nlocal] = b->id[k];
    for (int d = 0; d < 3; d++) centres[3 * nlocal + d] = b->position[3 * k + d];
    weights[nlocal++] = 1.0;
  }
  PetscCall(TalusDecompPartition(sim->decomp, nlocal, ids, centres, weights));
  PetscCall(PetscFree3(ids, centres, weights));
  /* the replicated bodies are kept by their owner only; the others are sent to it */
  PetscCall(PetscMalloc2(b->n, &keep, b->n, &dest));
  for (PetscInt k = 0; k < b->n; k++) {
    PetscMPIInt owner = sim->rank;
    if (radius[k] >= 0.0) PetscCall(TalusDecompOwner(sim->decomp, &b->position[3 * k], &owner));
    keep[k] = (PetscBool)(owner == sim->rank);
    if (!keep[k] && k >= nrep) dest[nout++] = owner;
  }
  PetscCall(PetscFree(radius));
  PetscCall(PetscMalloc1(nout + 1, &out));
  for (PetscInt k = nrep, o = 0; k < b->n; k++)
    if (!keep[k]) TalusBodiesPack(b, k, &out[o++]);
  b->nowned = b->n;
  PetscCall(TalusBodiesKeep(b, keep));
  PetscCall(TalusDecompExchange(sim->decomp, nout, dest, sizeof(TalusBodyRecord), out, &nin, (void **)&in));
  PetscCall(PetscFree2(keep, dest));
  PetscCall(PetscFree(out));
  PetscCall(
    PetscInfo(NULL, "first distribution: %" PetscInt_FMT " bodies sent, %" PetscInt_FMT " received\n", nout, nin));
  for (PetscInt k = 0; k < nin; k++) PetscCall(TalusBodiesAppendRecord(b, &in[k]));
  PetscCall(PetscFree(in));
  b->nowned = b->n;
  if (nin) PetscCall(TalusBodiesSortById(b)); /* in id order, as every rank count has them */
  sim->nreplicated = PETSC_DETERMINE;
  sim->distributed = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(TALUS_EventDistribute, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Global velocity dofs: 6 per owned dynamic body, numbered rank by rank (the Vec layout). */
PetscErrorCode TalusSimNumberDofs(TalusSim sim)
{
  TalusBodies *b  = sim->bodies;
  PetscInt     nd = 0, offset;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < b->nowned; k++)
    if (!b->fixed[k]) nd++;
  PetscCallMPI(MPI_Scan(&nd, &offset, 1, MPIU_INT, MPI_SUM, sim->comm));
  offset -= nd;
  sim->ndynamic  = nd;
  sim->dof_start = 6 * offset;
  nd             = 0;
  for (PetscInt k = 0; k < b->nowned; k++) b->dof[k] = b->fixed[k] ? -1 : 6 * (offset + nd++);
  PetscFunctionReturn(0);
}

/* Ghost copies of the neighbours' bodies, appended after the owned ones, through a star forest. */
PetscErrorCode TalusSimBuildGhosts(TalusSim sim)
{
  TalusBodies     *b = sim->bodies;
  PetscInt        *offset, nghost, ndest = 0, nrequests, *requested, next = 0;
  PetscMPIInt     *dest, *ranks, *requester;
  TalusBodyRecord *owned, *ghosts;
  PetscSF          sf;
  MPI_Datatype     unit;
  PetscLogDouble   t0, t1;
  const PetscReal  width = 3.0 * sim->rmax + sim->envelope; /* see the top of this file */

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCheck(b->n == b->nowned, PETSC_COMM_SELF, PETSC_ERR_ORDER, "ghosts are already there");
  PetscCall(TalusSimMapLinked(sim, 0)); /* the linked bodies among the owned ones, then among the ghosts */
  if (sim->size == 1) {
    sim->nghost = 0;
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimLinkedGhostRequests(sim, &nrequests, &requested, &requester));
  PetscCall(PetscMalloc4(b->nowned + 1, &offset, sim->size, &ranks, b->nowned, &owned,
                         (size_t)b->nowned * sim->size + 1, &dest));
  offset[0] = 0;
  for (PetscInt k = 0; k < b->nowned; k++) {
    offset[k + 1] = offset[k];
    TalusBodiesPack(b, k, &owned[k]);
    if (TalusBodiesIsFinite(b, k)) {
      PetscReal lo[3], hi[3];
      PetscInt  nr;
      for (int d = 0; d < 3; d++) lo[d] = b->position[3 * k + d] - width, hi[d] = b->position[3 * k + d] + width;
      PetscCall(TalusDecompRanksInBox(sim->decomp, lo, hi, &nr, ranks));
      for (PetscInt r = 0; r < nr; r++)
        if (ranks[r] != sim->rank) dest[ndest++] = ranks[r];
      /* and the ranks whose joints reach it from farther away (sorted by body) */
      for (; next < nrequests && requested[next] == k; next++) {
        PetscBool seen = PETSC_FALSE;
        for (PetscInt e = offset[k]; e < ndest; e++) seen = (PetscBool)(seen || dest[e] == requester[next]);
        if (!seen) dest[ndest++] = requester[next];
      }
      offset[k + 1] = ndest;
    }
  }
  PetscCall(PetscFree2(requested, requester));
  PetscCall(TalusDecompCreateGhostSF(sim->decomp, b->nowned, offset, dest, &sf, &nghost));
  PetscCall(PetscMalloc1(nghost + 1, &ghosts));
  PetscCall(TalusDecompCreateRecordType(sizeof(TalusBodyRecord), &unit));
  PetscCall(PetscSFBcastBegin(sf, unit, owned, ghosts, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, owned, ghosts, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&unit));
  for (PetscInt g = 0; g < nghost; g++) PetscCall(TalusBodiesAppendRecord(b, &ghosts[g]));
  sim->nghost = nghost;
  PetscCall(TalusSimMapLinked(sim, b->nowned));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree(ghosts));
  PetscCall(PetscFree4(offset, ranks, owned, dest));
  PetscCall(PetscTime(&t1));
  sim->seconds_ghost += t1 - t0;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDropGhosts(TalusSim sim)
{
  PetscFunctionBegin;
  sim->bodies->n = sim->bodies->nowned;
  sim->nghost    = 0;
  PetscFunctionReturn(0);
}

/*
 * After the step: bodies whose centres left this rank's region go to their new owners, with the
 * contact histories they own (warm starts survive migration); bodies that left the scene's domain
 * are removed with a warning. With `rebalance`, the regions are first recomputed from the owned
 * bodies weighted by their contacts.
 */
PetscErrorCode TalusSimMigrate(TalusSim sim, PetscBool rebalance)
{
  TalusBodies         *b = sim->bodies;
  PetscMPIInt         *dest, *hdest, *out_dest;
  PetscInt            *sorted_ids, *sorted_index;
  PetscBool           *keep;
  TalusBodyRecord     *out;
  TalusContactHistory *hout;
  TalusBodyRecord     *in   = NULL;
  TalusContactHistory *hin  = NULL;
  PetscInt             nout = 0, nin = 0, hnout = 0, hnin = 0, lost = 0, khist = 0, linked_out = -1;
  PetscBool            moving;
  PetscLogDouble       t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCheck(b->n == b->nowned, PETSC_COMM_SELF, PETSC_ERR_ORDER, "drop the ghosts before migrating");
  PetscCall(PetscMalloc4(b->n, &dest, b->n, &keep, b->n, &out, sim->nhistory + 1, &hout));
  PetscCall(PetscMalloc4(sim->nhistory + 1, &hdest, b->n, &out_dest, b->n, &sorted_ids, b->n, &sorted_index));
  /* the body that owns each history, found by id; used for the weights and for routing the histories */
  for (PetscInt k = 0; k < b->n; k++) sorted_ids[k] = b->id[k], sorted_index[k] = k;
  PetscCall(PetscSortIntWithArray(b->n, sorted_ids, sorted_index));
  if (rebalance) { /* RCB of the owned finite bodies, each weighted by 1 + its contacts */
    PetscInt  *ids, n = 0;
    PetscReal *centres, *weights, *contacts_of;
    PetscCall(PetscMalloc4(b->n, &ids, 3 * b->n, &centres, b->n, &weights, b->n, &contacts_of));
    for (PetscInt k = 0; k < b->n; k++) contacts_of[k] = 0.0;
    for (PetscInt h = 0; h < sim->nhistory; h++) {
      PetscInt where;
      PetscCall(PetscFindInt(sim->history[h].owner, b->n, sorted_ids, &where));
      if (where >= 0) contacts_of[sorted_index[where]] += 1.0;
    }
    for (PetscInt k = 0; k < b->n; k++) {
      if (!TalusBodiesIsFinite(b, k)) continue;
      ids[n] = b->id[k];
      for (int d = 0; d < 3; d++) centres[3 * n + d] = b->position[3 * k + d];
      weights[n++] = 1.0 + contacts_of[k];
    }
    PetscCall(TalusDecompPartition(sim->decomp, n, ids, centres, weights));
    PetscCall(PetscFree4(ids, centres, weights, contacts_of));
    sim->rebalances++;
  }
  for (PetscInt k = 0; k < b->n; k++) {
    keep[k] = PETSC_TRUE;
    dest[k] = sim->rank;
    if (!TalusBodiesIsFinite(b, k)) continue;
    if (sim->has_domain) {
      PetscBool inside = PETSC_TRUE;
      for (int d = 0; d < 3; d++)
        inside &= (PetscBool)(b->position[3 * k + d] >= sim->domain_min[d] &&
                              b->position[3 * k + d] <= sim->domain_max[d]);
      if (!inside && sim->nlinked) { /* a linked body is not removed: the run stops below, on every rank */
        PetscInt where;
        PetscCall(PetscFindInt(b->id[k], sim->nlinked, sim->linked_ids, &where));
        if (where >= 0) {
          linked_out = PetscMax(linked_out, b->id[k]);
          continue;
        }
      }
      if (!inside) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF,
                              "talus: warning: body %" PetscInt_FMT
                              " left the domain at (%g, %g, %g) at t = %g s and is removed\n",
                              b->id[k], (double)b->position[3 * k], (double)b->position[3 * k + 1],
                              (double)b->position[3 * k + 2], (double)sim->t));
        keep[k] = PETSC_FALSE;
        dest[k] = -1;
        lost++;
        continue;
      }
    }
    PetscCall(TalusDecompOwner(sim->decomp, &b->position[3 * k], &dest[k]));
    if (dest[k] != sim->rank) {
      keep[k] = PETSC_FALSE;
      TalusBodiesPack(b, k, &out[nout]);
      out_dest[nout++] = dest[k];
    }
  }
  /* histories follow the body that owns them, and die with lost bodies */
  for (PetscInt h = 0; h < sim->nhistory; h++) {
    PetscInt where, to;
    PetscCall(PetscFindInt(sim->history[h].owner, b->n, sorted_ids, &where));
    to = where >= 0 ? dest[sorted_index[where]] : -1;
    if (to == sim->rank) sim->history[khist++] = sim->history[h];
    else if (to >= 0) {
      hout[hnout]    = sim->history[h];
      hdest[hnout++] = (PetscMPIInt)to;
    }
  }
  sim->nhistory = khist;
  { /* a linked body out of the domain, and whether any rank sends anything: in one reduction (a settled bed's or a
       mechanism's steps move nothing, and each exchange is a handshake of every rank with its partners) */
    PetscInt flags[2] = {linked_out, nout + hnout > 0};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, flags, 2, MPIU_INT, MPI_MAX, sim->comm));
    linked_out = flags[0], moving = (PetscBool)flags[1];
  }
  if (linked_out >= 0) {
    char what[96];
    PetscCall(TalusSimModulesDescribe(sim, linked_out, what, sizeof(what))); /* joints, drives, planar bodies */
    SETERRQ(sim->comm, PETSC_ERR_USER_INPUT,
            "body %" PetscInt_FMT ", held by %s, left the domain at t = %g s: bodies with joints, springs, loads, "
            "prescribed motions or planes are never removed; widen the scene's domain (or leave it out)",
            linked_out, what, (double)sim->t);
  }
  PetscCall(TalusBodiesKeep(b, keep));
  if (moving)
    PetscCall(TalusDecompExchange(sim->decomp, nout, out_dest, sizeof(TalusBodyRecord), out, &nin, (void **)&in));
  PetscCall(PetscInfo(NULL, "migration: %" PetscInt_FMT " bodies sent, %" PetscInt_FMT " received\n", nout, nin));
  for (PetscInt k = 0; k < nin; k++) PetscCall(TalusBodiesAppendRecord(b, &in[k]));
  b->nowned = b->n;
  if (moving)
    PetscCall(TalusDecompExchange(sim->decomp, hnout, hdest, sizeof(TalusContactHistory), hout, &hnin, (void **)&hin));
  PetscCall(TalusGrowArray(sizeof(TalusContactHistory), sim->nhistory + hnin, &sim->history_capacity, &sim->history));
  for (PetscInt h = 0; h < hnin; h++) sim->history[sim->nhistory++] = hin[h];
  if (sim->nhistory > 1)
    qsort(sim->history, (size_t)sim->nhistory, sizeof(TalusContactHistory), TalusContactHistoryCompare);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &lost, 1, MPIU_INT, MPI_SUM, sim->comm));
  sim->bodies_lost += lost;
  PetscCall(PetscFree(in));
  PetscCall(PetscFree(hin));
  PetscCall(PetscFree4(hdest, out_dest, sorted_ids, sorted_index));
  PetscCall(PetscFree4(dest, keep, out, hout));
  PetscCall(PetscTime(&t1));
  sim->seconds_migrate += t1 - t0;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimCanonicalize(TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  PetscCall(TalusBodiesSortById(sim->bodies)); /* histories are kept sorted already */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimRepartition(TalusSim sim)
{
  PetscFunctionBegin;
  if (sim->size == 1) PetscFunctionReturn(0);
  PetscCall(TalusSimMigrate(sim, PETSC_TRUE));
  PetscCall(TalusBodiesSortById(sim->bodies));
  PetscFunctionReturn(0);
}

static int CompareRecordId(const void *x, const void *y)
{
  const TalusBodyRecord *a = (const TalusBodyRecord *)x, *b = (const TalusBodyRecord *)y;
  return (a->id > b->id) - (a->id < b->id);
}

PetscErrorCode TalusSimGatherBodies(TalusSim sim, PetscInt *n, TalusBodyRecord **records)
{
  TalusBodies     *b = sim->bodies;
  TalusBodyRecord *mine;
  PetscMPIInt      nmine = 0, *counts, *displs, total = 0;

  PetscFunctionBegin;
  PetscCall(TalusSimDistribute(sim));
  PetscCall(PetscMalloc3(b->nowned + 1, &mine, sim->size, &counts, sim->size, &displs));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (TalusBodiesIsFinite(b, k)) TalusBodiesPack(b, k, &mine[nmine++]);
  nmine *= (PetscMPIInt)sizeof(TalusBodyRecord);
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, counts, 1, MPI_INT, sim->comm));
  for (PetscMPIInt r = 0; r < sim->size; r++) displs[r] = total, total += counts[r];
  PetscCall(PetscMalloc1(total / sizeof(TalusBodyRecord) + 1, records));
  PetscCallMPI(MPI_Allgatherv(mine, nmine, MPI_BYTE, *records, counts, displs, MPI_BYTE, sim->comm));
  *n = total / (PetscMPIInt)sizeof(TalusBodyRecord);
  qsort(*records, (size_t)*n, sizeof(TalusBodyRecord), CompareRecordId);
  PetscCall(PetscFree3(mine, counts, displs));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimVerifyDistribution(TalusSim sim, TalusDistributionReport *report)
{
  TalusBodies     *b = sim->bodies;
  TalusBodyRecord *all;
  PetscInt         n, counts[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(report, sizeof(*report)));
  PetscCall(TalusSimNumberDofs(sim));
  PetscCall(TalusSimGatherBodies(sim, &n, &all));
  report->owned = n;
  for (PetscInt k = 1; k < n; k++) report->duplicated += all[k].id == all[k - 1].id;
  report->missing = sim->nfinite - sim->bodies_lost - (n - report->duplicated);
  PetscCall(TalusSimBuildGhosts(sim));
  for (PetscInt g = b->nowned; g < b->n; g++) {
    TalusBodyRecord mine, *owner;
    TalusBodiesPack(b, g, &mine);
    owner = (TalusBodyRecord *)bsearch(&mine, all, (size_t)n, sizeof(TalusBodyRecord), CompareRecordId);
    counts[0]++;
    if (!owner || memcmp(owner, &mine, sizeof(mine)) != 0) counts[1]++;
  }
  PetscCall(TalusSimDropGhosts(sim));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, counts, 2, MPIU_INT, MPI_SUM, sim->comm));
  report->ghosts           = counts[0];
  report->ghost_mismatches = counts[1];
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}
