/*
 * apgd's fused passes (apgd_kernels.c) on 8 rows at a time with AVX-512, or 4 with AVX2, chosen at run time by what
 * the processor has (TalusSIMDWidth). Each row's arithmetic is the scalar code's, operation for operation (no fused
 * multiply-adds: C17 mode contracts nothing and the intrinsics are explicit). The sums of the pass are the scalar
 * code's too: the rows' terms are formed in the lanes and then added to each sum one row after the other, so the
 * order of the additions, and every bit of the result, is the same (tests/unit/test_apgd_frictional.c runs a problem
 * both ways). Those additions, a chain of one a row for each sum, now bound the passes: 8 partial sums took a
 * sixth off the filling's solve, but with another rounding the compaction's run left its band (docs/solver.md,
 * "Vector kernels"), so the order stays the scalar one.
 */
#include "apgd_wide.h"
#include <talus.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #include <immintrin.h>

  #define WIDE __attribute__((target("avx512f")))

/* s += t[0], s += t[1], ..., s += t[7]: the scalar loop's order */
WIDE static inline PetscReal AddInOrder(PetscReal s, __m512d t)
{
  PetscReal lane[8];

  _mm512_storeu_pd(lane, t);
  _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) s += lane[i];
  return s;
}

WIDE static PetscInt ExtrapolateRows(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial, const PetscScalar *dr,
                                     const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv, const PetscScalar *gpv,
                                     PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv, PetscReal s[4])
{
  const __m512d a = _mm512_set1_pd(1.0 + beta), b = _mm512_set1_pd(-beta), t = _mm512_set1_pd(step);
  PetscInt      i = 0;

  for (; i + 8 <= m; i += 8) {
    const __m512d shift = dr ? _mm512_loadu_pd(&dr[i]) : _mm512_setzero_pd();
    const __m512d x = _mm512_loadu_pd(&xv[i]), xp = _mm512_loadu_pd(&xpv[i]);
    const __m512d gx = _mm512_add_pd(_mm512_loadu_pd(&gxv[i]), shift),
                  gp = _mm512_add_pd(_mm512_loadu_pd(&gpv[i]), shift);
    const __m512d gy = _mm512_add_pd(_mm512_mul_pd(a, gx), _mm512_mul_pd(b, gp));
    const __m512d y  = _mm512_add_pd(_mm512_mul_pd(a, x), _mm512_mul_pd(b, xp));
    const __m512d e  = _mm512_sub_pd(x, xp);
    s[0]             = AddInOrder(s[0], _mm512_mul_pd(shift, x));
    s[1]             = AddInOrder(s[1], _mm512_mul_pd(gx, e));
    s[2]             = AddInOrder(s[2], _mm512_mul_pd(_mm512_sub_pd(gx, gp), e));
    s[3]             = AddInOrder(s[3], _mm512_mul_pd(gy, e));
    if (dr) _mm512_storeu_pd(&gxv[i], gx);
    _mm512_storeu_pd(&gyv[i], gy);
    _mm512_storeu_pd(&yv[i], y);
    if (bv) _mm512_storeu_pd(&bv[i], x);
    if (trial) _mm512_storeu_pd(&xpv[i], _mm512_sub_pd(y, _mm512_mul_pd(t, gy)));
  }
  return i;
}

WIDE static PetscInt TestRows(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                              const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4])
{
  PetscInt i = 0;

  for (; i + 8 <= m; i += 8) {
    const __m512d x = _mm512_loadu_pd(&xv[i]), gy = _mm512_loadu_pd(&gyv[i]);
    const __m512d d = _mm512_sub_pd(x, _mm512_loadu_pd(&yv[i])), r = _mm512_sub_pd(x, _mm512_loadu_pd(&w[i]));
    s[0] = AddInOrder(s[0], _mm512_mul_pd(d, _mm512_sub_pd(_mm512_loadu_pd(&gv[i]), gy)));
    s[1] = AddInOrder(s[1], _mm512_mul_pd(d, d));
    s[2] = AddInOrder(s[2], _mm512_mul_pd(r, r));
    s[3] = AddInOrder(s[3], _mm512_mul_pd(d, gy));
  }
  return i;
}

