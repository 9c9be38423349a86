/*
 * The Lorentz cone's algebra for the interior-point method (see lorentz.h).
 */
#include "lorentz.h"

static PetscReal JNorm2Inside(const PetscReal x[3]);

void TalusLorentzProduct(const PetscReal a[3], const PetscReal b[3], PetscReal out[3])
{
  out[0] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  out[1] = a[0] * b[1] + b[0] * a[1];
  out[2] = a[0] * b[2] + b[0] * a[2];
}

/* The arrow matrix [a0 a1^T; a1 a0 I] inverted in closed form: y0 = (a0 d0 - a1 . d1) / (a0^2 - |a1|^2),
   y1 = (d1 - y0 a1) / a0. */
void TalusLorentzDivide(const PetscReal a[3], const PetscReal d[3], PetscReal y[3])
{
  const PetscReal det = JNorm2Inside(a);

  y[0] = (a[0] * d[0] - a[1] * d[1] - a[2] * d[2]) / det;
  y[1] = (d[1] - y[0] * a[1]) / a[0];
  y[2] = (d[2] - y[0] * a[2]) / a[0];
}

/* x^T J x computed as (x0 - |x1|)(x0 + |x1|), which keeps its relative accuracy near the boundary */
static PetscReal JNorm2(const PetscReal x[3])
{
  const PetscReal t = PetscSqrtReal(x[1] * x[1] + x[2] * x[2]);
  return (x[0] - t) * (x[0] + t);
}

/* The same for a point of the interior that rounding may have put on (or over) the boundary: at least
   (eps x0)^2, so that the scaling stays finite and positive definite there */
static PetscReal JNorm2Inside(const PetscReal x[3])
{
  return PetscMax(JNorm2(x), PetscSqr(PETSC_MACHINE_EPSILON * x[0]));
}

void TalusLorentzScaling(const PetscReal x[3], const PetscReal s[3], PetscReal W[9], PetscReal Winv[9],
                         PetscReal lambda[3])
{
  const PetscReal xn = PetscSqrtReal(JNorm2Inside(x)), sn = PetscSqrtReal(JNorm2Inside(s));
  const PetscReal xb[3] = {x[0] / xn, x[1] / xn, x[2] / xn}, sb[3] = {s[0] / sn, s[1] / sn, s[2] / sn};
  /* x_bar . s_bar >= 1 for points of L (x . s >= sqrt(x^T J x) sqrt(s^T J s)); formed from x . s, not from
     the normalised points, which are huge where a point lies on the boundary */
  const PetscReal xs    = (x[0] * s[0] + x[1] * s[1] + x[2] * s[2]) / (xn * sn);
  const PetscReal gamma = PetscSqrtReal(0.5 * (1.0 + PetscMax(xs, 1.0)));
  const PetscReal beta  = PetscSqrtReal(sn / xn);
  /* w = (s_bar + J x_bar) / (2 gamma), the scaling point of the normalised pair (w^T J w = 1), and
     W = beta (2 v v^T - J) with v = (w + e) / sqrt(2 (w0 + 1)), v^T J v = 1 */
  const PetscReal w[3]  = {(sb[0] + xb[0]) / (2.0 * gamma), (sb[1] - xb[1]) / (2.0 * gamma),
                           (sb[2] - xb[2]) / (2.0 * gamma)};
  const PetscReal nv    = PetscSqrtReal(2.0 * (w[0] + 1.0));
  const PetscReal v[3]  = {(w[0] + 1.0) / nv, w[1] / nv, w[2] / nv};
  const PetscReal Jv[3] = {v[0], -v[1], -v[2]};
  const PetscReal J[3]  = {1.0, -1.0, -1.0};

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const PetscReal Jij = i == j ? J[i] : 0.0;
      W[3 * i + j]        = beta * (2.0 * v[i] * v[j] - Jij);
      Winv[3 * i + j]     = (2.0 * Jv[i] * Jv[j] - Jij) / beta;
    }
  for (int i = 0; i < 3; i++) lambda[i] = W[3 * i] * x[0] + W[3 * i + 1] * x[1] + W[3 * i + 2] * x[2];
}

/*
 * x + alpha d stays in L while q(alpha) = (x0 + alpha d0)^2 - |x1 + alpha d1|^2 >= 0 (and the first
 * entry >= 0, which cannot fail before q does, as the path would cross the apex, a root of q):
 * q(alpha) = a alpha^2 + 2 b alpha + c with c > 0, so the answer is q's smallest positive root.
 */
PetscReal TalusLorentzMaxStep(const PetscReal x[3], const PetscReal d[3])
{
  const PetscReal a = JNorm2(d), b = x[0] * d[0] - x[1] * d[1] - x[2] * d[2], c = JNorm2(x);
  const PetscReal disc = b * b - a * c;
  PetscReal       roots[2], best = PETSC_INFINITY;

  if (a == 0.0) return b < 0.0 ? -c / (2.0 * b) : PETSC_INFINITY;
  if (disc < 0.0) return PETSC_INFINITY; /* a > 0 here: q has no root and stays positive */
  {
    /* the two roots without cancellation: t = -(b + sign(b) sqrt(disc)), roots t / a and c / t */
    const PetscReal t = -(b + (b >= 0.0 ? 1.0 : -1.0) * PetscSqrtReal(disc));
    roots[0]          = t / a;
    roots[1]          = t != 0.0 ? c / t : PETSC_INFINITY;
  }
  for (int i = 0; i < 2; i++)
    if (roots[i] > 0.0 && roots[i] < best) best = roots[i];
  /* x0 + alpha d0 < 0 before any root is impossible for c > 0; d pointing into L (d0 >= |d1|) has none */
  return best;
}
