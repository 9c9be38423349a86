/*
 * Private to apgd_kernels.c and apgd_wide.c: apgd's two fused passes (APGDExtrapolate's and APGDTest's chunks) on
 * 8 rows at a time with AVX-512 where the processor has it, bitwise as the scalar code does them.
 *
 * Each of a pass's sums is kept in APGD_LANES partial sums: row i of a chunk adds to lane i mod 8, and the lanes
 * are added in a fixed tree at the chunk's end (APGDLaneTotal). The scalar code does the same, so both give the
 * same bits; one running sum would chain every row's addition to the previous one's (a row's three or four
 * cycles of latency), which the lanes take off the passes' critical path.
 */
#ifndef TALUS_APGD_WIDE_H
#define TALUS_APGD_WIDE_H
#include <petscsys.h>

#define APGD_LANES 8

/* the lanes' total, in a fixed order */
static inline PetscReal APGDLaneTotal(const PetscReal l[APGD_LANES])
{
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* ExtrapolateChunk's rows [0, 8k) of m (apgd_kernels.c, which documents the arguments), adding to the lanes of its
   four sums; returns 8k (0 where the processor lacks AVX-512). */
PETSC_INTERN PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                              const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv,
                                              PetscScalar *gxv, const PetscScalar *gpv, PetscScalar *yv,
                                              PetscScalar *gyv, PetscScalar *bv, PetscReal s[4][APGD_LANES]);

/* TestChunk's rows [0, 8k) of m, likewise */
PETSC_INTERN PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                                       const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4][APGD_LANES]);

/* APGDTest's points w = x - g_d g of rows [0, 8k) of m, and its weighting w = x - wt (x - w); likewise */
PETSC_INTERN PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv,
                                             PetscScalar *w);
PETSC_INTERN PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w);

#endif
