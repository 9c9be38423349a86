/*
 * Cylinders and boxes in motion, on any number of ranks (issue 36's tests of convex shapes):
 *   - a solid cylinder (r 0.2 m, length 0.6 m, its axis across the slope) released on a 20 degree incline with
 *     mu 0.5 (rolling needs mu >= tan(20) / 3) rolls at the rigid-body rate a = g sin(20) / (1 + I / (m r^2))
 *     = (2/3) g sin(20): after 0.5 s its speed within 0.1 % of a t (1.1e-4 found), its spin v / r (no slip)
 *     within 0.1 %, its axis still across the slope and its centre r above the plane (to 1e-4 m);
 *   - a cylinder standing on its cap on a flat plane rests there: its 8 rim points carry the weight (to 1e-6)
 *     and after 50 steps it neither moves nor rocks (1e-9 m/s, rad/s);
 *   - the general convex pairs (src/geometry/convex.c): a box dropped 1 mm onto a fixed box, and a cylinder
 *     standing on its cap on it, settle on their faces (4 and 8 points) without rocking: after 300 steps they
 *     rest (1e-9), on the face (to 1e-6 m), and the base carries their weight (to 1e-6); a capsule lying on a
 *     plane and on a box rests on its two end balls' points (closed form and general pair).
 */
#include "../common/check.h"
#include <talus/math3.h>

static const PetscReal gravity[3] = {0, 0, -9.81}, origin[3] = {0, 0, 0};

static PetscErrorCode Steps(TalusSim sim, PetscInt n, TalusStepStats *st)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < n; s++) PetscCall(TalusSimStep(sim, st));
  PetscFunctionReturn(0);
}

static PetscErrorCode Rolling(void)
{
  const PetscReal theta = 20.0 * PETSC_PI / 180.0, r = 0.2, size[3] = {r, 0.3, 0}, h = 1e-3, T = 0.5;
  const PetscReal n[3]    = {PetscSinReal(theta), 0, PetscCosReal(theta)},
                  down[3] = {PetscCosReal(theta), 0, -PetscSinReal(theta)};
  const PetscReal c[3] = {r * n[0], r * n[1], r * n[2]}, a = 2.0 / 3.0 * 9.81 * PetscSinReal(theta);
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       A[9], w[3], axis[3], v, spin, height;
  const PetscReal ez[3] = {0, 0, 1};
  PetscInt        k;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.005, 0.5, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, n, 0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_CYLINDER, size, 0, 0, PETSC_FALSE, c, &k));
  b->quaternion[4 * k]     = PetscCosReal(0.25 * PETSC_PI); /* turned 90 degrees about x: its axis along -y */
  b->quaternion[4 * k + 1] = PetscSinReal(0.25 * PETSC_PI);
  PetscCall(TalusSimSetUp(sim));
  PetscCall(Steps(sim, (PetscInt)(T / h + 0.5), &st));
  PetscCall(TestGetBody(sim, 1, &rec));
  TalusQuatToMatrix(rec.quaternion, A);
  TalusRotate(A, rec.omega, w);
  TalusRotate(A, ez, axis);
  v      = TalusDot3(rec.velocity, down);
  spin   = w[1]; /* rolling down +x on a plane below it: v + w x (-r n) = 0, w = (v / r) y */
  height = TalusDot3(rec.position, n);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  rolling: %.6f m/s after %g s (a t = %.6f), spin r %.6f m/s\n", (double)v,
                        (double)T, (double)(a * T), (double)(spin * r)));
  CHECK(PetscAbsReal(v - a * T) < 1e-3 * a * T, "rolling: speed %.6f m/s after %g s, expected %.6f", (double)v,
        (double)T, (double)(a * T));
  CHECK(PetscAbsReal(spin * r - v) < 1e-3 * a * T, "rolling: spin %.6f rad/s, v / r %.6f", (double)spin,
        (double)(v / r));
  CHECK(PetscAbsReal(PetscAbsReal(axis[1]) - 1.0) < 1e-6 && PetscAbsReal(height - r) < 1e-4,
        "rolling: axis (%g %g %g), centre %g m above the plane (r %g)", (double)axis[0], (double)axis[1],
        (double)axis[2], (double)height, (double)r);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* A body settling on a fixed one: at rest after its steps (1e-9 m/s, rad/s), its centre at its rest height (to
   1e-6 m), the base carrying its weight through its contacts (to 1e-6) */
