/*
 * Which vector instructions the wide kernels use (cones_wide.c, apgd_wide.c, src/sim/jacobian_wide.c): the
 * processor is asked once, and `-simd false` (or TalusSIMDEnable) keeps every kernel on its scalar code. The wide
 * forms give the scalar code's bits, so this changes times only: a run with and without them is a check that
 * they do (tests/cli/test_simd.py).
 */
#include <talus.h>

static PetscBool simd_enabled = PETSC_TRUE;

PetscInt TalusSIMDWidth(void)
{
  static PetscInt have = -1;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  if (have < 0) have = __builtin_cpu_supports("avx512f") ? 8 : __builtin_cpu_supports("avx2") ? 4 : 1;
#else
  have = 1;
#endif
  return simd_enabled ? have : 1;
}

void TalusSIMDEnable(PetscBool on)
{
  simd_enabled = on;
}

/* -simd, from TalusCCPSetFromOptions */
PetscErrorCode TalusSIMDSetFromOptions(MPI_Comm comm)
{
  PetscBool on = simd_enabled;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "talus's vector kernels", NULL);
  PetscCall(PetscOptionsBool("-simd",
                             "Use the processor's vector instructions (AVX-512, AVX2) in the solver's kernels; false: "
                             "scalar code only (the same results, slower)",
                             "TalusSIMDEnable", on, &on, NULL));
  PetscOptionsEnd();
  TalusSIMDEnable(on);
  PetscFunctionReturn(0);
}
