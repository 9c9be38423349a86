/*
 * TalusVecNormReproducible (src/solver/reproducible_sum.c; issue 55, item 2) on 1-4 ranks: the same bits for the
 * same global entries in three layouts of this run and in one rank's sequential copy of them (so on any number of
 * ranks: each run of the test compares its layouts with the one-rank copy), within 2 ulps of a long double sum's
 * (VecNorm's plain sum is 9 ulps off); a zero vector's 0, NaN for a NaN entry, and no overflow or loss for
 * entries near the largest and the smallest doubles.
 */
#include "../common/check.h"
#include <math.h>
#include "../../src/solver/reproducible_sum.h"

/* entry i of the test vector: signs and 13 decades mixed, so that the order of a plain sum shows in its bits */
static PetscReal Entry(PetscInt i, PetscReal scale)
{
  return scale * PetscSinReal(0.37 * (PetscReal)i + 0.1) * PetscPowReal(10.0, (PetscReal)(i % 13) - 6.0);
}

/* a vector of N entries over the ranks, n of them on this rank (PETSC_DECIDE: PETSc's split) */
static PetscErrorCode Filled(MPI_Comm comm, PetscInt n, PetscInt N, PetscReal scale, Vec *v)
{
  PetscInt lo, hi;

  PetscFunctionBegin;
  PetscCall(VecCreateMPI(comm, n, N, v));
  PetscCall(VecGetOwnershipRange(*v, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(*v, i, Entry(i, scale), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(*v));
  PetscCall(VecAssemblyEnd(*v));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckLayouts(PetscInt N, PetscReal scale)
{
  PetscMPIInt rank, size;
  Vec         v;
  PetscReal   serial, norm, plain;
  PetscInt    share[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Filled(PETSC_COMM_SELF, N, N, scale, &v)); /* one rank's copy of them all */
  PetscCall(TalusVecNormReproducible(v, &serial));
  PetscCall(VecDestroy(&v));
  {
    /* the reference: scaled by the largest entry and summed in long double (64 bits: N 2^-64 at worst); VecNorm's
       plain sum is 9 ulps off at scale 1 and underflows to 0 at 1e-290 */
    long double largest = 0.0L, squares = 0.0L;
    for (PetscInt i = 0; i < N; i++) largest = PetscMax(largest, fabsl((long double)Entry(i, scale)));
    for (PetscInt i = 0; i < N; i++)
      squares += ((long double)Entry(i, scale) / largest) * ((long double)Entry(i, scale) / largest);
    plain = (PetscReal)(largest * sqrtl(squares));
  }
  CHECK(PetscAbsReal(serial - plain) <= 2.0 * PETSC_MACHINE_EPSILON * plain,
        "N %" PetscInt_FMT ", scale %g: the reproducible norm %.17g, the long double sum's %.17g", N, (double)scale,
        (double)serial, (double)plain);
  /* PETSc's split, the last rank holding all but one entry a rank, and the first rank holding none */
  share[0] = PETSC_DECIDE;
  share[1] = rank < size - 1 ? 1 : N - (size - 1);
  share[2] = size == 1 ? N : rank == 0 ? 0 : N / (size - 1) + (rank <= N % (size - 1) ? 1 : 0);
  for (int k = 0; k < 3; k++) {
    PetscCall(Filled(PETSC_COMM_WORLD, share[k], N, scale, &v));
    PetscCall(TalusVecNormReproducible(v, &norm));
    PetscCall(VecDestroy(&v));
    CHECK(norm == serial, "N %" PetscInt_FMT ", scale %g, layout %d on %d ranks: %.17g, one rank's copy %.17g", N,
          (double)scale, k, size, (double)norm, (double)serial);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Vec       v;
  PetscReal norm;
  PetscInt  lo, hi;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckLayouts(10007, 1.0));
  PetscCall(CheckLayouts(10007, 1e290)); /* squares beyond the largest double */
  PetscCall(CheckLayouts(10007, 1e-290));
  PetscCall(CheckLayouts(5, 1.0));
  /* a zero vector, one NaN, and two entries at the ends of the range */
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, 7, &v));
  PetscCall(VecSet(v, 0.0));
  PetscCall(TalusVecNormReproducible(v, &norm));
  CHECK(norm == 0.0, "a zero vector's norm is %g", (double)norm);
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  if (lo <= 3 && 3 < hi) PetscCall(VecSetValue(v, 3, NAN, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscCall(TalusVecNormReproducible(v, &norm));
  CHECK(PetscIsNanReal(norm), "a vector holding NaN has the norm %g", (double)norm);
  PetscCall(VecSet(v, 0.0));
  if (lo <= 0 && 0 < hi) PetscCall(VecSetValue(v, 0, 1e308, INSERT_VALUES));
  if (lo <= 6 && 6 < hi) PetscCall(VecSetValue(v, 6, -1e308, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscCall(TalusVecNormReproducible(v, &norm));
  CHECK(PetscAbsReal(norm / (PetscSqrtReal(2.0) * 1e308) - 1.0) < 1e-15, "two entries 1e308: the norm %.17g",
        (double)norm);
  PetscCall(VecSet(v, 4e-320)); /* subnormal entries */
  PetscCall(TalusVecNormReproducible(v, &norm));
  CHECK(PetscAbsReal(norm / (PetscSqrtReal(7.0) * 4e-320) - 1.0) < 1e-3, "seven entries 4e-320: the norm %g",
        (double)norm);
  PetscCall(VecDestroy(&v));
  int status = TestSummary("test_reproducible_sum");
  PetscCall(PetscFinalize());
  return status;
}
