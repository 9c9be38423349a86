/*
 * Prescribed bodies, surface velocity, applied loads and springs (include/talus/drives.h) against
 * closed forms (../shared/seed-formulations.md sec. 2.3; derivations in docs/mechanisms.md), on any
 * number of ranks:
 *   S2-7 a block put at rest on a belt of speed V: v_n = min(n h mu g, V) to solver tolerance;
 *   S2-8 a prescribed pusher at constant V: the block it pushes across a rough floor moves at V (to
 *        1e-8) and the pusher's impulse per step is mu m g h;
 *   a body welded to a prescribed one moves with it (the known velocity in joint rows);
 *   a prescribed sine motion is followed exactly; a free body under a constant force and torque has
 *   v = F t / m and w = T t / J (body frame loads turn with the body);
 *   S2-9 a particle hanging on a damped spring settles at the static deflection m g / K; an undamped
 *        spring's energy does not grow; the explicit stability bound h^2 K / m + 2 h C / m < 4 is
 *        enforced (K = 3.9e6 accepted, 4.1e6 refused at h = 1e-3, m = 1, C = 1);
 *   a 10 m spring between two bodies on different ranks gives the one-rank run's motion.
 */
#include "../common/check.h"

static const PetscReal gravity[3] = {0, 0, -9.81}, none[3] = {0, 0, 0}, up[3] = {0, 0, 1};

static PetscErrorCode Step(TalusSim sim, TalusStepStats *st)
{
  PetscFunctionBegin;
  PetscCall(TalusSimStep(sim, st));
  CHECK(st->reason > 0, "step %" PetscInt_FMT " did not converge (residual %g)", st->step, (double)st->residual);
  PetscFunctionReturn(0);
}

/* S2-7 */
static PetscErrorCode Conveyor(void)
{
  const PetscReal mu = 0.5, V = 1.0, h = 0.01, g = 9.81, half[3] = {0.1, 0.1, 0.05}, c[3] = {0, 0, 0.05};
  const PetscReal belt[3] = {V, 0, 0};
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  PetscReal       worst = 0.0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.02, mu, 1e-12, &sim));
  /* seed 002's closed forms are rigid rows' (sticking exactly, mu m g exactly): no contact floor */
  PetscCall(TalusSimSetContactFloor(sim, 0.0, 0.0));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, none, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_BOX, half, 1.0, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusSimSetSurfaceVelocity(sim, 0, belt, none));
  for (PetscInt n = 1; n <= 40; n++) {
    TalusBodyRecord rec;
    PetscCall(Step(sim, &st));
    PetscCall(TestGetBody(sim, 1, &rec));
    worst = PetscMax(worst, PetscAbsReal(rec.velocity[0] - PetscMin(n * h * mu * g, V)));
  }
  CHECK(worst < 1e-8, "S2-7 conveyor: |v_n - min(n h mu g, V)| up to %g m/s", (double)worst);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "S2-7 conveyor: largest |v_n - min(n h mu g, V)| = %.3g m/s\n", (double)worst));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* S2-8 */
