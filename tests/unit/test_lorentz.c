/*
 * The Lorentz cone's algebra of the interior-point method (src/solver/lorentz.c), on 10,000 random
 * pairs of interior points (their distance to the boundary from 1e-12 to 1 of their size; W x = W^-1 s to 1e-6 of |lambda|
 * there, as the scaling's conditioning grows as the points near the boundary):
 *   - the Nesterov-Todd scaling: W x = W^-1 s (the defining property), W W^-1 = I, W symmetric
 *     positive definite, lambda = W x inside L;
 *   - the Jordan product's inverse: lambda o (lambda \ d) = d;
 *   - the longest step: x + alpha d on the boundary of L, x + alpha d / 2 inside, and no limit when d
 *     points into L;
 *   - points that rounding put on the boundary still give a finite scaling.
 */
#include "../common/check.h"
#include "../../src/solver/lorentz.h"

static PetscReal Uniform(unsigned *state, PetscReal lo, PetscReal hi)
{
  *state = *state * 1103515245u + 12345u;
  return lo + (hi - lo) * (PetscReal)((*state >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

/* A point inside L at relative distance 10^e from its boundary, e in [-12, 0] */
static void InteriorPoint(unsigned *state, PetscReal x[3])
{
  const PetscReal t = PetscPowReal(10.0, Uniform(state, 0.0, 3.0)), angle = Uniform(state, 0.0, 2.0 * PETSC_PI);
  const PetscReal gap = PetscPowReal(10.0, Uniform(state, -12.0, 0.0));
  x[0] = t * (1.0 + gap), x[1] = t * PetscCosReal(angle), x[2] = t * PetscSinReal(angle);
}

static PetscReal Gap(const PetscReal x[3])
{
  return x[0] - PetscSqrtReal(x[1] * x[1] + x[2] * x[2]);
}

static void MatVec(const PetscReal A[9], const PetscReal x[3], PetscReal y[3])
{
  for (int i = 0; i < 3; i++) y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

static PetscReal Norm(const PetscReal x[3])
{
  return PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

/* The smallest eigenvalue's sign of a symmetric 3 x 3 matrix by its leading minors (Sylvester) */
static PetscBool PositiveDefinite(const PetscReal A[9])
{
  const PetscReal m1 = A[0], m2 = A[0] * A[4] - A[1] * A[3];
  const PetscReal m3 = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                       A[2] * (A[3] * A[7] - A[4] * A[6]);
  return (PetscBool)(m1 > 0.0 && m2 > 0.0 && m3 > 0.0);
}

int main(int argc, char **argv)
{
  unsigned  state    = 7;
  PetscReal worst_nt = 0.0, worst_inv = 0.0, worst_sym = 0.0, worst_div = 0.0, worst_step = 0.0;
  PetscInt  not_pd = 0, lambda_out = 0, step_inside_bad = 0, into_cone_limited = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int k = 0; k < 10000; k++) {
    PetscReal x[3], s[3], W[9], Winv[9], lambda[3], a[3], b[3], d[3], y[3], back[3];
    InteriorPoint(&state, x);
    InteriorPoint(&state, s);
    TalusLorentzScaling(x, s, W, Winv, lambda);
    MatVec(W, x, a);
    MatVec(Winv, s, b);
    for (int i = 0; i < 3; i++) worst_nt = PetscMax(worst_nt, PetscAbsReal(a[i] - b[i]) / Norm(lambda));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        const PetscReal p = W[3 * i] * Winv[j] + W[3 * i + 1] * Winv[3 + j] + W[3 * i + 2] * Winv[6 + j];
        worst_inv         = PetscMax(worst_inv, PetscAbsReal(p - (i == j ? 1.0 : 0.0)));
        worst_sym         = PetscMax(worst_sym, PetscAbsReal(W[3 * i + j] - W[3 * j + i]) / PetscAbsReal(W[0]));
      }
    not_pd += !PositiveDefinite(W);
    lambda_out += Gap(lambda) < -1e-12 * Norm(lambda);
    /* the Jordan product's inverse, with lambda well inside L (as in the method) */
    for (int i = 0; i < 3; i++) d[i] = Uniform(&state, -1.0, 1.0);
    {
      const PetscReal l[3] = {2.0 + Uniform(&state, 0.0, 1.0), Uniform(&state, -1.0, 1.0), Uniform(&state, -1.0, 1.0)};
      TalusLorentzDivide(l, d, y);
      TalusLorentzProduct(l, y, back);
      for (int i = 0; i < 3; i++) worst_div = PetscMax(worst_div, PetscAbsReal(back[i] - d[i]));
    }
    /* the longest step from x along d: x + alpha d on the boundary (relative to its size), halfway inside */
    {
      const PetscReal alpha = TalusLorentzMaxStep(x, d);
      if (alpha < PETSC_INFINITY) {
        PetscReal end[3], half[3];
        for (int i = 0; i < 3; i++) end[i] = x[i] + alpha * d[i], half[i] = x[i] + 0.5 * alpha * d[i];
        worst_step = PetscMax(worst_step, PetscAbsReal(Gap(end)) / PetscMax(Norm(x), alpha * Norm(d)));
        step_inside_bad += Gap(half) <= 0.0;
      }
    }
    {
      const PetscReal into[3] = {2.0 * Norm(d) + 1.0, d[1], d[2]};
      into_cone_limited += TalusLorentzMaxStep(x, into) < PETSC_INFINITY;
    }
  }
  CHECK(worst_nt < 1e-6, "W x = W^-1 s: largest difference %g of |lambda|", (double)worst_nt);
  CHECK(worst_inv < 1e-6, "W W^-1 = I: largest error %g", (double)worst_inv);
  CHECK(worst_sym < 1e-12, "W symmetric: largest asymmetry %g", (double)worst_sym);
  CHECK(not_pd == 0, "W positive definite: %d of 10000 are not", (int)not_pd);
  CHECK(lambda_out == 0, "lambda = W x inside L: %d of 10000 are not", (int)lambda_out);
  CHECK(worst_div < 1e-12, "lambda o (lambda \\ d) = d: largest error %g", (double)worst_div);
  CHECK(worst_step < 1e-9, "x + alpha d on the boundary: largest relative gap %g", (double)worst_step);
  CHECK(step_inside_bad == 0, "x + alpha d / 2 inside L: %d of 10000 are not", (int)step_inside_bad);
  CHECK(into_cone_limited == 0, "a direction into L has no step limit: %d of 10000 have one", (int)into_cone_limited);
  /* a pair that rounding put on the boundary (x0 = |x1|): the scaling stays finite and definite */
  {
    const PetscReal x[3] = {5.0, 3.0, 4.0}, s[3] = {1.0, -0.6, -0.8};
    PetscReal       W[9], Winv[9], lambda[3];
    PetscBool       finite = PETSC_TRUE;
    TalusLorentzScaling(x, s, W, Winv, lambda);
    for (int i = 0; i < 9; i++)
      finite = (PetscBool)(finite && !PetscIsInfOrNanReal(W[i]) && !PetscIsInfOrNanReal(Winv[i]));
    CHECK(finite, "a pair on the boundary: W finite");
    /* (positive definite it is not, numerically: both points on the boundary and complementary make W
       rank one to rounding; the Newton matrix takes W^2, semidefinite whatever W) */
  }
  {
    const int status = TestSummary("lorentz");
    PetscCall(PetscFinalize());
    return status;
  }
}
