/* Private to cones.c and cones_wide.c: the friction-cone projection of groups of 8 or 4 contacts with SIMD. */
#ifndef TALUS_CONES_WIDE_H
#define TALUS_CONES_WIDE_H
#include <petscsys.h>

/* Projects the first 8k (AVX-512) or 4k (AVX2) of ncontacts triplets (n, u, w) with friction coefficients mu,
   bitwise as cones.c does one at a time; returns how many it projected (0 on a processor with neither). out may
   be in. */
PETSC_INTERN PetscInt TalusProjectTripletsWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal in[],
                                               PetscReal out[]);

/* CoulombAntiRelax's update (ccp_variants.c) of the first 8k (AVX-512) or 4k (AVX2) of ncontacts contacts:
   s = mu ||g_t||, dr = (s - shift, 0, 0) per contact, shift = s; bitwise the scalar code's. Returns how many it
   did (0 with neither). */
PETSC_INTERN PetscInt TalusAntiRelaxWide(PetscInt ncontacts, const PetscReal mu[], const PetscReal g[],
                                         PetscReal shift[], PetscReal dr[]);

#endif
