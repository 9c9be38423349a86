/*
 * The friction-cone projection of cones.c on 8 contacts at a time with AVX-512, or 4 with AVX2, chosen at
 * run time by what the processor has (TalusSIMDWidth, simd.c); and likewise the Coulomb problem's update of
 * the De Saxce shift mu ||u_t|| (ccp_variants.c), the other per-contact square root of an iteration. The solver
 * projects every contact twice per iteration; one contact's square root and division take about 13 cycles in
 * scalar code (a sixth of an iteration when the problem fits in the caches), and 8 lanes share them.
 *
 * The arithmetic is the scalar code's, operation for operation (the same products, sums, square
 * root and division, no fused multiply-adds: C17 mode contracts nothing, and the intrinsics are
 * explicit), and the case selection is the same, so every result is bitwise the scalar one
 * (tests/unit/test_cones.c checks this on all the cases and on random points).
 */
#include "cones_wide.h"
#include <talus.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #include <immintrin.h>
  #include "triplets_wide.h"

__attribute__((target("avx512f"))) static PetscInt ProjectWide(PetscInt ncontacts, const PetscReal mu[],
                                                               const PetscReal in[], PetscReal out[])
{
  const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
  PetscInt      c = 0;

  for (; c + 8 <= ncontacts; c += 8) {
    __m512d       n, u, w;
    const __m512d m = _mm512_loadu_pd(&mu[c]);
    TalusLoadTriplets8(&in[3 * c], &n, &u, &w);
    /* cones.c ProjectTriplet, lane by lane */
    const __m512d  t      = _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(u, u), _mm512_mul_pd(w, w)));
    const __m512d  mt     = _mm512_mul_pd(m, t);
    const __m512d  p      = _mm512_add_pd(n, mt);
    const __m512d  t_safe = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, zero, _CMP_GT_OQ), one, t);
    const __m512d  inv    = _mm512_div_pd(one, _mm512_mul_pd(_mm512_add_pd(one, _mm512_mul_pd(m, m)), t_safe));
    const __m512d  n_surf = _mm512_mul_pd(_mm512_mul_pd(p, t), inv), s_surf = _mm512_mul_pd(_mm512_mul_pd(m, p), inv);
    const __mmask8 fr      = _mm512_cmp_pd_mask(m, zero, _CMP_LE_OQ),
                   inside  = (__mmask8)(~fr & _mm512_cmp_pd_mask(t, _mm512_mul_pd(m, n), _CMP_LE_OQ));
    const __mmask8 polar   = (__mmask8)(~fr & ~inside & _mm512_cmp_pd_mask(mt, _mm512_sub_pd(zero, n), _CMP_LE_OQ));
    const __mmask8 surface = (__mmask8)(~fr & ~inside & ~polar);
    __m512d        n_out = zero, scale = zero;
    n_out = _mm512_mask_mov_pd(n_out, (__mmask8)(fr & _mm512_cmp_pd_mask(n, zero, _CMP_GT_OQ)), n);
    n_out = _mm512_mask_mov_pd(n_out, inside, n);
    n_out = _mm512_mask_mov_pd(n_out, surface, n_surf);
    scale = _mm512_mask_mov_pd(scale, inside, one);
    scale = _mm512_mask_mov_pd(scale, surface, s_surf);
    TalusStoreTriplets8(n_out, _mm512_mul_pd(u, scale), _mm512_mul_pd(w, scale), &out[3 * c]);
  }
  return c;
}

/*
 * The same on 4 contacts at a time with AVX2, for processors without AVX-512 (AMD's before Zen 4): the three
 * parts gathered with stride 3 and the results written back through a small array (AVX2 has no scatter), the
 * selection by blends of comparison masks. Operation for operation the scalar code's, as above.
 */