static PetscErrorCode Pusher(void)
{
  const PetscReal       mu = 0.3, V = 0.5, h = 0.01, half[3] = {0.1, 0.1, 0.1}, c[3] = {0, 0, 0.1}, r[3] = {0.05, 0, 0};
  const PetscReal       at[3] = {-0.16, 0, 0.1};
  TalusSim              sim;
  TalusBodies          *b;
  TalusStepStats        st;
  PetscReal             worst = 0.0, impulse = 0.0;
  TalusPrescribedMotion push = {
    .body = 2, .velocity = {V, 0, 0}
  };

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.02, mu, 1e-12, &sim));
  /* seed 002's closed forms are rigid rows' (sticking exactly, mu m g exactly): no contact floor */
  PetscCall(TalusSimSetContactFloor(sim, 0.0, 0.0));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, none, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_BOX, half, 2.0, 0, PETSC_FALSE, c, NULL));
  /* a frictionless pusher: with friction mu_p at the pusher, its friction presses the block down and the
     impulse becomes mu m g h / (1 - mu mu_p) (docs/mechanisms.md) */
  PetscCall(TalusBodiesAddMaterial(b, "frictionless", 0.0, 1000.0, NULL));
  PetscCall(TalusBodiesAdd(b, 2, TALUS_SPHERE, r, 1.0, 1, PETSC_FALSE, at, NULL));
  PetscCall(TalusSimAddPrescribedMotion(sim, &push));
  { /* the block (floor and pusher together), and the block with the pusher (the floor alone) */
    const PetscInt block = 1, both[2] = {2, 1};
    PetscCall(TalusSimAddWatch(sim, 1, &block, NULL));
    PetscCall(TalusSimAddWatch(sim, 2, both, NULL));
  }
  for (PetscInt n = 1; n <= 60; n++) {
    TalusBodyRecord rec, pusher;
    PetscCall(Step(sim, &st));
    PetscCall(TestGetBody(sim, 1, &rec));
    PetscCall(TestGetBody(sim, 2, &pusher));
    CHECK(PetscAbsReal(pusher.position[0] - (at[0] + V * n * h)) < 1e-12, "the pusher is at %g, expected %g",
          (double)pusher.position[0], (double)(at[0] + V * n * h));
    if (n > 10) worst = PetscMax(worst, PetscAbsReal(rec.velocity[0] - V)); /* in contact from step 3 */
  }
  { /* the pusher's contact impulse: the contact of bodies 1 and 2, on whichever rank keeps it */
    const TalusContactList *list;
    PetscCall(TalusSimGetContacts(sim, &list));
    for (PetscInt k = 0; k < list->n; k++)
      if (list->c[k].id_a == 1 && list->c[k].id_b == 2) impulse = list->c[k].impulse[0];
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &impulse, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  }
  {
    TalusWatchMeasure one, two;
    PetscCall(TalusSimGetWatch(sim, 0, &one));
    PetscCall(TalusSimGetWatch(sim, 1, &two));
    /* at constant speed the pusher's push and the floor's friction cancel; the floor carries the weight */
    CHECK(PetscAbsReal(one.force[0]) < 1e-6 && PetscAbsReal(one.force[1]) < 1e-9 &&
            PetscAbsReal(one.force[2] - 2.0 * 9.81) < 1e-6,
          "S2-8: the force on the block (%g, %g, %g), expected (0, 0, m g = %g)", (double)one.force[0],
          (double)one.force[1], (double)one.force[2], 2.0 * 9.81);
    /* block and pusher as a group: their contact is inside it; the floor's friction -mu m g and
       support m g remain; its centre of mass is the block's (a prescribed body has no mass) */
    CHECK(PetscAbsReal(two.force[0] + mu * 2.0 * 9.81) < 1e-6 && PetscAbsReal(two.force[2] - 2.0 * 9.81) < 1e-6 &&
            two.bodies == 2 && two.mass == 2.0 && PetscAbsReal(two.velocity[0] - V) < 1e-8,
          "S2-8: the force on block and pusher (%g, %g, %g), expected (-mu m g = %g, 0, m g); %" PetscInt_FMT
          " bodies, %g kg, moving at %g m/s",
          (double)two.force[0], (double)two.force[1], (double)two.force[2], -mu * 2.0 * 9.81, two.bodies,
          (double)two.mass, (double)two.velocity[0]);
  }
  CHECK(worst < 1e-8, "S2-8 pusher: the block moves at V to %g m/s", (double)worst);
  CHECK(PetscAbsReal(impulse - mu * 2.0 * 9.81 * h) < 1e-8, "S2-8 pusher: impulse %g per step, expected mu m g h = %g",
        (double)impulse, mu * 2.0 * 9.81 * h);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a sphere welded to a prescribed one: v = the prescribed body's, every step */
