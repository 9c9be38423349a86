/*
 * The objective and gradient of a TalusCCP, 1/2 r.N r + q.r (seed 000 eq. 15) with the variant's shift
 * of the normal linear term: the callbacks the Tao types' attachments (ccp_solvers.c) give their Tao.
 */
#include "ccp_impl.h"

PetscErrorCode TalusCCPGradient(Tao tao, Vec x, Vec g, void *ctx)
{
  TalusCCP ccp = (TalusCCP)ctx;

  PetscFunctionBegin;
  (void)tao;
  /* g = N x + q + s e_n; the matrix-free N adds the linear term and the shift in its last pass */
  PetscCall(TalusMatMultAddNormalShift(ccp->N, x, ccp->q, ccp->shift, g));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPObjectiveAndGradient(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  TalusCCP           ccp = (TalusCCP)ctx;
  const PetscScalar *xv, *gv, *qv, *sv = NULL;
  PetscInt           n, nc = 0;
  PetscReal          sum = 0.0;

  PetscFunctionBegin;
  PetscCall(TalusCCPGradient(tao, x, g, ctx));
  /* f = 1/2 x.N x + (q + s e_n).x = 1/2 x.(g + q + s e_n): one pass and one reduction */
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArrayRead(g, &gv));
  PetscCall(VecGetArrayRead(ccp->q, &qv));
  for (PetscInt i = 0; i < n; i++) sum += PetscRealPart(xv[i] * (gv[i] + qv[i]));
  if (ccp->shift) {
    PetscCall(VecGetLocalSize(ccp->shift, &nc));
    PetscCall(VecGetArrayRead(ccp->shift, &sv));
    for (PetscInt c = 0; c < nc; c++) sum += PetscRealPart(xv[3 * c] * sv[c]);
    PetscCall(VecRestoreArrayRead(ccp->shift, &sv));
  }
  PetscCall(VecRestoreArrayRead(ccp->q, &qv));
  PetscCall(VecRestoreArrayRead(g, &gv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, ccp->comm));
  *f = 0.5 * sum;
  /* named here, before Tao's "compute function generated Inf or NaN": q and N are finite (checked as they are
     read or built), so only a direction in the feasible set along which the objective falls without bound can
     take the iterates to Inf */
  PetscCheck(!PetscIsInfOrNanReal(*f), ccp->comm, PETSC_ERR_USER_INPUT,
             "the contact problem's objective became %g: its iterates grew without bound along a direction of negative "
             "curvature, so its operator N (W) is not positive semi-definite",
             (double)*f);
  PetscFunctionReturn(0);
}
