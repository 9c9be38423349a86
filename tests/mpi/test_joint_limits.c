/*
 * Joint limits (angle_limit, linear_limit: a range of motion as two one-sided rows, g >= 0 with a
 * non-negative impulse; seed 004 sec. 5.4; docs/mechanisms.md) on any number of ranks:
 *   S4-5 a pendulum on a rigid pin meets a compliant angle limit (K = 1e12 N m/rad, B = 0) at the
 *        limit with angular speed w_in: it leaves with the speed implicit Euler gives one compliant
 *        one-sided row started at its surface, which depends on h sqrt(K / M) only (M its inertia
 *        about the pin): v <- (v - h (K/M) x) / (1 + h^2 K/M) while x + h v < 0, x <- x + h v.
 *        The formulations note's values: 0.250 at h sqrt(K/M) = 1, 0.856 at 0.1, below 0.01 ("dead")
 *        at 10 and beyond; stable at every h (1e-3 and 1e-2 here, h sqrt(K/M) = 1e3, 1e4);
 *   a rigid linear limit on a vertical slider: free fall inside the range with both impulses exactly
 *        0, then at rest on the lower end with its impulse m g h and the upper's 0; thrown up, the upper
 *        end stops it and lets it fall again (never a pull: every impulse >= 0), by apgd and by nbgs;
 *   ranges that cannot be are refused with the reason.
 */
#include "../common/check.h"

static const PetscReal zaxis[3] = {0, 0, 1}, origin[3] = {0, 0, 0};

static PetscErrorCode Step(TalusSim sim, TalusBodyRecord *rec, PetscInt id)
{
  TalusStepStats st;

  PetscFunctionBegin;
  PetscCall(TalusSimStep(sim, &st));
  CHECK(st.reason > 0, "step %" PetscInt_FMT " did not converge (residual %g)", st.step, (double)st.residual);
  PetscCall(TestGetBody(sim, id, rec));
  PetscFunctionReturn(0);
}

/* The impulses of joint j's two rows (lower, upper), the same on every rank after a step */
static PetscErrorCode LimitImpulses(TalusSim sim, PetscInt j, PetscReal impulse[2])
{
  const PetscInt  *start;
  const PetscReal *all;

  PetscFunctionBegin;
  PetscCall(TalusSimGetJoints(sim, NULL, NULL, &start, &all));
  impulse[0] = all[start[j]], impulse[1] = all[start[j] + 1];
  PetscFunctionReturn(0);
}

/* Implicit Euler of one compliant one-sided row with B = 0 entered at x = 0 with speed -1, in units of
   x h: the speed it leaves with (the recurrence of seed 004 eq. 13-14 with lambda = max(0, -K x1)) */
static PetscReal ImplicitEulerRebound(PetscReal hw)
{
  PetscReal x = 0.0, v = -1.0;

  for (int s = 0; s < 100000; s++) {
    if (x + v >= 0.0) return v; /* free: x + h v >= 0 (x in units of h) */
    v = (v - hw * hw * x) / (1.0 + hw * hw);
    x += v;
  }
  return PETSC_MAX_REAL;
}

/* S4-5: a 1 kg sphere (r = 0.1 m) 1 m from a rigid pin about z at the origin, its angle limited to
   [0, 1] rad by a compliant limit, started at angle 0 turning at -1 rad/s; the time step makes
   h sqrt(K/M) = hw. Returns the angular speed it leaves with (rad/s). */
