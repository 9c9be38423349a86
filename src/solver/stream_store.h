/*
 * Stores that bypass the caches, for arrays a pass writes without reading them first. An ordinary
 * store first reads the cache line it writes (read for ownership): for a write-only stream larger
 * than the caches that doubles its memory traffic. Non-temporal stores (x86-64 MOVNTI) write whole
 * lines once their bytes are gathered. A pass that uses them ends with TalusStreamFence() so that
 * later passes see the data. Elsewhere they are ordinary stores.
 */
#ifndef TALUS_STREAM_STORE_H
#define TALUS_STREAM_STORE_H
#include <petscsys.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__) && !defined(PETSC_USE_COMPLEX)
  #include <emmintrin.h>
  #define TALUS_HAVE_STREAM_STORE 1
#endif

/* Worth it only for arrays well beyond the caches: a small array written around the caches must
   come back from memory when it is read. */
#define TALUS_STREAM_MIN_BYTES ((size_t)4 << 20)

static inline PetscBool TalusStreamWorthIt(PetscInt n)
{
  return (PetscBool)((size_t)n * sizeof(PetscScalar) >= TALUS_STREAM_MIN_BYTES);
}

static inline void TalusStreamStore(PetscScalar *p, PetscScalar v)
{
#if defined(TALUS_HAVE_STREAM_STORE)
  long long bits;
  memcpy(&bits, &v, sizeof(bits));
  _mm_stream_si64((long long *)p, bits);
#else
  *p = v;
#endif
}

static inline void TalusStreamFence(void)
{
#if defined(TALUS_HAVE_STREAM_STORE)
  _mm_sfence();
#endif
}

#endif
