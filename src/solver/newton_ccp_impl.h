/* The state of the Tao type newton_ccp (newton_ccp.c: the Newton iteration, options, view) and its model
   (newton_ccp_model.c: the objective, gradient and Hessian in the body velocities, the exact line search). */
#ifndef TALUS_NEWTON_CCP_IMPL_H
#define TALUS_NEWTON_CCP_IMPL_H
#include <petsc/private/taoimpl.h>
#include <talus.h>
#include "residual_norm.h"

#define NEWTON_CCP_MAX_COLUMNS 12

typedef struct {
  TalusResidualNormSetting hdr; /* first: the norm the type stops on (residual_norm.h) */
  /* the problem (TaoNewtonCCPSetProblem): N = B diag(inverse_mass) B^T, R = E, linear term q */
  Mat                     B;
  Vec                     inverse_mass, E, q;
  const TalusFeasibleSet *set;
  /* options */
  PetscReal ls_rtol;   /* the line search stops when |phi'(alpha)| <= ls_rtol |phi'(0)| */
  PetscInt  ls_max_it; /* its 1-D Newton / bisection steps at most */
  KSP       ksp;
  PetscBool ksp_from_options; /* TaoSetFromOptions was called: each problem's new KSP reads the options */
  /* per problem */
  Vec          mass;                   /* diag(M) */
  Vec          delta, dir, grad, work; /* body space: v - v_free, the Newton direction, the gradient, scratch */
  Vec          vc, w, gamma;           /* row space: B delta + q, B dir, the impulses at delta */
  PetscScalar *G_values;               /* the rows' Hessian blocks: 9 per cone, then 1 per row */
  /* each row block's rows of B as a dense block over the union of their columns (at most
     NEWTON_CCP_MAX_COLUMNS: two bodies), and H = M + B^T G B assembled from them by COO */
  PetscInt     nblocks, *block_ncols, *block_cols; /* per block: its columns (global), NEWTON_CCP_MAX_COLUMNS each */
  PetscScalar *block_J;                            /* per block: 3 x NEWTON_CCP_MAX_COLUMNS (a cone; a row uses 1 x) */
  PetscScalar *H_values;                           /* H's COO values: each block's ncols^2, then M's diagonal */
  Mat          H;
  /* per solve, for the view and the statistics */
  PetscInt  ls_evaluations, regions[3]; /* regions: stick, separate, slide at the end */
  PetscReal alpha;                      /* the last step length */
} TAO_NEWTONCCP;

/* newton_ccp_model.c */
PETSC_INTERN PetscErrorCode NewtonCCPSetUpProblem(Tao tao);
PETSC_INTERN PetscErrorCode NewtonCCPRelease(TAO_NEWTONCCP *);
/* At tao's delta: vc, gamma and the rows' Hessian blocks G (one pass), the gradient, the objective f and the
   residual ||B M^-1 grad|| (m/s) */
PETSC_INTERN PetscErrorCode NewtonCCPEvaluate(Tao tao, PetscReal *f, PetscReal *residual);
/* H = M + B^T G B from the blocks of the last NewtonCCPEvaluate */
PETSC_INTERN PetscErrorCode NewtonCCPAssembleHessian(Tao tao);
/* The step length alpha along dir minimising the objective (w = B dir set by the caller) */
PETSC_INTERN PetscErrorCode NewtonCCPLineSearch(Tao tao, PetscReal *alpha);

#endif
