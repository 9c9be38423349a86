/*
 * The matrix-free B's products (jacobian_shell.c) on 8 contacts at a time with AVX-512, chosen at run time by what
 * the processor has. On a settled bed the products with N are half of apgd's time, and their scalar code spends
 * it on the arithmetic of one contact after another; 8 lanes share it.
 *
 * A run of 8 axial records (n, t, lambda_a, lambda_b: 8 doubles each, one after the other) is loaded as 8
 * registers and transposed, so that each register holds one field of the 8 contacts; the two bodies' velocities
 * likewise (6 doubles from each contact's slot). Then the arithmetic is the scalar code's, operation for operation
 * and in the same order (no fused multiply-adds: C17 mode contracts nothing and the intrinsics are explicit), with
 * the cases (a fixed body: no slot) as masks, so every result is bitwise the scalar one (tests/unit/
 * test_jacobian_shell.c compares them).
 */
#include "jacobian_wide.h"
#include <talus.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  #include <immintrin.h>
  #include <string.h>
  #include "../solver/triplets_wide.h"

  #define WIDE __attribute__((target("avx512f")))
  /* the small loops over registers unrolled, so that their arrays live in registers (at -O2 GCC would keep
     them on the stack) */
  #define UNROLL _Pragma("GCC unroll 8")

/* 8 x 8 doubles transposed in registers: r[i] holds row i on entry, column i on exit */
WIDE static inline void Transpose8(__m512d r[8])
{
  __m512d       a[8], b[8];
  const __m512i lo4 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), hi4 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  const __m512i lo8 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11), hi8 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  UNROLL for (int i = 0; i < 8; i += 2) a[i]     = _mm512_unpacklo_pd(r[i], r[i + 1]),
                                        a[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  /* a[2j] = (r_2j[0], r_2j+1[0], r_2j[2], r_2j+1[2], ...), a[2j+1] the odd columns */
  UNROLL for (int h = 0; h < 8; h += 4) UNROLL for (int k = 0; k < 2; k++)
  {
    b[h + k]     = _mm512_permutex2var_pd(a[h + k], lo4, a[h + 2 + k]); /* columns k, k + 4 of rows h..h+3 */
    b[h + 2 + k] = _mm512_permutex2var_pd(a[h + k], hi4, a[h + 2 + k]); /* columns k + 2, k + 6 */
  }
  UNROLL for (int k = 0; k < 4; k++)
  {
    r[k]     = _mm512_permutex2var_pd(b[k], lo8, b[4 + k]);
    r[k + 4] = _mm512_permutex2var_pd(b[k], hi8, b[4 + k]);
  }
}

/* 8 contacts' fields from their transposed records (TalusJacobianWideRecords): frame rows n, t, w = n x t and
   lever arms S_a = lambda_a n, S_b = lambda_b n (jacobian_shell.c's Unpack) */
typedef struct {
  __m512d n0, n1, n2, t0, t1, t2, w0, w1, w2, a0, a1, a2, b0, b1, b2;
} Contacts8;

WIDE static inline Contacts8 Unpack8(const PetscReal *R)
{
  const __m512d la = _mm512_loadu_pd(R + 48), lb = _mm512_loadu_pd(R + 56);
  Contacts8     k;

  k.n0 = _mm512_loadu_pd(R), k.n1 = _mm512_loadu_pd(R + 8), k.n2 = _mm512_loadu_pd(R + 16);
  k.t0 = _mm512_loadu_pd(R + 24), k.t1 = _mm512_loadu_pd(R + 32), k.t2 = _mm512_loadu_pd(R + 40);
  k.w0 = _mm512_sub_pd(_mm512_mul_pd(k.n1, k.t2), _mm512_mul_pd(k.n2, k.t1));
  k.w1 = _mm512_sub_pd(_mm512_mul_pd(k.n2, k.t0), _mm512_mul_pd(k.n0, k.t2));
  k.w2 = _mm512_sub_pd(_mm512_mul_pd(k.n0, k.t1), _mm512_mul_pd(k.n1, k.t0));
  k.a0 = _mm512_mul_pd(la, k.n0), k.a1 = _mm512_mul_pd(la, k.n1), k.a2 = _mm512_mul_pd(la, k.n2);
  k.b0 = _mm512_mul_pd(lb, k.n0), k.b1 = _mm512_mul_pd(lb, k.n1), k.b2 = _mm512_mul_pd(lb, k.n2);
  return k;
}

