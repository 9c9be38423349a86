/*
 * The simulator on P ranks against the same simulator on one rank, run side by side in this
 * process (rank 0 also steps a serial copy on PETSC_COMM_SELF, and tells the others what it found:
 * one copy, not one a rank, which on 4 ranks of 2 cores was most of the test's time), so nothing is
 * compared with a stored output:
 *   - after every step every body is owned by exactly one rank, none is lost, and every ghost is a
 *     bitwise copy of its owner's body;
 *   - the multiset of contacts (body ids, feature) found on P ranks equals the one a single rank
 *     finds for the same state;
 *   - positions agree with the serial run to 1e-8 over the first 0.2 s, and after 5 s of filling
 *     the support force and the bed height agree to 1 %, the kinetic energy to 1 % of its peak;
 *   - a row of spheres rolling across the rank boundaries keeps its warm starts: iteration counts
 *     and warm-started contact counts equal the serial run's at every step.
 * Usage: test_sim_parallel SCENE.yaml [options] (tests/scenes/filling-125.yaml -tao_max_it 150: the settled
 * pile's steps stop at the iteration cap whatever it is, and both runs have the same cap)
 */
#include "../common/check.h"

typedef struct {
  PetscInt a, b, feature;
} ContactKey;

static int CompareKey(const void *x, const void *y)
{
  const ContactKey *p = (const ContactKey *)x, *q = (const ContactKey *)y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return (p->feature > q->feature) - (p->feature < q->feature);
}

/* All ranks' contacts of the last step, as sorted keys on every rank. */
static PetscErrorCode GatherContactKeys(TalusSim sim, PetscInt *n, ContactKey **keys)
{
  const TalusContactList *list;
  ContactKey             *mine;
  PetscMPIInt             size, nmine, *counts, *displs, total = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TalusSimGetContacts(sim, &list));
  PetscCall(PetscMalloc3(list->n + 1, &mine, size, &counts, size, &displs));
  for (PetscInt c = 0; c < list->n; c++) {
    mine[c].a       = list->c[c].id_a; /* the local indices are stale once bodies migrate */
    mine[c].b       = list->c[c].id_b;
    mine[c].feature = list->c[c].feature;
  }
  nmine = (PetscMPIInt)(list->n * sizeof(ContactKey));
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, counts, 1, MPI_INT, PETSC_COMM_WORLD));
  for (PetscMPIInt r = 0; r < size; r++) displs[r] = total, total += counts[r];
  PetscCall(PetscMalloc1(total / sizeof(ContactKey) + 1, keys));
  PetscCallMPI(MPI_Allgatherv(mine, nmine, MPI_BYTE, *keys, counts, displs, MPI_BYTE, PETSC_COMM_WORLD));
  *n = total / (PetscMPIInt)sizeof(ContactKey);
  qsort(*keys, (size_t)*n, sizeof(ContactKey), CompareKey);
  PetscCall(PetscFree3(mine, counts, displs));
  PetscFunctionReturn(0);
}

/* The contacts one rank finds in the gathered state (planes from the serial copy's bodies). */
/* The contacts one rank finds for the distributed run's state, on the rank holding the serial copy ser (collective;
   none elsewhere, where ser is NULL). */
