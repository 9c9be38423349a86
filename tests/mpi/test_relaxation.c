/*
 * Seed 003's relaxed contacts (include/talus/relaxation.h) against the formulations note's sec. 3.3,
 * on any number of ranks:
 *   S3-1 a sphere touching a plane at speed V, g = 0: its exit speed over V within 3e-3 of eq. 104 at
 *        delta = 100 h for zeta = 0.1, 0.3, 0.5, 0.7, and the error about halved at delta = 200 h;
 *   S3-2 the same impact lasts t_delta / h steps (eq. 103) and sinks delta V max Gamma deep, to 2 %;
 *   S3-3 a box sliding on a plane under a helping force f_e < F follows the discrete law
 *        v_{k+1} = max((1 - h / delta) v_k, v_k - h (F - f_e) / m) to 1e-8 (zeta = 1/2);
 *   the restitution-damping map and its inverse (the note's table), and the stability region;
 *   a relaxed spherical joint started 1 cm off (g = 0) follows the relaxed row's recurrence
 *   u_{k+1} = -(h/delta^2) g_k - (2 zeta h/delta - 1) u_k, g_{k+1} = g_k + h u_{k+1} to 1e-12 m (the
 *   rigid joint corrects it in one step: test_joints.c's B0-1).
 */
#include "../common/check.h"
#include <talus/relaxation.h>

static const PetscReal up[3] = {0, 0, 1}, origin[3] = {0, 0, 0};

/* One impact: exit speed / V, steps with a normal impulse, deepest penetration / (delta V) */
static PetscErrorCode Impact(PetscReal zeta, PetscReal delta_steps, PetscReal *e, PetscInt *steps, PetscReal *depth)
{
  const PetscReal h = 1e-3, V = 1.0, delta = delta_steps * h, r[3] = {0.1, 0, 0}, c[3] = {0, 0, 0.1};
  const PetscReal none[3] = {0, 0, 0};
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  const PetscInt  n = (PetscInt)(4.0 * delta_steps);

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.5, 0.0, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesSetMaterialRelaxation(b, 0, zeta, delta));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  b->velocity[3 * 1 + 2] = -V;
  *steps = 0, *depth = 0.0;
  for (PetscInt s = 0; s < n; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "impact: step %" PetscInt_FMT " did not converge", st.step);
    PetscCall(TestGetBody(sim, 1, &rec));
    if (rec.position[2] < 0.1) *depth = PetscMax(*depth, (0.1 - rec.position[2]) / (delta * V));
    { /* the plane still pushes: a normal impulse, wherever the contact is kept */
      const TalusContactList *list;
      PetscReal               push = 0.0;
      PetscCall(TalusSimGetContacts(sim, &list));
      for (PetscInt k = 0; k < list->n; k++) push += list->c[k].impulse[0];
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &push, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
      if (push > 0.0) (*steps)++;
    }
  }
  *e = rec.velocity[2] / V;
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode Restitution(void)
{
  const PetscReal zetas[4] = {0.1, 0.3, 0.5, 0.7};

  PetscFunctionBegin;
  for (int i = 0; i < 4; i++) {
    PetscReal e, depth, e104 = TalusRestitutionOfDamping(zetas[i]);
    PetscInt  steps;
    PetscCall(Impact(zetas[i], 100.0, &e, &steps, &depth));
    CHECK(PetscAbsReal(e - e104) <= 3e-3, "S3-1: zeta = %g, delta = 100 h: e = %.6f, eq. 104 %.6f", (double)zetas[i],
          (double)e, (double)e104);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "S3-1 zeta %.1f, delta = 100 h: e = %.6f, eq. 104 %.6f (|diff| %.2g)\n",
                          (double)zetas[i], (double)e, (double)e104, (double)PetscAbsReal(e - e104)));
    if (zetas[i] == 0.3) { /* S3-2: t_delta / delta = 2.654475, max Gamma = 0.671547 */
      PetscReal e2, depth2;
      PetscInt  steps2;
      CHECK(PetscAbsReal(steps / 265.4475 - 1.0) < 0.02, "S3-2: %" PetscInt_FMT " steps in contact, eq. 103: 265.4",
            steps);
      CHECK(PetscAbsReal(depth / 0.671547 - 1.0) < 0.02, "S3-2: penetration %g delta V, expected 0.671547",
            (double)depth);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "S3-2 zeta 0.3: %" PetscInt_FMT
                            " steps in contact (265.4), depth %.6f delta V (0.671547)\n",
                            steps, (double)depth));
      PetscCall(Impact(zetas[i], 200.0, &e2, &steps2, &depth2));
      {
        const PetscReal ratio = PetscAbsReal(e - e104) / PetscAbsReal(e2 - e104);
        CHECK(ratio > 1.6 && ratio < 2.5, "S3-1: error %g at delta = 100 h, %g at 200 h: ratio %g, expected about 2",
              (double)PetscAbsReal(e - e104), (double)PetscAbsReal(e2 - e104), (double)ratio);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "S3-1 zeta 0.3: error %.3g at delta = 100 h, %.3g at 200 h (ratio %.2f)\n",
                              (double)PetscAbsReal(e - e104), (double)PetscAbsReal(e2 - e104), (double)ratio));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* S3-3: zeta = 1/2 makes the tangential rows u_{k+1} = (1 - h / delta) u_k while they stick */
