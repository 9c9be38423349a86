/*
 * Seed 004's Hertz contact (TalusBodiesSetMaterialHertz: f = E* sqrt(r d^3), eq. 121-123, linearised
 * each step by its secant stiffness E* sqrt(r d); docs/compliance.md) against Hertz's closed forms, on
 * any number of ranks:
 *   - a sphere (m = 1 kg, r = 0.1 m, E* = 1e9 Pa, B = 50 N s/m) resting on a rigid plane settles at the
 *     depth where Hertz's force carries its weight, d = (m g / (E* sqrt r))^(2/3) = 9.8729e-6 m, to 1e-6
 *     (the secant makes K d = m g exact at rest); on a fixed sphere (r = 0.2) with both materials
 *     Hertzian (E* = 2e9 each) the moduli add in series (1e9) and the radii too (r = 0.2/3);
 *   - an impact at v = 1 m/s with g = 0 and B = 0 against the elastic solution: the largest depth
 *     (5 m v^2 / (4 E* sqrt r))^(2/5) = 4.3528e-4 m and the contact's duration 2.94324 d_max / v
 *     = 1.28112e-3 s (the integral of (1 - u^(5/2))^(-1/2) over [0, 1] is 1.47162), to 5e-3 at
 *     h = 2e-6 (641 steps in contact: 0.35 % and 0.07 % off); implicit Euler dissipates and never
 *     gains: the exit speed is below the entry speed (0.9928 at h = 2e-6), and what the depth and the
 *     speed lose is first order in h (twice as much at 4e-6);
 *   - a Hertzian contact apart and not closing within the step carries no force: it is not in the
 *     step's problem (0 contacts), and the sphere coasts.
 */
#include "../common/check.h"
#include <talus/relaxation.h>

static const PetscReal up[3] = {0, 0, 1}, origin[3] = {0, 0, 0}, none[3] = {0, 0, 0}, down[3] = {0, 0, -9.81};

/* A 1 kg sphere (r = 0.1, Hertzian material 0: E*, B) just touching a rigid plane at z = 0, its centre
   at height z0, falling at vz */
static PetscErrorCode Ball(const PetscReal g[3], PetscReal h, PetscReal modulus, PetscReal B, PetscReal z0,
                           PetscReal vz, TalusSim *sim)
{
  const PetscReal r[3] = {0.1, 0, 0}, c[3] = {0, 0, z0};
  TalusBodies    *b;
  PetscInt        ground, k;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 0.05, 0.0, 1e-14, sim));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesSetMaterialHertz(b, 0, modulus, B));
  PetscCall(TalusBodiesAddMaterial(b, "ground", 0.0, 1000.0, &ground));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, ground, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, &k));
  b->velocity[3 * k + 2] = vz;
  PetscFunctionReturn(0);
}

static PetscErrorCode Run(TalusSim sim, PetscInt steps, TalusBodyRecord *rec, PetscInt *contacts)
{
  TalusStepStats st;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < steps; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "step %" PetscInt_FMT " did not converge (residual %g)", st.step, (double)st.residual);
  }
  if (contacts) *contacts = st.contacts; /* the step's, on every rank */
  PetscCall(TestGetBody(sim, 1, rec));
  PetscFunctionReturn(0);
}

/* at rest on the plane: d = (m g / (E* sqrt r))^(2/3) */
static PetscErrorCode RestingDepth(void)
{
  const PetscReal modulus = 1e9, expected = PetscPowReal(9.81 / (modulus * PetscSqrtReal(0.1)), 2.0 / 3.0);
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       depth;

  PetscFunctionBegin;
  PetscCall(Ball(down, 1e-3, modulus, 50.0, 0.1, 0.0, &sim));
  PetscCall(Run(sim, 3000, &rec, NULL));
  depth = 0.1 - rec.position[2];
  CHECK(PetscAbsReal(depth / expected - 1.0) < 1e-6, "Hertz at rest: depth %.9g m, (m g / (E* sqrt r))^(2/3) = %.9g m",
        (double)depth, (double)expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Hertz sphere at rest on a plane: depth %.6e m (closed form %.6e m)\n",
                        (double)depth, (double)expected));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a 1 kg sphere (r = 0.1, E* = 2e9) resting on a fixed sphere (r = 0.2, E* = 2e9): E* = 1e9, r = 0.2/3 */
