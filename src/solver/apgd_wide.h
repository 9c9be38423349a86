/*
 * Private to apgd_kernels.c and apgd_wide.c: apgd's two fused passes (APGDExtrapolate's and APGDTest's chunks) on
 * 8 rows at a time with AVX-512 where the processor has it. The sums are added in the scalar code's order, row
 * after row, so every result is bitwise its own.
 */
#ifndef TALUS_APGD_WIDE_H
#define TALUS_APGD_WIDE_H
#include <petscsys.h>

/* ExtrapolateChunk's rows [0, 8k) of m (apgd_kernels.c, which documents the arguments); the running sums s are
   continued in order; returns 8k (0 where the processor lacks AVX-512). */
PETSC_INTERN PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                              const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv,
                                              PetscScalar *gxv, const PetscScalar *gpv, PetscScalar *yv,
                                              PetscScalar *gyv, PetscScalar *bv, PetscReal s[4]);

/* TestChunk's rows [0, 8k) of m, likewise */
PETSC_INTERN PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                                       const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4]);

/* APGDTest's points w = x - g_d g of rows [0, 8k) of m, and its weighting w = x - wt (x - w); likewise */
PETSC_INTERN PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv,
                                             PetscScalar *w);
PETSC_INTERN PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w);

#endif
