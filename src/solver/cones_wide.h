/* Private to cones.c and cones_wide.c: the friction-cone projection of groups of 8 contacts with SIMD. */
#ifndef TALUS_CONES_WIDE_H
#define TALUS_CONES_WIDE_H
#include <petscsys.h>

/* Projects the first 8k of ncontacts triplets (n, u, w) with friction coefficients mu, bitwise as
   cones.c does one at a time, if the processor has AVX-512; returns how many it projected (0
   without it). out may be in. */
PETSC_INTERN PetscInt TalusProjectTripletsWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal in[],
                                               PetscReal out[]);

#endif
