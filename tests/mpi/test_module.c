/*
 * A module made in the test tree (include/talus/module.h), as a program adds one: registered by its
 * record, its state in each simulation, its hooks called at the step's fixed points. On any number of
 * ranks, three balls (one resting on a plane, two falling freely):
 *   - each of the five hooks is called once a step; AFTER_INTEGRATE before the clock advanced, END_OF_STEP
 *     after (t = steps h);
 *   - the state is the module's own in each simulation (two simulations, stepped 4 and 2 times);
 *   - what a hook reads is the step's: the free balls' momentum, summed over the ranks that own them,
 *     is -m g t at each step's end (seed 000 eq. 9: v+ = v + h g without contacts);
 *   - hooks run in registration order: at its AFTER_SOLVE the watches (talus's module, registered
 *     first) have measured the step already: the resting ball's support (about m g) as the step leaves it;
 *   - destroy is called once for each simulation's state;
 *   - a module registered after a simulation was made gets its state (zeroed) at its first hook;
 *   - create gives a state its defaults when it is made; TalusSimSetFromOptions calls the module's
 *     set_from_options with the simulation's options (-toy_gain), for that simulation only;
 *   - its checkpoint section: a checkpoint written after 4 steps with -toy_gain 4 gives a new simulation the
 *     gain and the step count back (on any number of ranks: rank 0 writes, every rank reads); a file whose
 *     gain is not positive is refused; a file without the toy's section leaves its defaults;
 *   - its table (toy.csv in the run's directory, through the output object): a header, then one row a step
 *     with t and the free balls' momentum, which is -m g t;
 *   - refused: a second module of the same name, the state of a module never registered.
 * Usage: test_module TMPDIR (where the checkpoints go)
 */
#include "../common/check.h"
#include "../../src/io/h5section.h" /* a module's checkpoint section */
#include <talus/module.h>
#include <talus/checkpoint.h>
#include <talus/output.h>

typedef struct {
  PetscInt  before_ghosts, after_collide, after_solve, after_integrate, end_of_step;
  PetscReal t, t_integrated, momentum_z, support_z;
  PetscInt  watch;
  PetscReal gain;           /* 2.5 by create, -toy_gain by set_from_options */
  PetscInt  restored_steps; /* the steps its checkpoint section read back (-1: none read) */
} Toy;

static PetscErrorCode ToyCreate(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim;
  ((Toy *)state)->gain           = 2.5;
  ((Toy *)state)->restored_steps = -1;
  PetscFunctionReturn(0);
}

static PetscErrorCode ToySetFromOptions(TalusSim sim, void *state, PetscOptionItems *PetscOptionsObject)
{
  Toy *toy = (Toy *)state;

  PetscFunctionBegin;
  (void)sim;
  PetscCall(PetscOptionsReal("-toy_gain", "The toy module's gain", "", toy->gain, &toy->gain, NULL));
  PetscFunctionReturn(0);
}

static int destroyed = 0;

static PetscErrorCode ToyBeforeGhosts(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim;
  ((Toy *)state)->before_ghosts++;
  PetscFunctionReturn(0);
}

