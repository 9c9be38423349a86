/*
 * One row block of the regularised (compliant) contact problem in its primal form, as Drake's SAP
 * poses it: a contact whose relative velocity is vc (normal first, then the two tangents; vc = B v + q,
 * the linear term q holding the stabilisation b) and whose regularisation is R = diag(Rn, Rt, Rt)
 * (the E of seed 004 eq. 60 and of the near-rigid floor) carries the impulse
 *     gamma = P_F(y),  y = -R^-1 vc,
 * the projection onto the friction cone F = {||gamma_t|| <= mu gamma_n} in the norm ||x||_R^2 = x.R x.
 * Its energy l(vc) = 1/2 gamma.R gamma is convex and once differentiable, with dl/dvc = -gamma and the
 * Hessian G = -d gamma / d vc = (d P / d y) R^-1 (symmetric, positive semi-definite), so that
 *     min_v 1/2 (v - v_free).M (v - v_free) + sum_c l_c(B_c v + q_c)
 * is the dual of the relaxed cone problem min 1/2 r.(N + R) r + q.r, r in F (docs/solver.md).
 * Non-negative rows (joint limits) and free rows (joints) are the 1-D cases gamma = max(0, -vc / R) and
 * gamma = -vc / R.
 */
#ifndef TALUS_SAP_CONTACT_H
#define TALUS_SAP_CONTACT_H
#include <petscsys.h>

/* Which part of the cone's neighbourhood y lies in: gamma = y, gamma = 0, or gamma on the cone's surface */
typedef enum {
  TALUS_SAP_STICK,
  TALUS_SAP_SEPARATE,
  TALUS_SAP_SLIDE
} TalusSAPRegion;

/* gamma, the energy l and (G not NULL) the 3 x 3 Hessian row by row of one cone; mu >= 0, Rn > 0, and
   Rt > 0 unless mu = 0 (a frictionless contact's tangents carry nothing whatever Rt is). */
PETSC_INTERN TalusSAPRegion TalusSAPCone(PetscReal mu, PetscReal Rn, PetscReal Rt, const PetscReal vc[3],
                                         PetscReal gamma[3], PetscReal *energy, PetscReal G[9]);
/* A one-dimensional row of regularisation R > 0: non-negative (gamma >= 0) or free; gamma, l and G. */
PETSC_INTERN void TalusSAPRow(PetscBool nonnegative, PetscReal R, PetscReal vc, PetscReal *gamma, PetscReal *energy,
                              PetscReal *G);

#endif
