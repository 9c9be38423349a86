/*
 * Norms that are the same to the last bit on any number of ranks (reproducible_sum.c; issue 55, item 2).
 */
#ifndef TALUS_REPRODUCIBLE_SUM_H
#define TALUS_REPRODUCIBLE_SUM_H
#include <petscvec.h>

/* ||v||_2, the same bits for the same global entries whatever the layout: each square rounded once onto a grid
   set by the largest |entry| over all ranks, the grid's integers added exactly; NaN or Inf as VecNorm gives them */
PETSC_INTERN PetscErrorCode TalusVecNormReproducible(Vec v, PetscReal *norm);

#endif
