/*
 * Joints (seed 000 eq. 6, 9c, 12) against closed forms, on any number of ranks (the tests of
 * ../shared/seed-formulations.md sections 1.3 and 2.3; the paper gives no numbers, the closed forms
 * are derived from eq. 9c there and re-derived in docs/mechanisms.md):
 *   B0-1 a spherical joint started 1 cm off its point is corrected in one step (deadbeat);
 *   B0-2 a 1 m rod pinned at one end, released horizontal: with seed 000's rows (-joint_lookahead 0)
 *        its largest drift within 25 % of l h^2 w^2 / 2 (l = L / 2, w^2 = 3 g / L) and about 4 times
 *        smaller at h / 2; with the default rows, linearised at the step's predicted end, a drift
 *        below 1 % of that, at least quadratic in h, and the energy never above the start's;
 *   B0-3 an angle driver following f = 2 t to 1e-10 rad; f = A sin(W t) with the error h^2 A W^2 / 2;
 *        a linear driver following f = 0.3 t;
 *   B0-4 a hanging pendulum at rest: the joint impulse is m g h, nothing moves;
 *   B0-5 the same joint twice: the same motion as once, the two impulses adding up to the one;
 *   B0-6 a joint and a contact in one problem;
 *   S2-4 the double pendulum of two equal uniform rods (L = 1 m, g = 9.81) started in each normal
 *        mode: periods 2.34437 s and 0.87404 s to 1 % at h = 1e-3;
 *   weld, prismatic, cylindrical and distance joints keep what they must (a cylindrical joint's ball slides
 *   down its tilted axis as the prismatic's does and keeps its spin about it);
 *   a chain of four 10 m links, one body per rank on 4 ranks, equal to the same chain stepped on one
 *   rank beside it (joints across ranks: the other body of a joint reaches the rank that keeps it
 *   however far it is, not by the contact reach).
 * Rods are spheres of radius 0.05-0.2 with a rod's inertia (m L^2 / 12 about the two axes normal
 * to it): their joints place them, they never touch.
 */
#include "../common/check.h"

static const PetscReal gravity[3] = {0, 0, -9.81}, no_gravity[3] = {0, 0, 0};

/* A rod of length L and mass m (a sphere of radius r with a rod's inertia), centre c, its axis along
   (sin phi, 0, cos phi): turned by phi about y. */
static PetscErrorCode AddRod(TalusSim sim, PetscInt id, const PetscReal c[3], PetscReal phi, PetscReal L, PetscReal m,
                             PetscReal r)
{
  TalusBodies    *b;
  const PetscReal size[3] = {r, 0, 0};
  PetscInt        k;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, id, TALUS_SPHERE, size, m, 0, PETSC_FALSE, c, &k));
  b->inertia[3 * k] = b->inertia[3 * k + 1] = m * L * L / 12.0;
  b->inertia[3 * k + 2]                     = 1e-3 * m * L * L;
  b->quaternion[4 * k]                      = PetscCosReal(0.5 * phi);
  b->quaternion[4 * k + 2]                  = PetscSinReal(0.5 * phi);
  PetscFunctionReturn(0);
}

static PetscErrorCode AddJoint(TalusSim sim, TalusJointType type, PetscInt a, PetscInt b, const PetscReal pa[3],
                               const PetscReal pb[3], const PetscReal axis[3], const TalusMotion *motion)
{
  TalusJointSpec s = {
    .type = type, .body = {a, b},
         .length = -1.0
  };

  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) s.point[0][d] = pa[d], s.point[1][d] = pb ? pb[d] : pa[d], s.axis[d] = axis ? axis[d] : 0;
  if (motion) s.motion = *motion;
  PetscCall(TalusSimAddJoint(sim, &s, NULL));
  PetscFunctionReturn(0);
}

/* The norm of joint j's first n rows now (collective) */
static PetscErrorCode Violation(TalusSim sim, PetscInt j, PetscInt first, PetscInt n, PetscReal *norm)
{
  TalusJointRowTerms rows[6];

  PetscFunctionBegin;
  PetscCall(TalusSimEvaluateJoint(sim, j, rows));
  *norm = 0.0;
  for (PetscInt r = first; r < first + n; r++) *norm += rows[r].g * rows[r].g;
  *norm = PetscSqrtReal(*norm);
  PetscFunctionReturn(0);
}

