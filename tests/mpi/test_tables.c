/*
 * Piecewise-linear tables of time (include/talus/table.h) and what follows them, against closed
 * forms, on any number of ranks:
 *   - a table's values and rates between, at and beyond its points (held at the ends);
 *   - an angle driver following a table whose breaks fall on step boundaries: the angle at every
 *     step's end equals the table's value to solver tolerance (seed 000 eq. 9c with g_t = -f'(t^l),
 *     f' the slope of the segment the step lies in: exact for a linear f);
 *   - a prescribed body following a displacement table: its position at every step's end is
 *     x0 + D(t) - D(0) exactly (the pose is set from f(t^{l+1}), never integrated);
 *   - a load whose force follows a table: v_n = h sum_k F(t_k) / m over the steps' starts.
 */
#include "../common/check.h"
#include <talus/math3.h>
#include <math.h>

static const PetscReal none[3] = {0, 0, 0};

static PetscErrorCode Evaluate(void)
{
  const PetscReal  data[] = {0.0, 1.0, 10.0, 1.0, 3.0, 20.0, 3.0, 0.0, 0.0}; /* (t, y1, y2) at t = 0, 1, 3 */
  const TalusTable tab    = {.columns = 2, .npoints = 3, .data = (PetscReal *)data};
  const struct {
    PetscReal t, y[2], rate[2];
  } cases[] = {
    {-1.0, {1.0, 10.0}, {0.0, 0.0}   }, /* before: held */
    {0.0,  {1.0, 10.0}, {2.0, 10.0}  }, /* at the first point: the first segment's slope */
    {0.5,  {2.0, 15.0}, {2.0, 10.0}  },
    {1.0,  {3.0, 20.0}, {-1.5, -10.0}}, /* at a break: the next segment's slope */
    {2.0,  {1.5, 10.0}, {-1.5, -10.0}},
    {3.0,  {0.0, 0.0},  {0.0, 0.0}   }, /* at the last point and after: held */
    {7.0,  {0.0, 0.0},  {0.0, 0.0}   },
  };
  const PetscReal bad_times[] = {0.0, 1.0, 0.0, 2.0}, nan_value[] = {0.0, 1.0, 1.0, (PetscReal)INFINITY};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    PetscReal y[2], rate[2];
    TalusTableEvaluate(&tab, cases[i].t, y, rate);
    for (int c = 0; c < 2; c++)
      CHECK(PetscAbsReal(y[c] - cases[i].y[c]) < 1e-15 && PetscAbsReal(rate[c] - cases[i].rate[c]) < 1e-15,
            "table at t = %g, column %d: %g (rate %g), expected %g (%g)", (double)cases[i].t, c, (double)y[c],
            (double)rate[c], (double)cases[i].y[c], (double)cases[i].rate[c]);
  }
  CHECK(TalusTableCheck(2, 3, data) == NULL, "a good table refused");
  CHECK(TalusTableCheck(1, 2, bad_times) != NULL, "times that do not increase accepted");
  CHECK(TalusTableCheck(1, 2, nan_value) != NULL, "an infinite value accepted");
  CHECK(TalusTableCheck(1, 1, bad_times) != NULL, "a table of one point accepted");
  PetscFunctionReturn(0);
}

