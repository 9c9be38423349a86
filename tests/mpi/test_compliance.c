/*
 * Seed 004's compliant contacts (TalusBodiesSetMaterialCompliance; the formulations note, sec. 4)
 * against closed forms, on any number of ranks:
 *   - a compliant sphere (K, B) resting on a rigid plane settles at the sinkage m g / K exactly: at rest the
 *     row u_n + K/(hK + B) Phi + E gamma_n = 0 with gamma_n = m g h and E = 1/(h^2 K + h B) gives it;
 *     on a plane of its own material the two springs are in series and it sinks 2 m g / K;
 *   - one compliant contact is implicit Euler on m x'' + B x' + K x = 0 (seed 004 eq. 60-62): a sphere
 *     meeting the plane at 1 m/s with g = 0, K = 1e6, B = 0, m = 1, h = 0.01 has its energy norm
 *     |(w x, v)| shrink by 1/sqrt(1 + h^2 K/m) = 0.0995037 in the step (compliant_decay_ratio);
 *   - a very stiff contact (K = 1e15, B = 1) is the rigid one: the resting sphere's sinkage 1e-14 m;
 *   - seed 004's elastic foundation (sec. 5.5): a 1 m, 8 kg cube on a plane of a foundation material
 *     (K = 1e7 N/m for the face, grid 10) rests on 100 points that each carry m g h / 100 and sinks
 *     m g / K; a turned cube rests on the face that is down.
 */
#include "../common/check.h"

static const PetscReal up[3] = {0, 0, 1}, origin[3] = {0, 0, 0};

/* A 1 kg sphere of material 0 (K, B) on a plane of material `ground`: rigid (K = 0), or the sphere's own
   material when `ground_compliant`, whose two springs in series halve K and B */
static PetscErrorCode Sphere(const PetscReal g[3], PetscReal h, PetscReal K, PetscReal B, PetscReal vz,
                             PetscBool ground_compliant, TalusSim *sim)
{
  const PetscReal r[3] = {0.1, 0, 0}, c[3] = {0, 0, 0.1};
  TalusBodies    *b;
  PetscInt        ground = 0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 0.05, 0.0, 1e-14, sim));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesSetMaterialCompliance(b, 0, K, B));
  if (!ground_compliant) PetscCall(TalusBodiesAddMaterial(b, "ground", 0.0, 1000.0, &ground));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, ground, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  b->velocity[3 * 1 + 2] = vz;
  PetscFunctionReturn(0);
}

static PetscErrorCode Sinkage(PetscReal K, PetscReal B, PetscBool ground_compliant, PetscInt steps, PetscReal tolerance)
{
  const PetscReal g[3] = {0, 0, -9.81}, h = 1e-3;
  TalusSim        sim;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       sink, expected = 9.81 / (ground_compliant ? K / 2 : K);

  PetscFunctionBegin;
  PetscCall(Sphere(g, h, K, B, 0.0, ground_compliant, &sim));
  for (PetscInt s = 0; s < steps; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "sinkage: step %" PetscInt_FMT " did not converge", st.step);
  }
  PetscCall(TestGetBody(sim, 1, &rec));
  sink = 0.1 - rec.position[2];
  CHECK(PetscAbsReal(sink - expected) <= tolerance * expected + 1e-15,
        "K = %g, B = %g%s: the sphere sinks %g m, m g / K = %g m", (double)K, (double)B,
        ground_compliant ? " on itself" : "", (double)sink, (double)expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compliant contact K = %g, B = %g%s: sinkage %.6g m, m g / K = %.6g m\n",
                        (double)K, (double)B, ground_compliant ? " (both sides, in series)" : "", (double)sink,
                        (double)expected));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode DecayRatio(void)
{
  const PetscReal none[3] = {0, 0, 0}, h = 0.01, K = 1e6, w = PetscSqrtReal(K);
  TalusSim        sim;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       ratio, expected = 1.0 / PetscSqrtReal(1.0 + h * h * K);

  PetscFunctionBegin;
  PetscCall(Sphere(none, h, K, 0.0, -1.0, PETSC_FALSE, &sim));
  PetscCall(TalusSimStep(sim, &st));
  CHECK(st.reason > 0 && st.contacts == 1, "decay: the step did not converge or found %" PetscInt_FMT " contacts",
        st.contacts);
  PetscCall(TestGetBody(sim, 1, &rec));
  ratio = PetscSqrtReal(PetscSqr(w * (rec.position[2] - 0.1)) + PetscSqr(rec.velocity[2])) / 1.0;
  CHECK(PetscAbsReal(ratio / expected - 1.0) < 1e-8, "compliant decay ratio %.9g, 1/sqrt(1 + h^2 K/m) = %.9g",
        (double)ratio, (double)expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compliant_decay_ratio %.7f (1/sqrt(1 + h^2 K/m) = %.7f)\n", (double)ratio,
                        (double)expected));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* A cube (1 m, 8 kg) turned by `turn` about x on a foundation K, B of grid x grid points, settled for 1 s */
