/*
 * A joint's rows in seed 002's LCP (lcp_impl.h): Lemke's method knows only complementary pairs, so the
 * free (bilateral) rows are solved for and eliminated by the Schur complement of their block W_FF,
 * positive definite when the joints are not redundant. What remains is an LCP in the contacts and the
 * one-sided rows, with W' = W_UU - W_UF W_FF^-1 W_FU still symmetric positive semidefinite.
 */
#include "lcp_impl.h"
#include <petscblaslapack.h>

PetscErrorCode TalusLCPEliminateFreeRows(PetscInt m, const PetscReal W[], const PetscReal q[], const PetscInt order[],
                                         PetscInt u, PetscInt f, PetscReal **Wu_out, PetscReal **qu_out,
                                         PetscReal **X_out, PetscBool *definite)
{
  const PetscInt *U = order, *F = order + u;
  PetscReal      *A, *X, *Wu, *qu;
  PetscBLASInt    bf, nrhs, info;
  const char      lower = 'L';

  PetscFunctionBegin;
  *Wu_out = *qu_out = *X_out = NULL;
  PetscCall(PetscBLASIntCast(f, &bf));
  PetscCall(PetscBLASIntCast(u + 1, &nrhs));
  PetscCall(PetscMalloc1(f * f + 1, &A));
  PetscCall(PetscMalloc1(f * (u + 1) + 1, &X)); /* kept for the caller */
  for (PetscInt i = 0; i < f; i++)              /* W_FF and [W_FU | q_F], column-major */
    for (PetscInt j = 0; j < f; j++) A[j * f + i] = W[F[i] * m + F[j]];
  for (PetscInt i = 0; i < f; i++) {
    for (PetscInt k = 0; k < u; k++) X[k * f + i] = W[F[i] * m + U[k]];
    X[u * f + i] = q[F[i]];
  }
  info = 0;
  if (f) PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_(&lower, &bf, A, &bf, &info));
  *definite = (PetscBool)(info == 0);
  if (!*definite) {
    PetscCall(PetscFree(A));
    PetscCall(PetscFree(X));
    PetscFunctionReturn(0);
  }
  if (f) PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_(&lower, &bf, &nrhs, A, &bf, X, &bf, &info));
  PetscCall(PetscMalloc1(u * u + 1, &Wu));
  PetscCall(PetscMalloc1(u + 1, &qu));
  for (PetscInt i = 0; i < u; i++) {
    PetscReal s = q[U[i]];
    for (PetscInt l = 0; l < f; l++) s -= W[U[i] * m + F[l]] * X[u * f + l];
    qu[i] = s;
    for (PetscInt k = 0; k < u; k++) {
      PetscReal w = W[U[i] * m + U[k]];
      for (PetscInt l = 0; l < f; l++) w -= W[U[i] * m + F[l]] * X[k * f + l];
      Wu[i * u + k] = w;
    }
  }
  PetscCall(PetscFree(A));
  *Wu_out = Wu, *qu_out = qu, *X_out = X;
  PetscFunctionReturn(0);
}

void TalusLCPRecoverFreeRows(PetscInt u, PetscInt f, const PetscReal X[], const PetscReal rU[], PetscReal rF[])
{
  for (PetscInt l = 0; l < f; l++) {
    PetscReal s = X[u * f + l];
    for (PetscInt k = 0; k < u; k++) s += X[k * f + l] * rU[k];
    rF[l] = -s;
  }
}
