/*
 * The solver's kernels at 10^3 .. 10^6 contacts, plus a triad probe of memory bandwidth so that
 * every figure can be read as a ratio to what the machine can stream (docs/performance.md).
 *
 * Problems are random contact problems with the sparsity of a granular bed: three contacts per
 * body (each body touches about six others, each contact is shared by two), 12 nonzeros per row
 * of B, and partners numbered close to each other as in a bed sorted along a space-filling curve
 * (tests/common/random_problem.c). They are built once per size and cached, and every benchmark
 * makes one untimed pass first so that page faults and cold caches are not timed.
 */
#include "harness.h"
#include "../common/random_problem.h"

#define MAX_CACHED 8

static struct {
  PetscInt      ncontacts;
  RandomProblem prob;
} cache[MAX_CACHED];
static int ncached = 0;

static RandomProblem *Problem(PetscInt ncontacts)
{
  RandomProblemSpec spec = {.ncontacts     = ncontacts,
                            .nbodies       = PetscMax(ncontacts / 3, 2),
                            .mu_max        = 0.5,
                            .ground        = 0.05,
                            .velocity      = 1.0,
                            .gap           = 0.1,
                            .neighbourhood = 64,
                            .seed          = 7};

  for (int k = 0; k < ncached; k++)
    if (cache[k].ncontacts == ncontacts) return &cache[k].prob;
  if (ncached == MAX_CACHED || RandomProblemCreate(PETSC_COMM_WORLD, &spec, &cache[ncached].prob)) return NULL;
  cache[ncached].ncontacts = ncontacts;
  return &cache[ncached++].prob;
}

void TalusBenchCleanup(void)
{
  for (int k = 0; k < ncached; k++) RandomProblemDestroy(&cache[k].prob);
  ncached = 0;
  TalusBenchCleanupSolvers();
}

/* Triad a = b + s c over 2^25 doubles per array (768 MiB in all): far beyond any cache. The pass
   moves 3 x 8 bytes per entry counted as the STREAM convention does (no write-allocate). */
static void BenchTriad(TalusBench *b)
{
  const size_t n = (size_t)1 << 25;
  double      *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)), *z = malloc(n * sizeof(double));

  if (!x || !y || !z) {
    TalusBenchFail(b, "out of memory");
    free(x), free(y), free(z);
    return;
  }
  for (size_t i = 0; i < n; i++) x[i] = 0.0, y[i] = 1.0, z[i] = 2.0;
  for (size_t i = 0; i < n; i++) x[i] = y[i] + 3.0 * z[i]; /* untimed warm-up pass */
  while (TalusBenchKeepRunning(b)) {
    for (size_t i = 0; i < n; i++) x[i] = y[i] + 3.0 * z[i];
    __asm__ __volatile__("" : : "r"(x) : "memory"); /* keep the loop */
  }
  TalusBenchSetBytes(b, 24.0 * (double)n);
  free(x), free(y), free(z);
}

/* Friction-cone projection: reads 3 + 1 doubles, writes 3 per contact = 56 bytes. */
static void BenchProjection(TalusBench *b)
{
  RandomProblem   *prob = Problem((PetscInt)TalusBenchArg(b, 0));
  Vec              y;
  TalusFeasibleSet set;

  if (!prob || VecDuplicate(prob->q, &y)) {
    TalusBenchFail(b, "set-up failed");
    return;
  }
  set = (TalusFeasibleSet){.mu = prob->mu, .nnonneg_local = 0, .nfree_local = 0};
  TalusFeasibleSetProject(&set, prob->q, y); /* warm-up */
  while (TalusBenchKeepRunning(b))
    if (TalusFeasibleSetProject(&set, prob->q, y)) TalusBenchFail(b, "projection failed");
  TalusBenchSetItems(b, (double)TalusBenchArg(b, 0));
  TalusBenchSetBytes(b, 56.0 * (double)TalusBenchArg(b, 0));
  TalusBenchReportNanosecondsPer(b, "ns_per_contact", (double)TalusBenchArg(b, 0));
  VecDestroy(&y);
}

/*
 * One application of N = B M^-1 B^T, never formed: MatMultTranspose, pointwise M^-1, MatMult.
 * Bytes per contact that must move at least: B twice (3 rows x (12 x (8 + 4)) + 3 x 4 row
 * pointers = 444 B, so 888 B), x read and y written (48 B), the body vector written, scaled and
 * gathered (2 doubles per contact: about 16 B x 4 sweeps = 64 B), M^-1 read (16 B): about 1016 B.
 */