/* w = x - g_d g, then (with weights) w = x - wt (x - w) */
WIDE static PetscInt ResidualPoints(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv,
                                    PetscScalar *w)
{
  const __m512d step = _mm512_set1_pd(g_d);
  PetscInt      i    = 0;

  for (; i + 8 <= m; i += 8)
    _mm512_storeu_pd(&w[i], _mm512_sub_pd(_mm512_loadu_pd(&xv[i]), _mm512_mul_pd(step, _mm512_loadu_pd(&gv[i]))));
  return i;
}

WIDE static PetscInt WeightResiduals(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w)
{
  PetscInt i = 0;

  for (; i + 8 <= m; i += 8) {
    const __m512d x = _mm512_loadu_pd(&xv[i]);
    _mm512_storeu_pd(&w[i], _mm512_sub_pd(x, _mm512_mul_pd(_mm512_loadu_pd(&wt[i]),
                                                           _mm512_sub_pd(x, _mm512_loadu_pd(&w[i])))));
  }
  return i;
}

  #define WIDE4 __attribute__((target("avx2")))

/* The same on 4 rows at a time with AVX2 (processors without AVX-512) */
WIDE4 static inline PetscReal AddInOrder4(PetscReal s, __m256d t)
{
  PetscReal lane[4];

  _mm256_storeu_pd(lane, t);
  _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++) s += lane[i];
  return s;
}

WIDE4 static PetscInt ExtrapolateRows4(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                       const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv,
                                       const PetscScalar *gpv, PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv,
                                       PetscReal s[4])
{
  const __m256d a = _mm256_set1_pd(1.0 + beta), b = _mm256_set1_pd(-beta), t = _mm256_set1_pd(step);
  PetscInt      i = 0;

  for (; i + 4 <= m; i += 4) {
    const __m256d shift = dr ? _mm256_loadu_pd(&dr[i]) : _mm256_setzero_pd();
    const __m256d x = _mm256_loadu_pd(&xv[i]), xp = _mm256_loadu_pd(&xpv[i]);
    const __m256d gx = _mm256_add_pd(_mm256_loadu_pd(&gxv[i]), shift),
                  gp = _mm256_add_pd(_mm256_loadu_pd(&gpv[i]), shift);
    const __m256d gy = _mm256_add_pd(_mm256_mul_pd(a, gx), _mm256_mul_pd(b, gp));
    const __m256d y  = _mm256_add_pd(_mm256_mul_pd(a, x), _mm256_mul_pd(b, xp));
    const __m256d e  = _mm256_sub_pd(x, xp);
    s[0]             = AddInOrder4(s[0], _mm256_mul_pd(shift, x));
    s[1]             = AddInOrder4(s[1], _mm256_mul_pd(gx, e));
    s[2]             = AddInOrder4(s[2], _mm256_mul_pd(_mm256_sub_pd(gx, gp), e));
    s[3]             = AddInOrder4(s[3], _mm256_mul_pd(gy, e));
    if (dr) _mm256_storeu_pd(&gxv[i], gx);
    _mm256_storeu_pd(&gyv[i], gy);
    _mm256_storeu_pd(&yv[i], y);
    if (bv) _mm256_storeu_pd(&bv[i], x);
    if (trial) _mm256_storeu_pd(&xpv[i], _mm256_sub_pd(y, _mm256_mul_pd(t, gy)));
  }
  return i;
}