__attribute__((target("avx2"))) static PetscInt ProjectWide4(PetscInt ncontacts, const PetscReal mu[],
                                                             const PetscReal in[], PetscReal out[])
{
  const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
  const __m256i stride = _mm256_setr_epi64x(0, 3, 6, 9);
  PetscInt      c      = 0;

  for (; c + 4 <= ncontacts; c += 4) {
    const PetscReal *p3 = &in[3 * c];
    const __m256d    n = _mm256_i64gather_pd(p3, stride, 8), u = _mm256_i64gather_pd(p3 + 1, stride, 8),
                  w = _mm256_i64gather_pd(p3 + 2, stride, 8), m = _mm256_loadu_pd(&mu[c]);
    /* cones.c ProjectTriplet, lane by lane */
    const __m256d t      = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(u, u), _mm256_mul_pd(w, w)));
    const __m256d mt     = _mm256_mul_pd(m, t);
    const __m256d p      = _mm256_add_pd(n, mt);
    const __m256d t_safe = _mm256_blendv_pd(one, t, _mm256_cmp_pd(t, zero, _CMP_GT_OQ));
    const __m256d inv    = _mm256_div_pd(one, _mm256_mul_pd(_mm256_add_pd(one, _mm256_mul_pd(m, m)), t_safe));
    const __m256d n_surf = _mm256_mul_pd(_mm256_mul_pd(p, t), inv), s_surf = _mm256_mul_pd(_mm256_mul_pd(m, p), inv);
    const __m256d fr      = _mm256_cmp_pd(m, zero, _CMP_LE_OQ);
    const __m256d inside  = _mm256_andnot_pd(fr, _mm256_cmp_pd(t, _mm256_mul_pd(m, n), _CMP_LE_OQ));
    const __m256d polar   = _mm256_andnot_pd(_mm256_or_pd(fr, inside),
                                             _mm256_cmp_pd(mt, _mm256_sub_pd(zero, n), _CMP_LE_OQ));
    const __m256d surface = _mm256_andnot_pd(_mm256_or_pd(_mm256_or_pd(fr, inside), polar),
                                             _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
    __m256d       n_out = zero, scale = zero;
    PetscReal     part[3][4];
    n_out = _mm256_blendv_pd(n_out, n, _mm256_and_pd(fr, _mm256_cmp_pd(n, zero, _CMP_GT_OQ)));
    n_out = _mm256_blendv_pd(n_out, n, inside);
    n_out = _mm256_blendv_pd(n_out, n_surf, surface);
    scale = _mm256_blendv_pd(scale, one, inside);
    scale = _mm256_blendv_pd(scale, s_surf, surface);
    _mm256_storeu_pd(part[0], n_out);
    _mm256_storeu_pd(part[1], _mm256_mul_pd(u, scale));
    _mm256_storeu_pd(part[2], _mm256_mul_pd(w, scale));
    for (int k = 0; k < 4; k++)
      out[3 * (c + k)] = part[0][k], out[3 * (c + k) + 1] = part[1][k], out[3 * (c + k) + 2] = part[2][k];
  }
  return c;
}

/* The De Saxce shift's update of 8 contacts at a time (ccp_variants.c CoulombAntiRelax, lane by lane) */
__attribute__((target("avx512f"))) static PetscInt AntiRelaxWide(PetscInt ncontacts, const PetscReal mu[],
                                                                 const PetscReal g[], PetscReal shift[], PetscReal dr[])
{
  const __m512d zero = _mm512_setzero_pd();
  PetscInt      c    = 0;

  for (; c + 8 <= ncontacts; c += 8) {
    __m512d n, u, w;
    TalusLoadTriplets8(&g[3 * c], &n, &u, &w);
    const __m512d next = _mm512_mul_pd(_mm512_loadu_pd(&mu[c]),
                                       _mm512_sqrt_pd(_mm512_add_pd(_mm512_mul_pd(u, u), _mm512_mul_pd(w, w))));
    TalusStoreTriplets8(_mm512_sub_pd(next, _mm512_loadu_pd(&shift[c])), zero, zero, &dr[3 * c]);
    _mm512_storeu_pd(&shift[c], next);
  }
  return c;
}

/* The same on 4 contacts with AVX2 (the parts gathered with stride 3, dr written through a small array) */
__attribute__((target("avx2"))) static PetscInt AntiRelaxWide4(PetscInt ncontacts, const PetscReal mu[],
                                                               const PetscReal g[], PetscReal shift[], PetscReal dr[])
{
  const __m256i stride = _mm256_setr_epi64x(0, 3, 6, 9);
  PetscInt      c      = 0;

  for (; c + 4 <= ncontacts; c += 4) {
    const __m256d u = _mm256_i64gather_pd(&g[3 * c + 1], stride, 8), w = _mm256_i64gather_pd(&g[3 * c + 2], stride, 8);
    const __m256d next = _mm256_mul_pd(_mm256_loadu_pd(&mu[c]),
                                       _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(u, u), _mm256_mul_pd(w, w))));
    PetscReal     change[4];
    _mm256_storeu_pd(change, _mm256_sub_pd(next, _mm256_loadu_pd(&shift[c])));
    _mm256_storeu_pd(&shift[c], next);
    for (int k = 0; k < 4; k++) dr[3 * (c + k)] = change[k], dr[3 * (c + k) + 1] = dr[3 * (c + k) + 2] = 0.0;
  }
  return c;
}

/* AVX-512, else AVX2, else none (the scalar code does all), as TalusSIMDWidth says (simd.c) */
static int Have(void)
{
  const PetscInt width = TalusSIMDWidth();
  return width == 8 ? 2 : width == 4 ? 1 : 0;
}

PetscInt TalusProjectTripletsWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal in[], PetscReal out[])
{
  const int have = Have();
  return have == 2 ? ProjectWide(ncontacts, mu, in, out) : have == 1 ? ProjectWide4(ncontacts, mu, in, out) : 0;
}

PetscInt TalusAntiRelaxWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal g[], PetscReal shift[],
                            PetscReal dr[])
{
  const int have = Have();
  return have == 2 ? AntiRelaxWide(ncontacts, mu, g, shift, dr)
       : have == 1 ? AntiRelaxWide4(ncontacts, mu, g, shift, dr)
                   : 0;
}
#else
PetscInt TalusProjectTripletsWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal in[], PetscReal out[])
{
  (void)ncontacts, (void)mu, (void)in, (void)out;
  return 0;
}

PetscInt TalusAntiRelaxWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal g[], PetscReal shift[],
                            PetscReal dr[])
{
  (void)ncontacts, (void)mu, (void)g, (void)shift, (void)dr;
  return 0;
}
#endif