static PetscErrorCode Steps(TalusSim sim, PetscInt n, TalusStepStats *st)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < n; s++) {
    PetscCall(TalusSimStep(sim, st));
    CHECK(st->reason > 0, "step %" PetscInt_FMT ": the solver did not converge (reason %d, residual %g)", st->step,
          (int)st->reason, (double)st->residual);
  }
  PetscFunctionReturn(0);
}

/* B0-1 */
static PetscErrorCode Deadbeat(void)
{
  const PetscReal c[3] = {0.01, 0, 0}, o[3] = {0, 0, 0};
  TalusSim        sim;
  TalusStepStats  st;
  PetscReal       g;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, no_gravity, 0.01, 0.01, 0.0, 1e-12, &sim));
  PetscCall(AddRod(sim, 0, c, 0.0, 0.1, 1.0, 0.05));
  PetscCall(AddJoint(sim, TALUS_JOINT_SPHERICAL, TALUS_WORLD, 0, o, c, NULL, NULL));
  PetscCall(Violation(sim, 0, 0, 3, &g));
  CHECK(PetscAbsReal(g - 0.01) < 1e-15, "B0-1: the joint starts 1 cm off, got %g", (double)g);
  PetscCall(Steps(sim, 1, &st));
  CHECK(PetscAbsReal(st.joint_drift - 0.01) < 1e-15, "B0-1: the step saw the 1 cm, got %g", (double)st.joint_drift);
  PetscCall(Violation(sim, 0, 0, 3, &g));
  CHECK(g <= 1e-10, "B0-1: one step corrects 1 cm to %g m (deadbeat: <= 1e-10)", (double)g);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* The bodies' kinetic and potential energy (J), the same on every rank */
static PetscErrorCode Energy(TalusSim sim, PetscReal *energy)
{
  TalusBodies *b;
  PetscReal    kinetic, potential;

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  kinetic = TalusBodiesKineticEnergyLocal(b);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &kinetic, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(TalusSimGetPotentialEnergy(sim, &potential));
  *energy = kinetic + potential;
  PetscFunctionReturn(0);
}

/* B0-2: the largest drift of the pin over the first swing to the bottom and beyond (0.6 s), with the rows
   linearised at q + lookahead h v (0: seed 000's), and the largest energy above the start's (J) */