typedef struct {
  const char *what;
  TalusShape  base, shape;
  PetscReal   base_size[3], base_at[3], size[3], at[3], rest, turn; /* turn: its start, about x (rad) */
  PetscInt    contacts, steps;
} RestCase;

static const RestCase rest_cases[] = {
  {"a cylinder standing on a plane",
   TALUS_PLANE, TALUS_CYLINDER,
   {0, 0, 1},
   {0, 0, 0},
   {0.3, 0.5, 0},
   {0.1, -0.2, 0.5},
   0.5, 0,
   8, 50 },
  {"a box dropped 1 mm on a box",
   TALUS_BOX,   TALUS_BOX,
   {2, 2, 0.5},
   {0, 0, 0.5},
   {0.5, 0.3, 0.2},
   {0.2, -0.1, 1.201},
   1.2, 0,
   4, 300},
  {"a cylinder dropped 1 mm on a box",
   TALUS_BOX,   TALUS_CYLINDER,
   {2, 2, 0.5},
   {0, 0, 0.5},
   {0.3, 0.2, 0},
   {0.2, -0.1, 1.201},
   1.2, 0,
   8, 300},
  {"a capsule lying on a plane",
   TALUS_PLANE, TALUS_CAPSULE,
   {0, 0, 1},
   {0, 0, 0},
   {0.2, 0.5, 0},
   {0.1, -0.2, 0.201},
   0.2, 0.5 * PETSC_PI,
   2, 300},
  {"a capsule lying on a box",
   TALUS_BOX,   TALUS_CAPSULE,
   {2, 2, 0.5},
   {0, 0, 0.5},
   {0.2, 0.5, 0},
   {0.2, -0.1, 1.201},
   1.2, 0.5 * PETSC_PI,
   2, 300},
};

static PetscErrorCode Rests(const RestCase *rc)
{
  PetscInt        k;
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 1e-3, 0.005, 0.5, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, rc->base, rc->base_size, rc->base == TALUS_PLANE ? 0.0 : 1.0, 0, PETSC_TRUE,
                           rc->base_at, NULL));
  PetscCall(TalusBodiesAdd(b, 1, rc->shape, rc->size, 0, 0, PETSC_FALSE, rc->at, &k));
  b->quaternion[4 * k] = PetscCosReal(0.5 * rc->turn), b->quaternion[4 * k + 1] = PetscSinReal(0.5 * rc->turn);
  PetscCall(TalusSimSetUp(sim));
  PetscCall(Steps(sim, rc->steps, &st));
  PetscCall(TestGetBody(sim, 1, &rec));
  CHECK(st.contacts == rc->contacts && PetscAbsReal(st.support_force_over_weight - 1.0) < 1e-6,
        "%s: %" PetscInt_FMT " contacts (%" PetscInt_FMT ") carry %.9f of the weight", rc->what, st.contacts,
        rc->contacts, (double)st.support_force_over_weight);
  CHECK(TalusNorm3(rec.velocity) < 1e-9 && TalusNorm3(rec.omega) < 1e-9 &&
          PetscAbsReal(rec.position[2] - rc->rest) < 1e-6,
        "%s: moves at %g m/s, %g rad/s, its centre %g m above its rest", rc->what, (double)TalusNorm3(rec.velocity),
        (double)TalusNorm3(rec.omega), (double)(rec.position[2] - rc->rest));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Rolling());
  for (size_t k = 0; k < sizeof(rest_cases) / sizeof(rest_cases[0]); k++) PetscCall(Rests(&rest_cases[k]));
  {
    int status = TestSummary("test_convex");
    PetscCall(TalusFinalize());
    return status;
  }
}
