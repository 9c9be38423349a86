/*
 * One contact's Coulomb problem solved exactly (the local solver of a nonsmooth Gauss-Seidel):
 * given its 3 x 3 block W of the Delassus operator (SPD) and its linear term q (all other contacts'
 * impulses included), find r with u = W r + q and
 *     r in K = {||r_t|| <= mu r_n},   u + mu ||u_t|| e_n in K*,   r . (u + mu ||u_t|| e_n) = 0
 * (De Saxce's form of Coulomb's law, the problem FCLib calls the Coulomb problem). Its solution is one
 * of three (Acary, Bremond, Huber 2018, section 3):
 *   separate   r = 0, when q_n >= 0;
 *   stick      u = 0: r = -W^-1 q, when that r lies in K;
 *   slide      u_n = 0 and r_t = -mu r_n u_t / ||u_t||: r = r_n g(theta) with
 *              g = (1, -mu cos theta, -mu sin theta), r_n = -q_n / (W g)_n, and the slip
 *              u_t = r_n (W g)_t + q_t pointing along (cos theta, sin theta): a root in theta of
 *              the slip's misalignment with u_t . (cos theta, sin theta) > 0, found by sampling the
 *              circle outwards from the slip the sticking impulse failed to stop and refining the
 *              first usable sign change by regula falsi (Illinois) to rounding.
 */
#include <talus.h>

#define SLIP_SAMPLES     96
#define SLIP_REFINEMENTS 64

static void Mult3(const PetscReal W[9], const PetscReal x[3], PetscReal y[3])
{
  for (int i = 0; i < 3; i++) y[i] = W[3 * i] * x[0] + W[3 * i + 1] * x[1] + W[3 * i + 2] * x[2];
}

/*
 * For slip direction theta: (W g)_n, and the slip times (W g)_n, V = (W g)_n u_t = -q_n (W g)_t +
 * (W g)_n q_t, which unlike u_t is defined for every theta (a trigonometric polynomial of degree 2, so
 * it has at most four roots); its misalignment F = V . (-sin, cos) and its component A along the
 * direction. A solution is a root of F with (W g)_n > 0 (so r_n > 0) and A > 0.
 */
static void Slip(const PetscReal W[9], const PetscReal q[3], PetscReal mu, PetscReal theta, PetscReal *Wgn,
                 PetscReal *F, PetscReal *A)
{
  const PetscReal c = PetscCosReal(theta), s = PetscSinReal(theta);
  const PetscReal g[3] = {1.0, -mu * c, -mu * s};
  PetscReal       Wg[3], V[2];

  Mult3(W, g, Wg);
  V[0] = -q[0] * Wg[1] + Wg[0] * q[1], V[1] = -q[0] * Wg[2] + Wg[0] * q[2];
  *Wgn = Wg[0];
  *F   = -V[0] * s + V[1] * c;
  *A   = V[0] * c + V[1] * s;
}

/* The sliding solution in [lo, hi] if the misalignment changes sign there and the slip at its root
   points along the direction: the root by the Illinois variant of regula falsi (superlinear on a
   bracket, a few evaluations). */
static PetscBool SlideBetween(const PetscReal W[9], const PetscReal q[3], PetscReal mu, PetscReal lo, PetscReal hi,
                              PetscReal Flo, PetscReal Fhi, PetscReal r[3])
{
  PetscReal theta = lo, Fm = Flo, Wgn, A;
  int       side = 0;

  if ((Flo < 0.0 && Fhi < 0.0) || (Flo > 0.0 && Fhi > 0.0)) return PETSC_FALSE;
  for (int b = 0; b < SLIP_REFINEMENTS && hi - lo > 4.0 * PETSC_MACHINE_EPSILON; b++) {
    theta = Fhi != Flo ? (lo * Fhi - hi * Flo) / (Fhi - Flo) : 0.5 * (lo + hi);
    if (!(theta > lo && theta < hi)) theta = 0.5 * (lo + hi);
    Slip(W, q, mu, theta, &Wgn, &Fm, &A);
    if (Fm == 0.0) break;
    if ((Flo < 0.0) == (Fm < 0.0)) {
      lo = theta, Flo = Fm;
      if (side == -1) Fhi *= 0.5;
      side = -1;
    } else {
      hi = theta, Fhi = Fm;
      if (side == 1) Flo *= 0.5;
      side = 1;
    }
  }
  Slip(W, q, mu, theta, &Wgn, &Fm, &A);
  if (!(Wgn > 0.0 && A > 0.0)) return PETSC_FALSE; /* the slip points against the direction: not a solution */
  {
    const PetscReal rn = -q[0] / Wgn;
    r[0] = rn, r[1] = -mu * rn * PetscCosReal(theta), r[2] = -mu * rn * PetscSinReal(theta);
  }
  return PETSC_TRUE;
}

/* The solution of a 3 x 3 SPD system by Cramer's rule (the block is small and well away from singular
   for any contact with mass behind it). */
