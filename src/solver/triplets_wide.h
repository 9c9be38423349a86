/*
 * 8 triplets (a contact's three rows: n, u, w) moved between memory, where they follow each other, and three
 * AVX-512 registers holding each row of the 8 contacts. Static inline, for the wide kernels of the solver
 * (cones_wide.c) and of the matrix-free B (src/sim/jacobian_wide.c); include it inside their x86-64 sections.
 */
#ifndef TALUS_TRIPLETS_WIDE_H
#define TALUS_TRIPLETS_WIDE_H
#include <immintrin.h>
#include <petscsys.h>

/* p[0..23] = (n0 u0 w0 n1 u1 w1 ...) into n, u, w (permutex2var indices 0-7 take from the first operand, 8-15 from
   the second) */
__attribute__((target("avx512f"))) static inline void TalusLoadTriplets8(const PetscReal *p, __m512d *n, __m512d *u,
                                                                         __m512d *w)
{
  const __m512d a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8), c = _mm512_loadu_pd(p + 16);
  *n = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0), b),
                              _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 10, 13), c);
  *u = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0), b),
                              _mm512_setr_epi64(0, 1, 2, 3, 4, 8, 11, 14), c);
  *w = _mm512_permutex2var_pd(_mm512_permutex2var_pd(a, _mm512_setr_epi64(2, 5, 8, 11, 14, 0, 0, 0), b),
                              _mm512_setr_epi64(0, 1, 2, 3, 4, 9, 12, 15), c);
}

/* n, u, w of 8 contacts into p[0..23] as triplets */
__attribute__((target("avx512f"))) static inline void TalusStoreTriplets8(__m512d n, __m512d u, __m512d w, PetscReal *p)
{
  _mm512_storeu_pd(p, _mm512_permutex2var_pd(_mm512_permutex2var_pd(n, _mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10), u),
                                             _mm512_setr_epi64(0, 1, 8, 3, 4, 9, 6, 7), w));
  _mm512_storeu_pd(p + 8,
                   _mm512_permutex2var_pd(_mm512_permutex2var_pd(n, _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5), u),
                                          _mm512_setr_epi64(10, 1, 2, 11, 4, 5, 12, 7), w));
  _mm512_storeu_pd(p + 16,
                   _mm512_permutex2var_pd(_mm512_permutex2var_pd(n, _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0), u),
                                          _mm512_setr_epi64(0, 13, 2, 3, 14, 5, 6, 15), w));
}

#endif