/* the 6 velocities of each contact's body on one side (slot[2 c + side]); a fixed body's lane is masked out */
WIDE static inline __mmask8 LoadBodies(const PetscInt *slot, int side, const PetscScalar *x, __m512d v[8])
{
  __mmask8 valid = 0;

  UNROLL for (int i = 0; i < 8; i++)
  {
    const PetscInt s = slot[2 * i + side];
    if (s >= 0) valid |= (__mmask8)(1u << i);
    v[i] = s >= 0 ? _mm512_maskz_loadu_pd(0x3F, &x[6 * s]) : _mm512_setzero_pd();
  }
  Transpose8(v);
  return valid;
}

/* v + omega x S of one side, lane by lane as GatherOne: ((v0 + v4 S2) - v5 S1), ... */
WIDE static inline void PointVelocity(const __m512d v[8], __m512d S0, __m512d S1, __m512d S2, __m512d p[3])
{
  p[0] = _mm512_sub_pd(_mm512_add_pd(v[0], _mm512_mul_pd(v[4], S2)), _mm512_mul_pd(v[5], S1));
  p[1] = _mm512_sub_pd(_mm512_add_pd(v[1], _mm512_mul_pd(v[5], S0)), _mm512_mul_pd(v[3], S2));
  p[2] = _mm512_sub_pd(_mm512_add_pd(v[2], _mm512_mul_pd(v[3], S1)), _mm512_mul_pd(v[4], S0));
}

WIDE static inline __m512d Dot3(__m512d x0, __m512d x1, __m512d x2, const __m512d r[3])
{
  return _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(x0, r[0]), _mm512_mul_pd(x1, r[1])), _mm512_mul_pd(x2, r[2]));
}

/* eight axial records (TALUS_JACOBIAN_AXIAL = 8) */
static inline PetscBool AllAxial(const char *kind)
{
  PetscInt64 kinds;
  memcpy(&kinds, kind, sizeof(kinds));
  return (PetscBool)(kinds == 0x0808080808080808LL);
}

/* GatherContacts' scaled branch (jacobian_shell.c) for 8 contacts */
WIDE static void Gather8(const TalusGatherArgs *g, PetscInt c)
{
  const Contacts8 k = Unpack8(&g->J[8 * c]);
  __m512d         va[8], vb[8], pa[3], pb[3], rel[3], u[3], d[3];
  __mmask8        has_a, has_b;

  has_b = LoadBodies(&g->slot[2 * c], 1, g->x, vb);
  has_a = LoadBodies(&g->slot[2 * c], 0, g->x, va);
  PointVelocity(vb, k.b0, k.b1, k.b2, pb);
  PointVelocity(va, k.a0, k.a1, k.a2, pa);
  UNROLL for (int i = 0; i < 3; i++)
  {
    rel[i] = _mm512_maskz_mov_pd(has_b, pb[i]);                /* 0, or side b's */
    rel[i] = _mm512_mask_sub_pd(rel[i], has_a, rel[i], pa[i]); /* minus side a's */
  }
  u[0] = Dot3(k.n0, k.n1, k.n2, rel), u[1] = Dot3(k.t0, k.t1, k.t2, rel), u[2] = Dot3(k.w0, k.w1, k.w2, rel);
  TalusLoadTriplets8(&g->d[3 * c], &d[0], &d[1], &d[2]);
  if (g->e) {
    __m512d e[3], r[3];
    TalusLoadTriplets8(&g->e[3 * c], &e[0], &e[1], &e[2]);
    TalusLoadTriplets8(&g->r[3 * c], &r[0], &r[1], &r[2]);
    UNROLL for (int i = 0; i < 3; i++) u[i] = _mm512_add_pd(u[i], _mm512_mul_pd(e[i], _mm512_mul_pd(d[i], r[i])));
  }
  UNROLL for (int i = 0; i < 3; i++) u[i] = _mm512_mul_pd(u[i], d[i]);
  if (g->add || g->z) {
    __m512d z[3];
    TalusLoadTriplets8(g->add ? &g->y[3 * c] : &g->z[3 * c], &z[0], &z[1], &z[2]);
    UNROLL for (int i = 0; i < 3; i++) u[i] = _mm512_add_pd(u[i], z[i]);
  }
  if (g->s) u[0] = _mm512_add_pd(u[0], _mm512_loadu_pd(&g->s[c]));
  TalusStoreTriplets8(u[0], u[1], u[2], &g->y[3 * c]);
}