static PetscBool Solve3(const PetscReal W[9], const PetscReal b[3], PetscReal x[3])
{
  const PetscReal c0 = W[4] * W[8] - W[5] * W[7], c1 = W[5] * W[6] - W[3] * W[8], c2 = W[3] * W[7] - W[4] * W[6];
  const PetscReal det = W[0] * c0 + W[1] * c1 + W[2] * c2;
  if (!(PetscAbsReal(det) > 0.0)) return PETSC_FALSE;
  x[0] = (b[0] * c0 + b[1] * (W[2] * W[7] - W[1] * W[8]) + b[2] * (W[1] * W[5] - W[2] * W[4])) / det;
  x[1] = (b[0] * c1 + b[1] * (W[0] * W[8] - W[2] * W[6]) + b[2] * (W[2] * W[3] - W[0] * W[5])) / det;
  x[2] = (b[0] * c2 + b[1] * (W[1] * W[6] - W[0] * W[7]) + b[2] * (W[0] * W[4] - W[1] * W[3])) / det;
  return PETSC_TRUE;
}

/* W = diag(a, b, b) to rounding: a contact whose lever arms lie along its normal (spheres against
   spheres and planes). Then u_n = a r_n + q_n and u_t = b r_t + q_t: sticking needs |q_t| <= mu b r_n
   and sliding has r_t along -q_t, both in closed form. */
static PetscBool IsotropicDiagonal(const PetscReal W[9])
{
  const PetscReal tol = 1e-14 * (W[0] + W[4] + W[8]);
  return (PetscBool)(W[0] > 0.0 && W[4] > 0.0 && PetscAbsReal(W[1]) <= tol && PetscAbsReal(W[2]) <= tol &&
                     PetscAbsReal(W[3]) <= tol && PetscAbsReal(W[5]) <= tol && PetscAbsReal(W[6]) <= tol &&
                     PetscAbsReal(W[7]) <= tol && PetscAbsReal(W[4] - W[8]) <= tol);
}

TalusContactState TalusCoulombLocalSolve(const PetscReal W[9], const PetscReal q[3], PetscReal mu, PetscReal r[3])
{
  PetscReal minus_q[3] = {-q[0], -q[1], -q[2]}, stick[3] = {0.0, 0.0, 0.0};
  PetscBool solved;

  if (q[0] >= 0.0) {
    r[0] = r[1] = r[2] = 0.0;
    return TALUS_CONTACT_SEPARATE;
  }
  if (mu <= 0.0) { /* frictionless: the normal row alone, no tangential impulse */
    r[0] = W[0] > 0.0 ? -q[0] / W[0] : 0.0;
    r[1] = r[2] = 0.0;
    return TALUS_CONTACT_SLIDE;
  }
  if (IsotropicDiagonal(W)) { /* spheres: W = diag(a, b, b), and the slip is along -q_t */
    const PetscReal rn = -q[0] / W[0], t = PetscSqrtReal(q[1] * q[1] + q[2] * q[2]);
    r[0] = rn;
    if (t <= mu * rn * W[4]) {
      r[1] = -q[1] / W[4], r[2] = -q[2] / W[4];
      return TALUS_CONTACT_STICK;
    }
    r[1] = -mu * rn * q[1] / t, r[2] = -mu * rn * q[2] / t;
    return TALUS_CONTACT_SLIDE;
  }
  solved = Solve3(W, minus_q, stick);
  if (solved && stick[0] >= 0.0 && PetscSqrtReal(stick[1] * stick[1] + stick[2] * stick[2]) <= mu * stick[0]) {
    for (int k = 0; k < 3; k++) r[k] = stick[k];
    return TALUS_CONTACT_STICK;
  }
  { /* the slip direction: search outwards from the direction opposite to the sticking impulse's
       tangential part (the slip it failed to stop), both ways around the circle */
    const PetscReal h      = 2.0 * PETSC_PI / SLIP_SAMPLES;
    const PetscReal guess  = solved ? PetscAtan2Real(-stick[2], -stick[1]) : PetscAtan2Real(q[2], q[1]);
    PetscReal       end[2] = {guess, guess}, Fend[2], Wgn, A;
    Slip(W, q, mu, guess, &Wgn, &Fend[0], &A);
    Fend[1] = Fend[0];
    for (int k = 0; k < SLIP_SAMPLES / 2; k++)
      for (int side = 0; side < 2; side++) {
        const PetscReal next = end[side] + (side ? -h : h);
        PetscReal       Fnext;
        Slip(W, q, mu, next, &Wgn, &Fnext, &A);
        if (side ? SlideBetween(W, q, mu, next, end[side], Fnext, Fend[side], r)
                 : SlideBetween(W, q, mu, end[side], next, Fend[side], Fnext, r))
          return TALUS_CONTACT_SLIDE;
        end[side] = next, Fend[side] = Fnext;
      }
  }
  /* no slip direction found (not seen with an SPD block): the closest admissible impulse to sticking
     (0 if the block is singular) */
  TalusProjectTriplet(mu, stick, r);
  return TALUS_CONTACT_SLIDE;
}
