/*
 * Benchmarks of the simulator's phases on a packed bed (tests/common/packed_bed.h), one rank:
 * contact detection (broad phase alone, then broad + narrow phase), and whole time steps at a
 * fixed amount of solver work (50 APGD iterations, tolerance out of reach) with B matrix-free or
 * assembled, reporting each phase per contact from the step's own timers and the marginal cost of
 * one APGD iteration.
 */
#include "harness.h"
#include "../common/packed_bed.h"

static TalusSim Bed(TalusBench *b, PetscInt *n)
{
  TalusSim sim = NULL;
  *n           = (PetscInt)TalusBenchArg(b, 0);
  if (TestPackedBedCreate(PETSC_COMM_WORLD, n, &sim) || TalusSimDistribute(sim)) TalusBenchFail(b, "set-up failed");
  return sim;
}

static void BenchBroadPhase(TalusBench *b)
{
  PetscInt     n, npairs = 0, *pairs = NULL;
  TalusSim     sim = Bed(b, &n);
  TalusBodies *bodies;

  if (!sim) return;
  TalusSimGetBodies(sim, &bodies);
  while (TalusBenchKeepRunning(b)) {
    PetscFree(pairs);
    if (TalusBroadPhasePairs(bodies, 0.05, &npairs, &pairs)) TalusBenchFail(b, "broad phase failed");
  }
  TalusBenchSetItems(b, (double)n);
  TalusBenchReportNanosecondsPer(b, "ns_per_body", (double)n);
  TalusBenchReportValue(b, "pairs_per_body", (double)npairs / n);
  PetscFree(pairs);
  TalusSimDestroy(&sim);
}

/* The narrow phase alone: the broad phase's candidate pairs collided (TalusCollidePair). */
static void BenchNarrowPhase(TalusBench *b)
{
  PetscInt         n, npairs = 0, *pairs = NULL;
  TalusSim         sim = Bed(b, &n);
  TalusBodies     *bodies;
  TalusContactList list = {0, 0, NULL};

  if (!sim) return;
  TalusSimGetBodies(sim, &bodies);
  if (TalusBroadPhasePairs(bodies, 0.05, &npairs, &pairs)) TalusBenchFail(b, "broad phase failed");
  while (TalusBenchKeepRunning(b)) {
    list.n = 0;
    for (PetscInt p = 0; p < npairs; p++)
      if (TalusCollidePair(bodies, pairs[2 * p], pairs[2 * p + 1], 0.05, &list))
        TalusBenchFail(b, "narrow phase failed");
  }
  TalusBenchSetItems(b, (double)list.n);
  TalusBenchReportNanosecondsPer(b, "ns_per_contact", (double)list.n);
  TalusBenchReportValue(b, "contacts_per_pair", npairs ? (double)list.n / npairs : 0.0);
  PetscFree(pairs);
  TalusContactListDestroy(&list);
  TalusSimDestroy(&sim);
}

/* The assembled B (-ccp_matrix_free false) from its COO triplets: 36 per contact (two bodies,
   3 rows x 6 columns each) into an MPIAIJ matrix, the triplets made once outside the loop. */
