/*
 * The per-contact scaling of a contact problem (-ccp_scale): the solver sees
 *     N' = D N D,   q' = D q,   r = D r',
 * with D = diag(a, b, b) per friction cone, a = N_nn^-1/2 and b = ((N_tt + N_ww) / 2)^-1/2 from the
 * diagonal of N, and d_i = N_ii^-1/2 on non-negative and free rows. The cone ||r_t|| <= mu r_n
 * becomes b ||r'_t|| <= mu a r'_n: a cone again, of friction mu' = mu a / b, so the projection stays
 * exact and local; and the Coulomb problem's De Saxce term maps the same way (a mu ||u_t|| =
 * mu' ||u'_t|| with u' = D u), so every variant solves its scaled problem unchanged. The diagonal of
 * N' is 1 on the normal rows and on average on the tangential ones: contacts under a heavy body and
 * under a light one get steps of the same size.
 *
 * apgd measures its residual with the weights 1 / d (TaoAPGDSetResidualWeights): where a row is
 * inside its set the scaled residual is d times the velocity, so the weighted one is the velocity
 * itself, in m/s like the unscaled problem's, and -tao_gatol (-ccp_force_rtol) means the same with
 * and without the scaling.
 *
 * Without -ccp_scale the solver sees the given objects themselves (the same iterates as before). Whether a
 * solve is scaled (-ccp_scale, or the solver record's choice) is decided in ccp_solvers.c.
 */
#include "ccp_impl.h"

PetscErrorCode TalusCCPResetSolverProblem(TalusCCP ccp)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ccp->N));
  PetscCall(VecDestroy(&ccp->q));
  PetscCall(VecDestroy(&ccp->set.mu));
  PetscCall(VecDestroy(&ccp->scaling));
  PetscCall(VecDestroy(&ccp->residual_weight));
  PetscFunctionReturn(0);
}

/* D N D for an N that is a shell (never formed): two pointwise products around the given one. */
typedef struct {
  Mat N;
  Vec d, work;
} ScaledOperator;

static PetscErrorCode ScaledMult(Mat A, Vec x, Vec y)
{
  ScaledOperator *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &s));
  PetscCall(VecPointwiseMult(s->work, s->d, x));
  PetscCall(MatMult(s->N, s->work, y));
  PetscCall(VecPointwiseMult(y, s->d, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode ScaledDestroy(Mat A)
{
  ScaledOperator *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &s));
  PetscCall(MatDestroy(&s->N));
  PetscCall(VecDestroy(&s->d));
  PetscCall(VecDestroy(&s->work));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

static PetscErrorCode ScaledOperatorCreate(Mat N, Vec d, Mat *A)
{
  ScaledOperator *s;
  PetscLayout     rows, columns;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  PetscCall(PetscObjectReference((PetscObject)N));
  PetscCall(PetscObjectReference((PetscObject)d));
  s->N = N, s->d = d;
  PetscCall(VecDuplicate(d, &s->work));
  PetscCall(MatGetLayouts(N, &rows, &columns));
  PetscCall(TalusMatCreateShellOnLayouts(rows, columns, s, A)); /* N's */
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))ScaledMult));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (void (*)(void))ScaledDestroy));
  PetscFunctionReturn(0);
}

/* x^-1/2 for a usable diagonal entry, else 0 (the caller picks another) */
static PetscReal InverseRoot(PetscReal x)
{
  return (x > 0.0 && !PetscIsInfOrNanReal(x)) ? 1.0 / PetscSqrtReal(x) : 0.0;
}