static PetscErrorCode Rebound(PetscReal hw, PetscReal lookahead, PetscReal *ratio)
{
  const PetscReal K = 1e12, M = 1.0 + 0.4 * 0.01, size[3] = {0.1, 0, 0}, p[3] = {1, 0, 0}, none[3] = {0, 0, 0};
  const PetscReal h = hw / PetscSqrtReal(K / M);
  TalusSim        sim;
  TalusBodies    *b;
  TalusBodyRecord rec;
  PetscInt        k;
  PetscReal       impulse[2] = {0, 0}, least = 0.0;
  TalusJointSpec  pin = {
     .type = TALUS_JOINT_REVOLUTE, .body = {TALUS_WORLD, 0}
  };
  TalusJointSpec limit = {
    .type      = TALUS_JOINT_ANGLE_LIMIT,
    .body      = {TALUS_WORLD, 0},
    .lower     = 0.0,
    .upper     = 1.0,
    .stiffness = K,
    .damping   = 0.0
  };

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.01, 0.0, 1e-14, &sim));
  PetscCall(TalusSimSetJointLookahead(sim, lookahead));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, size, 1.0, 0, PETSC_FALSE, p, &k));
  b->omega[3 * k + 2] = -1.0, b->velocity[3 * k + 1] = -1.0; /* w x r for r = (1, 0, 0) */
  for (int d = 0; d < 3; d++) pin.point[0][d] = pin.point[1][d] = limit.point[0][d] = limit.point[1][d] = origin[d];
  for (int d = 0; d < 3; d++) pin.axis[d] = limit.axis[d] = zaxis[d];
  PetscCall(TalusSimAddJoint(sim, &pin, NULL));
  PetscCall(TalusSimAddJoint(sim, &limit, NULL));
  *ratio = PETSC_MAX_REAL;
  for (PetscInt s = 0; s < (PetscInt)(20.0 / hw) + 20; s++) {
    PetscCall(Step(sim, &rec, 0));
    PetscCall(LimitImpulses(sim, 1, impulse));
    least = PetscMin(least, PetscMin(impulse[0], impulse[1]));
    if (!(PetscAbsReal(rec.omega[2]) < 2.0)) break; /* NaN, or gaining speed */
    if (impulse[0] == 0.0 && rec.omega[2] > 0.0) {  /* gone: the row let go */
      *ratio = rec.omega[2];
      break;
    }
  }
  CHECK(least >= 0.0, "S4-5 h sqrt(K/M) = %g: a limit impulse of %g (they are >= 0)", (double)hw, (double)least);
  CHECK(impulse[1] == 0.0, "S4-5: the upper end, 1 rad away, pushed (%g)", (double)impulse[1]);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReboundCurve(void)
{
  const PetscReal hw[]    = {0.1, 0.3, 1.0, 10.0, 1e3, 1e4};
  const PetscReal note[]  = {0.856, 0.633, 0.250, 0.0097, 0.0, 0.0}; /* the formulations note, sec. 3 (5.4) */
  const PetscReal slack[] = {0.01, 0.01, 0.01, 0.0003, 0.01, 0.01};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
    const PetscReal expected = ImplicitEulerRebound(hw[i]);
    PetscReal       ratio = PETSC_MAX_REAL, seed000 = PETSC_MAX_REAL;
    /* the recurrence is exact with the rigid pin's rows at q^l (seed 000); at the step's predicted end (the
       default) the pin's rows carry the centripetal term, which moves the rebound by O(h^2) */
    PetscCall(Rebound(hw[i], 0.0, &seed000));
    PetscCall(Rebound(hw[i], 1.0, &ratio));
    CHECK(PetscAbsReal(seed000 - expected) < 1e-6, "S4-5 h sqrt(K/M) = %g: rebound %.9f, implicit Euler %.9f",
          (double)hw[i], (double)seed000, (double)expected);
    CHECK(PetscAbsReal(ratio - note[i]) <= slack[i] && (hw[i] < 10.0 || ratio < 0.01),
          "S4-5 h sqrt(K/M) = %g: rebound %.4f, the note's %.4f", (double)hw[i], (double)ratio, (double)note[i]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "S4-5 h sqrt(K/M) = %g: rebound %.6f (implicit Euler %.6f, note %.4f)\n",
                          (double)hw[i], (double)ratio, (double)expected, (double)note[i]));
  }
  PetscFunctionReturn(0);
}

/* A 2 kg box on a vertical prismatic joint to the world, its displacement limited to [-0.5, 0.5] m by a
   rigid linear limit, g = -9.81 along the axis, h = 1e-3, started with vertical speed v0 */
