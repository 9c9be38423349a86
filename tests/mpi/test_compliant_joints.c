/*
 * Seed 004's compliant joints (a joint's `compliance: {stiffness, damping}`; docs/compliance.md)
 * against the closed forms of ../shared/seed-formulations.md section 4, on any number of ranks:
 *   S4-1 a sphere on a compliant distance row (g = 0; K = 1e6, m = 1) is implicit Euler on
 *        m x'' + B x' + K x = 0 (seed 004 eq. 13-14, 60-62): every iterate equals the recurrence
 *        v1 = (m v0 - h K x0) / (m + h^2 K + h B), x1 = x0 + h v1 to 1e-9, and with B = 0 the
 *        first step shrinks |(w x, v)| by 1/sqrt(1 + h^2 K/m): 0.99995 at h = 1e-5, 0.0995037 at 1e-2;
 *   S4-2 L-stability: K = 1e15, B = 1, h = 0.1, started 1 mm off: the row is within 1e-6 of it
 *        after one step (the rigid row's deadbeat);
 *   S4-4 seed 004's pendulum (section 4.4): a 1 kg bob 1 m from a compliant pin (K = 1e15, B = 1),
 *        released horizontal, g = 9.81, 1 s: bounded at h = 0.1 and 1e-4, its drift at least quadratic
 *        in h (h = 1e-3 over 5e-4 at least 3.5), and its energy never above the start's by 1e-9 of
 *        m g L (the formulations note's S4-4 bound), with the rows linearised at the step's predicted
 *        end (-joint_lookahead 1, the default: seed 004's G-dot v term). The energy it loses is first
 *        order in h (h = 1e-3 over 5e-4 in [1.8, 2.2]; measured 19 h m g L over the second).
 */
#include "../common/check.h"

static const PetscReal origin[3] = {0, 0, 0};

/* A 1 kg sphere (radius 0.5 m) at p on a joint to the world at the origin, compliant (K, B) */
static PetscErrorCode Bound(const PetscReal g[3], PetscReal h, TalusJointType type, const PetscReal p[3],
                            PetscReal length, PetscReal K, PetscReal B, TalusSim *sim)
{
  const PetscReal r[3] = {0.5, 0, 0}; /* large enough for 0.44 m per step at h = 0.1 (talus checks travel) */
  TalusBodies    *b;
  TalusJointSpec  s = {
     .type = type, .body = {TALUS_WORLD, 0},
          .length = length, .stiffness = K, .damping = B
  };

  PetscFunctionBegin;
  /* 1e-11 m/s: the checks' 1e-9 of the recurrence hold with ten times to spare (9.9e-11 at most); 1e-14 took
     twice the iterations (13 -> 6.4 s on one rank) for no check that needs it */
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 0.01, 0.0, 1e-11, sim));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, p, NULL));
  for (int d = 0; d < 3; d++) /* a distance row between the origin and the centre; a pin at the origin */
    s.point[0][d] = origin[d], s.point[1][d] = type == TALUS_JOINT_DISTANCE ? p[d] : origin[d];
  PetscCall(TalusSimAddJoint(*sim, &s, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Step(TalusSim sim, TalusBodyRecord *rec)
{
  TalusStepStats st;

  PetscFunctionBegin;
  PetscCall(TalusSimStep(sim, &st));
  CHECK(st.reason > 0, "step %" PetscInt_FMT " did not converge (residual %g)", st.step, (double)st.residual);
  PetscCall(TestGetBody(sim, 0, rec));
  PetscFunctionReturn(0);
}

/* S4-1: 1 m distance row, the sphere started x0 beyond it along x, at rest */
static PetscErrorCode ImplicitEuler(PetscReal h, PetscReal K, PetscReal B, PetscInt steps)
{
  const PetscReal none[3] = {0, 0, 0}, x0 = 1e-3, p[3] = {1.0 + x0, 0, 0};
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       x = x0, v = 0.0, worst = 0.0;

  PetscFunctionBegin;
  PetscCall(Bound(none, h, TALUS_JOINT_DISTANCE, p, 1.0, K, B, &sim));
  for (PetscInt s = 0; s < steps; s++) {
    PetscCall(Step(sim, &rec));
    v     = (v - h * K * x) / (1.0 + h * h * K + h * B); /* m = 1 */
    x     = x + h * v;
    worst = PetscMax(worst, PetscAbsReal(rec.position[0] - 1.0 - x) / x0);
    worst = PetscMax(worst, PetscAbsReal(rec.velocity[0] - v) / (x0 * PetscSqrtReal(K)));
    if (s == 0 && B == 0.0) {
      const PetscReal ratio = PetscSqrtReal(K * PetscSqr(rec.position[0] - 1.0) + PetscSqr(rec.velocity[0])) /
                              (PetscSqrtReal(K) * x0),
                      expected = 1.0 / PetscSqrtReal(1.0 + h * h * K);
      CHECK(PetscAbsReal(ratio / expected - 1.0) < 1e-8, "S4-1 h = %g: first-step ratio %.9g, 1/sqrt(1 + h^2 K) = %.9g",
            (double)h, (double)ratio, (double)expected);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "S4-1 compliant row h = %g: step ratio %.7f (1/sqrt(1 + h^2 K/m) = %.7f)\n", (double)h,
                            (double)ratio, (double)expected));
    }
  }
  CHECK(worst < 1e-9, "S4-1 h = %g, K = %g, B = %g: %" PetscInt_FMT " steps off implicit Euler by %g (relative)",
        (double)h, (double)K, (double)B, steps, (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "S4-1 h = %g, K = %g, B = %g: %" PetscInt_FMT " steps within %.2e of implicit Euler\n",
                        (double)h, (double)K, (double)B, steps, (double)worst));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* S4-2 */
static PetscErrorCode LStable(void)
{
  const PetscReal none[3] = {0, 0, 0}, x0 = 1e-3, p[3] = {1.0 + x0, 0, 0};
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       left;

  PetscFunctionBegin;
  PetscCall(Bound(none, 0.1, TALUS_JOINT_DISTANCE, p, 1.0, 1e15, 1.0, &sim));
  PetscCall(Step(sim, &rec));
  left = PetscAbsReal(rec.position[0] - 1.0);
  CHECK(left <= 1e-6 * x0, "S4-2: K = 1e15, h = 0.1 leaves %g m of 1 mm after a step (1e-6 of it allowed)",
        (double)left);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "S4-2 K = 1e15, B = 1, h = 0.1: 1 mm -> %.2e m in one step\n", (double)left));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* S4-4: the largest pin drift over 1 s and the energy lost at its end (m g L); false when a step diverges or
   the energy rises above the start's */