static PetscErrorCode PinnedRodDrift(PetscReal h, PetscReal lookahead, PetscReal *drift, PetscReal *gain)
{
  const PetscReal c[3] = {0.5, 0, 0}, o[3] = {0, 0, 0}, y[3] = {0, 1, 0};
  TalusSim        sim;
  TalusStepStats  st;
  PetscReal       start, energy;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.01, 0.0, 1e-12, &sim));
  PetscCall(TalusSimSetJointLookahead(sim, lookahead));
  PetscCall(AddRod(sim, 0, c, 0.5 * PETSC_PI, 1.0, 1.0, 0.05));
  PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, TALUS_WORLD, 0, o, NULL, y, NULL));
  PetscCall(Energy(sim, &start));
  *drift = 0.0, *gain = -PETSC_MAX_REAL;
  for (PetscInt s = 0; s < (PetscInt)(0.6 / h + 0.5); s++) {
    PetscReal g = 0.0;
    PetscCall(Steps(sim, 1, &st));
    PetscCall(Violation(sim, 0, 0, 3, &g));
    PetscCall(Energy(sim, &energy));
    *drift = PetscMax(*drift, g);
    *gain  = PetscMax(*gain, energy - start);
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* B0-3: a disc turning about z on a revolute, driven; the largest tracking error after the first step */
static PetscErrorCode DriverError(TalusJointType type, const TalusMotion *f, PetscReal h, PetscReal t, PetscReal *error)
{
  const PetscReal c[3] = {0, 0, 0}, z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  TalusSim        sim;
  TalusStepStats  st;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.01, 0.0, 1e-12, &sim));
  PetscCall(AddRod(sim, 0, c, 0.0, 1.0, 2.0, 0.1));
  if (type == TALUS_JOINT_ANGLE_DRIVER) {
    PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, TALUS_WORLD, 0, c, NULL, z, NULL));
    PetscCall(AddJoint(sim, type, TALUS_WORLD, 0, c, NULL, z, f));
  } else {
    PetscCall(AddJoint(sim, TALUS_JOINT_PRISMATIC, TALUS_WORLD, 0, c, NULL, x, NULL));
    PetscCall(AddJoint(sim, type, TALUS_WORLD, 0, c, NULL, x, f));
  }
  *error = 0.0;
  for (PetscInt s = 0; s < (PetscInt)(t / h + 0.5); s++) {
    TalusJointRowTerms rows[6];
    PetscCall(Steps(sim, 1, &st));
    PetscCall(TalusSimEvaluateJoint(sim, 1, rows));
    *error = PetscMax(*error, PetscAbsReal(rows[0].g));
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* B0-4 and B0-5: a rod hanging from a pin (once or twice), at rest */
static PetscErrorCode Hanging(PetscInt copies, PetscReal impulse[3], PetscReal *speed, PetscReal position[3])
{
  const PetscReal  c[3] = {0, 0, -0.5}, o[3] = {0, 0, 0}, y[3] = {0, 1, 0}, h = 0.01;
  TalusSim         sim;
  TalusStepStats   st;
  const PetscReal *lambda;
  TalusBodyRecord  rec;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.01, 0.0, 1e-12, &sim));
  PetscCall(AddRod(sim, 0, c, 0.0, 1.0, 1.5, 0.05));
  for (PetscInt j = 0; j < copies; j++)
    PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, TALUS_WORLD, 0, o, NULL, y, NULL));
  {
    const PetscInt rod = 0;
    PetscCall(TalusSimAddWatch(sim, 1, &rod, NULL));
  }
  PetscCall(Steps(sim, 20, &st));
  {
    TalusWatchMeasure m;
    PetscReal         w[6];
    PetscCall(TalusSimGetWatch(sim, 0, &m));
    for (int d = 0; d < 3; d++) w[d] = m.force[d], w[3 + d] = m.torque[d];
    CHECK(PetscAbsReal(w[2] - 1.5 * 9.81) < 1e-8 && PetscAbsReal(w[0]) + PetscAbsReal(w[1]) < 1e-8 &&
            PetscAbsReal(w[3]) + PetscAbsReal(w[4]) + PetscAbsReal(w[5]) < 1e-8,
          "B0-4: the pin's force on the rod (%g, %g, %g), torque (%g, %g, %g): expected (0, 0, m g), 0", (double)w[0],
          (double)w[1], (double)w[2], (double)w[3], (double)w[4], (double)w[5]);
  }
  PetscCall(TalusSimGetJoints(sim, NULL, NULL, NULL, &lambda));
  for (int d = 0; d < 3; d++) {
    impulse[d] = 0.0;
    for (PetscInt j = 0; j < copies; j++) impulse[d] += lambda[5 * j + d];
  }
  PetscCall(TestGetBody(sim, 0, &rec));
  *speed = TalusNorm3(rec.velocity) + TalusNorm3(rec.omega);
  for (int d = 0; d < 3; d++) position[d] = rec.position[d];
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* B0-5 in motion: the swinging rod of B0-2 with its pin once or twice: its centre after 0.3 s (B
   matrix-free or assembled) */
static PetscErrorCode Swing(PetscInt copies, PetscBool matrix_free, PetscReal position[3])
{
  const PetscReal c[3] = {0.5, 0, 0}, o[3] = {0, 0, 0}, y[3] = {0, 1, 0};
  TalusSim        sim;
  TalusStepStats  st;
  TalusBodyRecord rec;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 0.01, 0.01, 0.0, 1e-12, &sim));
  PetscCall(TalusSimSetMatrixFree(sim, matrix_free));
  PetscCall(AddRod(sim, 0, c, 0.5 * PETSC_PI, 1.0, 1.0, 0.05));
  for (PetscInt j = 0; j < copies; j++)
    PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, TALUS_WORLD, 0, o, NULL, y, NULL));
  PetscCall(Steps(sim, 30, &st));
  PetscCall(TestGetBody(sim, 0, &rec));
  for (int d = 0; d < 3; d++) position[d] = rec.position[d];
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* the step's solver: apgd (TestNewSim's) or nbgs, which sweeps the joints' free rows after the cones */
static PetscErrorCode SetSolver(TalusSim sim, TaoType type)
{
  TalusCCP ccp;
  Tao      tao;

  PetscFunctionBegin;
  PetscCall(TalusSimGetCCP(sim, &ccp));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetType(tao, type));
  PetscFunctionReturn(0);
}