static PetscErrorCode Foundation(PetscReal turn, PetscInt grid)
{
  const PetscReal         g[3] = {0, 0, -9.8}, h = 0.01, K = 1e7, half[3] = {0.5, 0.5, 0.5}, c[3] = {0, 0, 0.5};
  TalusSim                sim;
  TalusStepStats          st;
  TalusBodies            *b;
  TalusBodyRecord         rec;
  const TalusContactList *list;
  PetscInt                ground, k, n;
  PetscReal               sink, expected = 8.0 * 9.8 / K, worst = 0.0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, h, 1e-3, 0.0, 1e-14, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAddMaterial(b, "foundation", 0.0, 1000.0, &ground));
  PetscCall(TalusBodiesSetMaterialCompliance(b, ground, K, grid * grid * 1.0));
  PetscCall(TalusBodiesSetMaterialFoundation(b, ground, grid));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, ground, PETSC_TRUE, origin, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_BOX, half, 8.0, 0, PETSC_FALSE, c, &k));
  b->quaternion[4 * k] = PetscCosReal(0.5 * turn), b->quaternion[4 * k + 1] = PetscSinReal(0.5 * turn);
  for (PetscInt s = 0; s < 100; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "foundation: step %" PetscInt_FMT " did not converge", st.step);
  }
  CHECK(st.contacts == grid * grid, "foundation grid %" PetscInt_FMT ": %" PetscInt_FMT " contacts", grid, st.contacts);
  PetscCall(TalusSimGetContacts(sim, &list));
  n = list->n;
  for (PetscInt i = 0; i < n; i++) /* the rank that keeps the cube has them all */
    worst = PetscMax(worst, PetscAbsReal(list->c[i].impulse[0] / (8.0 * 9.8 * h / (grid * grid)) - 1.0));
  CHECK(worst < 1e-6, "foundation: a point's impulse off m g h / %" PetscInt_FMT " by %g (relative)", grid * grid,
        (double)worst);
  PetscCall(TestGetBody(sim, 1, &rec));
  sink = 0.5 - rec.position[2];
  CHECK(PetscAbsReal(sink / expected - 1.0) < 1e-6, "foundation turned %g: sinks %g m, m g / K = %g m", (double)turn,
        (double)sink, (double)expected);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "foundation grid %" PetscInt_FMT " (cube turned %g rad): sinkage %.6g m, m g / K = %.6g m\n",
                        grid, (double)turn, (double)sink, (double)expected));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Sinkage(1e5, 2e3, PETSC_FALSE, 2000, 1e-6)); /* damped: at rest after 2 s */
  PetscCall(Sinkage(1e5, 2e3, PETSC_TRUE, 2000, 1e-6));  /* both bodies compliant: K / 2 */
  PetscCall(Sinkage(1e15, 1.0, PETSC_FALSE, 50, 1e-2));  /* the rigid limit */
  PetscCall(DecayRatio());
  PetscCall(Foundation(0.0, 10));
  PetscCall(Foundation(0.5 * PETSC_PI, 3)); /* a quarter turn about x: another face is down */
  {
    int status = TestSummary("test_compliance");
    PetscCall(TalusFinalize());
    return status;
  }
}