static void BenchAssembleCOO(TalusBench *b)
{
  PetscInt         n, ncoo = 0, ndyn = 0, *dof, *ci, *cj;
  PetscScalar     *cv;
  TalusSim         sim = Bed(b, &n);
  TalusBodies     *bodies;
  TalusContactList list = {0, 0, NULL};

  if (!sim) return;
  TalusSimGetBodies(sim, &bodies);
  if (TalusFindContacts(bodies, 0.05, &list) || PetscMalloc1(bodies->n, &dof) ||
      PetscMalloc3(36 * list.n, &ci, 36 * list.n, &cj, 36 * list.n, &cv)) {
    TalusBenchFail(b, "set-up failed");
    return;
  }
  for (PetscInt k = 0; k < bodies->n; k++) dof[k] = bodies->fixed[k] ? -1 : 6 * ndyn++;
  for (PetscInt c = 0; c < list.n; c++) {
    const TalusContact *ct = &list.c[c];
    for (int side = 0; side < 2; side++) {
      const PetscInt k = side ? ct->b : ct->a;
      PetscReal      rows[3][6];
      if (dof[k] < 0) continue;
      TalusContactJacobian(bodies, ct, (PetscBool)side, rows);
      for (int r = 0; r < 3; r++)
        for (int j = 0; j < 6; j++) ci[ncoo] = 3 * c + r, cj[ncoo] = dof[k] + j, cv[ncoo++] = rows[r][j];
    }
  }
  while (TalusBenchKeepRunning(b)) {
    Mat B;
    if (TalusMatCreateCOO(PETSC_COMM_WORLD, 3 * list.n, 6 * ndyn, PETSC_DETERMINE, PETSC_DETERMINE, ncoo, ci, cj, cv,
                          INSERT_VALUES, &B) ||
        MatDestroy(&B))
      TalusBenchFail(b, "assembly failed");
  }
  TalusBenchSetItems(b, (double)list.n);
  TalusBenchReportNanosecondsPer(b, "ns_per_contact", (double)list.n);
  PetscFree3(ci, cj, cv);
  PetscFree(dof);
  TalusContactListDestroy(&list);
  TalusSimDestroy(&sim);
}

static void BenchFindContacts(TalusBench *b)
{
  PetscInt         n;
  TalusSim         sim = Bed(b, &n);
  TalusBodies     *bodies;
  TalusContactList list = {0, 0, NULL};

  if (!sim) return;
  TalusSimGetBodies(sim, &bodies);
  while (TalusBenchKeepRunning(b))
    if (TalusFindContacts(bodies, 0.05, &list)) TalusBenchFail(b, "contact detection failed");
  TalusBenchSetItems(b, (double)list.n);
  TalusBenchReportNanosecondsPer(b, "ns_per_contact", (double)list.n);
  TalusBenchReportValue(b, "contacts_per_body", (double)list.n / n);
  TalusContactListDestroy(&list);
  TalusSimDestroy(&sim);
}

/* One step with at most `iterations` APGD iterations (the tolerance is out of reach). */
static PetscErrorCode StepWithIterations(TalusSim sim, PetscInt iterations, TalusStepStats *s)
{
  TalusCCP ccp;
  Tao      tao;

  PetscFunctionBegin;
  PetscCall(TalusSimGetCCP(sim, &ccp));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetMaximumIterations(tao, iterations));
  PetscCall(TalusSimStep(sim, s));
  PetscFunctionReturn(0);
}

/* The bodies' state, to put the bed back where it was: a long run of unconverged 10-iteration
   steps would otherwise drift away from the settled regime measured (and small beds, which run
   thousands of steps, eventually blow up). */
typedef struct {
  PetscInt   n;
  PetscReal *x;
} BedState;