/* B0-6: a ball on a plane tied by a distance joint to a point above and beside it, frictionless: it
   stays, the plane carries its weight, the joint nothing (by apgd and by nbgs) */
static PetscErrorCode JointAndContact(TaoType type)
{
  const PetscReal  c[3] = {0, 0, 0.1}, anchor[3] = {0.5, 0, 0.6}, up[3] = {0, 0, 1}, o[3] = {0, 0, 0}, h = 0.01;
  const PetscReal  r[3] = {0.1, 0, 0};
  TalusSim         sim;
  TalusBodies     *b;
  TalusStepStats   st;
  const PetscReal *lambda;
  TalusBodyRecord  rec;
  PetscReal        g;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.01, 0.0, 1e-12, &sim));
  PetscCall(SetSolver(sim, type));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, o, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, c, NULL));
  PetscCall(AddJoint(sim, TALUS_JOINT_DISTANCE, TALUS_WORLD, 1, anchor, c, NULL, NULL));
  PetscCall(Steps(sim, 50, &st));
  PetscCall(TalusSimGetJoints(sim, NULL, NULL, NULL, &lambda));
  PetscCall(TestGetBody(sim, 1, &rec));
  PetscCall(Violation(sim, 0, 0, 1, &g));
  /* the contact's near-rigid floor (default) rests the ball at h^2 g / (4 pi^2): w_n = 1/m on a plane */
  CHECK(st.contacts == 1 && PetscAbsReal(st.max_penetration - h * h * 9.81 / (4 * PETSC_PI * PETSC_PI)) < 1e-9,
        "B0-6 (%s): %" PetscInt_FMT " contacts, penetration %g (the floor's %g)", type, st.contacts,
        (double)st.max_penetration, (double)(h * h * 9.81 / (4 * PETSC_PI * PETSC_PI)));
  CHECK(PetscAbsReal(st.support_force_over_weight - 1.0) < 1e-6, "B0-6 (%s): the plane carries %g of the weight", type,
        (double)st.support_force_over_weight);
  CHECK(PetscAbsReal(lambda[0]) < 1e-9 && g < 1e-9, "B0-6 (%s): joint impulse %g (0), drift %g", type,
        (double)lambda[0], (double)g);
  CHECK(st.complementarity_error < 1e-9, "B0-6 (%s): complementarity error %g", type, (double)st.complementarity_error);
  CHECK(TalusNorm3(rec.velocity) < 1e-9, "B0-6 (%s): the ball moves at %g m/s", type, (double)TalusNorm3(rec.velocity));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* S2-4: two equal rods (L = 1, m = 1) hanging from a pin, the second pinned to the end of the first,
   started at rest with angles from the vertical theta_2 = ratio theta_1 (theta_1 = 1 degree); the
   period of the first rod's angle: twice the time from its first zero crossing (downward, at a quarter
   period) to its second (upward, at three quarters), each placed by linear interpolation; run to t_end */
static PetscErrorCode DoublePendulumPeriod(PetscReal ratio, PetscReal t_end, PetscReal *period)
{
  const PetscReal h = 1e-3, t1 = PETSC_PI / 180.0, t2 = ratio * t1, y[3] = {0, 1, 0}, o[3] = {0, 0, 0};
  const PetscReal ca[3] = {0.5 * PetscSinReal(t1), 0, -0.5 * PetscCosReal(t1)},
                  p[3]  = {PetscSinReal(t1), 0, -PetscCosReal(t1)},
                  cb[3] = {p[0] + 0.5 * PetscSinReal(t2), 0, p[2] - 0.5 * PetscCosReal(t2)};
  TalusSim       sim;
  TalusStepStats st;
  PetscReal      last = t1, crossing[2] = {-1, -1};
  PetscInt       crossings = 0;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.01, 0.0, 1e-12, &sim));
  PetscCall(AddRod(sim, 0, ca, -t1, 1.0, 1.0, 0.1));
  PetscCall(AddRod(sim, 1, cb, -t2, 1.0, 1.0, 0.1));
  PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, TALUS_WORLD, 0, o, NULL, y, NULL));
  PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, 0, 1, p, NULL, y, NULL));
  for (PetscInt s = 0; s < (PetscInt)(t_end / h + 0.5) && crossings < 2; s++) {
    TalusBodyRecord rec;
    PetscReal       theta;
    PetscCall(Steps(sim, 1, &st));
    PetscCall(TestGetBody(sim, 0, &rec));
    theta = PetscAtan2Real(rec.position[0], -rec.position[2]);
    if ((last > 0.0) != (theta > 0.0)) crossing[crossings++] = st.t - h * theta / (theta - last);
    last = theta;
  }
  *period = crossings == 2 ? 2.0 * (crossing[1] - crossing[0]) : -1.0;
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* A weld holds a rod horizontal; a prismatic joint lets a block slide along its axis only; a
   distance joint keeps its length while its body swings */
