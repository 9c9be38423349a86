/*
 * The tolerances of talus's own Tao types (apgd, nbgs), whose reported "gradient norm" is a residual
 * of the contact problem (seed 001 eq. 39), not a gradient: stop on that residual's absolute value
 * only (seed 001's tolerance tau, 1e-8), after at most 1000 iterations; TAO's relative tests do not
 * suit it. Values the user set (code or options) are kept.
 */
#ifndef TALUS_RESIDUAL_TOLERANCES_H
#define TALUS_RESIDUAL_TOLERANCES_H
#include <petsc/private/taoimpl.h>

static inline void TalusTaoSetResidualTolerances(Tao tao)
{
  if (!tao->max_it_changed) tao->max_it = 1000;
  if (!tao->max_funcs_changed) tao->max_funcs = -1;
  if (!tao->gatol_changed) tao->gatol = 1.0e-8;
  if (!tao->grtol_changed) tao->grtol = 0.0;
  if (!tao->gttol_changed) tao->gttol = 0.0;
}

#endif
