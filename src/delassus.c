/*
 * The Delassus operator N = B M^-1 B^T of seed 000 eq. 14 (B = D^T: one row per contact
 * direction, six columns per dynamic body), applied without ever being formed: MatMultTranspose
 * scatters impulses to the bodies, a pointwise scale applies M^-1, MatMult gathers velocities.
 * On several ranks the two products' scatters are the ghost exchange of the solver.
 */
#include <talus.h>

typedef struct {
  Mat B;
  Vec inverse_mass; /* diagonal of M^-1, six entries per body */
  Vec body_work;    /* impulses, then velocity changes, in body space */
} DelassusShell;

static PetscErrorCode DelassusMult(Mat N, Vec x, Vec y)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(MatMultTranspose(shell->B, x, shell->body_work));
  PetscCall(VecPointwiseMult(shell->body_work, shell->inverse_mass, shell->body_work));
  PetscCall(MatMult(shell->B, shell->body_work, y));
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

PetscErrorCode TalusDelassusCreateShell(Mat B, Vec inverse_mass, Mat *N)
{
  DelassusShell *shell;
  PetscInt       m, M;

  PetscFunctionBegin;
  PetscCall(PetscNew(&shell));
  PetscCall(PetscObjectReference((PetscObject)B));
  PetscCall(PetscObjectReference((PetscObject)inverse_mass));
  shell->B            = B;
  shell->inverse_mass = inverse_mass;
  PetscCall(VecDuplicate(inverse_mass, &shell->body_work));
  PetscCall(MatGetLocalSize(B, &m, NULL));
  PetscCall(MatGetSize(B, &M, NULL));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)B), m, m, M, M, shell, N));
  PetscCall(MatShellSetOperation(*N, MATOP_MULT, (void (*)(void))DelassusMult));
  PetscCall(MatShellSetOperation(*N, MATOP_DESTROY, (void (*)(void))DelassusDestroy));
  PetscCall(MatSetOption(*N, MAT_SYMMETRIC, PETSC_TRUE));
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