static PetscErrorCode WeldedToPrescribed(void)
{
  const PetscReal       r[3] = {0.1, 0, 0}, a[3] = {0, 0, 1}, c[3] = {0.5, 0, 1}, h = 0.01;
  TalusPrescribedMotion m = {
    .body = 0, .velocity = {0.3, 0,   0.1},
         .amplitude = {0,   0.2, 0  },
         .frequency = 3.0
  };
  TalusJointSpec weld = {
    .type = TALUS_JOINT_WELD, .body = {0,            1           },
         .point = {{0.25, 0, 1}, {0.25, 0, 1}}
  };
  TalusSim       sim;
  TalusBodies   *b;
  TalusStepStats st;
  PetscReal      worst = 0.0, worst_pose = 0.0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.02, 0.0, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, a, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusSimAddPrescribedMotion(sim, &m));
  PetscCall(TalusSimAddJoint(sim, &weld, NULL));
  for (PetscInt n = 1; n <= 50; n++) {
    TalusBodyRecord driver, rider;
    PetscReal       x[3], q[4];
    PetscCall(Step(sim, &st));
    PetscCall(TestGetBody(sim, 0, &driver));
    PetscCall(TestGetBody(sim, 1, &rider));
    m.t0 = 0.0;
    for (int d = 0; d < 3; d++) m.position0[d] = a[d];
    m.quaternion0[0] = 1, m.quaternion0[1] = m.quaternion0[2] = m.quaternion0[3] = 0;
    TalusPrescribedPose(&m, NULL, n * h, x, q);
    for (int d = 0; d < 3; d++) {
      worst      = PetscMax(worst, PetscAbsReal(rider.velocity[d] - driver.velocity[d]));
      worst_pose = PetscMax(worst_pose, PetscAbsReal(driver.position[d] - x[d]));
    }
  }
  CHECK(worst < 1e-8, "a body welded to a prescribed one: velocities differ by %g m/s", (double)worst);
  CHECK(worst_pose < 1e-14, "the prescribed sine motion is off by %g m", (double)worst_pose);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a free body under a force and a torque (no gravity) */