static PetscErrorCode SphereOnSphere(void)
{
  const PetscReal small[3] = {0.1, 0, 0}, large[3] = {0.2, 0, 0}, top[3] = {0, 0, 0.3}, r = 0.2 / 3.0;
  const PetscReal expected = PetscPowReal(9.81 / (1e9 * PetscSqrtReal(r)), 2.0 / 3.0);
  TalusSim        sim;
  TalusBodies    *b;
  TalusBodyRecord rec;
  PetscReal       depth;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, down, 1e-3, 0.05, 0.0, 1e-14, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesSetMaterialHertz(b, 0, 2e9, 100.0));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, large, 1.0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, small, 1.0, 0, PETSC_FALSE, top, NULL));
  PetscCall(Run(sim, 3000, &rec, NULL));
  depth = 0.3 - rec.position[2];
  CHECK(PetscAbsReal(depth / expected - 1.0) < 1e-6 && PetscAbsReal(rec.position[0]) < 1e-12,
        "Hertz sphere on sphere: depth %.9g m, closed form %.9g m (x %g)", (double)depth, (double)expected,
        (double)rec.position[0]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "Hertz sphere on a sphere (moduli and radii in series): depth %.6e m (%.6e m)\n", (double)depth,
                        (double)expected));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* g = 0, B = 0, met at 1 m/s at the surface: the largest depth, the time in contact and the exit speed */
static PetscErrorCode Impact(PetscReal h, PetscReal *exit_speed, PetscReal *shallow)
{
  const PetscReal k = 1e9 * PetscSqrtReal(0.1), dmax = PetscPowReal(5.0 / (4.0 * k), 0.4), tc = 2.94324 * dmax;
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       deepest = 0.0;
  PetscInt        in = 0, s = 0;

  PetscFunctionBegin;
  PetscCall(Ball(none, h, 1e9, 0.0, 0.1, -1.0, &sim));
  for (; s < (PetscInt)(2.0 * tc / h); s++) {
    PetscCall(Run(sim, 1, &rec, NULL));
    if (rec.position[2] >= 0.1) break; /* out: the step that leaves the surface ends the contact */
    deepest = PetscMax(deepest, 0.1 - rec.position[2]);
    in++;
  }
  *exit_speed = rec.velocity[2];
  *shallow    = 1.0 - deepest / dmax;
  CHECK(PetscAbsReal(deepest / dmax - 1.0) < 5e-3 || h > 2e-6, "Hertz impact h = %g: deepest %.6g m, elastic %.6g m",
        (double)h, (double)deepest, (double)dmax);
  CHECK(PetscAbsReal((in + 1) * h / tc - 1.0) < 5e-3 || h > 2e-6,
        "Hertz impact h = %g: %g s in contact, elastic %.6g s", (double)h, (double)((in + 1) * h), (double)tc);
  CHECK(*exit_speed > 0.9 && *exit_speed < 1.0, "Hertz impact h = %g: leaves at %g m/s (met at 1)", (double)h,
        (double)*exit_speed);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "Hertz impact h = %g: deepest %.6e m (elastic %.6e), %.5e s in contact (%.5e), leaves at %.5f\n",
                (double)h, (double)deepest, (double)dmax, (double)((in + 1) * h), (double)tc, (double)*exit_speed));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* 1 mm apart at rest, g = 0: within the envelope, but no depth now or at the step's end: no contact */
static PetscErrorCode Apart(void)
{
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscInt        contacts;

  PetscFunctionBegin;
  PetscCall(Ball(none, 1e-3, 1e9, 10.0, 0.101, -0.5, &sim));
  PetscCall(Run(sim, 1, &rec, &contacts)); /* closes 0.5 mm of the 1 mm */
  CHECK(contacts == 0 && PetscAbsReal(rec.velocity[2] + 0.5) < 1e-15, "apart: %" PetscInt_FMT " contacts, v %g",
        contacts, (double)rec.velocity[2]);
  PetscCall(Run(sim, 2, &rec, &contacts)); /* the second step reaches the plane: it pushes */
  CHECK(contacts == 1 && rec.velocity[2] > -0.5, "touching: %" PetscInt_FMT " contacts, v %g", contacts,
        (double)rec.velocity[2]);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscReal fine, coarse, fine_depth, coarse_depth;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(RestingDepth());
  PetscCall(SphereOnSphere());
  PetscCall(Impact(2e-6, &fine, &fine_depth));
  PetscCall(Impact(4e-6, &coarse, &coarse_depth));
  CHECK(PetscAbsReal((1.0 - coarse) / (1.0 - fine) - 2.0) < 0.2 && PetscAbsReal(coarse_depth / fine_depth - 2.0) < 0.2,
        "Hertz impact: the speed and depth lost at h = 4e-6 over h = 2e-6 are %g and %g (first order: 2)",
        (double)((1.0 - coarse) / (1.0 - fine)), (double)(coarse_depth / fine_depth));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "Hertz impact, h = 4e-6 over 2e-6: speed lost %.3f, depth lost %.3f (2: first order)\n",
                        (double)((1.0 - coarse) / (1.0 - fine)), (double)(coarse_depth / fine_depth)));
  PetscCall(Apart());
  {
    int status = TestSummary("test_hertz");
    PetscCall(TalusFinalize());
    return status;
  }
}
