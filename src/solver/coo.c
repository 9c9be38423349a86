/* A sparse matrix from COO triplets: the one way talus assembles B, W and the test problems. */
#include <talus.h>

PetscErrorCode TalusMatCreateCOO(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt ncoo,
                                 PetscInt coo_i[], PetscInt coo_j[], const PetscScalar coo_v[], InsertMode mode, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  /* entries may belong to rows of other ranks: COO assembly routes them to their owners */
  PetscCall(MatSetPreallocationCOO(*A, ncoo, coo_i, coo_j));
  PetscCall(MatSetValuesCOO(*A, coo_v, mode));
  PetscFunctionReturn(0);
}