static PetscErrorCode Loads(void)
{
  const PetscReal r[3] = {0.1, 0, 0}, h = 0.01, c[3] = {0, 0, 0};
  TalusLoad       world =
              {
                .body = 0, .force = {2, 0, -1}
  },
            spin = {.body = 0, .torque = {0, 0, 0.004}, .body_frame = 1};
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       J;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.02, 0.0, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  J = b->inertia[0];
  PetscCall(TalusSimAddLoad(sim, &world));
  PetscCall(TalusSimAddLoad(sim, &spin));
  for (PetscInt n = 0; n < 100; n++) PetscCall(Step(sim, &st));
  PetscCall(TestGetBody(sim, 0, &rec));
  CHECK(PetscAbsReal(rec.velocity[0] - 2.0) < 1e-12 && PetscAbsReal(rec.velocity[2] + 1.0) < 1e-12,
        "a force of (2, 0, -1) N for 1 s on 1 kg: v = (%g, %g, %g)", (double)rec.velocity[0], (double)rec.velocity[1],
        (double)rec.velocity[2]);
  CHECK(PetscAbsReal(rec.omega[2] - 0.004 / J) < 1e-12, "a torque of 0.004 N m for 1 s: w_z = %g, expected %g",
        (double)rec.omega[2], 0.004 / J);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* S2-9: a particle on a spring from a world point; damped, it settles at m g / K */
static PetscErrorCode HangingSpring(PetscReal damping, PetscReal t_end, PetscReal *deflection, PetscReal *energy_rise)
{
  const PetscReal r[3] = {0.05, 0, 0}, h = 0.001, top[3] = {0, 0, 2}, c[3] = {0, 0, 1}, m = 0.5, K = 100.0;
  const PetscReal points[2][3] = {
    {0, 0, 2},
    {0, 0, 1}
  };
  TalusSpring spring = {
    .body = {TALUS_WORLD, 0},
      .stiffness = K, .damping = damping, .rest_length = 1.0
  };
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       stability, e0 = 0.0;

  PetscFunctionBegin;
  (void)top;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.02, 0.0, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, m, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusSimAddSpring(sim, &spring, points, &stability));
  *energy_rise = 0.0;
  for (PetscInt n = 0; n < (PetscInt)(t_end / h + 0.5); n++) {
    PetscCall(Step(sim, &st));
    if (n == 0) e0 = st.kinetic_energy + st.potential_energy;
    *energy_rise = PetscMax(*energy_rise, st.kinetic_energy + st.potential_energy - e0);
  }
  PetscCall(TestGetBody(sim, 0, &rec));
  *deflection = (1.0 - rec.position[2]) / (m * 9.81 / K) - 1.0; /* relative error */
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode StabilityBound(void)
{
  const PetscReal r[3] = {0.05, 0, 0}, c[3] = {0, 0, 1};
  const PetscReal points[2][3] = {
    {0, 0, 2},
    {0, 0, 1}
  };
  TalusSim     sim;
  TalusBodies *b;
  PetscReal    stable, unstable;
  TalusSpring  soft = {
     .body = {TALUS_WORLD, 0},
       .stiffness = 3.9e6, .damping = 1.0, .rest_length = 1.0
  };
  TalusSpring    hard = soft;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  hard.stiffness = 4.1e6;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 1e-3, 0.02, 0.0, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  b->inertia[0] = b->inertia[1] = b->inertia[2] = 1.0; /* the spring acts through the centre: m alone counts */
  PetscCall(TalusSimCheckSpring(sim, &soft, points, &stable));
  PetscCall(TalusSimCheckSpring(sim, &hard, points, &unstable));
  CHECK(PetscAbsReal(stable - 3.902) < 1e-9 && PetscAbsReal(unstable - 4.102) < 1e-9,
        "stability numbers %g and %g, expected 3.902 and 4.102", (double)stable, (double)unstable);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TalusSimAddSpring(sim, &hard, points, &unstable);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_USER_INPUT, "an unstable spring is refused (error %d)", (int)ierr);
  PetscCall(TalusSimAddSpring(sim, &soft, points, &stable));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* two spheres 10 m apart on a spring (stretched 1 m), no gravity: their motion for 1 s on comm */
static PetscErrorCode LongSpring(MPI_Comm comm, PetscReal x[2], PetscInt *most)
{
  const PetscReal r[3] = {0.1, 0, 0}, a[3] = {0, 0, 0}, c[3] = {10, 0, 0.1};
  const PetscReal points[2][3] = {
    {0,  0, 0  },
    {10, 0, 0.1}
  };
  TalusSpring s = {
    .body = {0, 1},
      .stiffness = 5.0, .damping = 0.1, .rest_length = 9.0
  };
  TalusSim       sim;
  TalusBodies   *b;
  TalusStepStats st;
  PetscReal      stability;

  PetscFunctionBegin;
  PetscCall(TestNewSim(comm, none, 0.01, 0.02, 0.0, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, a, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 2.0, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusSimAddSpring(sim, &s, points, &stability));
  for (PetscInt n = 0; n < 100; n++) PetscCall(Step(sim, &st));
  *most = st.bodies_max;
  for (int k = 0; k < 2; k++) {
    TalusBodyRecord rec;
    PetscCall(TestGetBody(sim, k, &rec));
    x[k] = rec.position[0];
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  PetscReal   deflection, rise, xp[2], xs[2];
  PetscInt    most, most_serial;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Conveyor());
  PetscCall(Pusher());
  PetscCall(WeldedToPrescribed());
  PetscCall(Loads());
  PetscCall(HangingSpring(5.0, 5.0, &deflection, &rise));
  CHECK(PetscAbsReal(deflection) < 1e-6, "S2-9: static deflection off m g / K by %g (relative)", (double)deflection);
  CHECK(rise <= 1e-12, "S2-9: a damped spring gains %g J", (double)rise);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "S2-9 spring: static deflection error %.3g (relative)\n", (double)deflection));
  PetscCall(HangingSpring(0.0, 2.0, &deflection, &rise));
  /* symplectic Euler keeps a modified energy: the true one oscillates by O(h w) of the motion's, never drifts up */
  CHECK(rise < 0.02 * 0.5 * 100 * PetscSqr(0.5 * 9.81 / 100), "an undamped spring's energy rises by %g J",
        (double)rise);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "undamped spring over 2 s: largest energy rise %.3g J\n", (double)rise));
  PetscCall(StabilityBound());
  PetscCall(LongSpring(PETSC_COMM_WORLD, xp, &most));
  PetscCall(LongSpring(PETSC_COMM_SELF, xs, &most_serial));
  CHECK(PetscAbsReal(xp[0] - xs[0]) + PetscAbsReal(xp[1] - xs[1]) < 1e-12,
        "a long spring on %d ranks: positions (%g, %g), on one (%g, %g)", size, (double)xp[0], (double)xp[1],
        (double)xs[0], (double)xs[1]);
  CHECK(size == 1 || most == 1, "the spring's two bodies on one rank of %d", size);
  CHECK(xp[0] > 0.05, "the spring pulls its ends together (x_0 = %g)", (double)xp[0]);
  {
    int status = TestSummary("test_drives");
    PetscCall(TalusFinalize());
    return status;
  }
}