static PetscErrorCode SerialContactKeys(TalusSim par, TalusSim ser, PetscReal envelope, PetscInt *n, ContactKey **keys)
{
  TalusBodies     *sb, *state;
  TalusBodyRecord *all;
  PetscInt         nall;
  TalusContactList list = {0};

  PetscFunctionBegin;
  PetscCall(TalusSimGatherBodies(par, &nall, &all));
  if (!ser) {
    *n = 0;
    PetscCall(PetscMalloc1(1, keys));
    PetscCall(PetscFree(all));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimGetBodies(ser, &sb));
  PetscCall(TalusBodiesCreate(&state));
  for (PetscInt m = 0; m < sb->nmaterials; m++)
    PetscCall(
      TalusBodiesAddMaterial(state, sb->materials[m].name, sb->materials[m].mu, sb->materials[m].density, NULL));
  for (PetscInt k = 0; k < sb->n; k++)
    if (sb->shape[k] == TALUS_PLANE) {
      TalusBodyRecord r;
      TalusBodiesPack(sb, k, &r);
      PetscCall(TalusBodiesAppendRecord(state, &r));
    }
  for (PetscInt k = 0; k < nall; k++) PetscCall(TalusBodiesAppendRecord(state, &all[k]));
  state->nowned = state->n;
  PetscCall(TalusFindContacts(state, envelope, &list));
  PetscCall(PetscMalloc1(list.n + 1, keys));
  for (PetscInt c = 0; c < list.n; c++) {
    (*keys)[c].a       = state->id[list.c[c].a];
    (*keys)[c].b       = state->id[list.c[c].b];
    (*keys)[c].feature = list.c[c].feature;
  }
  *n = list.n;
  qsort(*keys, (size_t)*n, sizeof(ContactKey), CompareKey);
  PetscCall(TalusContactListDestroy(&list));
  PetscCall(TalusBodiesDestroy(&state));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* Largest position difference between the distributed run and the serial copy (collective; on the rank holding ser). */
static PetscErrorCode PositionDifference(TalusSim par, TalusSim ser, PetscReal *diff, PetscReal *mean_height_par,
                                         PetscReal *mean_height_ser)
{
  TalusBodyRecord *all;
  TalusBodies     *sb;
  PetscInt         n, j = 0;

  PetscFunctionBegin;
  PetscCall(TalusSimGatherBodies(par, &n, &all));
  *diff = 0.0, *mean_height_par = 0.0, *mean_height_ser = 0.0;
  if (!ser) {
    PetscCall(PetscFree(all));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimGetBodies(ser, &sb));
  for (PetscInt k = 0; k < sb->n; k++) { /* the serial copy holds its bodies in id order */
    if (sb->shape[k] == TALUS_PLANE) continue;
    PetscCheck(j < n && all[j].id == sb->id[k], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "body %" PetscInt_FMT " missing from the distributed run", sb->id[k]);
    for (int d = 0; d < 3; d++) *diff = PetscMax(*diff, PetscAbsReal(all[j].position[d] - sb->position[3 * k + d]));
    *mean_height_par += all[j].position[2] / n;
    *mean_height_ser += sb->position[3 * k + 2] / n;
    j++;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoadScene(MPI_Comm comm, const char file[], TalusSim *sim)
{
  TalusScene scene;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSceneLoad(comm, file, NULL, *sim, &scene));
  PetscCall(TalusSimSetDomain(*sim, scene.domain_min, scene.domain_max));
  PetscCall(TalusSimSetFromOptions(*sim));
  PetscCall(TalusSimSetUp(*sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode Filling(const char file[])
{
  TalusSim       par, ser = NULL;
  TalusStepStats sp, ss   = {0};
  PetscReal      envelope = 0.1, worst_early = 0.0, diff, hp, hs, t, peak_energy = 0.0;
  PetscInt       steps = 0, bad_ownership = 0, bad_ghosts = 0, ghosts = 0, bad_contacts = 0;
  PetscMPIInt    size, rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(LoadScene(PETSC_COMM_WORLD, file, &par));
  if (rank == 0) PetscCall(LoadScene(PETSC_COMM_SELF, file, &ser));
  PetscCall(TalusSimSetFinalTime(par, 5.0));
  do {
    PetscInt                nser = 0, npar = 0;
    ContactKey             *kser, *kpar;
    TalusDistributionReport report;
    PetscCall(SerialContactKeys(par, ser, envelope, &nser, &kser)); /* contacts of the state before the step */
    PetscCall(TalusSimStep(par, &sp));
    if (ser) PetscCall(TalusSimStep(ser, &ss));
    peak_energy = PetscMax(peak_energy, ss.kinetic_energy);
    PetscCall(GatherContactKeys(par, &npar, &kpar));
    if (ser && (npar != nser || (npar && memcmp(kpar, kser, npar * sizeof(ContactKey))))) {
      bad_contacts++;
      if (bad_contacts == 1) { /* say which, once */
        PetscInt i = 0, j = 0;
        while (i < npar || j < nser) {
          const int cmp = i >= npar ? 1 : j >= nser ? -1 : CompareKey(&kpar[i], &kser[j]);
          if (cmp < 0)
            PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                  "    step %" PetscInt_FMT ": only on %d ranks: (%" PetscInt_FMT ", %" PetscInt_FMT
                                  ", %" PetscInt_FMT ")\n",
                                  steps + 1, size, kpar[i].a, kpar[i].b, kpar[i].feature));
          if (cmp < 0) i++;
          else if (cmp > 0) {
            PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                  "    step %" PetscInt_FMT ": only on one rank: (%" PetscInt_FMT ", %" PetscInt_FMT
                                  ", %" PetscInt_FMT ")\n",
                                  steps + 1, kser[j].a, kser[j].b, kser[j].feature));
            j++;
          } else i++, j++;
        }
      }
    }
    PetscCall(PetscFree(kser));
    PetscCall(PetscFree(kpar));
    PetscCall(TalusSimVerifyDistribution(par, &report));
    if (report.duplicated || report.missing) bad_ownership++;
    bad_ghosts += report.ghost_mismatches;
    ghosts += report.ghosts;
    PetscCall(TalusSimGetTime(par, &t, NULL, NULL));
    if (t <= 0.2 + 1e-12) {
      PetscCall(PositionDifference(par, ser, &diff, &hp, &hs));
      worst_early = PetscMax(worst_early, diff);
    }
    steps++;
  } while (t < 5.0 - 1e-9);
  PetscCall(PositionDifference(par, ser, &diff, &hp, &hs));
  { /* rank 0's comparisons, for every rank's checks */
    PetscReal found[7] = {
      (PetscReal)bad_contacts, worst_early, ss.support_force_over_weight, ss.kinetic_energy, peak_energy, hp, hs};
    PetscCallMPI(MPI_Bcast(found, 7, MPIU_REAL, 0, PETSC_COMM_WORLD));
    bad_contacts = (PetscInt)found[0], worst_early = found[1], ss.support_force_over_weight = found[2];
    ss.kinetic_energy = found[3], peak_energy = found[4], hp = found[5], hs = found[6];
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  filling on %d ranks, %" PetscInt_FMT " steps: %" PetscInt_FMT
                        " ghost copies checked; positions within %.1e of the serial run to 0.2 s\n",
                        size, steps, ghosts, (double)worst_early));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  at 5 s: support force / weight %.6f vs %.6f, bed height %.6f vs %.6f m, kinetic energy %.6e "
                        "vs %.6e J (peak %.4e J)\n",
                        (double)sp.support_force_over_weight, (double)ss.support_force_over_weight, (double)hp,
                        (double)hs, (double)sp.kinetic_energy, (double)ss.kinetic_energy, (double)peak_energy));
  CHECK(bad_ownership == 0, "ownership broken after %" PetscInt_FMT " of %" PetscInt_FMT " steps", bad_ownership,
        steps);
  CHECK(bad_ghosts == 0, "%" PetscInt_FMT " ghosts differ from their owners", bad_ghosts);
  CHECK(size == 1 || ghosts > 0, "no ghost copies on %d ranks: the test does not test them", size);
  CHECK(bad_contacts == 0,
        "the contacts found on %d ranks differ from one rank's in %" PetscInt_FMT " of %" PetscInt_FMT " steps", size,
        bad_contacts, steps);
  CHECK(worst_early <= 1e-8, "positions differ from the serial run by %g in the first 0.2 s", (double)worst_early);
  CHECK(PetscAbsReal(sp.support_force_over_weight - ss.support_force_over_weight) <=
          0.01 * PetscAbsReal(ss.support_force_over_weight),
        "support force / weight %g vs %g", (double)sp.support_force_over_weight, (double)ss.support_force_over_weight);
  CHECK(PetscAbsReal(hp - hs) <= 0.01 * hs, "bed height %g vs %g", (double)hp, (double)hs);
  /* The settled bed's kinetic energy (about 1e-5 of its peak) is the solver's noise floor, and which
     grains jitter differs between rank counts once rounding has been amplified: it is compared
     with 1 % of the run's energy scale (the peak kinetic energy), not with its own tiny value. */
  CHECK(PetscAbsReal(sp.kinetic_energy - ss.kinetic_energy) <= 0.01 * peak_energy, "kinetic energy %g vs %g (peak %g)",
        (double)sp.kinetic_energy, (double)ss.kinetic_energy, (double)peak_energy);
  PetscCall(TalusSimDestroy(&par));
  if (ser) PetscCall(TalusSimDestroy(&ser));
  PetscFunctionReturn(0);
}