WIDE4 static PetscInt TestRows4(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                                const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4])
{
  PetscInt i = 0;

  for (; i + 4 <= m; i += 4) {
    const __m256d x = _mm256_loadu_pd(&xv[i]), gy = _mm256_loadu_pd(&gyv[i]);
    const __m256d d = _mm256_sub_pd(x, _mm256_loadu_pd(&yv[i])), r = _mm256_sub_pd(x, _mm256_loadu_pd(&w[i]));
    s[0] = AddInOrder4(s[0], _mm256_mul_pd(d, _mm256_sub_pd(_mm256_loadu_pd(&gv[i]), gy)));
    s[1] = AddInOrder4(s[1], _mm256_mul_pd(d, d));
    s[2] = AddInOrder4(s[2], _mm256_mul_pd(r, r));
    s[3] = AddInOrder4(s[3], _mm256_mul_pd(d, gy));
  }
  return i;
}

WIDE4 static PetscInt ResidualPoints4(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv,
                                      PetscScalar *w)
{
  const __m256d step = _mm256_set1_pd(g_d);
  PetscInt      i    = 0;

  for (; i + 4 <= m; i += 4)
    _mm256_storeu_pd(&w[i], _mm256_sub_pd(_mm256_loadu_pd(&xv[i]), _mm256_mul_pd(step, _mm256_loadu_pd(&gv[i]))));
  return i;
}

WIDE4 static PetscInt WeightResiduals4(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w)
{
  PetscInt i = 0;

  for (; i + 4 <= m; i += 4) {
    const __m256d x = _mm256_loadu_pd(&xv[i]);
    _mm256_storeu_pd(&w[i], _mm256_sub_pd(x, _mm256_mul_pd(_mm256_loadu_pd(&wt[i]),
                                                           _mm256_sub_pd(x, _mm256_loadu_pd(&w[i])))));
  }
  return i;
}

/* AVX-512 (8 lanes), else AVX2 (4), else none: TalusSIMDWidth (simd.c) */
static PetscInt Width(void)
{
  return TalusSIMDWidth();
}

PetscInt APGDExtrapolateRowsWide(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial, const PetscScalar *dr,
                                 const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv, const PetscScalar *gpv,
                                 PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv, PetscReal s[4])
{
  const PetscInt width = Width();
  return width == 8 ? ExtrapolateRows(m, beta, step, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, s)
       : width == 4 ? ExtrapolateRows4(m, beta, step, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, s)
                    : 0;
}

PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                          const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4])
{
  const PetscInt width = Width();
  return width == 8 ? TestRows(m, xv, gv, yv, gyv, w, s) : width == 4 ? TestRows4(m, xv, gv, yv, gyv, w, s) : 0;
}

PetscInt APGDResidualPointsWide(PetscInt m, PetscReal g_d, const PetscScalar *xv, const PetscScalar *gv, PetscScalar *w)
{
  const PetscInt width = Width();
  return width == 8 ? ResidualPoints(m, g_d, xv, gv, w) : width == 4 ? ResidualPoints4(m, g_d, xv, gv, w) : 0;
}

PetscInt APGDWeightResidualsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *wt, PetscScalar *w)
{
  const PetscInt width = Width();
  return width == 8 ? WeightResiduals(m, xv, wt, w) : width == 4 ? WeightResiduals4(m, xv, wt, w) : 0;
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
                                 PetscScalar *yv, PetscScalar *gyv, PetscScalar *bv, PetscReal s[4])
{
  (void)m, (void)beta, (void)step, (void)trial, (void)dr, (void)xv, (void)xpv, (void)gxv, (void)gpv, (void)yv;
  (void)gyv, (void)bv, (void)s;
  return 0;
}

PetscInt APGDTestRowsWide(PetscInt m, const PetscScalar *xv, const PetscScalar *gv, const PetscScalar *yv,
                          const PetscScalar *gyv, const PetscScalar *w, PetscReal s[4])
{
  (void)m, (void)xv, (void)gv, (void)yv, (void)gyv, (void)w, (void)s;
  return 0;
}
#endif
