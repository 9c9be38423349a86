/*
 * One contact's Coulomb problem solved exactly (TalusCoulombLocalSolve, coulomb_local.c):
 *   - the ball on a plane of seed 001 section 3.1 (W = diag(1/m, 3.5/m, 3.5/m)): separating, sticking
 *     and sliding cases against their closed forms;
 *   - 20,000 random blocks (SPD, with normal-tangent coupling and tangential anisotropy up to 100, mu
 *     from 0 to 2, q of any direction): the answer satisfies De Saxce's conditions to rounding, r in K,
 *     u + mu ||u_t|| e_n in K*, r . (u + mu ||u_t|| e_n) = 0, and the case it reports is the one it is.
 */
#include "../common/check.h"

static PetscReal Uniform(unsigned *state, PetscReal lo, PetscReal hi)
{
  *state = *state * 1103515245u + 12345u;
  return lo + (hi - lo) * (PetscReal)((*state >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

/* The largest violation of the three conditions, relative to the size of r and u. */
static PetscReal Violation(const PetscReal W[9], const PetscReal q[3], PetscReal mu, const PetscReal r[3])
{
  PetscReal u[3], v[3], rt, vt, scale_r, scale_u, worst;

  for (int i = 0; i < 3; i++) u[i] = W[3 * i] * r[0] + W[3 * i + 1] * r[1] + W[3 * i + 2] * r[2] + q[i];
  v[0] = u[0] + mu * PetscSqrtReal(u[1] * u[1] + u[2] * u[2]), v[1] = u[1], v[2] = u[2];
  rt      = PetscSqrtReal(r[1] * r[1] + r[2] * r[2]);
  vt      = PetscSqrtReal(v[1] * v[1] + v[2] * v[2]);
  scale_r = PetscMax(1e-300, PetscSqrtReal(r[0] * r[0] + rt * rt));
  scale_u = PetscMax(PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]), 1e-300);
  worst   = PetscMax(0.0, rt - mu * r[0]) / scale_r;                  /* r in K */
  worst   = PetscMax(worst, PetscMax(0.0, mu * vt - v[0]) / scale_u); /* v in K* */
  worst   = PetscMax(worst, PetscMax(0.0, -r[0]) / scale_r);
  worst   = PetscMax(worst, PetscAbsReal(r[0] * v[0] + r[1] * v[1] + r[2] * v[2]) / (scale_r * scale_u));
  return worst;
}

int main(int argc, char **argv)
{
  const PetscReal ball[9] = {1, 0, 0, 0, 3.5, 0, 0, 0, 3.5}, gh = 0.0981, mu_ball = 0.2;
  PetscReal       r[3], worst = 0.0;
  PetscInt        counts[3] = {0, 0, 0}, wrong_case = 0;
  unsigned        seed = 12345u;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  { /* separating: the ball moves up */
    const PetscReal q[3] = {0.1, 2.0, 0.0};
    CHECK(TalusCoulombLocalSolve(ball, q, mu_ball, r) == TALUS_CONTACT_SEPARATE && r[0] == 0.0 && r[1] == 0.0,
          "separating ball: r = (%g, %g, %g)", (double)r[0], (double)r[1], (double)r[2]);
  }
  { /* sliding at 2 m/s: r_n = g h, r_t = -mu g h along the slip */
    const PetscReal q[3] = {-gh, 2.0, 0.0};
    CHECK(TalusCoulombLocalSolve(ball, q, mu_ball, r) == TALUS_CONTACT_SLIDE, "sliding ball: not sliding");
    CHECK(PetscAbsReal(r[0] - gh) < 1e-15 && PetscAbsReal(r[1] + mu_ball * gh) < 1e-15 && PetscAbsReal(r[2]) < 1e-15,
          "sliding ball: r = (%.17g, %.17g, %.17g), expected (%g, %g, 0)", (double)r[0], (double)r[1], (double)r[2],
          (double)gh, (double)(-mu_ball * gh));
  }
  { /* slipping slowly, diagonally: friction stops it, r = -W^-1 q */
    const PetscReal q[3] = {-gh, 0.003, -0.004};
    CHECK(TalusCoulombLocalSolve(ball, q, mu_ball, r) == TALUS_CONTACT_STICK, "slow ball: not sticking");
    CHECK(PetscAbsReal(r[0] - gh) < 1e-15 && PetscAbsReal(r[1] + 0.003 / 3.5) < 1e-15 &&
            PetscAbsReal(r[2] - 0.004 / 3.5) < 1e-15,
          "slow ball: r = (%g, %g, %g)", (double)r[0], (double)r[1], (double)r[2]);
  }
  for (PetscInt trial = 0; trial < 20000; trial++) {
    /* W = R^T diag(d) R + coupling: an SPD block with a random frame, anisotropy and normal-tangent terms */
    PetscReal W[9], A[9], q[3], mu = trial % 10 == 0 ? 0.0 : Uniform(&seed, 0.0, 2.0), d[3], axis[3], angle;
    d[0] = Uniform(&seed, 0.1, 10.0), d[1] = d[0] * Uniform(&seed, 0.3, 10.0), d[2] = d[1] * Uniform(&seed, 0.1, 10.0);
    if (trial % 6 == 0) d[2] = d[1]; /* with no coupling below: diag(a, b, b), a sphere's block (closed form) */
    for (int k = 0; k < 3; k++) axis[k] = Uniform(&seed, -1.0, 1.0);
    angle = Uniform(&seed, 0.0, trial % 3 == 0 ? 0.0 : 1.0); /* a third of them without coupling */
    {
      const PetscReal n = PetscMax(1e-12, PetscSqrtReal(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]));
      PetscReal       quat[4] = {PetscCosReal(angle / 2), 0, 0, 0};
      for (int k = 0; k < 3; k++) quat[1 + k] = PetscSinReal(angle / 2) * axis[k] / n;
      TalusQuatToMatrix(quat, A);
    }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        W[3 * i + j] = 0.0;
        for (int k = 0; k < 3; k++) W[3 * i + j] += A[3 * k + i] * d[k] * A[3 * k + j];
      }
    for (int k = 0; k < 3; k++) q[k] = Uniform(&seed, -1.0, 1.0);
    {
      const TalusContactState state = TalusCoulombLocalSolve(W, q, mu, r);
      const PetscReal         v     = Violation(W, q, mu, r);
      PetscReal               u[3];
      for (int i = 0; i < 3; i++) u[i] = W[3 * i] * r[0] + W[3 * i + 1] * r[1] + W[3 * i + 2] * r[2] + q[i];
      worst = PetscMax(worst, v);
      counts[state]++;
      if (state == TALUS_CONTACT_SEPARATE && (r[0] != 0.0 || u[0] < 0.0)) wrong_case++;
      if (state == TALUS_CONTACT_STICK && PetscSqrtReal(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) > 1e-12) wrong_case++;
      if (state == TALUS_CONTACT_SLIDE && mu > 0.0 && PetscAbsReal(u[0]) > 1e-12) wrong_case++;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  20000 random blocks: %" PetscInt_FMT " separate, %" PetscInt_FMT " stick, %" PetscInt_FMT
                        " slide; largest violation of De Saxce's conditions %.2e\n",
                        counts[0], counts[1], counts[2], (double)worst));
  CHECK(counts[0] > 1000 && counts[1] > 1000 && counts[2] > 1000, "the random blocks did not cover the three cases");
  CHECK(worst < 1e-12, "De Saxce's conditions violated by %g (relative)", (double)worst);
  CHECK(wrong_case == 0, "%" PetscInt_FMT " answers are not the case they report", wrong_case);
  int status = TestSummary("test_coulomb_local");
  PetscCall(TalusFinalize());
  return status;
}
