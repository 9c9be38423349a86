/*
 * apgd's fused passes (apgd_kernels.c) on 8 rows at a time with AVX-512, or 4 with AVX2, chosen at run time by what
 * the processor has (TalusSIMDWidth). Each row's arithmetic is the scalar code's, operation for operation (no fused
 * multiply-adds: C17 mode contracts nothing and the intrinsics are explicit). The sums of the pass are the scalar
 * code's too: both keep 8 lanes a sum, row i of a chunk in lane i mod 8 (apgd_wide.h), so every bit of the result
 * is the same (tests/unit/test_apgd_frictional.c runs a problem both ways), and no addition waits on the row before
 * it (one running sum a pass made the passes latency-bound).
 */
#include "apgd_wide.h"
#include <talus.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #include <immintrin.h>

  /* the passes for AVX-512, ExtrapolateRows8 ..., then for AVX2, ExtrapolateRows4 ... (apgd_wide_passes.h) */
  #define APGD_VEC     __m512d
  #define APGD_LANES   8
  #define APGD_TARGET  __attribute__((target("avx512f")))
  #define APGD_NAME(f) f##8
  #define APGD_LOAD    _mm512_loadu_pd
  #define APGD_STORE   _mm512_storeu_pd
  #define APGD_ADD     _mm512_add_pd
  #define APGD_SUB     _mm512_sub_pd
  #define APGD_MUL     _mm512_mul_pd
  #define APGD_SET1    _mm512_set1_pd
  #define APGD_ZERO    _mm512_setzero_pd
  #include "apgd_wide_passes.h"
  #undef APGD_VEC
  #undef APGD_LANES
  #undef APGD_TARGET
  #undef APGD_NAME
  #undef APGD_LOAD
  #undef APGD_STORE
  #undef APGD_ADD
  #undef APGD_SUB
  #undef APGD_MUL
  #undef APGD_SET1
  #undef APGD_ZERO
  #define APGD_VEC     __m256d
  #define APGD_LANES   4
  #define APGD_TARGET  __attribute__((target("avx2")))
  #define APGD_NAME(f) f##4
  #define APGD_LOAD    _mm256_loadu_pd
  #define APGD_STORE   _mm256_storeu_pd
  #define APGD_ADD     _mm256_add_pd
  #define APGD_SUB     _mm256_sub_pd
  #define APGD_MUL     _mm256_mul_pd
  #define APGD_SET1    _mm256_set1_pd
  #define APGD_ZERO    _mm256_setzero_pd
  #include "apgd_wide_passes.h"

PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial, const PetscScalar *dr,
                                 const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv, const PetscScalar *gpv,
                                 PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv, PetscReal s[4][APGD_SUM_LANES])
{
  const PetscInt width = TalusSIMDWidth(); /* AVX-512 (8 lanes), else AVX2 (4), else none */
  return width == 8 ? ExtrapolateRows8(m, beta, step, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, s)
       : width == 4 ? ExtrapolateRows4(m, beta, step, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, s)
                    : 0;
}

PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                          const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4][APGD_SUM_LANES])
{
  const PetscInt width = TalusSIMDWidth(); /* AVX-512 (8 lanes), else AVX2 (4), else none */
  return width == 8 ? TestRows8(m, xv, gv, yv, gyv, w, s) : width == 4 ? TestRows4(m, xv, gv, yv, gyv, w, s) : 0;
}

PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv, PetscScalar *w)
{
  const PetscInt width = TalusSIMDWidth(); /* AVX-512 (8 lanes), else AVX2 (4), else none */
  return width == 8 ? ResidualPoints8(m, g_d, xv, gv, w) : width == 4 ? ResidualPoints4(m, g_d, xv, gv, w) : 0;
}

PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w)
{
  const PetscInt width = TalusSIMDWidth(); /* AVX-512 (8 lanes), else AVX2 (4), else none */
  return width == 8 ? WeightResiduals8(m, xv, wt, w) : width == 4 ? WeightResiduals4(m, xv, wt, w) : 0;
}
#else
PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv, PetscScalar *w)
{
  (void)m, (void)g_d, (void)xv, (void)gv, (void)w;
  return 0;
}

PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w)
{
  (void)m, (void)xv, (void)wt, (void)w;
  return 0;
}

PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial, const PetscScalar *dr,
                                 const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv, const PetscScalar *gpv,
                                 PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv, PetscReal s[4][APGD_SUM_LANES])
{
  (void)m, (void)beta, (void)step, (void)trial, (void)dr, (void)xv, (void)xpv, (void)gxv, (void)gpv, (void)yv;
  (void)gyv, (void)bv, (void)s;
  return 0;
}

PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                          const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4][APGD_SUM_LANES])
{
  (void)m, (void)xv, (void)gv, (void)yv, (void)gyv, (void)w, (void)s;
  return 0;
}
#endif