static PetscErrorCode OtherJoints(void)
{
  const PetscReal c[3] = {0.5, 0, 0}, o[3] = {0, 0, 0}, tilted[3] = {1, 0, -1};
  TalusSim        sim;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       g;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 0.01, 0.01, 0.0, 1e-12, &sim)); /* weld: a cantilever at rest */
  PetscCall(AddRod(sim, 0, c, 0.5 * PETSC_PI, 1.0, 1.0, 0.05));
  PetscCall(AddJoint(sim, TALUS_JOINT_WELD, TALUS_WORLD, 0, o, NULL, NULL, NULL));
  PetscCall(Steps(sim, 20, &st));
  PetscCall(TestGetBody(sim, 0, &rec));
  CHECK(TalusNorm3(rec.velocity) + TalusNorm3(rec.omega) < 1e-9 && PetscAbsReal(rec.position[2]) < 1e-9,
        "weld: the cantilever moves (%g m/s, %g rad/s, z %g)", (double)TalusNorm3(rec.velocity),
        (double)TalusNorm3(rec.omega), (double)rec.position[2]);
  {
    const PetscInt  *start;
    const PetscReal *lambda;
    PetscCall(TalusSimGetJoints(sim, NULL, NULL, &start, &lambda));
    /* the wall holds the weight (m g h up) and the moment m g h L / 2 about y */
    CHECK(PetscAbsReal(lambda[2] - 9.81 * 0.01) < 1e-9, "weld: vertical impulse %g, expected %g", (double)lambda[2],
          9.81 * 0.01);
  }
  PetscCall(TalusSimDestroy(&sim));

  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 0.01, 0.01, 0.0, 1e-12,
                       &sim)); /* prismatic along (1, 0, -1): slides down at g / 2 */
  PetscCall(AddRod(sim, 0, c, 0.0, 1.0, 1.0, 0.05));
  PetscCall(AddJoint(sim, TALUS_JOINT_PRISMATIC, TALUS_WORLD, 0, c, NULL, tilted, NULL));
  PetscCall(Steps(sim, 50, &st));
  PetscCall(TestGetBody(sim, 0, &rec));
  /* along the axis a = g / sqrt(2), so v = (g/2, 0, -g/2) t exactly (symplectic Euler is exact for a
     constant force in velocity) */
  CHECK(PetscAbsReal(rec.velocity[0] - 0.5 * 9.81 * 0.5) < 1e-8 &&
          PetscAbsReal(rec.velocity[2] + 0.5 * 9.81 * 0.5) < 1e-8 && PetscAbsReal(rec.velocity[1]) < 1e-10 &&
          TalusNorm3(rec.omega) < 1e-8,
        "prismatic: velocity (%g, %g, %g), expected (%g, 0, %g)", (double)rec.velocity[0], (double)rec.velocity[1],
        (double)rec.velocity[2], 0.5 * 9.81 * 0.5, -0.5 * 9.81 * 0.5);
  PetscCall(Violation(sim, 0, 0, 5, &g));
  CHECK(g < 1e-9, "prismatic: violation %g", (double)g);
  PetscCall(TalusSimDestroy(&sim));

  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 0.01, 0.01, 0.0, 1e-12,
                       &sim)); /* cylindrical along (1, 0, -1): slides down at g / 2, spinning at 3 rad/s about it */
  {
    const PetscReal size[3] = {0.05, 0, 0}, spin = 3.0 / PetscSqrtReal(2.0);
    TalusBodies    *b;
    PetscInt        k;
    PetscCall(TalusSimGetBodies(sim, &b));
    PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, size, 1.0, 0, PETSC_FALSE, c, &k));
    b->omega[3 * k] = spin, b->omega[3 * k + 2] = -spin; /* the body frame is the world's at the start */
    PetscCall(AddJoint(sim, TALUS_JOINT_CYLINDRICAL, TALUS_WORLD, 0, c, NULL, tilted, NULL));
    PetscCall(Steps(sim, 50, &st));
    PetscCall(TestGetBody(sim, 0, &rec));
    CHECK(PetscAbsReal(rec.velocity[0] - 0.5 * 9.81 * 0.5) < 1e-8 &&
            PetscAbsReal(rec.velocity[2] + 0.5 * 9.81 * 0.5) < 1e-8 && PetscAbsReal(rec.velocity[1]) < 1e-10,
          "cylindrical: velocity (%g, %g, %g), expected (%g, 0, %g)", (double)rec.velocity[0], (double)rec.velocity[1],
          (double)rec.velocity[2], 0.5 * 9.81 * 0.5, -0.5 * 9.81 * 0.5);
    CHECK(PetscAbsReal(rec.omega[0] - spin) < 1e-8 && PetscAbsReal(rec.omega[2] + spin) < 1e-8 &&
            PetscAbsReal(rec.omega[1]) < 1e-8,
          "cylindrical: spin (%g, %g, %g) rad/s, expected (%g, 0, %g)", (double)rec.omega[0], (double)rec.omega[1],
          (double)rec.omega[2], (double)spin, (double)-spin);
    PetscCall(Violation(sim, 0, 0, 4, &g));
    CHECK(g < 1e-9, "cylindrical: violation %g", (double)g);
  }
  PetscCall(TalusSimDestroy(&sim));

  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 0.005, 0.01, 0.0, 1e-12,
                       &sim)); /* distance: a ball on a 1 m string, swinging */
  {
    const PetscReal ball[3] = {1, 0, 0};
    PetscCall(AddRod(sim, 0, ball, 0.0, 0.1, 1.0, 0.05));
    PetscCall(AddJoint(sim, TALUS_JOINT_DISTANCE, TALUS_WORLD, 0, o, ball, NULL, NULL));
  }
  PetscCall(Steps(sim, 100, &st));
  PetscCall(TestGetBody(sim, 0, &rec));
  g = TalusNorm3(rec.position) - 1.0;
  /* the drift of a point mass on a circle: L h^2 w^2 / 2 per step at most, w^2 <= 2 g / L */
  CHECK(PetscAbsReal(g) < 1.0 * 0.005 * 0.005 * 2 * 9.81 && rec.position[2] < -0.5,
        "distance: length error %g m (bound %g), the ball at z = %g", (double)g, 0.005 * 0.005 * 2 * 9.81,
        (double)rec.position[2]);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* Four 10 m links in a horizontal chain pinned to the world, falling for 1 s (100 steps) on comm */
