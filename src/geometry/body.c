/* Bodies: storage, mass properties, materials (see include/talus/bodies.h). */
#include <talus/contacts.h>
#include "../grow.h"
#include <talus/math3.h>

PetscErrorCode TalusBodiesCreate(TalusBodies **bodies)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(bodies));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesDestroy(TalusBodies **bodies)
{
  TalusBodies *b = *bodies;

  PetscFunctionBegin;
  if (!b) PetscFunctionReturn(0);
  PetscCall(PetscFree5(b->id, b->shape, b->size, b->mass, b->inertia));
  PetscCall(PetscFree6(b->position, b->quaternion, b->velocity, b->omega, b->material, b->fixed));
  PetscCall(PetscFree2(b->slot, b->dof));
  PetscCall(PetscFree(b->materials));
  PetscCall(PetscFree(b->mu_pair));
  PetscCall(PetscFree(*bodies));
  PetscFunctionReturn(0);
}

/* Grows every array together (TalusGrowCapacity). */
PetscErrorCode TalusBodiesReserve(TalusBodies *b, PetscInt need)
{
  TalusBodies    old = *b;
  const PetscInt cap = TalusGrowCapacity(b->capacity, need);

  PetscFunctionBegin;
  if (need <= b->capacity) PetscFunctionReturn(0);
  PetscCall(PetscMalloc5(cap, &b->id, cap, &b->shape, 3 * cap, &b->size, cap, &b->mass, 3 * cap, &b->inertia));
  PetscCall(PetscMalloc6(3 * cap, &b->position, 4 * cap, &b->quaternion, 3 * cap, &b->velocity, 3 * cap, &b->omega, cap,
                         &b->material, cap, &b->fixed));
  PetscCall(PetscMalloc2(cap, &b->slot, cap, &b->dof));
  if (old.n) {
    PetscCall(PetscArraycpy(b->id, old.id, old.n));
    PetscCall(PetscArraycpy(b->shape, old.shape, old.n));
    PetscCall(PetscArraycpy(b->size, old.size, 3 * old.n));
    PetscCall(PetscArraycpy(b->mass, old.mass, old.n));
    PetscCall(PetscArraycpy(b->inertia, old.inertia, 3 * old.n));
    PetscCall(PetscArraycpy(b->position, old.position, 3 * old.n));
    PetscCall(PetscArraycpy(b->quaternion, old.quaternion, 4 * old.n));
    PetscCall(PetscArraycpy(b->velocity, old.velocity, 3 * old.n));
    PetscCall(PetscArraycpy(b->omega, old.omega, 3 * old.n));
    PetscCall(PetscArraycpy(b->material, old.material, old.n));
    PetscCall(PetscArraycpy(b->fixed, old.fixed, old.n));
    PetscCall(PetscArraycpy(b->slot, old.slot, old.n));
    PetscCall(PetscArraycpy(b->dof, old.dof, old.n));
  }
  PetscCall(PetscFree5(old.id, old.shape, old.size, old.mass, old.inertia));
  PetscCall(PetscFree6(old.position, old.quaternion, old.velocity, old.omega, old.material, old.fixed));
  PetscCall(PetscFree2(old.slot, old.dof));
  b->capacity = cap;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesAddMaterial(TalusBodies *b, const char name[], PetscReal mu, PetscReal density,
                                      PetscInt *index)
{
  TalusMaterial *grown;

  PetscFunctionBegin;
  PetscCheck(mu >= 0.0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "material %s: friction coefficient mu = %g must be >= 0",
             name, (double)mu);
  PetscCall(PetscMalloc1(b->nmaterials + 1, &grown));
  if (b->nmaterials) PetscCall(PetscArraycpy(grown, b->materials, b->nmaterials));
  PetscCall(PetscFree(b->materials));
  b->materials = grown;
  PetscCall(PetscStrncpy(grown[b->nmaterials].name, name, sizeof(grown[b->nmaterials].name)));
  grown[b->nmaterials].mu        = mu;
  grown[b->nmaterials].density   = density;
  grown[b->nmaterials].zeta      = 0.0;
  grown[b->nmaterials].delta     = 0.0;
  grown[b->nmaterials].stiffness = 0.0;
  grown[b->nmaterials].damping   = 0.0;
  grown[b->nmaterials].grid      = 0;
  grown[b->nmaterials].modulus   = 0.0;
  if (index) *index = b->nmaterials;
  b->nmaterials++;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesSetMaterialRelaxation(TalusBodies *b, PetscInt m, PetscReal zeta, PetscReal delta)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && m < b->nmaterials, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "no material %" PetscInt_FMT, m);
  PetscCheck(zeta >= 0.0 && zeta < PETSC_INFINITY && delta >= 0.0 && delta < PETSC_INFINITY, PETSC_COMM_SELF,
             PETSC_ERR_USER_INPUT, "material %s: relaxation zeta = %g and delta = %g must be finite and >= 0",
             b->materials[m].name, (double)zeta, (double)delta);
  PetscCheck(delta == 0.0 || (b->materials[m].stiffness == 0.0 && b->materials[m].modulus == 0.0), PETSC_COMM_SELF,
             PETSC_ERR_USER_INPUT, "material %s: a contact is relaxed (seed 003) or compliant (seed 004), not both",
             b->materials[m].name);
  b->materials[m].zeta  = zeta;
  b->materials[m].delta = delta;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesSetMaterialCompliance(TalusBodies *b, PetscInt m, PetscReal stiffness, PetscReal damping)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && m < b->nmaterials, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "no material %" PetscInt_FMT, m);
  PetscCheck(stiffness >= 0.0 && stiffness < PETSC_INFINITY && damping >= 0.0 && damping < PETSC_INFINITY,
             PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "material %s: compliance stiffness = %g and damping = %g must be finite and >= 0", b->materials[m].name,
             (double)stiffness, (double)damping);
  PetscCheck(stiffness == 0.0 || b->materials[m].delta == 0.0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "material %s: a contact is relaxed (seed 003) or compliant (seed 004), not both", b->materials[m].name);
  PetscCheck(stiffness == 0.0 || b->materials[m].modulus == 0.0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "material %s: a contact is linear (a stiffness) or Hertzian (a modulus), not both", b->materials[m].name);
  b->materials[m].stiffness = stiffness;
  b->materials[m].damping   = damping;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesSetMaterialFoundation(TalusBodies *b, PetscInt m, PetscInt grid)
{
  PetscFunctionBegin;
  PetscCheck(m >= 0 && m < b->nmaterials, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "no material %" PetscInt_FMT, m);
  PetscCheck(grid >= 0 && grid <= TALUS_MAX_FOUNDATION_GRID, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "material %s: a foundation grid of %" PetscInt_FMT " points per side; 1 to %d", b->materials[m].name, grid,
             TALUS_MAX_FOUNDATION_GRID);
  PetscCheck(grid == 0 || b->materials[m].stiffness > 0.0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "material %s: a foundation grid needs a compliance (a stiffness > 0): rigid points would be redundant",
             b->materials[m].name);
  b->materials[m].grid = grid;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesSetMaterialHertz(TalusBodies *b, PetscInt m, PetscReal modulus, PetscReal damping)
{
  TalusMaterial *mat;

  PetscFunctionBegin;
  PetscCheck(m >= 0 && m < b->nmaterials, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "no material %" PetscInt_FMT, m);
  mat = &b->materials[m];
  PetscCheck(modulus >= 0.0 && modulus < PETSC_INFINITY && damping >= 0.0 && damping < PETSC_INFINITY, PETSC_COMM_SELF,
             PETSC_ERR_USER_INPUT, "material %s: Hertz modulus = %g and damping = %g must be finite and >= 0",
             mat->name, (double)modulus, (double)damping);
  PetscCheck(modulus == 0.0 || (mat->delta == 0.0 && mat->stiffness == 0.0 && mat->grid == 0), PETSC_COMM_SELF,
             PETSC_ERR_USER_INPUT,
             "material %s: Hertz contact is neither relaxed (seed 003) nor linear (a stiffness, a foundation)",
             mat->name);
  mat->modulus = modulus;
  mat->damping = damping;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesFindMaterial(TalusBodies *b, const char name[], PetscInt *index)
{
  PetscFunctionBegin;
  *index = -1;
  for (PetscInt m = 0; m < b->nmaterials; m++) {
    PetscBool same;
    PetscCall(PetscStrcmp(b->materials[m].name, name, &same));
    if (same) *index = m;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesAdd(TalusBodies *b, PetscInt id, TalusShape shape, const PetscReal size[3], PetscReal mass,
                              PetscInt material, PetscBool fixed, const PetscReal position[3], PetscInt *index)
{
  const PetscInt k = b->n;
  PetscReal      m, inertia[3];

  PetscFunctionBegin;
  PetscCheck(material >= 0 && material < b->nmaterials, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "body %" PetscInt_FMT ": material %" PetscInt_FMT " does not exist", id, material);
  PetscCall(TalusBodiesReserve(b, k + 1));
  b->id[k]       = id;
  b->slot[k]     = -1;
  b->dof[k]      = -1;
  b->shape[k]    = shape;
  b->material[k] = material;
  b->fixed[k]    = (PetscBool)(fixed || !TalusShapeTable[shape].finite);
  for (int d = 0; d < 3; d++) {
    b->size[3 * k + d]     = size[d];
    b->position[3 * k + d] = position[d];
    b->velocity[3 * k + d] = 0.0;
    b->omega[3 * k + d]    = 0.0;
  }
  PetscCheck(!TalusShapeTable[shape].canonical_size || TalusShapeTable[shape].canonical_size(&b->size[3 * k]),
             PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s %" PetscInt_FMT ": the %s is zero", TalusShapeTable[shape].name,
             id, TalusShapeTable[shape].size_key);
  b->quaternion[4 * k]     = 1.0;
  b->quaternion[4 * k + 1] = b->quaternion[4 * k + 2] = b->quaternion[4 * k + 3] = 0.0;
  /* given mass: the shape's inertia at unit density, scaled to that mass; otherwise the material's density */
  TalusShapeMassProperties(shape, &b->size[3 * k], mass > 0.0 ? 1.0 : b->materials[material].density, &m, inertia);
  if (mass > 0.0 && m > 0.0) {
    for (int d = 0; d < 3; d++) inertia[d] *= mass / m;
    m = mass;
  }
  if (b->fixed[k]) m = inertia[0] = inertia[1] = inertia[2] = 0.0;
  else
    PetscCheck(m > 0.0 && inertia[0] > 0.0 && inertia[1] > 0.0 && inertia[2] > 0.0, PETSC_COMM_SELF,
               PETSC_ERR_USER_INPUT,
               "body %" PetscInt_FMT ": a dynamic body needs a positive mass (give mass or a material density > 0)",
               id);
  b->mass[k] = m;
  for (int d = 0; d < 3; d++) b->inertia[3 * k + d] = inertia[d];
  b->n++;
  b->nowned = b->n;
  if (index) *index = k;
  PetscFunctionReturn(0);
}

PetscReal TalusBodiesPairFriction(const TalusBodies *b, PetscInt i, PetscInt j)
{
  const PetscInt mi = b->material[i], mj = b->material[j];
  if (b->mu_pair) return b->mu_pair[mi * b->nmaterials + mj];
  return PetscMin(b->materials[mi].mu, b->materials[mj].mu);
}

PetscBool TalusBodiesIsFinite(const TalusBodies *b, PetscInt k)
{
  return TalusShapeTable[b->shape[k]].finite;
}

PetscReal TalusBodiesBoundingRadius(const TalusBodies *b, PetscInt k)
{
  return TalusShapeTable[b->shape[k]].bounding_radius(&b->size[3 * k]);
}

PetscReal TalusBodiesSurfaceSpeed(const TalusBodies *b, PetscInt k)
{
  const PetscReal v = TalusNorm3(&b->velocity[3 * k]);
  return TalusBodiesIsFinite(b, k) ? v + TalusNorm3(&b->omega[3 * k]) * TalusBodiesBoundingRadius(b, k) : v;
}

void TalusBodiesBoundingRadii(const TalusBodies *b, PetscReal radius[])
{
  for (PetscInt k = 0; k < b->n; k++) radius[k] = TalusBodiesIsFinite(b, k) ? TalusBodiesBoundingRadius(b, k) : -1.0;
}

void TalusBodiesGetAngularVelocityWorld(const TalusBodies *b, PetscInt k, PetscReal w[3])
{
  PetscReal A[9];

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, &b->omega[3 * k], w);
}

PetscReal TalusBodiesKineticEnergyLocal(const TalusBodies *b)
{
  PetscReal e = 0.0;
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (b->fixed[k]) continue;
    for (int d = 0; d < 3; d++)
      e += 0.5 * b->mass[k] * b->velocity[3 * k + d] * b->velocity[3 * k + d] +
           0.5 * b->inertia[3 * k + d] * b->omega[3 * k + d] * b->omega[3 * k + d];
  }
  return e;
}

PetscReal TalusBodiesGravityEnergyLocal(const TalusBodies *b, const PetscReal gravity[3])
{
  PetscReal e = 0.0;

  for (PetscInt k = 0; k < b->nowned; k++)
    if (!b->fixed[k]) e -= b->mass[k] * TalusDot3(gravity, &b->position[3 * k]);
  return e;
}

void TalusBodiesSumsLocal(const TalusBodies *b, const PetscReal gravity[3], PetscReal dt, TalusBodiesSums *s)
{
  s->finite = 0, s->travel = 0.0, s->fastest = -1;
  for (PetscInt k = 0; k < b->nowned; k++) {
    s->finite += TalusBodiesIsFinite(b, k);
    if (!b->fixed[k]) {
      const PetscReal travel = dt * TalusNorm3(&b->velocity[3 * k]);
      if (travel > s->travel) s->travel = travel, s->fastest = b->id[k];
    }
  }
  s->kinetic = TalusBodiesKineticEnergyLocal(b);
  s->gravity = TalusBodiesGravityEnergyLocal(b, gravity);
}

void TalusBodiesPack(const TalusBodies *b, PetscInt k, TalusBodyRecord *r)
{
  r->id       = b->id[k];
  r->slot     = b->slot[k];
  r->material = b->material[k];
  r->shape    = (PetscInt)b->shape[k];
  r->fixed    = (PetscInt)b->fixed[k];
  r->dof      = b->dof[k];
  r->mass     = b->mass[k];
  for (int d = 0; d < 3; d++) {
    r->size[d]     = b->size[3 * k + d];
    r->inertia[d]  = b->inertia[3 * k + d];
    r->position[d] = b->position[3 * k + d];
    r->velocity[d] = b->velocity[3 * k + d];
    r->omega[d]    = b->omega[3 * k + d];
  }
  for (int d = 0; d < 4; d++) r->quaternion[d] = b->quaternion[4 * k + d];
}

PetscErrorCode TalusBodiesAppendRecord(TalusBodies *b, const TalusBodyRecord *r)
{
  const PetscInt k = b->n;

  PetscFunctionBegin;
  PetscCall(TalusBodiesReserve(b, k + 1));
  b->id[k]       = r->id;
  b->slot[k]     = r->slot;
  b->material[k] = r->material;
  b->shape[k]    = (TalusShape)r->shape;
  b->fixed[k]    = (PetscBool)r->fixed;
  b->dof[k]      = r->dof;
  b->mass[k]     = r->mass;
  for (int d = 0; d < 3; d++) {
    b->size[3 * k + d]     = r->size[d];
    b->inertia[3 * k + d]  = r->inertia[d];
    b->position[3 * k + d] = r->position[d];
    b->velocity[3 * k + d] = r->velocity[d];
    b->omega[3 * k + d]    = r->omega[d];
  }
  for (int d = 0; d < 4; d++) b->quaternion[4 * k + d] = r->quaternion[d];
  b->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesKeep(TalusBodies *b, const PetscBool keep[])
{
  PetscInt n = 0, owned = 0;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < b->n; k++) {
    TalusBodyRecord r;
    if (!keep[k]) continue;
    if (k < b->nowned) owned++;
    if (n != k) { /* move k down to n */
      const PetscInt count = b->n;
      TalusBodiesPack(b, k, &r);
      b->n = n;
      PetscCall(TalusBodiesAppendRecord(b, &r));
      b->n = count;
    }
    n++;
  }
  b->n      = n;
  b->nowned = owned;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBodiesSortById(TalusBodies *b)
{
  TalusBodyRecord *all;
  PetscInt        *ids, *perm, k;
  const PetscInt   n = b->n;

  PetscFunctionBegin;
  PetscCheck(b->n == b->nowned, PETSC_COMM_SELF, PETSC_ERR_ORDER, "sort the bodies without their ghosts");
  for (k = 1; k < n && b->id[k - 1] < b->id[k]; k++) { }
  if (k >= n) PetscFunctionReturn(0); /* already in order: the usual case */
  PetscCall(PetscMalloc3(n, &all, n, &ids, n, &perm));
  for (k = 0; k < n; k++) {
    TalusBodiesPack(b, k, &all[k]);
    ids[k] = b->id[k], perm[k] = k;
  }
  /* timsort: the ids come in a few sorted runs (the kept bodies, then what each rank sent), on which
     PETSc's quicksort took 15 s for 10^6 bodies; ids are unique, so any sort gives this order */
  PetscCall(PetscIntSortSemiOrderedWithArray(n, ids, perm));
  b->n = 0;
  for (k = 0; k < n; k++) PetscCall(TalusBodiesAppendRecord(b, &all[perm[k]]));
  b->nowned = b->n;
  PetscCall(PetscFree3(all, ids, perm));
  PetscFunctionReturn(0);
}

void TalusBodyPointVelocity(const TalusBodies *b, PetscInt k, const PetscReal S[3], PetscReal v[3])
{
  PetscReal w[3], wxS[3];

  TalusBodiesGetAngularVelocityWorld(b, k, w);
  TalusCross3(w, S, wxS);
  for (int d = 0; d < 3; d++) v[d] = b->velocity[3 * k + d] + wxS[d];
}