static PetscErrorCode PlanarFriction(PetscReal delta_steps)
{
  const PetscReal h = 0.01, delta = delta_steps * h, mu = 0.3, gx = 0.5, gz = 9.81, m = 2.0;
  const PetscReal g[3] = {gx, 0, -gz}, half[3] = {0.1, 0.1, 0.05}, c[3] = {0, 0, 0.05};
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  PetscReal       v = 1.0, worst = 0.0, F = mu * m * gz, fe = m * gx;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 0.02, mu, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesSetMaterialRelaxation(b, 0, 0.5, delta));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_BOX, half, m, 0, PETSC_FALSE, c, NULL));
  b->velocity[3] = v;
  for (PetscInt s = 0; s < 150; s++) {
    TalusBodyRecord rec;
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "S3-3: step %" PetscInt_FMT " did not converge", st.step);
    PetscCall(TestGetBody(sim, 1, &rec));
    v     = PetscMax((1.0 - h / delta) * v, v - h * (F - fe) / m);
    worst = PetscMax(worst, PetscAbsReal(rec.velocity[0] - v));
  }
  CHECK(worst < 1e-8, "S3-3 (delta = %g h): the box's speed off the discrete law by %g m/s", (double)delta_steps,
        (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "S3-3 delta = %g h: speed off the discrete law by at most %.2g m/s (v_end %.3g)\n",
                        (double)delta_steps, (double)worst, (double)v));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode RelaxedJoint(PetscReal zeta, PetscReal delta_steps)
{
  const PetscReal h = 0.01, delta = delta_steps * h, r[3] = {0.05, 0, 0}, c[3] = {0.01, 0, 0}, none[3] = {0, 0, 0};
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusJointSpec  pin = {
     .type = TALUS_JOINT_SPHERICAL, .body = {TALUS_WORLD, 0},
          .zeta = zeta, .delta = delta
  };
  PetscReal g, u = 0.0, worst = 0.0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.01, 0.0, 1e-14, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  for (int d = 0; d < 3; d++) pin.point[1][d] = c[d]; /* the anchors: the world's origin and the body's centre */
  PetscCall(TalusSimAddJoint(sim, &pin, NULL));
  {
    TalusJointRowTerms rows[3];
    PetscCall(TalusSimEvaluateJoint(sim, 0, rows));
    g = rows[0].g;
  }
  for (PetscInt s = 0; s < 60; s++) {
    TalusJointRowTerms rows[3];
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "relaxed joint: step %" PetscInt_FMT " did not converge", st.step);
    u = -h / (delta * delta) * g - (2.0 * zeta * h / delta - 1.0) * u;
    g = g + h * u;
    PetscCall(TalusSimEvaluateJoint(sim, 0, rows));
    worst = PetscMax(worst, PetscAbsReal(rows[0].g - g));
  }
  CHECK(worst < 1e-12, "relaxed joint (zeta %g, delta %g h): off the recurrence by %g m", (double)zeta,
        (double)delta_steps, (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "relaxed joint zeta %g, delta = %g h: violation off the recurrence by %.2g m (g_60 = %.3g m)\n",
                        (double)zeta, (double)delta_steps, (double)worst, (double)g));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode Parameters(void)
{
  const PetscReal zeta[]   = {0.1, 0.3, 0.5, 0.7, 1.0, 1.5},
                  e[]      = {0.744079, 0.450975, 0.298436, 0.210285, 0.135335, 0.075588};
  const PetscReal target[] = {0.9, 0.5, 0.1}, zeta_of[] = {0.03427, 0.25528, 1.24319};

  PetscFunctionBegin;
  for (int i = 0; i < 6; i++)
    CHECK(PetscAbsReal(TalusRestitutionOfDamping(zeta[i]) - e[i]) < 1e-6, "eq. 104 at zeta %g: %g, the note's %g",
          (double)zeta[i], (double)TalusRestitutionOfDamping(zeta[i]), (double)e[i]);
  for (int i = 0; i < 3; i++)
    CHECK(PetscAbsReal(TalusDampingOfRestitution(target[i]) - zeta_of[i]) < 1e-5, "zeta for e = %g: %g, the note's %g",
          (double)target[i], (double)TalusDampingOfRestitution(target[i]), (double)zeta_of[i]);
  /* the note's bounds on h / delta: zeta 0.1: 1.810, 0.5: 1.236, 1: 0.828, 2: 0.472 */
  CHECK(TalusRelaxationStable(0.1, 1.0 / 1.80, 1.0) && !TalusRelaxationStable(0.1, 1.0 / 1.82, 1.0),
        "zeta 0.1's bound");
  CHECK(TalusRelaxationStable(0.5, 1.0 / 1.23, 1.0) && !TalusRelaxationStable(0.5, 1.0 / 1.24, 1.0),
        "zeta 0.5's bound");
  CHECK(TalusRelaxationStable(1.0, 1.0 / 0.82, 1.0) && !TalusRelaxationStable(1.0, 1.0 / 0.83, 1.0), "zeta 1's bound");
  CHECK(TalusRelaxationStable(2.0, 1.0 / 0.47, 1.0) && !TalusRelaxationStable(2.0, 1.0 / 0.48, 1.0), "zeta 2's bound");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Parameters());
  PetscCall(Restitution());
  PetscCall(PlanarFriction(1.0));
  PetscCall(PlanarFriction(10.0));
  PetscCall(RelaxedJoint(0.3, 5.0));
  PetscCall(RelaxedJoint(1.0, 2.0));
  {
    int status = TestSummary("test_relaxation");
    PetscCall(TalusFinalize());
    return status;
  }
}
