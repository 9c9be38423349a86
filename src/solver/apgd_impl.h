/*
 * Private to the Tao type "apgd": its data and the fused vector passes of its iteration
 * (apgd_kernels.c). The solve loop is in apgd.c.
 */
#ifndef TALUS_APGD_IMPL_H
#define TALUS_APGD_IMPL_H
#include <petsc/private/taoimpl.h>
#include <talus.h>
#include "residual_tolerances.h"
#include "residual_norm.h"

typedef struct {
  TalusResidualNormSetting hdr; /* first: the norm the type stops on (residual_norm.h) */
  /* the feasible set, as a projection of blocks of local rows (NULL: the whole space) */
  TaoAPGDProjectionFn       project;
  void                     *project_ctx;
  PetscInt                  block_size;
  PetscBool                 user_projection; /* set by TaoAPGDSetProjection (else bounds, if any) */
  const PetscScalar        *lower, *upper;   /* the bounds' local arrays during a solve with bounds */
  TaoAPGDLinearTermUpdateFn linear_update;
  void                     *linear_update_ctx;

  /* options */
  PetscReal residual_step;        /* g_d of seed 001 eq. 39 in use */
  PetscReal residual_step_option; /* as given; <= 0 means residual_scale / L_0 */
  PetscReal residual_scale;
  PetscReal step_growth;            /* factor applied to L after every iteration (line 31: 0.9) */
  PetscReal backtrack;              /* factor applied to L when the upper bound fails (line 12: 2) */
  PetscInt  max_backtracks;         /* per iteration, before giving up with a line-search failure */
  PetscBool restart;                /* gradient-based restart (lines 27-30) */
  PetscBool reuse_gradients;        /* gradient at the extrapolated point from those at the iterates */
  PetscReal lipschitz0;             /* user-given initial L; <= 0 means estimate it (line 6) */
  PetscBool reproducible_lipschitz; /* its 2-norm summed exactly (the same bits on any number of ranks) or by VecNorm */
  PetscInt  stagnation;      /* stop when the best residual has not fallen by 1 % in this many iterations (0: never) */
  Vec       residual_weight; /* per row, or NULL: eq. 39's residual measured as ||weight .* (x - Pi(..))|| / g_d */
  PetscBool confirm;         /* confirm a convergence with the linear term updated at the iterate (apgd.c) */

  /* work vectors: x = tao->solution (gamma_{k+1}), g_x = tao->gradient */
  Vec x_prev, g_prev; /* gamma_k and its gradient */
  Vec y, g_y;         /* extrapolated point and its gradient */
  Vec best;           /* best iterate so far (line 22) */

  PetscReal extrapolation_sums[4]; /* this rank's sums of the last APGDExtrapolate, reduced by APGDTest */

  /* statistics of the last solve */
  PetscReal lipschitz;
  PetscReal best_residual;
  PetscInt  best_iteration;
  PetscInt  stagnated; /* the iteration at which the last solve stopped for stagnation, or 0 */
  PetscInt  restarts;
  PetscInt  backtracks;
} TAO_APGD;

/*
 * The sums of APGDTest and of the APGDExtrapolate before it, reduced over ranks in one message.
 * With d = x - y (the trial step from y) and e = x_k - x_{k-1} (so that y = x_k + beta e):
 */
typedef struct {
  PetscReal curvature; /* d.(g(x) - g(y)) = d^T N d: the upper-bound test, lines 9-15 */
  PetscReal step2;     /* ||d||^2 */
  PetscReal residual;  /* ||x - Pi(x - g_d g(x))|| / g_d: eq. 39, line 19, in the type's norm (residual_norm.h) */
  PetscReal gy_dot_d;  /* g(y).d */
  /* from APGDExtrapolate (zero before the first iteration) */
  PetscReal dr_dot_x; /* dr.x_k: the change of f(x_k) when the linear term moves by dr */
  PetscReal g_dot_e;  /* g(x_k).e, with the moved linear term */
  PetscReal e_N_e;    /* e.(g(x_k) - g(x_{k-1})) = e^T N e */
  PetscReal gy_dot_e; /* g(y).e */
} APGDTestSums;

PETSC_INTERN PetscErrorCode APGDProjectInPlace(Tao, Vec x);
PETSC_INTERN PetscErrorCode APGDExtrapolate(Tao, PetscReal beta, Vec x, Vec g_x, Vec x_prev, Vec g_prev, Vec best,
                                            PetscReal step, PetscBool trial);
PETSC_INTERN PetscErrorCode APGDTrial(Tao, PetscReal step, Vec x_out);
PETSC_INTERN PetscErrorCode APGDUpdateLinearTerm(Tao, Vec x, Vec g_x, Vec g_prev, PetscReal *dr_dot_x);
PETSC_INTERN PetscErrorCode APGDTest(Tao, Vec x, Vec g_x, APGDTestSums *);
PETSC_INTERN PetscErrorCode APGDProjectBounds(Tao, PetscInt start, PetscInt n, const PetscScalar in[],
                                              PetscScalar out[], void *ctx);

#endif
