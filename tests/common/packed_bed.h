/*
 * A packed bed for benchmarks: n spheres (r = 0.5, m = 1, mu = 0.25) in simple cubic packing,
 * every sphere touching its neighbours (the dense-contact regime of a settled bed: about three
 * contacts per sphere), on a floor between four walls that touch the outer spheres; h = 0.01 s,
 * envelope 0.05, gravity -9.81. Twice as wide as high, like the bed of scripts/bench.
 */
#ifndef TALUS_TEST_PACKED_BED_H
#define TALUS_TEST_PACKED_BED_H
#include <talus/sim.h>

/* *n becomes the number of spheres actually placed (nx ny nz close to the request). */
PetscErrorCode TestPackedBedCreate(MPI_Comm, PetscInt *n, TalusSim *);
/* The same lattice without planes or gravity, every sphere moving at `velocity`: a bed that
   streams across the ranks' regions (migration and ghost refresh every step). */
PetscErrorCode TestFlowingBedCreate(MPI_Comm, PetscInt *n, const PetscReal velocity[3], TalusSim *);

#endif
