/*
 * The decomposition on P ranks with random points: after partition and migration every point is
 * owned by exactly one rank and none is lost; ghosts are exact copies of their owners' items and
 * are on every rank whose region comes within the ghost width; a deliberately unbalanced state
 * (everything crowded into one side) triggers a repartition that brings the imbalance under the
 * threshold.
 */
#include "../common/check.h"
#include "../common/random_problem.h"
#include <decomp.h>

typedef struct {
  PetscInt  id;
  PetscReal x[3];
} Item;

/* The point of id k, the same on every rank. */
static void PointOf(PetscInt id, PetscReal squeeze, PetscReal x[3])
{
  TestRng rng;
  TestRngSeed(&rng, 1000 + (unsigned long long)id);
  for (int d = 0; d < 3; d++) x[d] = squeeze * TestRngUniform(&rng);
}

/* Moves every item to the owner of its point; checks ownership and conservation. */
static PetscErrorCode Migrate(TalusDecomp dd, PetscInt N, PetscInt *n, Item **items)
{
  PetscMPIInt *dest, rank;
  PetscInt     nrecv, total, bad = 0;
  Item        *recv;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscMalloc1(*n, &dest));
  for (PetscInt k = 0; k < *n; k++) PetscCall(TalusDecompOwner(dd, (*items)[k].x, &dest[k]));
  PetscCall(TalusDecompExchange(dd, *n, dest, sizeof(Item), *items, &nrecv, (void **)&recv));
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(*items));
  *items = recv;
  *n     = nrecv;
  for (PetscInt k = 0; k < *n; k++) {
    PetscMPIInt owner;
    PetscCall(TalusDecompOwner(dd, recv[k].x, &owner));
    if (owner != rank) bad++;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(n, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECK(bad == 0, "%" PetscInt_FMT " items are on a rank that does not own them", bad);
  CHECK(total == N, "%" PetscInt_FMT " items after migration, expected %" PetscInt_FMT, total, N);
  /* each id exactly once */
  {
    PetscInt *seen, dup = 0, missing = 0;
    PetscCall(PetscCalloc1(N, &seen));
    for (PetscInt k = 0; k < *n; k++) seen[recv[k].id]++;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, seen, N, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    for (PetscInt i = 0; i < N; i++) dup += seen[i] > 1, missing += seen[i] == 0;
    CHECK(dup == 0 && missing == 0, "ids owned twice: %" PetscInt_FMT ", by nobody: %" PetscInt_FMT, dup, missing);
    PetscCall(PetscFree(seen));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Partition(TalusDecomp dd, PetscInt n, const Item *items)
{
  PetscInt  *ids;
  PetscReal *x;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &ids, 3 * n, &x));
  for (PetscInt k = 0; k < n; k++) {
    ids[k] = items[k].id;
    for (int d = 0; d < 3; d++) x[3 * k + d] = items[k].x[d];
  }
  PetscCall(TalusDecompPartition(dd, n, ids, x, NULL));
  PetscCall(PetscFree2(ids, x));
  PetscFunctionReturn(0);
}

/* Ghosts within width w: built through the star forest, compared with the points they copy. */
static PetscErrorCode CheckGhosts(TalusDecomp dd, PetscInt n, const Item *items, PetscReal w)
{
  PetscMPIInt  rank, size, *dest, *ranks;
  PetscInt    *offset, nghost, wrong = 0, missing = 0, expected = 0, total = 0;
  PetscReal   *coords, *ghosts;
  PetscSF      sf;
  MPI_Datatype three;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc4(n + 1, &offset, n * size, &dest, size, &ranks, 3 * n, &coords));
  offset[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscReal lo[3], hi[3];
    PetscInt  nr;
    for (int d = 0; d < 3; d++) lo[d] = items[k].x[d] - w, hi[d] = items[k].x[d] + w, coords[3 * k + d] = items[k].x[d];
    PetscCall(TalusDecompRanksInBox(dd, lo, hi, &nr, ranks));
    offset[k + 1] = offset[k];
    for (PetscInt r = 0; r < nr; r++)
      if (ranks[r] != rank) dest[offset[k + 1]++] = ranks[r];
    expected += offset[k + 1] - offset[k];
  }
  PetscCall(TalusDecompCreateGhostSF(dd, n, offset, dest, &sf, &nghost));
  PetscCall(PetscMalloc1(3 * nghost + 1, &ghosts));
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_REAL, &three));
  PetscCallMPI(MPI_Type_commit(&three));
  PetscCall(PetscSFBcastBegin(sf, three, coords, ghosts, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, three, coords, ghosts, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&three));
  /* a ghost is a point of another rank whose ghost box reaches this rank's region */
  for (PetscInt g = 0; g < nghost; g++) {
    PetscReal   lo[3], hi[3];
    PetscInt    nr;
    PetscMPIInt owner;
    PetscBool   reaches = PETSC_FALSE;
    for (int d = 0; d < 3; d++) lo[d] = ghosts[3 * g + d] - w, hi[d] = ghosts[3 * g + d] + w;
    PetscCall(TalusDecompOwner(dd, &ghosts[3 * g], &owner));
    PetscCall(TalusDecompRanksInBox(dd, lo, hi, &nr, ranks));
    for (PetscInt r = 0; r < nr; r++) reaches |= (PetscBool)(ranks[r] == rank);
    if (owner == rank || !reaches) wrong++;
  }
  total = nghost;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &expected, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &wrong, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  missing = expected - total;
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT " ghost copies within %g on %d ranks\n", total, (double)w, size));
  CHECK(missing == 0 && wrong == 0, "ghosts: %" PetscInt_FMT " missing, %" PetscInt_FMT " not where they belong",
        missing, wrong);
  /* exact copies: refresh again after changing the owners' data */
  for (PetscInt k = 0; k < 3 * n; k++) coords[k] += 0.25;
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_REAL, &three));
  PetscCallMPI(MPI_Type_commit(&three));
  PetscCall(PetscSFBcastBegin(sf, three, coords, ghosts, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, three, coords, ghosts, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&three));
  {
    PetscInt           mismatched = 0;
    PetscSFNode const *remote;
    PetscInt           nroots, nleaves;
    const PetscInt    *local;
    PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &local, &remote));
    (void)remote;
    for (PetscInt g = 0; g < nghost; g++) {
      PetscMPIInt owner;
      PetscReal   shifted[3] = {ghosts[3 * g] - 0.25, ghosts[3 * g + 1] - 0.25, ghosts[3 * g + 2] - 0.25};
      PetscCall(TalusDecompOwner(dd, shifted, &owner));
      if (owner == rank) mismatched++;
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mismatched, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    CHECK(mismatched == 0, "refreshed ghosts are not the owners' new values (%" PetscInt_FMT ")", mismatched);
  }
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree(ghosts));
  PetscCall(PetscFree4(offset, dest, ranks, coords));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt N = 4000;
  TalusDecomp    dd;
  PetscMPIInt    rank, size;
  PetscInt       n = 0;
  Item          *items;
  PetscReal      imbalance;
  PetscBool      want;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TalusDecompCreate(PETSC_COMM_WORLD, &dd));
  PetscCall(TalusDecompSetFromOptions(dd));
  /* start: ids dealt round-robin, points uniform in the unit cube */
  PetscCall(PetscMalloc1(N / size + 1, &items));
  for (PetscInt id = rank; id < N; id += size, n++) {
    items[n].id = id;
    PointOf(id, 1.0, items[n].x);
  }
  PetscCall(Partition(dd, n, items));
  PetscCall(Migrate(dd, N, &n, &items));
  PetscCall(TalusDecompImbalance(dd, (PetscReal)n, &imbalance));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  uniform points on %d ranks: imbalance %.3f\n", size, (double)imbalance));
  CHECK(imbalance <= 1.2, "RCB of uniform points left an imbalance of %g", (double)imbalance);
  PetscCall(CheckGhosts(dd, n, items, 0.05));

  /* crowd everything into a corner of the box: the old cuts are now badly unbalanced */
  for (PetscInt k = 0; k < n; k++) PointOf(items[k].id, 0.1, items[k].x);
  PetscCall(Migrate(dd, N, &n, &items));
  PetscCall(TalusDecompImbalance(dd, (PetscReal)n, &imbalance));
  PetscCall(TalusDecompWantsRebalance(dd, 1, imbalance, &want));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  crowded to one side: imbalance %.3f, rebalance %s\n", (double)imbalance,
                        want ? "yes" : "no"));
  if (size > 1) CHECK(want, "an imbalance of %g did not ask for a repartition", (double)imbalance);
  if (want) {
    PetscCall(Partition(dd, n, items));
    PetscCall(Migrate(dd, N, &n, &items));
    PetscCall(TalusDecompImbalance(dd, (PetscReal)n, &imbalance));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  after the repartition: imbalance %.3f\n", (double)imbalance));
  }
  CHECK(imbalance <= 1.2, "imbalance %g after the repartition, threshold 1.2", (double)imbalance);
  PetscCall(CheckGhosts(dd, n, items, 0.01));
  PetscCall(PetscFree(items));
  PetscCall(TalusDecompDestroy(&dd));
  int status = TestSummary("test_decomp");
  PetscCall(TalusFinalize());
  return status;
}
