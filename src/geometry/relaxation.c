/*
 * Seed 003's relaxation parameters (include/talus/relaxation.h): restitution from damping (eq. 104)
 * and back, the discrete stability region, a contact's pair of materials.
 */
#include <talus/relaxation.h>

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
