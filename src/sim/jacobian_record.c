/*
 * The matrix-free B's records, made (jacobian_record.h unpacks them): a contact's frame and lever arms, 8 doubles
 * when both arms lie along the normal (axial), else 12; a body's M^-1 in the world frame (jacobian_shell.c's header
 * says how the products use them).
 */
#include "jacobian_shell.h"
#include <talus/math3.h>

/* lambda with S = lambda n to rounding, or PETSC_FALSE */
static PetscBool AlongNormal(const PetscReal S[3], const PetscReal n[3], PetscReal *lambda)
{
  PetscReal off[3];

  TalusCross3(S, n, off);
  *lambda = TalusDot3(S, n);
  return (PetscBool)(TalusDot3(off, off) <= 1e-24 * TalusDot3(S, S));
}

char TalusJacobianRecord(const PetscReal frame[9], const PetscReal arm_a[3], const PetscReal arm_b[3],
                         PetscReal J[TALUS_JACOBIAN_GENERAL])
{
  PetscReal la, lb;

  for (int k = 0; k < 6; k++) J[k] = frame[k]; /* n and t; the third row n x t is recomputed */
  if (AlongNormal(arm_a, frame, &la) && AlongNormal(arm_b, frame, &lb)) {
    J[6] = la, J[7] = lb;
    return TALUS_JACOBIAN_AXIAL;
  }
  for (int k = 0; k < 3; k++) J[6 + k] = arm_a[k], J[9 + k] = arm_b[k];
  return TALUS_JACOBIAN_GENERAL;
}

void TalusInverseMassRecord(PetscReal mass, const PetscReal inertia[3], const PetscReal A[9],
                            PetscReal minv[TALUS_INVERSE_MASS])
{
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};

  minv[0] = 1.0 / mass;
  for (int e = 0; e < 6; e++) { /* (A J^-1 A^T)_{ij} = sum_k A_ik A_jk / J_k */
    PetscReal s = 0.0;
    for (int k = 0; k < 3; k++) s += A[3 * row[e] + k] * A[3 * col[e] + k] / inertia[k];
    minv[1 + e] = s;
  }
}
