/*
 * -perturb_positions EPS (with -perturb_seed K): every dynamic body of a new run moved by a uniform random
 * vector of [-EPS, EPS]^3 before the first step. Members of an ensemble (scripts/ensemble) differ so, by far
 * less than the solver's tolerance allows a step to move them, so that the spread of their figures is the
 * chaos of the scene, not a change of the code (issue 54).
 */
#include <stdint.h>
#include <talus/bodies.h>

/* splitmix64 (Steele, Lea & Flood 2014): a well-mixed 64-bit value from a counter, so that a body's
   perturbation depends on (seed, id, axis) only, the same on any number of ranks */
static uint64_t SplitMix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

PetscErrorCode TalusBodiesPerturbPositions(TalusBodies *b, PetscReal amplitude, PetscInt seed)
{
  PetscFunctionBegin;
  PetscCheck(amplitude >= 0.0 && !PetscIsInfOrNanReal(amplitude), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "the perturbation of the positions must be a finite length >= 0 (m), got %g", (double)amplitude);
  if (amplitude == 0.0) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < b->n; k++) {
    if (b->fixed[k] || !TalusBodiesIsFinite(b, k)) continue;
    for (int d = 0; d < 3; d++) {
      const uint64_t h = SplitMix64(((uint64_t)seed << 40) ^ ((uint64_t)b->id[k] * 3 + (uint64_t)d));
      b->position[3 * k + d] += amplitude * (2.0 * (PetscReal)(h >> 11) / 9007199254740992.0 - 1.0); /* [-1, 1) */
    }
  }
  PetscFunctionReturn(0);
}
