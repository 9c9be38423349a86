/*
 * Which vector instructions the wide kernels use (cones_wide.c, apgd_wide.c, src/sim/jacobian_wide.c): the
 * processor is asked once, and `-simd false` (or TalusSIMDEnable) keeps every kernel on its scalar code. The wide
 * forms give the scalar code's bits, so this changes times only: a run with and without them is a check that
 * they do (tests/cli/test_simd.py).
 */
#include <talus.h>

static PetscBool simd_enabled = PETSC_TRUE;
static PetscInt  simd_limit   = 8; /* TalusSIMDSetWidth */

static PetscInt ProcessorWidth(void)
{
  static PetscInt have = -1;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_DOUBLE)
  if (have < 0) have = __builtin_cpu_supports("avx512f") ? 8 : __builtin_cpu_supports("avx2") ? 4 : 1;
#else
  have = 1;
#endif
  return have;
}

PetscInt TalusSIMDWidth(void)
{
  return simd_enabled ? PetscMin(ProcessorWidth(), simd_limit) : 1;
}

void TalusSIMDEnable(PetscBool on)
{
  simd_enabled = on;
}

void TalusSIMDSetWidth(PetscInt width)
{
  simd_limit = width >= 8 ? 8 : width >= 4 ? 4 : 1;
}

/* -simd, from TalusCCPSetFromOptions: on unless the options say otherwise (not the last problem's choice: the
   campaign server's jobs share a process) */
PetscErrorCode TalusSIMDSetFromOptions(MPI_Comm comm)
{
  PetscBool on = PETSC_TRUE;

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