static PetscErrorCode Chain(MPI_Comm comm, TaoType type, PetscReal x[4][3], PetscReal *drift, PetscInt *most_bodies)
{
  const PetscReal y[3] = {0, 1, 0}, L = 10.0;
  TalusSim        sim;
  TalusStepStats  st;

  PetscFunctionBegin;
  PetscCall(TestNewSim(comm, gravity, 0.01, 0.01, 0.0, 1e-12, &sim));
  PetscCall(SetSolver(sim, type));
  for (PetscInt k = 0; k < 4; k++) {
    const PetscReal c[3] = {L * (k + 0.5), 0, 0}, pin[3] = {L * k, 0, 0};
    PetscCall(AddRod(sim, k, c, 0.5 * PETSC_PI, L, 1.0, 0.2));
    PetscCall(AddJoint(sim, TALUS_JOINT_REVOLUTE, k ? k - 1 : TALUS_WORLD, k, pin, NULL, y, NULL));
  }
  *drift = 0.0;
  for (PetscInt s = 0; s < 100; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "chain: step %" PetscInt_FMT " did not converge (residual %g)", st.step, (double)st.residual);
    *drift = PetscMax(*drift, st.joint_drift);
  }
  *most_bodies = st.bodies_max;
  for (PetscInt k = 0; k < 4; k++) {
    TalusBodyRecord rec;
    PetscCall(TestGetBody(sim, k, &rec));
    for (int d = 0; d < 3; d++) x[k][d] = rec.position[d];
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscReal   d1, d2, p1, p2, gain1, gain2, e, impulse[3], impulse2[3], speed, speed2, x1[3], x2[3];
  PetscMPIInt size;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(Deadbeat());

  PetscCall(PinnedRodDrift(0.01, 0.0, &d1, &gain1));
  PetscCall(PinnedRodDrift(0.005, 0.0, &d2, &gain2));
  {
    const PetscReal expected = 0.5 * 0.01 * 0.01 * 3 * 9.81 / 2;
    CHECK(PetscAbsReal(d1 / expected - 1) <= 0.25, "B0-2: drift %g m at h = 0.01, expected %g within 25 %%", (double)d1,
          (double)expected);
    CHECK(d1 / d2 >= 3.5 && d1 / d2 <= 4.5, "B0-2: drift ratio %g for h halved, expected 3.5-4.5", (double)(d1 / d2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "B0-2 pinned rod: drift %.4g m (h = 0.01), %.4g m (h = 0.005); l h^2 w^2 / 2 = %.4g m; "
                          "energy up to %.3g J above the start's\n",
                          (double)d1, (double)d2, (double)expected, (double)PetscMax(gain1, gain2)));
    /* the default rows, at the step's predicted end: the drift far below seed 000's and no energy gained */
    PetscCall(PinnedRodDrift(0.01, 1.0, &p1, &gain1));
    PetscCall(PinnedRodDrift(0.005, 1.0, &p2, &gain2));
    CHECK(p1 <= 1e-2 * d1 && p2 <= 1e-2 * d2, "-joint_lookahead 1: drift %g, %g m, seed 000's %g, %g m", (double)p1,
          (double)p2, (double)d1, (double)d2);
    CHECK(p1 / p2 >= 3.5, "-joint_lookahead 1: drift ratio %g for h halved, at least quadratic (4)", (double)(p1 / p2));
    CHECK(gain1 <= 1e-9 * 9.81 && gain2 <= 1e-9 * 9.81, "-joint_lookahead 1: energy %g, %g J above the start's",
          (double)gain1, (double)gain2);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "B0-2 pinned rod, rows at the predicted end: drift %.4g m (h = 0.01), %.4g m (h = 0.005); "
                          "energy up to %.3g J above the start's\n",
                          (double)p1, (double)p2, (double)PetscMax(gain1, gain2)));
  }

  {
    const TalusMotion ramp = {.rate = 2.0}, sine = {.amplitude = 0.5, .frequency = 2 * PETSC_PI}, slide = {.rate = 0.3};
    const PetscReal   expected = 0.01 * 0.01 * 0.5 * 4 * PETSC_PI * PETSC_PI / 2;
    PetscCall(DriverError(TALUS_JOINT_ANGLE_DRIVER, &ramp, 0.01, 1.0, &e));
    CHECK(e <= 1e-10, "B0-3: angle driver f = 2 t tracked to %g rad (<= 1e-10)", (double)e);
    PetscCall(DriverError(TALUS_JOINT_ANGLE_DRIVER, &sine, 0.01, 1.0, &e));
    CHECK(PetscAbsReal(e / expected - 1) <= 0.05, "B0-3: sine driver error %g rad, expected h^2 A W^2 / 2 = %g",
          (double)e, (double)expected);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "B0-3 sine driver: error %.4g rad; h^2 A W^2 / 2 = %.4g rad\n", (double)e,
                          (double)expected));
    PetscCall(DriverError(TALUS_JOINT_LINEAR_DRIVER, &slide, 0.01, 1.0, &e));
    CHECK(e <= 1e-10, "B0-3: linear driver f = 0.3 t tracked to %g m (<= 1e-10)", (double)e);
  }

  PetscCall(Hanging(1, impulse, &speed, x1));
  CHECK(PetscAbsReal(impulse[2] - 1.5 * 9.81 * 0.01) < 1e-10 && PetscAbsReal(impulse[0]) < 1e-10 &&
          PetscAbsReal(impulse[1]) < 1e-10,
        "B0-4: joint impulse (%g, %g, %g), expected (0, 0, m g h = %g)", (double)impulse[0], (double)impulse[1],
        (double)impulse[2], 1.5 * 9.81 * 0.01);
  CHECK(speed < 1e-10, "B0-4: the hanging rod moves (%g)", (double)speed);
  PetscCall(Hanging(2, impulse2, &speed2, x2));
  CHECK(PetscAbsReal(impulse2[2] - impulse[2]) < 1e-10 && speed2 < 1e-10,
        "B0-5: two pins carry %g together, one %g; speed %g", (double)impulse2[2], (double)impulse[2], (double)speed2);
  PetscCall(Swing(1, PETSC_TRUE, x1));
  PetscCall(Swing(2, PETSC_TRUE, x2));
  CHECK(PetscAbsReal(x1[0] - x2[0]) + PetscAbsReal(x1[1] - x2[1]) + PetscAbsReal(x1[2] - x2[2]) < 1e-9,
        "B0-5: with the pin twice the rod is at (%g, %g, %g), once at (%g, %g, %g)", (double)x2[0], (double)x2[1],
        (double)x2[2], (double)x1[0], (double)x1[1], (double)x1[2]);
  PetscCall(Swing(1, PETSC_FALSE, x2)); /* the assembled B: body-frame angular velocities, the same motion */
  CHECK(PetscAbsReal(x1[0] - x2[0]) + PetscAbsReal(x1[1] - x2[1]) + PetscAbsReal(x1[2] - x2[2]) < 1e-9,
        "the assembled B swings the rod to (%g, %g, %g), the matrix-free one to (%g, %g, %g)", (double)x2[0],
        (double)x2[1], (double)x2[2], (double)x1[0], (double)x1[1], (double)x1[2]);

  PetscCall(JointAndContact(TAOAPGD));
  PetscCall(JointAndContact(TAONBGS));
  PetscCall(OtherJoints());

  {
    const PetscReal slow = 2.34437, fast = 0.87404;
    PetscReal       T;
    /* started at rest on the positive side, rod A crosses zero at 1/4 and 3/4 of a period: 0.9 periods hold both
       (1.9 periods before, the upward crossings at 3/4 and 7/4: the same periods to 1e-4 s, in twice the time) */
    PetscCall(DoublePendulumPeriod(1.43050, 0.9 * slow, &T));
    CHECK(PetscAbsReal(T / slow - 1) < 0.01, "S2-4: slow period %g s, expected %g s within 1 %%", (double)T, slow);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "S2-4 double pendulum: slow period %.5f s (%.5f)", (double)T, slow));
    PetscCall(DoublePendulumPeriod(-2.09717, 0.9 * fast, &T));
    CHECK(PetscAbsReal(T / fast - 1) < 0.01, "S2-4: fast period %g s, expected %g s within 1 %%", (double)T, fast);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", fast %.5f s (%.5f)\n", (double)T, fast));
  }

  {
    PetscReal xp[4][3], xs[4][3], xg[4][3], dp, ds, dg, worst = 0.0, apart = 0.0;
    PetscInt  most, most_serial, most_nbgs;
    PetscCall(Chain(PETSC_COMM_WORLD, TAOAPGD, xp, &dp, &most));
    PetscCall(Chain(PETSC_COMM_SELF, TAOAPGD, xs, &ds, &most_serial));
    PetscCall(Chain(PETSC_COMM_WORLD, TAONBGS, xg, &dg, &most_nbgs)); /* its free rows swept across the ranks */
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) apart = PetscMax(apart, PetscAbsReal(xg[k][d] - xs[k][d]));
    CHECK(apart < 1e-8, "chain by nbgs on %d ranks: positions differ from apgd's on one rank by %g m", size,
          (double)apart);
    CHECK(size < 4 || most == 1, "chain: on 4 ranks a rank holds %" PetscInt_FMT " links (one each expected)", most);
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) worst = PetscMax(worst, PetscAbsReal(xp[k][d] - xs[k][d]));
    CHECK(worst < 1e-8, "chain on %d ranks: positions differ from one rank's by %g m", size, (double)worst);
    CHECK(dp < 0.05 && xp[3][2] < -1.0, "chain: drift %g m, the last link at z = %g (it falls)", (double)dp,
          (double)xp[3][2]);
  }
  {
    int status = TestSummary("test_joints");
    PetscCall(TalusFinalize());
    return status;
  }
}