static PetscErrorCode StiffPendulum(PetscReal h, PetscReal *drift, PetscReal *lost)
{
  const PetscReal g[3] = {0, 0, -9.81}, p[3] = {1, 0, 0}, mgL = 9.81;
  TalusSim        sim;
  TalusBodyRecord rec;
  TalusBodies    *b;
  PetscReal       above = -PETSC_MAX_REAL, energy = 0.0;
  PetscBool       stable;

  PetscFunctionBegin;
  PetscCall(Bound(g, h, TALUS_JOINT_SPHERICAL, p, -1.0, 1e15, 1.0, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  *drift = 0.0;
  for (PetscInt s = 0; s < (PetscInt)(1.0 / h + 0.5); s++) {
    PetscReal potential, kinetic;
    PetscCall(Step(sim, &rec));
    *drift  = PetscMax(*drift, PetscAbsReal(PetscSqrtReal(TalusDot3(rec.position, rec.position)) - 1.0));
    kinetic = TalusBodiesKineticEnergyLocal(b);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &kinetic, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(TalusSimGetPotentialEnergy(sim, &potential));
    energy = (kinetic + potential) / mgL; /* the start's energy is 0: at rest at z = 0 */
    above  = PetscMax(above, energy);
  }
  stable = (PetscBool)(*drift < 0.1 && above <= 1e-9); /* false for NaN too */
  CHECK(stable, "S4-4 h = %g: drift %g m, energy up to %g m g L above the start's (1e-9 allowed)", (double)h,
        (double)*drift, (double)above);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "S4-4 stiff pendulum h = %g: largest drift %.3e m, energy never above the start's (by %.1e m g "
                        "L at most), %.2f h m g L lost in 1 s\n",
                        (double)h, (double)*drift, (double)PetscMax(above, 0.0), (double)(-energy / h)));
  *lost = -energy;
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscReal drift[4], lost[4];

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(ImplicitEuler(1e-2, 1e6, 0.0, 50));
  PetscCall(ImplicitEuler(1e-5, 1e6, 0.0, 200));
  PetscCall(ImplicitEuler(1e-2, 1e6, 10.0, 50));
  PetscCall(ImplicitEuler(1e-3, 1e4, 50.0, 300));
  PetscCall(LStable());
  PetscCall(StiffPendulum(0.1, &drift[0], &lost[0]));
  PetscCall(StiffPendulum(1e-4, &drift[1], &lost[1]));
  PetscCall(StiffPendulum(1e-3, &drift[2], &lost[2]));
  PetscCall(StiffPendulum(5e-4, &drift[3], &lost[3]));
  CHECK(drift[2] / drift[3] >= 3.5, "S4-4: the drift at h = 1e-3 over h = 5e-4 is %g, at least quadratic (4)",
        (double)(drift[2] / drift[3]));
  CHECK(lost[2] / lost[3] >= 1.8 && lost[2] / lost[3] <= 2.2,
        "S4-4: the energy lost at h = 1e-3 over h = 5e-4 is %g, first order is 2", (double)(lost[2] / lost[3]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "S4-4 h = 1e-3 over 5e-4: drift %.3f (at least quadratic: 4), energy lost %.3f (2)\n",
                        (double)(drift[2] / drift[3]), (double)(lost[2] / lost[3])));
  {
    int status = TestSummary("test_compliant_joints");
    PetscCall(TalusFinalize());
    return status;
  }
}
