/*
 * Private to apgd_kernels.c and apgd_wide.c: apgd's two fused passes (APGDExtrapolate's and APGDTest's chunks) on
 * 8 rows at a time with AVX-512, or 4 with AVX2, where the processor has them. Each sum of a pass is kept in 8
 * lanes, row i of a chunk in lane i mod 8, in the wide code and the scalar code alike, and the lanes are added at the
 * chunk's end by one fixed tree (APGDLaneTotal): the two give each other's bits, and no addition waits on the row
 * before it.
 */
#ifndef TALUS_APGD_WIDE_H
#define TALUS_APGD_WIDE_H
#include <petscsys.h>

#define APGD_SUM_LANES 8

/* A sum's 8 lanes added in a fixed order */
static inline PetscReal APGDLaneTotal(const PetscReal l[APGD_SUM_LANES])
{
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

/* ExtrapolateChunk's rows [0, wk) of m, w the width (apgd_kernels.c documents the arguments); row i's terms are
   added to lane i mod 8 of the sums s; returns wk (0 where the processor has neither AVX-512 nor AVX2). */
PETSC_INTERN PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                              const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv,
                                              PetscScalar *gxv, const PetscScalar *gpv, PetscScalar *yv,
                                              PetscScalar *gyv, PetscScalar *bv, PetscReal s[4][APGD_SUM_LANES]);

/* TestChunk's rows [0, wk) of m, likewise */
PETSC_INTERN PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                                       const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4][APGD_SUM_LANES]);

/* APGDTest's points w = x - g_d g of rows [0, wk) of m, and its weighting w = x - wt (x - w); likewise */
PETSC_INTERN PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv,
                                             PetscScalar *w);
PETSC_INTERN PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w);

#endif
