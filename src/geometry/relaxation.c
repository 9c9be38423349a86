/*
 * A contact's material law (include/talus/relaxation.h): seed 003's relaxation parameters (restitution
 * from damping, eq. 104, and back, the discrete stability region), a contact's pair of materials, and
 * seed 004's normal law of the step (below).
 */
#include <talus/relaxation.h>
#include <talus/math3.h>

PetscReal TalusRestitutionOfDamping(PetscReal zeta)
{
  if (zeta < 1.0)
    return PetscExpReal(-zeta * PetscAcosReal(2.0 * zeta * zeta - 1.0) / PetscSqrtReal(1.0 - zeta * zeta));
  if (zeta == 1.0) return PetscExpReal(-2.0);
  {
    const PetscReal beta = PetscLogReal(zeta + PetscSqrtReal(zeta * zeta - 1.0)); /* acosh */
    return PetscExpReal(-2.0 * beta / PetscTanhReal(beta));
  }
}

PetscReal TalusDampingOfRestitution(PetscReal e)
{
  PetscReal lo = 0.0, hi = 1.0;

  if (e >= 1.0) return 0.0;
  while (TalusRestitutionOfDamping(hi) > e) hi *= 2.0; /* e(zeta) falls from 1 towards 0 */
  while (hi - lo > 1e-14 * hi) {
    const PetscReal mid = 0.5 * (lo + hi);
    if (TalusRestitutionOfDamping(mid) > e) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

PetscBool TalusRelaxationStable(PetscReal zeta, PetscReal delta, PetscReal h)
{
  const PetscReal r = h / delta;
  return (PetscBool)(zeta >= 0.0 && delta > 0.0 && r * r + 4.0 * zeta * r < 4.0 && zeta * r < 1.0);
}

PetscReal TalusRelaxationMinDelta(PetscReal zeta, PetscReal h)
{
  const PetscReal r = 2.0 * (PetscSqrtReal(zeta * zeta + 1.0) - zeta);
  return h / (zeta > 0.0 ? PetscMin(r, 1.0 / zeta) : r);
}

/* x y / (x + y) for two stiffnesses in series; one of them 0 (rigid) leaves the other */
static PetscReal Series(PetscReal x, PetscReal y)
{
  return x == 0.0 ? y : y == 0.0 ? x : x * y / (x + y);
}

static PetscBool Compliant(const TalusMaterial *m)
{
  return (PetscBool)(m->stiffness > 0.0 || m->modulus > 0.0);
}

void TalusContactCompliance(const TalusBodies *b, PetscInt ka, PetscInt kb, PetscReal *K, PetscReal *B)
{
  const TalusMaterial *ma = &b->materials[b->material[ka]], *mb = &b->materials[b->material[kb]];

  *K = Series(ma->stiffness, mb->stiffness);
  if (Compliant(ma) && Compliant(mb)) /* dampers in series: one without damping carries none */
    *B = ma->damping > 0.0 && mb->damping > 0.0 ? ma->damping * mb->damping / (ma->damping + mb->damping) : 0.0;
  else *B = Compliant(ma) ? ma->damping : mb->damping;
}

PetscReal TalusContactHertzModulus(const TalusBodies *b, PetscInt ka, PetscInt kb)
{
  return Series(b->materials[b->material[ka]].modulus, b->materials[b->material[kb]].modulus);
}

/* 1 / (1/r_a + 1/r_b) from the shapes' curvatures (a sphere's 1 / r, a plane's 0); 0 where a shape has none (a
   box's corners) */
PetscReal TalusContactHertzRadius(const TalusBodies *b, PetscInt ka, PetscInt kb)
{
  PetscReal curvature = 0.0;

  for (int side = 0; side < 2; side++) {
    const PetscInt k = side ? kb : ka;
    PetscReal      k_side;
    if (!TalusShapeTable[b->shape[k]].curvature(&b->size[3 * k], &k_side)) return 0.0;
    curvature += k_side;
  }
  return 1.0 / curvature;
}

PetscInt TalusContactFoundationGrid(const TalusBodies *b, PetscInt ka, PetscInt kb)
{
  if (!TalusShapeTable[b->shape[ka]].foundation && !TalusShapeTable[b->shape[kb]].foundation) return 0;
  return PetscMax(b->materials[b->material[ka]].grid, b->materials[b->material[kb]].grid);
}

PetscBool TalusBodiesAnyCompliant(const TalusBodies *b)
{
  for (PetscInt m = 0; m < b->nmaterials; m++)
    if (Compliant(&b->materials[m])) return PETSC_TRUE;
  return PETSC_FALSE;
}

void TalusContactRelaxation(const TalusBodies *b, PetscInt ka, PetscInt kb, PetscReal *zeta, PetscReal *delta)
{
  const TalusMaterial *ma = &b->materials[b->material[ka]], *mb = &b->materials[b->material[kb]];
  const TalusMaterial *m = mb->delta > ma->delta ? mb : ma;

  *zeta = m->zeta, *delta = m->delta;
}

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
 * closing, carrying nothing last step) carries no force: it leaves the step's list
 * (TalusContactsDropSlackHertz). A linear material in series with a Hertzian one adds its stiffness in
 * series with the secant.
 */

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
  { /* a foundation's point (of a box on a plane whose material has a grid) shares K and B; other pairs' features
       are theirs to number */
    const PetscInt grid = TalusContactFoundationGrid(bodies, ct->a, ct->b);
    *share              = grid > 0 && ct->feature >= TALUS_FOUNDATION_FEATURE ? 1.0 / PetscSqr((PetscReal)grid) : 1.0;
  }
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

PetscBool TalusContactsDropSlackHertz(const TalusBodies *b, PetscReal h, TalusContactList *list, PetscInt *flat)
{
  PetscInt kept = 0, hertz = 0;

  *flat = PETSC_MAX_INT;
  for (PetscInt m = 0; m < b->nmaterials; m++) hertz += b->materials[m].modulus > 0.0;
  if (!hertz) return PETSC_FALSE;
  for (PetscInt c = 0; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    PetscReal           K, B, share, curvature;
    if (TalusContactHertzModulus(b, ct->a, ct->b) > 0.0 && TalusContactHertzRadius(b, ct->a, ct->b) == 0.0) {
      const PetscBool a_curved = TalusShapeTable[b->shape[ct->a]].curvature(&b->size[3 * ct->a], &curvature);
      const PetscInt  k = a_curved ? ct->b : ct->a, id = a_curved ? ct->id_b : ct->id_a;
      *flat = PetscMin(*flat, id * TALUS_NSHAPES + (PetscInt)b->shape[k]);
    }
    if (TalusContactNormalLaw(b, ct, h, &K, &B, &share)) list->c[kept++] = *ct;
  }
  list->n = kept;
  return PETSC_TRUE;
}
