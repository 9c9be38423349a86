/*
 * The Delassus operator N = B M^-1 B^T of seed 000 eq. 14 (B = D^T: one row per contact
 * direction, six columns per dynamic body), applied without ever being formed: MatMultTranspose
 * scatters impulses to the bodies, M^-1 is applied in place, MatMult gathers velocities (and
 * MatMultAdd adds the linear term in the same pass: the solver's gradient N x + r).
 * On several ranks the two products' scatters are the ghost exchange of the solver.
 */
#include <talus.h>

typedef struct {
  Mat                B;
  TalusInverseMassFn apply_inverse_mass;
  void              *ctx;
  Vec                inverse_mass; /* diag(M^-1) for TalusDelassusCreateShell, else NULL */
  Vec                body_work;    /* impulses, then velocity changes, in body space */
} DelassusShell;

/* y = B M^-1 B^T x, plus z if given */
static PetscErrorCode DelassusApply(Mat N, Vec x, Vec z, Vec y)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(MatMultTranspose(shell->B, x, shell->body_work));
  PetscCall((*shell->apply_inverse_mass)(shell->body_work, shell->ctx));
  if (z) PetscCall(MatMultAdd(shell->B, shell->body_work, z, y));
  else PetscCall(MatMult(shell->B, shell->body_work, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusMult(Mat N, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DelassusApply(N, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusMultAdd(Mat N, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DelassusApply(N, x, z, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusDestroy(Mat N)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(MatDestroy(&shell->B));
  PetscCall(VecDestroy(&shell->inverse_mass));
  PetscCall(VecDestroy(&shell->body_work));
  PetscCall(PetscFree(shell));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusInverseMassDiagonal(Vec v, void *inverse_mass)
{
  PetscFunctionBegin;
  PetscCall(VecPointwiseMult(v, (Vec)inverse_mass, v));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusCreateShellWithMass(Mat B, Vec body, TalusInverseMassFn fn, void *ctx, Mat *N)
{
  DelassusShell *shell;
  PetscInt       m, M;

  PetscFunctionBegin;
  PetscCall(PetscNew(&shell));
  PetscCall(PetscObjectReference((PetscObject)B));
  shell->B                  = B;
  shell->apply_inverse_mass = fn;
  shell->ctx                = ctx;
  PetscCall(VecDuplicate(body, &shell->body_work));
  PetscCall(MatGetLocalSize(B, &m, NULL));
  PetscCall(MatGetSize(B, &M, NULL));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)B), m, m, M, M, shell, N));
  PetscCall(MatShellSetOperation(*N, MATOP_MULT, (void (*)(void))DelassusMult));
  PetscCall(MatShellSetOperation(*N, MATOP_MULT_ADD, (void (*)(void))DelassusMultAdd));
  PetscCall(MatShellSetOperation(*N, MATOP_DESTROY, (void (*)(void))DelassusDestroy));
  PetscCall(MatSetOption(*N, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusCreateShell(Mat B, Vec inverse_mass, Mat *N)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(TalusDelassusCreateShellWithMass(B, inverse_mass, TalusInverseMassDiagonal, inverse_mass, N));
  PetscCall(MatShellGetContext(*N, &shell));
  PetscCall(PetscObjectReference((PetscObject)inverse_mass)); /* held for the callback's context */
  shell->inverse_mass = inverse_mass;
  PetscFunctionReturn(0);
}

/* The assembled N = B M^-1 B^T, for cross-checking and for solvers that need the Hessian. */
PetscErrorCode TalusDelassusAssemble(Mat B, Vec inverse_mass, Mat *N)
{
  Mat BMinv;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &BMinv));
  PetscCall(MatDiagonalScale(BMinv, NULL, inverse_mass));
  PetscCall(MatMatTransposeMult(BMinv, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, N));
  PetscCall(MatDestroy(&BMinv));
  PetscFunctionReturn(0);
}