/* the contacts [0, 8k) of n whose groups of 8 are all axial, from the first: the run a wide product takes */
static PetscInt AxialRun(PetscInt n, const char *kind)
{
  PetscInt c = 0;
  while (c + 8 <= n && AllAxial(&kind[c])) c += 8;
  return c;
}

/* a group's transposed records (8 cache lines) 4 groups ahead: without it the products wait on memory when the
   records do not fit in the caches (docs/notes/2026-11-performance-records.md); prefetching past the end is harmless */
static inline void PrefetchGroup(const PetscReal *J, PetscInt c)
{
  UNROLL for (int line = 0; line < 8; line++) _mm_prefetch((const char *)&J[8 * (c + 32) + 8 * line], _MM_HINT_T0);
}

WIDE static PetscInt GatherWide(PetscInt n, const TalusGatherArgs *g)
{
  const PetscInt m = AxialRun(n, g->kind);
  for (PetscInt c = 0; c < m; c += 8) PrefetchGroup(g->J, c), Gather8(g, c);
  return m;
}

/* ScatterContacts (jacobian_shell.c) for 8 contacts: the forces f = F^T D g and the torques S x f lane by lane, then
   added to the bodies contact after contact in the scalar code's order (side b, then side a), 6 entries at a time */
WIDE static void Scatter8(const TalusScatterArgs *g, PetscInt c)
{
  const Contacts8 k = Unpack8(&g->J[8 * c]);
  __m512d         gd[3], f[3], rb[8], ra[8];

  TalusLoadTriplets8(&g->g[3 * c], &gd[0], &gd[1], &gd[2]);
  if (g->d) {
    __m512d d[3];
    TalusLoadTriplets8(&g->d[3 * c], &d[0], &d[1], &d[2]);
    UNROLL for (int i = 0; i < 3; i++) gd[i] = _mm512_mul_pd(d[i], gd[i]);
  }
  f[0] = Dot3(k.n0, k.t0, k.w0, gd), f[1] = Dot3(k.n1, k.t1, k.w1, gd), f[2] = Dot3(k.n2, k.t2, k.w2, gd);
  rb[0] = ra[0] = f[0], rb[1] = ra[1] = f[1], rb[2] = ra[2] = f[2];
  rb[3] = _mm512_sub_pd(_mm512_mul_pd(k.b1, f[2]), _mm512_mul_pd(k.b2, f[1]));
  rb[4] = _mm512_sub_pd(_mm512_mul_pd(k.b2, f[0]), _mm512_mul_pd(k.b0, f[2]));
  rb[5] = _mm512_sub_pd(_mm512_mul_pd(k.b0, f[1]), _mm512_mul_pd(k.b1, f[0]));
  ra[3] = _mm512_sub_pd(_mm512_mul_pd(k.a1, f[2]), _mm512_mul_pd(k.a2, f[1]));
  ra[4] = _mm512_sub_pd(_mm512_mul_pd(k.a2, f[0]), _mm512_mul_pd(k.a0, f[2]));
  ra[5] = _mm512_sub_pd(_mm512_mul_pd(k.a0, f[1]), _mm512_mul_pd(k.a1, f[0]));
  rb[6] = rb[7] = ra[6] = ra[7] = _mm512_setzero_pd();
  Transpose8(rb); /* rb[i]: contact i's (f, S_b x f) */
  Transpose8(ra);
  {
    /* side a's running value stays in registers while consecutive contacts share their body a (contacts come
       sorted by it): the same subtractions in the same order, without a store and a load between them. It is
       written back before a contact whose body a differs, so before any b side could read that body. */
    PetscInt held = -1;
    __m256d  head = _mm256_setzero_pd();
    __m128d  tail = _mm_setzero_pd();
    UNROLL for (int i = 0; i < 8; i++)
    {
      const PetscInt a = g->slot[2 * (c + i)], b = g->slot[2 * (c + i) + 1];
      const int      first = g->first[c + i];
      if (held >= 0 && a != held) {
        _mm256_storeu_pd(&g->y[6 * held], head), _mm_storeu_pd(&g->y[6 * held + 4], tail);
        held = -1;
      }
      if (b >= 0) { /* y = (keep ? y : 0) + (f, S_b x f), as four and two entries */
        PetscScalar  *y  = &g->y[6 * b];
        const __m256d hb = (first & 2) ? _mm256_setzero_pd() : _mm256_loadu_pd(y);
        const __m128d tb = (first & 2) ? _mm_setzero_pd() : _mm_loadu_pd(y + 4);
        _mm256_storeu_pd(y, _mm256_add_pd(hb, _mm512_castpd512_pd256(rb[i])));
        _mm_storeu_pd(y + 4, _mm_add_pd(tb, _mm256_castpd256_pd128(_mm512_extractf64x4_pd(rb[i], 1))));
      }
      if (a >= 0) { /* y = (keep ? y : 0) - (f, S_a x f) */
        if (held < 0) {
          head = (first & 1) ? _mm256_setzero_pd() : _mm256_loadu_pd(&g->y[6 * a]);
          tail = (first & 1) ? _mm_setzero_pd() : _mm_loadu_pd(&g->y[6 * a + 4]);
          held = a;
        }
        head = _mm256_sub_pd(head, _mm512_castpd512_pd256(ra[i]));
        tail = _mm_sub_pd(tail, _mm256_castpd256_pd128(_mm512_extractf64x4_pd(ra[i], 1)));
      }
    }
    if (held >= 0) _mm256_storeu_pd(&g->y[6 * held], head), _mm_storeu_pd(&g->y[6 * held + 4], tail);
  }
}

