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
  double         contacts = 0, collide = 0, assemble = 0, solve = 0, solve10 = 0, integrate = 0, wall = 0, iterations = 0, iterations10 = 0;

  /* the sim's solver reads these when the first step creates it */
  PetscOptionsSetValue(NULL, "-tao_gatol", "0");
  PetscOptionsSetValue(NULL, "-tao_grtol", "0");
  PetscOptionsSetValue(NULL, "-ccp_matrix_free", matrix_free);
  sim = Bed(b, &n);
  if (!sim || TalusSimSetFromOptions(sim) || StepWithIterations(sim, 50, &s) || BedSave(sim, &state)) TalusBenchFail(b, "set-up failed"); /* warm-up */
  PetscOptionsClearValue(NULL, "-tao_gatol");
  PetscOptionsClearValue(NULL, "-tao_grtol");
  PetscOptionsClearValue(NULL, "-ccp_matrix_free");
  if (!sim) return;
  while (TalusBenchKeepRunning(b)) {
    if (BedRestore(sim, &state) || StepWithIterations(sim, 10, &s10) || BedRestore(sim, &state) || StepWithIterations(sim, 50, &s)) TalusBenchFail(b, "step failed");
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
    TalusBenchReportValue(b, "apgd_iteration_ns_per_contact", (solve - solve10) * per / ((iterations - iterations10) / steps));
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
  TalusBenchRegister("find_contacts", BenchFindContacts, bodies, n);
  TalusBenchRegister("step_matrix_free", BenchStepMatrixFree, bodies, n);
  TalusBenchRegister("step_assembled", BenchStepAssembled, bodies, n);
}
