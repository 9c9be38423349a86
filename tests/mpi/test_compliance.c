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
 *     m g / K; a turned cube rests on the face that is down;
 *   - S4-8 seed 004's stack (sec. 6.5): 10 spheres (r = 0.5, m = 1) started 0.1 m apart in a column on
 *     compliant contacts (K = 1e11, B = 1), h = 0.01, 500 steps: at rest (kinetic energy < 1e-8 J), at
 *     heights (2 i - 1) r within 2e-8 m (the contacts' sinkage), no horizontal drift (1e-9 m): no walls
 *     needed, as the paper says. Started with 1e-6 m of jitter it falls (more than 0.1 m of drift in
 *     5 s): a sphere on a sphere is an unstable equilibrium, so only the perfect column stands; the
 *     formulations note's proposed "drift < 1e-3 m with jitter" (S4-8) does not hold for a real column.
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
  /* seed 004's laws alone: the contacts' floor would replace a K stiffer than h^2 K / m = 4 pi^2 */
  PetscCall(TalusSimSetContactFloor(*sim, 0.0, 0.0));
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
  /* seed 004's laws alone: the contacts' floor would replace a K stiffer than h^2 K / m = 4 pi^2 */
  PetscCall(TalusSimSetContactFloor(sim, 0.0, 0.0));
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

/* S4-8: the largest horizontal offset and height error at the end, and the kinetic energy */
static PetscErrorCode Stack(PetscReal jitter, PetscReal *drift, PetscReal *height, PetscReal *kinetic)
{
  const PetscReal g[3] = {0, 0, -9.81}, r[3] = {0.5, 0, 0};
  TalusSim        sim;
  TalusStepStats  st;
  TalusBodies    *b;
  TalusBodyRecord rec;
  PetscInt        ground;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, 0.01, 0.2, 0.3, 1e-12, &sim));
  /* seed 004's laws alone: the contacts' floor would replace a K stiffer than h^2 K / m = 4 pi^2 */
  PetscCall(TalusSimSetContactFloor(sim, 0.0, 0.0));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesSetMaterialCompliance(b, 0, 1e11, 1.0));
  PetscCall(TalusBodiesAddMaterial(b, "ground", 0.3, 1000.0, &ground));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, ground, PETSC_FALSE, origin, NULL));
  for (PetscInt i = 0; i < 10; i++) {
    const PetscReal c[3] = {jitter * PetscSinReal(7.0 * i), jitter * PetscCosReal(5.0 * i), 0.5 + i * 1.1};
    PetscCall(TalusBodiesAdd(b, 1 + i, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  }
  for (PetscInt s = 0; s < 500; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "S4-8: step %" PetscInt_FMT " did not converge", st.step);
  }
  *drift = *height = 0.0;
  for (PetscInt i = 0; i < 10; i++) {
    PetscCall(TestGetBody(sim, 1 + i, &rec));
    *drift  = PetscMax(*drift, PetscSqrtReal(PetscSqr(rec.position[0]) + PetscSqr(rec.position[1])));
    *height = PetscMax(*height, PetscAbsReal(rec.position[2] - (2 * i + 1) * 0.5));
  }
  *kinetic = TalusBodiesKineticEnergyLocal(b);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, kinetic, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
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
    PetscReal drift, height, kinetic;
    PetscCall(Stack(0.0, &drift, &height, &kinetic));
    CHECK(kinetic < 1e-8 && height < 2e-8 && drift < 1e-9,
          "S4-8 stack: kinetic energy %g J, heights off by %g m, drift %g m", (double)kinetic, (double)height,
          (double)drift);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "S4-8 stack of 10: kinetic energy %.1e J, heights within %.1e m, drift %.1e m\n",
                          (double)kinetic, (double)height, (double)drift));
    PetscCall(Stack(1e-6, &drift, &height, &kinetic));
    CHECK(drift > 0.1, "S4-8 stack with 1e-6 m jitter: drift %g m; a column of spheres is unstable and should fall",
          (double)drift);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "S4-8 stack of 10 with 1e-6 m jitter: drift %.2e m, kinetic energy %.1e J\n", (double)drift,
                          (double)kinetic));
  }
  {
    int status = TestSummary("test_compliance");
    PetscCall(TalusFinalize());
    return status;
  }
}