/* A row of spheres rolling along x across the ranks' regions (RCB cuts the long row along x). */
static PetscErrorCode BuildRow(MPI_Comm comm, TalusSim *sim)
{
  const PetscReal g[3] = {0, 0, -9.81}, up[3] = {0, 0, 1}, origin[3] = {0, 0, 0}, r[3] = {0.5, 0, 0};
  TalusBodies    *b;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscCall(TalusSimSetTimeStep(*sim, 0.01));
  PetscCall(TalusSimSetEnvelope(*sim, 0.05));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAddMaterial(b, "m", 0.4, 1000.0, NULL));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, origin, NULL));
  for (PetscInt i = 0; i < 24; i++) {
    const PetscReal x[3] = {1.5 * i, 0, 0.5};
    PetscInt        k;
    PetscCall(TalusBodiesAdd(b, 1 + i, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, x, &k));
    b->velocity[3 * k] = 3.0; /* 0.03 m a step: every sphere crosses a cut within ~0.6 s */
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RollingRow(void)
{
  TalusSim       par, ser;
  TalusStepStats sp, ss;
  PetscInt       mismatched = 0, warm_mismatched = 0, crossings = 0;
  PetscMPIInt    size, rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(BuildRow(PETSC_COMM_WORLD, &par));
  PetscCall(BuildRow(PETSC_COMM_SELF, &ser));
  /* unscaled: the 24 contacts' problems are then equal to the last bit, so sums over them do not depend on how
     the ranks split them and iteration counts compare exactly; the per-contact scaling's d carries the tangent
     frames' rounding, and the step where the row stops sliding moves by one with the ranks */
  for (int k = 0; k < 2; k++) {
    TalusCCP ccp;
    PetscCall(TalusSimGetCCP(k ? ser : par, &ccp));
    PetscCall(TalusCCPSetScaling(ccp, PETSC_FALSE));
  }
  for (PetscInt s = 0; s < 150; s++) {
    TalusBodies *b;
    PetscInt     before = 0, after = 0;
    PetscCall(TalusSimGetBodies(par, &b));
    for (PetscInt k = 0; k < b->nowned; k++) before += b->id[k] * (b->shape[k] != TALUS_PLANE);
    PetscCall(TalusSimStep(par, &sp));
    PetscCall(TalusSimStep(ser, &ss));
    for (PetscInt k = 0; k < b->nowned; k++) after += b->id[k] * (b->shape[k] != TALUS_PLANE);
    crossings += before != after; /* the set of bodies this rank owns changed */
    mismatched += sp.iterations != ss.iterations;
    warm_mismatched += sp.warm_started != ss.warm_started;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &crossings, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  rolling row on %d ranks: ownership changed %" PetscInt_FMT
                        " times; iteration counts differ in %" PetscInt_FMT ", warm starts in %" PetscInt_FMT
                        " of 150 steps\n",
                        size, crossings, mismatched, warm_mismatched));
  CHECK(size == 1 || crossings > 0, "no sphere crossed a rank boundary: the test does not test migration");
  CHECK(mismatched == 0, "iteration counts differ from the serial run in %" PetscInt_FMT " steps", mismatched);
  CHECK(warm_mismatched == 0, "warm-started contacts differ from the serial run in %" PetscInt_FMT " steps",
        warm_mismatched);
  PetscCall(TalusSimDestroy(&par));
  PetscCall(TalusSimDestroy(&ser));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCheck(argc >= 2, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "usage: test_sim_parallel SCENE.yaml");
  PetscCall(RollingRow());
  PetscCall(Filling(argv[1]));
  int status = TestSummary("test_sim_parallel");
  PetscCall(TalusFinalize());
  return status;
}