/* the clock has not advanced yet: t is the step's start */
static PetscErrorCode ToyAfterIntegrate(TalusSim sim, void *state)
{
  Toy *toy = (Toy *)state;

  PetscFunctionBegin;
  toy->after_integrate++;
  PetscCall(TalusSimGetTime(sim, &toy->t_integrated, NULL, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode ToyAfterCollide(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim;
  ((Toy *)state)->after_collide++;
  PetscFunctionReturn(0);
}

static PetscErrorCode ToyAfterSolve(TalusSim sim, void *state)
{
  Toy              *toy = (Toy *)state;
  TalusWatchMeasure m;

  PetscFunctionBegin;
  toy->after_solve++;
  PetscCall(TalusSimGetWatch(sim, toy->watch, &m));
  toy->support_z = m.force[2];
  PetscFunctionReturn(0);
}

/* the free balls' (ids 1 and 2) momentum along z, summed over the ranks that own them */
static PetscErrorCode ToyEndOfStep(TalusSim sim, void *state)
{
  Toy         *toy = (Toy *)state;
  TalusBodies *b;
  MPI_Comm     comm;
  PetscReal    p = 0.0;

  PetscFunctionBegin;
  toy->end_of_step++;
  PetscCall(TalusSimGetTime(sim, &toy->t, NULL, NULL));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetComm(sim, &comm));
  for (PetscInt k = 0; k < b->nowned; k++)
    if (b->id[k] == 1 || b->id[k] == 2) p += b->mass[k] * b->velocity[3 * k + 2];
  PetscCall(MPIU_Allreduce(&p, &toy->momentum_z, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscFunctionReturn(0);
}

static PetscErrorCode ToyDestroy(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim, (void)state;
  destroyed++;
  PetscFunctionReturn(0);
}

/* its checkpoint section: the gain and the steps it has seen, the dataset "toy" (rank 0 writes, every rank reads) */
static PetscErrorCode ToyCheckpointWrite(TalusSim sim, void *state, TalusModuleSection *s)
{
  const Toy *toy  = (const Toy *)state;
  PetscReal  v[2] = {toy->gain, (PetscReal)toy->end_of_step};

  PetscFunctionBegin;
  (void)sim;
  PetscCall(TalusH5WriteDataset(s->w, s->w->file, "toy", TALUS_H5_REAL, 2, 1, 0, s->w->rank == 0 ? 2 : 0, v));
  PetscFunctionReturn(0);
}

static PetscErrorCode ToyCheckpointRead(TalusSim sim, void *state, TalusModuleSection *s)
{
  Toy      *toy = (Toy *)state;
  PetscReal v[2];

  PetscFunctionBegin;
  (void)sim;
  if (!TalusSectionHas(s, "toy")) PetscFunctionReturn(0); /* written without the toy: its defaults */
  TalusH5CheckExtent(s->r, "toy", 2);
  if (!s->r->bad) PetscCall(TalusH5ReadDataset(s->r, "toy", TALUS_H5_REAL, 2, 1, 0, 2, v, PETSC_FALSE));
  if (!s->r->bad && !(v[0] > 0.0 && v[0] < PETSC_INFINITY)) TalusH5Fault(s->r, "%s", "a toy gain that is not positive");
  if (!s->r->bad) toy->gain = v[0], toy->restored_steps = (PetscInt)v[1];
  PetscFunctionReturn(0);
}

/* its table, toy.csv: t and the free balls' momentum after each step (rank 0's file; NULL on the others) */
static PetscErrorCode ToyTableName(TalusSim sim, void *state, const char **name)
{
  PetscFunctionBegin;
  (void)sim, (void)state;
  *name = "toy.csv";
  PetscFunctionReturn(0);
}

static PetscErrorCode ToyTableRow(TalusSim sim, void *state, FILE *file, PetscBool header)
{
  const Toy *toy = (const Toy *)state;

  PetscFunctionBegin;
  (void)sim;
  if (!file) PetscFunctionReturn(0);
  if (header) fputs("t,momentum_z\n", file);
  else fprintf(file, "%.10g,%.17g\n", (double)toy->t, (double)toy->momentum_z);
  PetscFunctionReturn(0);
}

static const TalusSimModuleOps toy_module = {
  .name             = "toy",
  .state_size       = sizeof(Toy),
  .create           = ToyCreate,
  .set_from_options = ToySetFromOptions,
  .destroy          = ToyDestroy,
  .hook             = {[TALUS_HOOK_BEFORE_GHOSTS]   = ToyBeforeGhosts,
                       [TALUS_HOOK_AFTER_COLLIDE]   = ToyAfterCollide,
                       [TALUS_HOOK_AFTER_SOLVE]     = ToyAfterSolve,
                       [TALUS_HOOK_AFTER_INTEGRATE] = ToyAfterIntegrate,
                       [TALUS_HOOK_END_OF_STEP]     = ToyEndOfStep},
  .checkpoint_write = ToyCheckpointWrite,
  .checkpoint_read  = ToyCheckpointRead,
  .table_name       = ToyTableName,
  .table_row        = ToyTableRow,
};

/* a module registered after a simulation was made: its state is made when its hook first runs */
static PetscInt late_calls = 0;

static PetscErrorCode LateEndOfStep(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)sim;
  late_calls += 1 + *(PetscInt *)state; /* the state starts zeroed */
  *(PetscInt *)state = 100;
  PetscFunctionReturn(0);
}

static const TalusSimModuleOps late_module = {
  .name       = "late",
  .state_size = sizeof(PetscInt),
  .hook       = {[TALUS_HOOK_END_OF_STEP] = LateEndOfStep},
};

static PetscErrorCode NewScene(TalusSim *sim, Toy **toy)
{
  const PetscReal g[3] = {0, 0, -9.81}, h = 0.01, normal[3] = {0, 0, 1}, r[3] = {0.1, 0, 0};
  const PetscReal rest[3] = {0, 0, 0.1}, free1[3] = {2, 0, 5}, free2[3] = {-2, 0, 8}, origin[3] = {0, 0, 0};
  const PetscInt  resting = 0;
  TalusBodies    *b;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 0.05, 0.5, 1e-10, sim));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, rest, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 2.0, 0, PETSC_FALSE, free1, NULL));
  PetscCall(TalusBodiesAdd(b, 2, TALUS_SPHERE, r, 3.0, 0, PETSC_FALSE, free2, NULL));
  PetscCall(TalusBodiesAdd(b, 3, TALUS_PLANE, normal, 0.0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(TalusSimGetModuleState(*sim, &toy_module, (void **)toy));
  PetscCall(TalusSimAddWatch(*sim, 1, &resting, &(*toy)->watch));
  PetscFunctionReturn(0);
}

static PetscErrorCode Steps(TalusSim sim, Toy *toy, PetscInt n)
{
  TalusStepStats    st;
  TalusWatchMeasure m;

  PetscFunctionBegin;
  for (PetscInt s = 1; s <= n; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(toy->before_ghosts == s && toy->after_collide == s && toy->after_solve == s && toy->after_integrate == s &&
            toy->end_of_step == s,
          "after step %" PetscInt_FMT ": hooks called %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT
          ", %" PetscInt_FMT ", %" PetscInt_FMT " times",
          s, toy->before_ghosts, toy->after_collide, toy->after_solve, toy->after_integrate, toy->end_of_step);
    CHECK(PetscAbsReal(toy->t_integrated - (s - 1) * 0.01) < 1e-14, "AFTER_INTEGRATE at t = %g in step %" PetscInt_FMT,
          (double)toy->t_integrated, s);
    CHECK(PetscAbsReal(toy->t - s * 0.01) < 1e-14, "END_OF_STEP at t = %g after step %" PetscInt_FMT, (double)toy->t,
          s);
    CHECK(PetscAbsReal(toy->momentum_z + 5.0 * 9.81 * toy->t) < 1e-12,
          "the free balls' momentum %.15g at t = %g, expected %.15g", (double)toy->momentum_z, (double)toy->t,
          (double)(-5.0 * 9.81 * toy->t));
    PetscCall(TalusSimGetWatch(sim, toy->watch, &m));
    CHECK(toy->support_z == m.force[2] && m.force[2] > 0.5 * 9.81,
          "the watch measured before the toy's AFTER_SOLVE: the toy read %.10g N, the step's measure is %.10g N",
          (double)toy->support_z, (double)m.force[2]);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  TalusSim  a, b;
  Toy      *toy_a, *toy_b;
  PetscBool refused;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(TalusSimModuleRegister(&toy_module));
  PetscCall(TalusSimModuleRegister(&toy_module)); /* the same record again: nothing new */
  PetscCall(NewScene(&a, &toy_a));
  PetscCall(NewScene(&b, &toy_b));
  CHECK(toy_a != toy_b, "two simulations share the module's state");
  CHECK(toy_a->gain == 2.5 && toy_b->gain == 2.5, "create's defaults: gains %g and %g (2.5)", (double)toy_a->gain,
        (double)toy_b->gain);
  PetscCall(Steps(a, toy_a, 4));
  PetscCall(Steps(b, toy_b, 2));
  CHECK(toy_a->end_of_step == 4 && toy_b->end_of_step == 2,
        "the states are not each simulation's: %" PetscInt_FMT " and %" PetscInt_FMT " steps", toy_a->end_of_step,
        toy_b->end_of_step);
  PetscCall(TalusSimDestroy(&a));
  PetscCall(TalusSimDestroy(&b));
  CHECK(destroyed == 2, "destroy called %d times for two simulations", destroyed);

  { /* a module registered after the simulation was made, then two steps: its state made at the first */
    TalusSim       d;
    Toy           *toy_d;
    TalusStepStats st;
    PetscCall(NewScene(&d, &toy_d));
    PetscCall(TalusSimModuleRegister(&late_module));
    PetscCall(TalusSimStep(d, &st));
    CHECK(late_calls == 1, "a late module's first hook: %" PetscInt_FMT " calls (its state zeroed: 1)", late_calls);
    PetscCall(TalusSimStep(d, &st));
    CHECK(late_calls == 102, "a late module's state kept between steps: %" PetscInt_FMT " (102)", late_calls);
    CHECK(toy_d->end_of_step == 2, "the toy beside the late module: %" PetscInt_FMT " steps", toy_d->end_of_step);
    PetscCall(TalusSimDestroy(&d));
    CHECK(destroyed == 3, "destroy called %d times for three simulations", destroyed);
  }
  { /* the module's options, read for the simulation whose TalusSimSetFromOptions reads them (before its solver is
       made, as a program does) */
    TalusSim e, f;
    Toy     *toy_e, *toy_f;
    PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &e));
    PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &f));
    PetscCall(TalusSimGetModuleState(e, &toy_module, (void **)&toy_e));
    PetscCall(TalusSimGetModuleState(f, &toy_module, (void **)&toy_f));
    PetscCall(PetscOptionsSetValue(NULL, "-toy_gain", "4"));
    PetscCall(TalusSimSetFromOptions(e));
    PetscCall(PetscOptionsClearValue(NULL, "-toy_gain"));
    CHECK(toy_e->gain == 4.0 && toy_f->gain == 2.5, "-toy_gain 4 through TalusSimSetFromOptions(e): gains %g and %g",
          (double)toy_e->gain, (double)toy_f->gain);
    PetscCall(TalusSimDestroy(&e));
    PetscCall(TalusSimDestroy(&f));
  }
  { /* the checkpoint section: written after 4 steps, read into a new simulation; a bad gain refused */
    TalusSim   w, r;
    Toy       *toy_w, *toy_r;
    TalusScene scene = {.name = "toy"};
    char       good[PETSC_MAX_PATH_LEN], bad[PETSC_MAX_PATH_LEN], *text = NULL;
    PetscCall(PetscSNPrintf(good, sizeof(good), "%s/module-toy.h5", argv[1]));
    PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/module-toy-bad.h5", argv[1]));
    PetscCall(NewScene(&w, &toy_w));
    toy_w->gain = 4.0;
    PetscCall(Steps(w, toy_w, 4));
    PetscCall(TalusCheckpointFileWrite(w, &scene, NULL, good));
    toy_w->gain = -1.0;
    PetscCall(TalusCheckpointFileWrite(w, &scene, NULL, bad));
    PetscCall(TalusSimDestroy(&w));
    PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &r));
    PetscCall(TalusCheckpointFileRead(PETSC_COMM_WORLD, good, r, &scene, &text, NULL));
    PetscCall(TalusSimGetModuleState(r, &toy_module, (void **)&toy_r));
    CHECK(toy_r->gain == 4.0 && toy_r->restored_steps == 4,
          "the toy's section read back: gain %g, %" PetscInt_FMT " steps (4, 4)", (double)toy_r->gain,
          toy_r->restored_steps);
    PetscCall(PetscFree(text));
    PetscCall(TalusSimDestroy(&r));
    { /* the same file without the toy's section (as one written before the toy was registered): its defaults */
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (rank == 0) {
        hid_t file = H5Fopen(good, H5F_ACC_RDWR, H5P_DEFAULT);
        CHECK(file >= 0 && H5Ldelete(file, "toy", H5P_DEFAULT) >= 0 && H5Fclose(file) >= 0, "%s", "toy not removed");
      }
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &r));
      PetscCall(TalusCheckpointFileRead(PETSC_COMM_WORLD, good, r, &scene, &text, NULL));
      PetscCall(TalusSimGetModuleState(r, &toy_module, (void **)&toy_r));
      CHECK(toy_r->gain == 2.5 && toy_r->restored_steps == -1, "no toy section: gain %g, %" PetscInt_FMT " steps",
            (double)toy_r->gain, toy_r->restored_steps);
      PetscCall(PetscFree(text));
      PetscCall(TalusSimDestroy(&r));
    }
    { /* refused, as an error code (PETSc's return handler: no message, no abort) */
      PetscErrorCode ierr;
      PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &r));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = TalusCheckpointFileRead(PETSC_COMM_WORLD, bad, r, &scene, &text, NULL);
      PetscCall(PetscPopErrorHandler());
      CHECK(ierr != 0, "a checkpoint with the toy's gain -1 restored");
      PetscCall(TalusSimDestroy(&r));
    }
  }
  { /* the table, through a run's output object: a header and one row a step */
    TalusSim       o;
    Toy           *toy_o;
    TalusOutput    out;
    TalusStepStats st;
    TalusScene     scene = {.name = "toy"};
    char           dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], line[256];
    PetscMPIInt    rank;
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "%s/module-toy-run", argv[1]));
    PetscCall(NewScene(&o, &toy_o));
    PetscCall(TalusOutputCreate(PETSC_COMM_WORLD, dir, &scene, &out));
    PetscCall(TalusOutputBegin(out, o));
    for (int k = 0; k < 3; k++) {
      PetscCall(TalusSimStep(o, &st));
      PetscCall(TalusOutputStep(out, o, &st));
    }
    PetscCall(TalusOutputEnd(out, o, PETSC_FALSE));
    PetscCall(TalusOutputDestroy(&out));
    PetscCall(TalusSimDestroy(&o));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) {
      FILE *f    = NULL;
      int   rows = 0;
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/toy.csv", dir));
      f = fopen(path, "r");
      CHECK(f && fgets(line, sizeof(line), f) && !strcmp(line, "t,momentum_z\n"), "toy.csv's header: %s",
            f ? line : "no file");
      while (f && fgets(line, sizeof(line), f)) {
        double t, p;
        rows++;
        CHECK(sscanf(line, "%lf,%lf", &t, &p) == 2 && PetscAbsReal(t - rows * 0.01) < 1e-12 &&
                PetscAbsReal(p + 5.0 * 9.81 * t) < 1e-12,
              "toy.csv row %d: %s", rows, line);
      }
      CHECK(rows == 3, "toy.csv has %d rows after 3 steps", rows);
      if (f) fclose(f);
    }
  }
  { /* refusals, each an error code (PETSc's return handler: no message, no abort) */
    static const TalusSimModuleOps namesake = {.name = "toy"}, stranger = {.name = "stranger"};
    TalusSim                       c;
    void                          *state;
    PetscErrorCode                 ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr    = TalusSimModuleRegister(&namesake);
    refused = (PetscBool)(ierr != 0);
    CHECK(refused, "a second module named toy registered");
    PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &c));
    ierr = TalusSimGetModuleState(c, &stranger, &state);
    CHECK(ierr != 0, "the state of a module never registered given");
    PetscCall(PetscPopErrorHandler());
    PetscCall(TalusSimDestroy(&c));
  }
  {
    int status = TestSummary("test_module");
    PetscCall(TalusFinalize());
    return status;
  }
}
