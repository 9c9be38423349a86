/* The state of the Tao type ipm (ipm.c: the solve, the Coulomb fixed point, options) and its Newton
   system (ipm_newton.c: K's pattern, the Nesterov-Todd scaling, the directions and step lengths). */
#ifndef TALUS_IPM_STATE_H
#define TALUS_IPM_STATE_H
#include <petsc/private/taoimpl.h>
#include <talus.h>
#include "lorentz.h"
#include "residual_norm.h"

typedef struct {
  TalusResidualNormSetting hdr; /* first: the norm the type stops on (residual_norm.h) */
  Mat                      W;
  Vec                      q;
  const TalusFeasibleSet  *set;
  PetscBool                coulomb;
  PetscReal                step_fraction;  /* of the way to the boundary */
  PetscReal                residual_scale; /* g_d = residual_scale / max_i W_ii */
  PetscReal                inner_fraction; /* Coulomb: a relaxed solve ends at this fraction of the start's residual */
  PetscInt                 polish;         /* natural-map steps at the end */
  KSP                      ksp;
  /* per solve */
  Mat        K0, K;          /* W with room for the diagonal blocks; W + T W_c^2 T */
  Vec        qs, v, u, rp;   /* shifted q, dual slack, W r + q, r_p */
  Vec        rhs, dr, dv;    /* a Newton system's right-hand side and its solution (dr), dv */
  Vec        dra, dva, best; /* the predictor's steps; the best iterate */
  PetscReal *scaling, *inv;  /* per local row block: W_c (9 a cone, 1 a row) and W_c^-1 */
  PetscReal *lambda;         /* per local row: W_c x */
  PetscInt   nc, n, nfixed;  /* local cones and rows; rows held at 0 (tangential rows of mu = 0) */
  PetscInt  *fixed;          /* their global indices */
  PetscBool  any_fixed;      /* on any rank */
  PetscInt   units;          /* cones of all ranks plus 1-dimensional rows: mu = r . v / units */
  PetscReal  gd, complementarity, infeasibility;
  PetscInt   outer;           /* Coulomb: fixed-point updates of the shift in the last solve */
  PetscInt   factor_failures; /* Newton systems the KSP could not solve, in the last solve */
  PetscReal  regularization;  /* delta I added to K after a failed factorisation (W may be singular) */
  PetscReal  dmax;            /* max_i W_ii */
} TAO_IPM;

/* Local row i's kind: a cone with mu > 0 spans 3 rows; others are 1-dimensional or held at 0 */
static inline PetscReal ConeMu(const PetscScalar *mu, PetscInt c)
{
  return PetscRealPart(mu[c]);
}

/* ipm_newton.c */
PETSC_INTERN PetscErrorCode IPMRelease(TAO_IPM *ipm); /* the state of a solve (a new problem, or the Tao's end) */
PETSC_INTERN PetscErrorCode IPMSetUpProblem(Tao tao);
PETSC_INTERN PetscErrorCode IPMScale(Tao tao);
PETSC_INTERN PetscErrorCode IPMDirection(Tao tao, PetscBool corrector, PetscReal sigma_mu, Vec dr, Vec dv,
                                         PetscBool *solved);
PETSC_INTERN PetscErrorCode IPMMaxStep(Tao tao, Vec dr, Vec dv, PetscReal *alpha);
PETSC_INTERN PetscErrorCode IPMStartInside(Tao tao);

#endif
