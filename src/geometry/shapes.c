/*
 * The shapes talus knows, one entry each: what the scene reader, the mass properties, the broad
 * phase and the checkpoint need of a shape. A new shape is an entry here (its enum value in
 * include/talus/bodies.h, a new code) plus its pair functions in the table of collide.c.
 */
#include <talus/contacts.h>
#include <talus/math3.h>

static void SphereMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  const PetscReal r = size[0];
  *mass             = density * 4.0 / 3.0 * PETSC_PI * r * r * r;
  inertia[0] = inertia[1] = inertia[2] = 0.4 * (*mass) * r * r;
}

static PetscReal SphereRadius(const PetscReal size[3])
{
  return size[0];
}

static const char *SphereCheck(const PetscReal size[3])
{
  return size[0] > 0.0 ? NULL : "radius must be positive";
}

/* half-extents a, b, c: I_x = m (b^2 + c^2) / 3 */
static void BoxMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  const PetscReal a = size[0], b = size[1], c = size[2];
  *mass      = density * 8.0 * a * b * c;
  inertia[0] = (*mass) * (b * b + c * c) / 3.0;
  inertia[1] = (*mass) * (a * a + c * c) / 3.0;
  inertia[2] = (*mass) * (a * a + b * b) / 3.0;
}

static PetscReal BoxRadius(const PetscReal size[3])
{
  return PetscSqrtReal(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
}

static const char *BoxCheck(const PetscReal size[3])
{
  return (size[0] > 0.0 && size[1] > 0.0 && size[2] > 0.0) ? NULL : "half_extents must be positive";
}

/* a half-space is fixed: no mass */
static void PlaneMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  (void)size, (void)density;
  *mass      = 0.0;
  inertia[0] = inertia[1] = inertia[2] = 0.0;
}

static PetscReal PlaneRadius(const PetscReal size[3])
{
  (void)size;
  return PETSC_INFINITY;
}

static const char *PlaneCheck(const PetscReal size[3])
{
  return TalusNorm3(size) > 0.0 ? NULL : "a plane's normal must not be zero";
}

/* Indexed by TalusShape. The codes are stored in checkpoints: a code is never changed or reused. */
const TalusShapeOps TalusShapeTable[TALUS_NSHAPES] = {
  [TALUS_SPHERE] = {"sphere", 0, "radius",       1, PETSC_TRUE,  SphereMass, SphereRadius, SphereCheck},
  [TALUS_BOX]    = {"box",    1, "half_extents", 3, PETSC_TRUE,  BoxMass,    BoxRadius,    BoxCheck   },
  [TALUS_PLANE]  = {"plane",  2, "normal",       3, PETSC_FALSE, PlaneMass,  PlaneRadius,  PlaneCheck },
};

PetscBool TalusShapeFromName(const char name[], TalusShape *shape)
{
  for (int s = 0; s < TALUS_NSHAPES; s++)
    if (!strcmp(TalusShapeTable[s].name, name)) {
      *shape = (TalusShape)s;
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}

PetscBool TalusShapeFromCode(PetscInt code, TalusShape *shape)
{
  for (int s = 0; s < TALUS_NSHAPES; s++)
    if (TalusShapeTable[s].code == code) {
      *shape = (TalusShape)s;
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}

PetscErrorCode TalusShapeNames(char names[], size_t size)
{
  PetscFunctionBegin;
  names[0] = 0;
  for (int s = 0; s < TALUS_NSHAPES; s++) {
    if (s) PetscCall(PetscStrlcat(names, s == TALUS_NSHAPES - 1 ? " or " : ", ", size));
    PetscCall(PetscStrlcat(names, TalusShapeTable[s].name, size));
  }
  PetscFunctionReturn(0);
}

void TalusShapeMassProperties(TalusShape shape, const PetscReal size[3], PetscReal density, PetscReal *mass,
                              PetscReal inertia[3])
{
  TalusShapeTable[shape].mass_properties(size, density, mass, inertia);
}