static void BenchDelassus(TalusBench *b)
{
  RandomProblem *prob = Problem((PetscInt)TalusBenchArg(b, 0));
  Vec            y;

  if (!prob || VecDuplicate(prob->q, &y)) {
    TalusBenchFail(b, "set-up failed");
    return;
  }
  MatMult(prob->N, prob->q, y); /* warm-up */
  while (TalusBenchKeepRunning(b))
    if (MatMult(prob->N, prob->q, y)) TalusBenchFail(b, "MatMult failed");
  TalusBenchSetItems(b, (double)TalusBenchArg(b, 0));
  TalusBenchSetBytes(b, 1016.0 * (double)TalusBenchArg(b, 0));
  TalusBenchReportNanosecondsPer(b, "ns_per_contact", (double)TalusBenchArg(b, 0));
  VecDestroy(&y);
}

/*
 * APGD iterations on the Coulomb problem (anti-relaxation on), 50 per solve with the tolerance
 * out of reach, timed per iteration and contact. Per iteration: one application of N (1016 B per
 * contact) and the vector sweeps of apgd.c, about 47 vector passes of 24 B per contact (1130 B).
 */
static void BenchAPGDIteration(TalusBench *b)
{
  const PetscInt iterations = 50;
  RandomProblem *prob       = Problem((PetscInt)TalusBenchArg(b, 0));
  TalusCCP       ccp;
  Tao            tao;
  Vec            r;
  PetscInt       done = 0, total = 0, passes = 0, backtracks = 0, total_backtracks = 0;

  if (!prob) {
    TalusBenchFail(b, "set-up failed");
    return;
  }
  if (TalusCCPCreate(PETSC_COMM_WORLD, &ccp) || TalusCCPSetOperator(ccp, prob->N) ||
      TalusCCPSetLinearTerm(ccp, prob->q) || TalusCCPSetFeasibleSet(ccp, prob->mu, 0, 0) ||
      TalusCCPSetType(ccp, TALUSCCPCOULOMB) || TalusCCPGetTao(ccp, &tao) || TaoSetTolerances(tao, 0.0, 0.0, 0.0) ||
      TaoSetMaximumIterations(tao, iterations) || TalusCCPSetUp(ccp) || VecDuplicate(prob->q, &r)) {
    TalusBenchFail(b, "set-up failed");
    return;
  }
  VecSet(r, 0.0);
  TalusCCPSolve(ccp, r); /* warm-up */
  while (TalusBenchKeepRunning(b)) {
    VecSet(r, 0.0);
    if (TalusCCPSolve(ccp, r)) TalusBenchFail(b, "solve failed");
    TaoGetSolutionStatus(tao, &done, NULL, NULL, NULL, NULL, NULL);
    TaoAPGDGetStatistics(tao, NULL, &backtracks, NULL, NULL);
    total += done;
    total_backtracks += backtracks;
    passes++;
  }
  /* items: contact-iterations of one pass (each solve also pays 2 set-up products, 4 % of 50) */
  TalusBenchSetItems(b, (double)iterations * (double)TalusBenchArg(b, 0));
  TalusBenchReportNanosecondsPer(b, "ns_per_contact_iteration", (double)iterations * (double)TalusBenchArg(b, 0));
  TalusBenchReportValue(b, "iterations", passes ? (double)total / passes : 0.0);
  /* products with N per iteration: one, plus backtracking, plus the two of the set-up per solve */
  TalusBenchReportValue(b, "N_per_iteration", total ? (double)(total + total_backtracks + 2 * passes) / total : 0.0);
  VecDestroy(&r);
  TalusCCPDestroy(&ccp);
}

void TalusBenchRegisterAll(void)
{
  static const long sizes[] = {1000, 10000, 100000, 1000000};
  const int         nsizes  = (int)(sizeof(sizes) / sizeof(sizes[0]));
  PetscMPIInt       size;

  /* one-rank benchmarks loop for a time, which ranks could not agree on: on several ranks only
     the parallel ones (fixed passes) are registered */
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size == 1) {
    TalusBenchRegister("triad", BenchTriad, NULL, 0);
    TalusBenchRegister("cone_projection", BenchProjection, sizes, nsizes);
    TalusBenchRegister("delassus_apply", BenchDelassus, sizes, nsizes);
    TalusBenchRegister("apgd_iteration", BenchAPGDIteration, sizes, nsizes);
    TalusBenchRegisterSimulation();
    TalusBenchRegisterSolvers();
  }
  TalusBenchRegisterParallelSimulation();
}