static PetscErrorCode Slider(TaoType type, PetscReal v0, TalusSim *sim)
{
  const PetscReal g[3] = {0, 0, -9.81}, size[3] = {0.1, 0.1, 0.1};
  TalusBodies    *b;
  TalusCCP        ccp;
  Tao             tao;
  PetscInt        k;
  TalusJointSpec  rail = {
     .type = TALUS_JOINT_PRISMATIC, .body = {TALUS_WORLD, 0}
  };
  TalusJointSpec stop = {
    .type = TALUS_JOINT_LINEAR_LIMIT, .body = {TALUS_WORLD, 0},
         .lower = -0.5, .upper = 0.5
  };

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, g, 1e-3, 0.01, 0.0, 1e-13, sim));
  PetscCall(TalusSimGetCCP(*sim, &ccp));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetType(tao, type));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_BOX, size, 2.0, 0, PETSC_FALSE, origin, &k));
  b->velocity[3 * k + 2] = v0;
  for (int d = 0; d < 3; d++) rail.axis[d] = stop.axis[d] = zaxis[d];
  PetscCall(TalusSimAddJoint(*sim, &rail, NULL));
  PetscCall(TalusSimAddJoint(*sim, &stop, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode SliderRests(TaoType type)
{
  const PetscReal h = 1e-3, g = 9.81, m = 2.0;
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       impulse[2], inside = 0.0, fall = 0.0;

  PetscFunctionBegin;
  PetscCall(Slider(type, 0.0, &sim));
  for (PetscInt s = 1; s <= 1000; s++) {
    PetscCall(Step(sim, &rec, 0));
    PetscCall(LimitImpulses(sim, 1, impulse));
    if (s <= 300) { /* 0.44 m of free fall: symplectic Euler's z_n = -g h^2 n (n + 1) / 2 */
      inside = PetscMax(inside, PetscMax(PetscAbsReal(impulse[0]), PetscAbsReal(impulse[1])));
      fall   = PetscMax(fall, PetscAbsReal(rec.position[2] + g * h * h * s * (s + 1) / 2.0));
    }
  }
  CHECK(inside == 0.0 && fall < 1e-12, "%s slider: inside the range, limit impulses up to %g, fall off by %g m", type,
        (double)inside, (double)fall);
  CHECK(PetscAbsReal(rec.position[2] + 0.5) < 1e-9 && PetscAbsReal(rec.velocity[2]) < 1e-9,
        "%s slider: rests at z = %.12g m, v = %g (the lower end -0.5)", type, (double)rec.position[2],
        (double)rec.velocity[2]);
  CHECK(PetscAbsReal(impulse[0] / (m * g * h) - 1.0) < 1e-8 && impulse[1] == 0.0,
        "%s slider: lower end's impulse %.12g N s (m g h = %g), upper's %g", type, (double)impulse[0], m * g * h,
        (double)impulse[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s slider: rests at %.12f m, lower end impulse / (m g h) = %.10f\n", type,
                        (double)rec.position[2], (double)(impulse[0] / (m * g * h))));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* thrown up at 5 m/s: it would rise 1.27 m; the upper end stops it at 0.5 and it falls back, never pulled */
static PetscErrorCode SliderStopsAtTop(void)
{
  TalusSim        sim;
  TalusBodyRecord rec;
  PetscReal       impulse[2], least = 0.0, highest = -1.0, pushed = 0.0;

  PetscFunctionBegin;
  PetscCall(Slider(TAOAPGD, 5.0, &sim));
  for (PetscInt s = 1; s <= 500; s++) {
    PetscCall(Step(sim, &rec, 0));
    PetscCall(LimitImpulses(sim, 1, impulse));
    least   = PetscMin(least, PetscMin(impulse[0], impulse[1]));
    highest = PetscMax(highest, rec.position[2]);
    pushed  = PetscMax(pushed, impulse[1]);
  }
  CHECK(least >= 0.0, "thrown slider: a limit impulse of %g (they are >= 0)", (double)least);
  CHECK(highest <= 0.5 + 1e-9 && highest > 0.49, "thrown slider: highest %g m (the upper end 0.5)", (double)highest);
  CHECK(pushed > 0.0 && impulse[1] == 0.0 && rec.velocity[2] < 0.0,
        "thrown slider: the upper end pushed at most %g N s and now %g; falling at %g m/s", (double)pushed,
        (double)impulse[1], (double)rec.velocity[2]);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* what a limit spec cannot be: a range upside down, an angle outside [-pi, pi], an infinite end */
static PetscErrorCode Refused(void)
{
  const PetscReal      none[3] = {0, 0, 0}, size[3] = {0.1, 0, 0};
  const PetscReal      lower[] = {0.5, -4.0, -PETSC_INFINITY, 0.0}, upper[] = {0.0, 0.0, 0.0, 0.0};
  const TalusJointType type[] = {TALUS_JOINT_LINEAR_LIMIT, TALUS_JOINT_ANGLE_LIMIT, TALUS_JOINT_LINEAR_LIMIT,
                                 TALUS_JOINT_ANGLE_LIMIT};
  TalusSim             sim;
  TalusBodies         *b;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, 1e-3, 0.01, 0.0, 1e-10, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, size, 1.0, 0, PETSC_FALSE, origin, NULL));
  for (size_t i = 0; i < sizeof(type) / sizeof(type[0]); i++) {
    TalusJointSpec s = {
      .type = type[i], .body = {TALUS_WORLD, 0},
           .lower = lower[i], .upper = upper[i]
    };
    const char *why;
    for (int d = 0; d < 3; d++) s.axis[d] = zaxis[d];
    PetscCall(TalusSimCheckJoint(sim, &s, &why));
    if (i < 3)
      CHECK(why && strstr(why, "lower <= upper"), "limit %zu: refused with \"%s\"", i, why ? why : "(nothing)");
    else CHECK(!why, "limit [0, 0] (a locked angle) refused: %s", why);
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(ReboundCurve());
  PetscCall(SliderRests(TAOAPGD));
  PetscCall(SliderRests(TAONBGS));
  PetscCall(SliderStopsAtTop());
  PetscCall(Refused());
  {
    int status = TestSummary("test_joint_limits");
    PetscCall(TalusFinalize());
    return status;
  }
}
