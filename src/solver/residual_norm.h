/*
 * The norm talus's Tao types (apgd, nbgs, ipm, newton_ccp) stop on (-tao_residual_norm, issue 54): the
 * largest row block's 2-norm (a contact's triplet), or the 2-norm over all rows. Each type's data begins
 * with a TalusResidualNormSetting, as PETSc's factor PCs begin with PC_Factor, so that one setter and one
 * getter (composed by TalusResidualNormCompose) serve them all.
 */
#ifndef TALUS_RESIDUAL_NORM_H
#define TALUS_RESIDUAL_NORM_H
#include <petsc/private/taoimpl.h>
#include <talus.h>

typedef struct {
  TaoResidualNorm norm;
} TalusResidualNormSetting;

/* composes TalusTaoSetResidualNorm_C and TalusTaoGetResidualNorm_C on tao, sets the default (max) */
PETSC_INTERN PetscErrorCode TalusResidualNormCompose(Tao);
PETSC_INTERN PetscErrorCode TalusResidualNormDecompose(Tao);
/* -tao_residual_norm, inside the type's PetscOptionsHead */
PETSC_INTERN PetscErrorCode TalusResidualNormSetFromOptions(Tao, PetscOptionItems *);
/* v[0 .. n-2] summed over the ranks and v[n-1] maximised, in one message (n at most 16) */
PETSC_INTERN PetscErrorCode TalusAllreduceSumsThenMax(MPI_Comm, PetscInt n, PetscReal v[]);

static inline TaoResidualNorm TalusResidualNormOf(Tao tao)
{
  return ((TalusResidualNormSetting *)tao->data)->norm;
}

#endif