WIDE static PetscInt ScatterWide(PetscInt n, const TalusScatterArgs *g)
{
  const PetscInt m = AxialRun(n, g->kind);
  for (PetscInt c = 0; c < m; c += 8) PrefetchGroup(g->J, c), Scatter8(g, c);
  return m;
}

WIDE static void TransposeRecords(PetscInt n, const char *kind, const PetscReal *J, PetscReal *soa)
{
  PetscInt offset = 0;

  for (PetscInt c = 0; c + 8 <= n; c += 8) {
    if (AllAxial(&kind[c])) {
      __m512d r[8];
      UNROLL for (int i = 0; i < 8; i++) r[i] = _mm512_loadu_pd(&J[offset + 8 * i]);
      Transpose8(r);
      UNROLL for (int f = 0; f < 8; f++) _mm512_storeu_pd(&soa[8 * c + 8 * f], r[f]);
    }
    for (int i = 0; i < 8; i++) offset += kind[c + i];
  }
}

static int Have(void)
{
  return TalusSIMDWidth() == 8; /* AVX-512 (src/solver/simd.c) */
}

PetscErrorCode TalusJacobianWideRecords(PetscInt n, const char *kind, const PetscReal *J, PetscReal **soa)
{
  PetscFunctionBegin;
  *soa = NULL;
  if (!Have() || n < 8) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(8 * n, soa));
  TransposeRecords(n, kind, J, *soa);
  PetscFunctionReturn(0);
}

PetscInt TalusJacobianGatherWide(PetscInt n, const TalusGatherArgs *g)
{
  return GatherWide(n, g);
}

PetscInt TalusJacobianScatterWide(PetscInt n, const TalusScatterArgs *g)
{
  return ScatterWide(n, g);
}
#else
PetscErrorCode TalusJacobianWideRecords(PetscInt n, const char *kind, const PetscReal *J, PetscReal **soa)
{
  (void)n, (void)kind, (void)J;
  *soa = NULL;
  return 0;
}

PetscInt TalusJacobianGatherWide(PetscInt n, const TalusGatherArgs *g)
{
  (void)n, (void)g;
  return 0;
}

PetscInt TalusJacobianScatterWide(PetscInt n, const TalusScatterArgs *g)
{
  (void)n, (void)g;
  return 0;
}
#endif