static PetscErrorCode BedSave(TalusSim sim, BedState *s)
{
  TalusBodies *b;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  s->n = b->n;
  PetscCall(PetscMalloc1(13 * b->n, &s->x));
  PetscCall(PetscArraycpy(s->x, b->position, 3 * b->n));
  PetscCall(PetscArraycpy(s->x + 3 * b->n, b->quaternion, 4 * b->n));
  PetscCall(PetscArraycpy(s->x + 7 * b->n, b->velocity, 3 * b->n));
  PetscCall(PetscArraycpy(s->x + 10 * b->n, b->omega, 3 * b->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode BedRestore(TalusSim sim, const BedState *s)
{
  TalusBodies *b;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCheck(b->n == s->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the bed changed its bodies");
  PetscCall(PetscArraycpy(b->position, s->x, 3 * b->n));
  PetscCall(PetscArraycpy(b->quaternion, s->x + 3 * b->n, 4 * b->n));
  PetscCall(PetscArraycpy(b->velocity, s->x + 7 * b->n, 3 * b->n));
  PetscCall(PetscArraycpy(b->omega, s->x + 10 * b->n, 3 * b->n));
  PetscFunctionReturn(0);
}

/*
 * Pairs of steps, one with 10 and one with 50 APGD iterations, each pair from the same state of
 * the bed (one rank: the bodies keep their places). The phases are reported for the
 * 50-iteration steps; one APGD iteration is the difference of the two solves' walls over the 40
 * iterations between them, per contact: the marginal cost of an iteration, without the solve's
 * set-up (first gradient, Lipschitz estimate, fresh work vectors) that the average includes.
 */
static void Step(TalusBench *b, const char *matrix_free)
{
  PetscInt       n, steps = 0;
  TalusSim       sim;
  TalusStepStats s, s10;
  BedState       state = {0, NULL};
  double contacts = 0, collide = 0, assemble = 0, solve = 0, solve10 = 0, integrate = 0, wall = 0, iterations = 0,
         iterations10 = 0;

  /* the sim's solver reads these when the first step creates it */
  PetscOptionsSetValue(NULL, "-tao_gatol", "0");
  PetscOptionsSetValue(NULL, "-tao_grtol", "0");
  PetscOptionsSetValue(NULL, "-ccp_matrix_free", matrix_free);
  sim = Bed(b, &n);
  if (!sim || TalusSimSetFromOptions(sim) || StepWithIterations(sim, 50, &s) || BedSave(sim, &state))
    TalusBenchFail(b, "set-up failed"); /* warm-up */
  PetscOptionsClearValue(NULL, "-tao_gatol");
  PetscOptionsClearValue(NULL, "-tao_grtol");
  PetscOptionsClearValue(NULL, "-ccp_matrix_free");
  if (!sim) return;
  while (TalusBenchKeepRunning(b)) {
    if (BedRestore(sim, &state) || StepWithIterations(sim, 10, &s10) || BedRestore(sim, &state) ||
        StepWithIterations(sim, 50, &s))
      TalusBenchFail(b, "step failed");
    contacts += s.contacts, collide += s.wall_collide, assemble += s.wall_assemble, solve += s.wall_solve;
    integrate += s.wall_integrate, wall += s.wall_step, iterations += s.iterations;
    solve10 += s10.wall_solve * (double)s.contacts / (double)s10.contacts, iterations10 += s10.iterations;
    steps++;
  }
  if (steps && contacts > 0 && iterations > iterations10) {
    const double per = 1e9 / contacts; /* seconds summed over steps / contacts summed over steps */
    TalusBenchSetItems(b, contacts / steps);
    TalusBenchReportValue(b, "contacts", contacts / steps);
    TalusBenchReportValue(b, "step_ns_per_contact", wall * per);
    TalusBenchReportValue(b, "collide_ns_per_contact", collide * per);
    TalusBenchReportValue(b, "assemble_ns_per_contact", assemble * per);
    TalusBenchReportValue(b, "solve_ns_per_contact_iteration", solve * per / (iterations / steps));
    TalusBenchReportValue(b, "apgd_iteration_ns_per_contact",
                          (solve - solve10) * per / ((iterations - iterations10) / steps));
    TalusBenchReportValue(b, "integrate_ns_per_contact", integrate * per);
  }
  PetscFree(state.x);
  TalusSimDestroy(&sim);
}

static void BenchStepMatrixFree(TalusBench *b)
{
  Step(b, "true");
}

static void BenchStepAssembled(TalusBench *b)
{
  Step(b, "false");
}

void TalusBenchRegisterSimulation(void)
{
  static const long bodies[] = {1000, 10000, 100000, 333000};
  const int         n        = (int)(sizeof(bodies) / sizeof(bodies[0]));

  TalusBenchRegister("broad_phase", BenchBroadPhase, bodies, n);
  TalusBenchRegister("narrow_phase", BenchNarrowPhase, bodies, n);
  TalusBenchRegister("find_contacts", BenchFindContacts, bodies, n);
  TalusBenchRegister("assemble_coo", BenchAssembleCOO, bodies, n);
  TalusBenchRegister("step_matrix_free", BenchStepMatrixFree, bodies, n);
  TalusBenchRegister("step_assembled", BenchStepAssembled, bodies, n);
}

/*
 * Migration and ghost refresh on every rank (mpirun -n P talus_bench --benchmark_filter=parallel):
 * the lattice streams diagonally at 17 m/s (0.1 m per step along each axis, whatever the
 * direction of the cuts), so layers of spheres cross the regions' boundaries every few steps. One
 * pass is one step with 5 APGD iterations. Reported: the step, migration and ghost refresh per
 * body (maxima over ranks, which is what the step waits for), bodies that changed owner per step,
 * ghost records received per step per rank (max).
 */
typedef struct {
  PetscInt  bodies, steps, moved;
  PetscReal wall[3], ghost_bytes; /* step, migration, ghost refresh: sums over steps, max over ranks */
} FlowFigures;

/* Bodies this rank owns now that it did not own before (before: sorted ids). */
static PetscErrorCode CountReceived(const TalusBodies *bodies, PetscInt nbefore, const PetscInt before[],
                                    PetscInt *received)
{
  PetscFunctionBegin;
  for (PetscInt k = 0, loc; k < bodies->nowned; k++) {
    PetscCall(PetscFindInt(bodies->id[k], nbefore, before, &loc));
    *received += loc < 0;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode FlowRun(TalusBench *b, FlowFigures *f)
{
  const PetscReal v[3] = {10.0, 10.0, 10.0};
  TalusSim        sim;
  TalusStepStats  s;
  PetscInt       *before = NULL, capacity = 0;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-tao_max_it", "5"));
  PetscCall(PetscOptionsSetValue(NULL, "-tao_gatol", "0"));
  PetscCall(TestFlowingBedCreate(PETSC_COMM_WORLD, &f->bodies, v, &sim));
  PetscCall(TalusSimSetFromOptions(sim));
  PetscCall(TalusSimDistribute(sim));
  PetscCall(TalusSimStep(sim, &s)); /* warm-up */
  PetscCall(PetscOptionsClearValue(NULL, "-tao_max_it"));
  PetscCall(PetscOptionsClearValue(NULL, "-tao_gatol"));
  while (TalusBenchKeepRunning(b)) {
    TalusBodies *bodies;
    PetscInt     nbefore;
    PetscCall(TalusSimGetBodies(sim, &bodies));
    nbefore = bodies->nowned;
    if (nbefore > capacity) {
      PetscCall(PetscFree(before));
      capacity = nbefore;
      PetscCall(PetscMalloc1(capacity, &before));
    }
    for (PetscInt k = 0; k < nbefore; k++) before[k] = bodies->id[k];
    PetscCall(PetscSortInt(nbefore, before));
    PetscCall(TalusSimStep(sim, &s));
    PetscCall(CountReceived(bodies, nbefore, before, &f->moved));
    f->wall[0] += s.wall_step, f->wall[1] += s.wall_migrate, f->wall[2] += s.wall_ghost,
      f->ghost_bytes += s.ghost_bytes;
    f->steps++;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, f->wall, 3, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &f->moved, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscFree(before));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/*
 * Migration and ghost refresh on every rank (mpirun -n P talus_bench --benchmark_filter=parallel):
 * the lattice streams diagonally at 17 m/s (0.1 m per step along each axis, whatever the
 * direction of the cuts), so layers of spheres cross the regions' boundaries every few steps. One
 * pass is one step with 5 APGD iterations. Reported: the step, migration and ghost refresh per
 * body (maxima over ranks, which is what the step waits for), bodies that changed owner per step,
 * bytes of ghost records received per step (max over ranks).
 */
static void BenchParallelFlow(TalusBench *b)
{
  FlowFigures f = {.bodies = (PetscInt)TalusBenchArg(b, 0)};

  if (FlowRun(b, &f)) {
    TalusBenchFail(b, "run failed");
    return;
  }
  if (f.steps) {
    const double per = 1e9 / ((double)f.bodies * f.steps);
    TalusBenchSetItems(b, (double)f.bodies);
    TalusBenchReportValue(b, "step_ns_per_body", f.wall[0] * per);
    TalusBenchReportValue(b, "migrate_ns_per_body", f.wall[1] * per);
    TalusBenchReportValue(b, "ghost_ns_per_body", f.wall[2] * per);
    TalusBenchReportValue(b, "moved_per_step", (double)f.moved / f.steps);
    TalusBenchReportValue(b, "ghost_bytes_per_step", f.ghost_bytes / f.steps);
  }
}

void TalusBenchRegisterParallelSimulation(void)
{
  static const long bodies[] = {10000, 100000};

  TalusBenchRegisterParallel("parallel_flow", BenchParallelFlow, bodies, 2, 14);
}
