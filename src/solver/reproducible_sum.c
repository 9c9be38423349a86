/*
 * A 2-norm that is the same to the last bit on any number of ranks and in any layout (issue 55, item 2).
 *
 * A sum of doubles depends on the order of its additions, and a Vec's VecNorm adds each rank's partial sum:
 * on 2 ranks apgd's first Lipschitz estimate (seed 001 Algorithm 1, line 6) differed from 1 rank's in its last
 * bit, and with it the step 1/L of every iteration after. Here every term is rounded once onto a fixed-point
 * grid that depends only on the largest entry over all ranks and on the vector's global size, and the
 * integers are added exactly (in 128 bits; across ranks in four 32-bit pieces, whose MPI sums cannot
 * overflow): the order of the additions, and so the partition, cannot change the result. The grid keeps
 * 124 - ceil(log2(N + 1)) bits below the largest square (94 bits at 10^9 entries): the sum is as accurate as
 * a double's, and only terms below 2^-94 of the largest are lost.
 */
#include "reproducible_sum.h"

#include <math.h>

typedef unsigned __int128 Fixed128;

/* an entry's square, scaled below 1, on the grid of 2^-bits: its high 62 bits (up = 2^(bits - 62)) and the next
   62; products with powers of two, so every step but the square's rounding is exact */
static inline Fixed128 OnGrid(PetscReal y, PetscReal up)
{
  const PetscReal square = y * y, scaled = square * up;
  const PetscReal high = PetscFloorReal(scaled);
  const PetscReal low  = PetscFloorReal((scaled - high) * 0x1p62); /* scaled - high is exact: the bits below 1 */

  return ((Fixed128)(uint64_t)high << 62) + (Fixed128)(uint64_t)low;
}

PetscErrorCode TalusVecNormReproducible(Vec v, PetscReal *norm)
{
  const PetscScalar *x;
  PetscInt           n, N;
  PetscReal          extent[2] = {0.0, 0.0}; /* the largest |entry|, and 1 if an entry is not finite */
  Fixed128           sum       = 0;
  uint64_t           pieces[4];
  MPI_Comm           comm;
  int                e, bits;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)v, &comm));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecGetArrayRead(v, &x));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal a = PetscAbsScalar(x[i]);
    if (!isfinite(a)) extent[1] = 1.0;
    else extent[0] = PetscMax(extent[0], a);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, extent, 2, MPIU_REAL, MPIU_MAX, comm));
  if (extent[1] != 0.0 || extent[0] == 0.0) { /* NaN or Inf as VecNorm gives them; a zero vector's 0 */
    PetscCall(VecRestoreArrayRead(v, &x));
    if (extent[1] != 0.0) PetscCall(VecNorm(v, NORM_2, norm));
    else *norm = 0.0;
    PetscFunctionReturn(0);
  }
  /* |entries| < 2^e: their squares below 1 after the scaling by 2^-e, below 2^bits on the grid, and N of them
     below 2^124 */
  e    = ilogb(extent[0]) + 1;
  bits = 124 - (int)PetscCeilReal(PetscLog2Real((PetscReal)N + 1.0));
  {
    const PetscReal up = ldexp(1.0, bits - 62), down = ldexp(1.0, -e);
    const PetscBool exact = (PetscBool)(e > -1000 && e < 1000); /* 2^-e a normal double: x 2^-e is exact */
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal xi = PetscRealPart(x[i]);
      sum += OnGrid(exact ? xi * down : ldexp(xi, -e), up);
    }
  }
  PetscCall(VecRestoreArrayRead(v, &x));
  for (int k = 0; k < 4; k++) pieces[k] = (uint64_t)(sum >> (32 * k)) & 0xffffffffu;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, pieces, 4, MPI_UINT64_T, MPI_SUM, comm));
  sum = 0;
  for (int k = 3; k >= 0; k--) sum = (sum << 32) + pieces[k]; /* the carries of each piece into the next */
  *norm = ldexp(PetscSqrtReal(ldexp((PetscReal)sum, -bits)), e);
  PetscFunctionReturn(0);
}