/* a wheel on a revolute joint to the world, turned by an angle driver along a table */
static PetscErrorCode DriverTable(void)
{
  const PetscReal h = 0.01, r[3] = {0.1, 0, 0}, c[3] = {0, 0, 0};
  const PetscReal table[] = {0.0, 0.0, 0.5, 1.0, 1.0, 1.5, 1.5, -0.5, 2.0, -0.5}; /* (t, angle) */
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusJointSpec  hinge = {
     .type = TALUS_JOINT_REVOLUTE, .body = {TALUS_WORLD, 0},
          .axis = { 0,          0, 1}
  };
  TalusJointSpec motor = {
    .type = TALUS_JOINT_ANGLE_DRIVER, .body = {TALUS_WORLD, 0},
         .axis = { 0,          0, 1}
  };
  PetscReal         worst = 0.0;
  const TalusTable *tables;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.02, 0.0, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusSimAddTable(sim, 1, 5, table, &motor.motion.table));
  PetscCall(TalusSimAddJoint(sim, &hinge, NULL));
  PetscCall(TalusSimAddJoint(sim, &motor, NULL));
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  for (PetscInt n = 1; n <= 250; n++) {
    TalusJointRowTerms row;
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "driver table: step %" PetscInt_FMT " did not converge", st.step);
    PetscCall(TalusSimEvaluateJoint(sim, 1, &row)); /* g = angle - f(t) at the step's end */
    worst = PetscMax(worst, PetscAbsReal(row.g));
  }
  CHECK(worst < 1e-10, "an angle driver along a table: off it by up to %g rad", (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "angle driver along a table (breaks on steps): largest error %.2g rad\n",
                        (double)worst));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a prescribed body along a displacement table that does not start at 0, and a load along a table */
static PetscErrorCode PrescribedAndLoadTables(void)
{
  const PetscReal       h = 0.01, r[3] = {0.1, 0, 0}, c0[3] = {0, 0, 0}, c1[3] = {5, 0, 0}, m = 2.0;
  const PetscReal       path[] = {0.0, 1.0, 0.0, 0.0, 0.3, 1.6, 0.3, 0.0, 1.0, 1.6, 0.3, 0.7};  /* (t, x, y, z) */
  const PetscReal       push[] = {0.0, 0.0, 0.0, 0.0, 0.5, 4.0, 0.0, -2.0, 1.0, 0.0, 0.0, 0.0}; /* (t, F) */
  TalusPrescribedMotion motion = {.body = 0};
  TalusLoad             load   = {.body = 1};
  TalusSim              sim;
  TalusBodies          *b;
  TalusStepStats        st;
  PetscReal             err_x = 0.0, impulse[3] = {0, 0, 0}, err_v = 0.0;
  TalusTable            ptab = {.columns = 3, .npoints = 3, .data = (PetscReal *)path};
  TalusTable            ftab = {.columns = 3, .npoints = 3, .data = (PetscReal *)push};

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.02, 0.0, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c0, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, m, 0, PETSC_FALSE, c1, NULL));
  PetscCall(TalusSimAddTable(sim, 3, 3, path, &motion.table));
  PetscCall(TalusSimAddTable(sim, 3, 3, push, &load.force_table));
  PetscCall(TalusSimAddPrescribedMotion(sim, &motion));
  PetscCall(TalusSimAddLoad(sim, &load));
  for (PetscInt n = 1; n <= 120; n++) {
    TalusBodyRecord p, q;
    PetscReal       D[3], D0[3], F[3];
    TalusTableEvaluate(&ftab, (n - 1) * h, F, NULL); /* the load at the step's start */
    for (int d = 0; d < 3; d++) impulse[d] += h * F[d];
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "tables: step %" PetscInt_FMT " did not converge", st.step);
    PetscCall(TestGetBody(sim, 0, &p));
    PetscCall(TestGetBody(sim, 1, &q));
    TalusTableEvaluate(&ptab, n * h, D, NULL);
    TalusTableEvaluate(&ptab, 0.0, D0, NULL);
    for (int d = 0; d < 3; d++) {
      err_x = PetscMax(err_x, PetscAbsReal(p.position[d] - (c0[d] + D[d] - D0[d])));
      err_v = PetscMax(err_v, PetscAbsReal(q.velocity[d] - impulse[d] / m));
    }
  }
  CHECK(err_x < 1e-14, "a prescribed body along a table: off it by %g m", (double)err_x);
  CHECK(err_v < 1e-13, "a load along a table: velocity off h sum F / m by %g m/s", (double)err_v);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "prescribed body along a table: %.2g m; load along a table: %.2g m/s\n",
                        (double)err_x, (double)err_v));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Evaluate());
  PetscCall(DriverTable());
  PetscCall(PrescribedAndLoadTables());
  {
    int status = TestSummary("test_tables");
    PetscCall(TalusFinalize());
    return status;
  }
}
