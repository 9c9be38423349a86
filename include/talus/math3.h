/*
 * Small 3-vector, 3x3 matrix and unit-quaternion helpers for the rigid-body code.
 * Quaternions are Euler parameters e = (e0, e1, e2, e3), e0 the scalar part (seed 000 sec. 1);
 * A(e) rotates body-frame vectors into the world frame.
 */
#ifndef TALUS_MATH3_H
#define TALUS_MATH3_H
#include <petscsys.h>
/* The solver layer is built with TALUS_SOLVER_LAYER (meson.build) and must not see bodies or shapes. */
#ifdef TALUS_SOLVER_LAYER
  #error "the solver layer (src/solver) must not include the simulator's headers"
#endif

static inline PetscReal TalusDot3(const PetscReal a[3], const PetscReal b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void TalusCross3(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  const PetscReal c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
  c[0] = c0, c[1] = c1, c[2] = c2;
}

static inline PetscReal TalusNorm3(const PetscReal a[3])
{
  return PetscSqrtReal(TalusDot3(a, a));
}

/* The rotation matrix A(e), row-major. */
static inline void TalusQuatToMatrix(const PetscReal e[4], PetscReal A[9])
{
  const PetscReal e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
  A[0] = 2 * (e0 * e0 + e1 * e1) - 1, A[1] = 2 * (e1 * e2 - e0 * e3), A[2] = 2 * (e1 * e3 + e0 * e2);
  A[3] = 2 * (e1 * e2 + e0 * e3), A[4] = 2 * (e0 * e0 + e2 * e2) - 1, A[5] = 2 * (e2 * e3 - e0 * e1);
  A[6] = 2 * (e1 * e3 - e0 * e2), A[7] = 2 * (e2 * e3 + e0 * e1), A[8] = 2 * (e0 * e0 + e3 * e3) - 1;
}

/* world = A body */
static inline void TalusRotate(const PetscReal A[9], const PetscReal body[3], PetscReal world[3])
{
  const PetscReal x = body[0], y = body[1], z = body[2];
  world[0] = A[0] * x + A[1] * y + A[2] * z;
  world[1] = A[3] * x + A[4] * y + A[5] * z;
  world[2] = A[6] * x + A[7] * y + A[8] * z;
}

/* body = A^T world */
static inline void TalusRotateBack(const PetscReal A[9], const PetscReal world[3], PetscReal body[3])
{
  const PetscReal x = world[0], y = world[1], z = world[2];
  body[0] = A[0] * x + A[3] * y + A[6] * z;
  body[1] = A[1] * x + A[4] * y + A[7] * z;
  body[2] = A[2] * x + A[5] * y + A[8] * z;
}

/* c = a * b (Hamilton product) */
static inline void TalusQuatMultiply(const PetscReal a[4], const PetscReal b[4], PetscReal c[4])
{
  const PetscReal c0 = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  const PetscReal c1 = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  const PetscReal c2 = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  const PetscReal c3 = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  c[0] = c0, c[1] = c1, c[2] = c2, c[3] = c3;
}

static inline void TalusQuatNormalize(PetscReal e[4])
{
  const PetscReal n = PetscSqrtReal(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
  for (int k = 0; k < 4; k++) e[k] /= n;
}

/*
 * Advances the orientation by the exact rotation of angle h |omega| about omega, with omega the
 * angular velocity in the body frame (seed 000 eq. 9a with the Euler-parameter kinematics): the
 * increment is a rotation in body coordinates, so it multiplies on the right. Renormalised.
 */
static inline void TalusQuatIntegrate(PetscReal e[4], const PetscReal omega_body[3], PetscReal h)
{
  const PetscReal w = TalusNorm3(omega_body), angle = h * w;
  PetscReal       dq[4];

  if (w == 0.0) return;
  dq[0] = PetscCosReal(0.5 * angle);
  for (int k = 0; k < 3; k++) dq[k + 1] = PetscSinReal(0.5 * angle) * omega_body[k] / w;
  TalusQuatMultiply(e, dq, e);
  TalusQuatNormalize(e);
}

/* Any unit vectors u, w completing n to a right-handed orthonormal frame {n, u, w}. */
static inline void TalusCompleteFrame(const PetscReal n[3], PetscReal u[3], PetscReal w[3])
{
  /* cross n with the axis it is least aligned with */
  PetscReal       a[3] = {0, 0, 0}, norm;
  const PetscReal ax = PetscAbsReal(n[0]), ay = PetscAbsReal(n[1]), az = PetscAbsReal(n[2]);
  if (ax <= ay && ax <= az) a[0] = 1;
  else if (ay <= az) a[1] = 1;
  else a[2] = 1;
  TalusCross3(n, a, u);
  norm = TalusNorm3(u);
  for (int k = 0; k < 3; k++) u[k] /= norm;
  TalusCross3(n, u, w);
}

#endif