/* d from the diagonal of N (in place), and mu' = mu a / b */
static PetscErrorCode ScalingFromDiagonal(TalusCCP ccp, Vec d, Vec mu_scaled)
{
  PetscScalar       *dv, *ms;
  const PetscScalar *mu;
  PetscInt           n, nc;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetLocalSize(ccp->user_set.mu, &nc));
  PetscCall(VecGetArray(d, &dv));
  PetscCall(VecGetArrayRead(ccp->user_set.mu, &mu));
  PetscCall(VecGetArray(mu_scaled, &ms));
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal a = InverseRoot(PetscRealPart(dv[3 * c])),
              b = InverseRoot(0.5 * PetscRealPart(dv[3 * c + 1] + dv[3 * c + 2]));
    if (a == 0.0) a = b != 0.0 ? b : 1.0; /* a row N does not couple: leave the cone as it is */
    if (b == 0.0) b = a;
    dv[3 * c] = a, dv[3 * c + 1] = dv[3 * c + 2] = b;
    ms[c] = mu[c] * a / b;
  }
  for (PetscInt i = 3 * nc; i < n; i++) {
    const PetscReal s = InverseRoot(PetscRealPart(dv[i]));
    dv[i]             = s != 0.0 ? s : 1.0;
  }
  PetscCall(VecRestoreArray(mu_scaled, &ms));
  PetscCall(VecRestoreArrayRead(ccp->user_set.mu, &mu));
  PetscCall(VecRestoreArray(d, &dv));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPSetUpSolverProblem(TalusCCP ccp)
{
  PetscBool has_diagonal, shell;
  PetscErrorCode (*create_scaled)(Mat, Vec, Mat *) = NULL;

  PetscFunctionBegin;
  PetscCall(TalusCCPResetSolverProblem(ccp));
  PetscCall(TalusCCPResolveScaling(ccp));
  ccp->set = ccp->user_set;
  if (!ccp->scale) { /* the solver sees the given objects */
    PetscCall(PetscObjectReference((PetscObject)ccp->user_N));
    PetscCall(PetscObjectReference((PetscObject)ccp->user_q));
    PetscCall(PetscObjectReference((PetscObject)ccp->user_set.mu));
    ccp->N = ccp->user_N, ccp->q = ccp->user_q;
    PetscFunctionReturn(0);
  }
  PetscCall(MatHasOperation(ccp->user_N, MATOP_GET_DIAGONAL, &has_diagonal));
  PetscCheck(has_diagonal, ccp->comm, PETSC_ERR_SUP,
             "-ccp_scale needs the diagonal of N, and this operator does not give it");
  PetscCall(VecDuplicate(ccp->user_q, &ccp->scaling));
  PetscCall(MatGetDiagonal(ccp->user_N, ccp->scaling));
  PetscCall(VecDuplicate(ccp->user_set.mu, &ccp->set.mu));
  PetscCall(ScalingFromDiagonal(ccp, ccp->scaling, ccp->set.mu));
  PetscCall(VecDuplicate(ccp->scaling, &ccp->residual_weight));
  PetscCall(VecCopy(ccp->scaling, ccp->residual_weight));
  PetscCall(VecReciprocal(ccp->residual_weight)); /* d > 0 on every row (ScalingFromDiagonal) */
  PetscCall(VecDuplicate(ccp->user_q, &ccp->q));
  PetscCall(VecPointwiseMult(ccp->q, ccp->scaling, ccp->user_q));
  PetscCall(PetscObjectTypeCompare((PetscObject)ccp->user_N, MATSHELL, &shell));
  PetscCall(PetscObjectQueryFunction((PetscObject)ccp->user_N, "TalusMatCreateScaled_C", &create_scaled));
  if (create_scaled) PetscCall((*create_scaled)(ccp->user_N, ccp->scaling, &ccp->N)); /* the simulator's N: fused */
  else if (shell) PetscCall(ScaledOperatorCreate(ccp->user_N, ccp->scaling, &ccp->N));
  else {
    PetscCall(MatDuplicate(ccp->user_N, MAT_COPY_VALUES, &ccp->N));
    PetscCall(MatDiagonalScale(ccp->N, ccp->scaling, ccp->scaling));
  }
  PetscFunctionReturn(0);
}
