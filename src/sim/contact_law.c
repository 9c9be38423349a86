/*
 * A contact's normal law for this step (seed 004; docs/compliance.md): rigid (K = 0), linear (its
 * materials' K and B in series; a foundation's point its 1 / grid^2 share of both), or Hertzian.
 *
 * Hertz (seed 004 eq. 121-123): f = E* sqrt(r d^3) at depth d. Its constraint function d^{3/2} has a
 * Jacobian that vanishes at first touch, so instead the row keeps seed 000's gap and the law is
 * linearised each step by its secant stiffness K = E* sqrt(r d) (the formulations note, sec. 4.4),
 * so that K d is Hertz's force at the depth taken: at rest, K d = m g holds exactly. The depth taken
 * is the deepest of three: the depth now; the depth the contact's normal speed predicts at the step's
 * end, d - h dPhi/dt (an approaching contact is stiffened for the depth it is about to reach, not the
 * shallower one it has, which would let it sink by h v before it pushes); and the depth at which
 * Hertz's law gives the force of its warm start, (gamma_n / (h E* sqrt r))^(2/3) (a loaded contact
 * keeps its stiffness when its gap flickers about 0, as a grain's under a column does, instead of
 * letting go for a step and sinking by g h^2). A Hertzian contact with none of the three (apart, not
 * closing, carrying nothing last step) carries no force: step.c drops it. A linear material in series
 * with a Hertzian one adds its stiffness in series with the secant.
 */
#include "jacobian_builder.h"
#include <talus/relaxation.h>

/* dPhi/dt of the contact at the step's start: n . (v_b - v_a) at its point */
static PetscReal GapRate(const TalusBodies *bodies, const TalusContact *ct)
{
  const PetscInt   body[2] = {ct->a, ct->b};
  const PetscReal *arm[2]  = {ct->sa, ct->sb};
  PetscReal        rate    = 0.0;

  for (int side = 0; side < 2; side++) {
    PetscReal A[9], S[3], v[3];
    TalusQuatToMatrix(&bodies->quaternion[4 * body[side]], A);
    TalusRotate(A, arm[side], S);
    TalusBodyPointVelocity(bodies, body[side], S, v);
    rate += (side ? 1.0 : -1.0) * TalusDot3(ct->frame, v);
  }
  return rate;
}

PetscBool TalusContactNormalLaw(const TalusBodies *bodies, const TalusContact *ct, PetscReal h, PetscReal *K,
                                PetscReal *B, PetscReal *share)
{
  const PetscReal modulus = TalusContactHertzModulus(bodies, ct->a, ct->b);

  TalusContactCompliance(bodies, ct->a, ct->b, K, B);
  *share = ct->feature >= TALUS_FOUNDATION_FEATURE
           ? 1.0 / PetscSqr((PetscReal)TalusContactFoundationGrid(bodies, ct->a, ct->b))
           : 1.0;
  if (modulus > 0.0) { /* (a foundation needs a linear material: no share here) */
    const PetscReal r = TalusContactHertzRadius(bodies, ct->a, ct->b), k = modulus * PetscSqrtReal(r);
    const PetscReal loaded = ct->impulse[0] > 0.0 && k > 0.0 ? PetscPowReal(ct->impulse[0] / (h * k), 2.0 / 3.0) : 0.0;
    const PetscReal depth  = PetscMax(PetscMax(-ct->phi, -(ct->phi + h * GapRate(bodies, ct))), loaded);
    const PetscReal secant = k * PetscSqrtReal(depth);
    if (!(depth > 0.0 && secant > 0.0)) {
      *K = *B = 0.0;
      return PETSC_FALSE;
    }
    *K = *K > 0.0 ? *K * secant / (*K + secant) : secant;
  }
  return PETSC_TRUE;
}
