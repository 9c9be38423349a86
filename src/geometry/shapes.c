/*
 * The shapes talus knows, one entry each: what the scene reader, the mass properties, the broad
 * phase, Hertz's law, the frames and the checkpoint need of a shape; no code outside this table and
 * the pair routines asks which shape a body has. A new shape is an entry here (its enum value in
 * include/talus/bodies.h, a new code) plus its pair functions in the table of collide.c.
 */
#include <talus/contacts.h>
#include <talus/math3.h>
#include "shape_data_ops.h"

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

static PetscBool SphereCurvature(const PetscReal size[3], PetscReal *curvature)
{
  *curvature = 1.0 / size[0];
  return PETSC_TRUE;
}

static void SphereGlyph(const PetscReal size[3], PetscReal extent[3])
{
  for (int j = 0; j < 3; j++) extent[j] = 2.0 * size[0];
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

/* its faces are flat but its contacts are at corners and edges, whose radius of curvature is 0 */
static PetscBool BoxCurvature(const PetscReal size[3], PetscReal *curvature)
{
  (void)size;
  *curvature = PETSC_INFINITY;
  return PETSC_FALSE;
}

/* full extents along the body's axes; a plane's glyph (never drawn this way) likewise from its normal */
static void AxesGlyph(const PetscReal size[3], PetscReal extent[3])
{
  for (int j = 0; j < 3; j++) extent[j] = 2.0 * size[j];
}

/* radius r, half length L along the body's z: I_z = m r^2 / 2, I_x = I_y = m (3 r^2 + 4 L^2) / 12 */
static void CylinderMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  const PetscReal r = size[0], L = size[1];
  *mass      = density * PETSC_PI * r * r * 2.0 * L;
  inertia[0] = inertia[1] = (*mass) * (3.0 * r * r + 4.0 * L * L) / 12.0;
  inertia[2]              = 0.5 * (*mass) * r * r;
}

static PetscReal CylinderRadius(const PetscReal size[3])
{
  return PetscSqrtReal(size[0] * size[0] + size[1] * size[1]);
}

static const char *CylinderCheck(const PetscReal size[3])
{
  return (size[0] > 0.0 && size[1] > 0.0) ? NULL : "radius and half_length must be positive";
}

/* full extents along the body's axes: its diameter across, its length along z */
static void CylinderGlyph(const PetscReal size[3], PetscReal extent[3])
{
  extent[0] = extent[1] = 2.0 * size[0];
  extent[2]             = 2.0 * size[1];
}

static void SphereSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  for (int k = 0; k < 3; k++) p[k] = size[0] * d[k];
}

/* a sphere has no flat feature: its one furthest point */
static PetscInt SphereSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                                 PetscInt id[])
{
  (void)tol;
  SphereSupport(size, d, p[0]);
  id[0] = 0;
  return 1;
}

static void BoxSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  for (int k = 0; k < 3; k++) p[k] = d[k] >= 0.0 ? size[k] : -size[k];
}

/* The corners (numbered as the box-plane contacts number them) whose every axis is at its furthest along d, or
   either end of an axis along which the box's extent moves a corner by at most tol: a face (4), an edge (2) or a
   corner (1), in order around the face */
static PetscInt BoxSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                              PetscInt id[])
{
  static const PetscInt around[4] = {0, 1, 3, 2}; /* the 4 corners of a face, in order round it */
  PetscInt              free[3], nfree = 0, n = 0;

  tol = PetscMin(tol, 0.1 * PetscMin(size[0], PetscMin(size[1], size[2])));
  for (int k = 0; k < 3; k++)
    if (2.0 * size[k] * PetscAbsReal(d[k]) <= tol) free[nfree++] = k;
  for (PetscInt c = 0; c < (1 << nfree); c++) {
    const PetscInt bits   = nfree == 2 ? around[c] : c;
    PetscInt       corner = 0;
    for (int k = 0; k < 3; k++) {
      PetscBool high = (PetscBool)(d[k] >= 0.0);
      for (PetscInt f = 0; f < nfree; f++)
        if (free[f] == k) high = (PetscBool)((bits >> f) & 1);
      p[n][k] = high ? size[k] : -size[k];
      corner |= high ? (1 << k) : 0;
    }
    id[n++] = corner;
  }
  return n;
}

#define CYLINDER_CAP_SAMPLES 8

static void CylinderSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  const PetscReal across = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]);

  p[0] = across > 0.0 ? size[0] * d[0] / across : 0.0;
  p[1] = across > 0.0 ? size[0] * d[1] / across : 0.0;
  p[2] = d[2] >= 0.0 ? size[1] : -size[1];
}

/* A cap whose rim's heights along d differ by at most tol: 8 points round its rim (ids 0-7 the lower cap, 8-15 the
   upper); a side whose ends' heights differ by at most tol: the rim's furthest point on each cap (ids 16, 17);
   else the furthest point (id 18) */
static PetscInt CylinderSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                                   PetscInt id[])
{
  const PetscReal r = size[0], L = size[1], across = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]);

  tol = PetscMin(tol, 0.1 * PetscMin(r, L));
  if (2.0 * r * across <= tol) {
    const PetscInt cap = d[2] >= 0.0 ? 1 : 0;
    for (PetscInt k = 0; k < CYLINDER_CAP_SAMPLES; k++) {
      const PetscReal angle = 2.0 * PETSC_PI * k / CYLINDER_CAP_SAMPLES;
      p[k][0] = r * PetscCosReal(angle), p[k][1] = r * PetscSinReal(angle), p[k][2] = cap ? L : -L;
      id[k] = CYLINDER_CAP_SAMPLES * cap + k;
    }
    return CYLINDER_CAP_SAMPLES;
  }
  CylinderSupport(size, d, p[0]);
  if (2.0 * L * PetscAbsReal(d[2]) <= tol) {
    p[1][0] = p[0][0], p[1][1] = p[0][1], p[1][2] = -p[0][2];
    id[0] = d[2] >= 0.0 ? 17 : 16, id[1] = d[2] >= 0.0 ? 16 : 17;
    return 2;
  }
  id[0] = 18;
  return 1;
}

/* a cylinder of radius r and length 2 L and two half balls: each half ball of mass m_h has 2/5 m_h r^2 about any
   axis through its flat face's centre, which is L from the capsule's, and its centroid is 3 r / 8 beyond it */
static void CapsuleMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  const PetscReal r = size[0], L = size[1];
  const PetscReal m_cyl = density * PETSC_PI * r * r * 2.0 * L, m_ball = density * 4.0 / 3.0 * PETSC_PI * r * r * r;
  *mass      = m_cyl + m_ball;
  inertia[0] = inertia[1] = m_cyl * (3.0 * r * r + 4.0 * L * L) / 12.0 + m_ball * (0.4 * r * r + L * L + 0.75 * L * r);
  inertia[2]              = 0.5 * m_cyl * r * r + 0.4 * m_ball * r * r;
}

static PetscReal CapsuleRadius(const PetscReal size[3])
{
  return size[0] + size[1];
}

/* drawn as a cylinder of its whole length */
static void CapsuleGlyph(const PetscReal size[3], PetscReal extent[3])
{
  extent[0] = extent[1] = 2.0 * size[0];
  extent[2]             = 2.0 * (size[0] + size[1]);
}

static void CapsuleSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  for (int k = 0; k < 3; k++) p[k] = size[0] * d[k];
  p[2] += d[2] >= 0.0 ? size[1] : -size[1];
}

/* its side's line (the two end balls' furthest points, ids 0 and 1) when its ends' heights along d differ by at
   most tol; else its furthest point (id 2) */
static PetscInt CapsuleSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                                  PetscInt id[])
{
  tol = PetscMin(tol, 0.1 * PetscMin(size[0], size[1]));
  CapsuleSupport(size, d, p[0]);
  if (2.0 * size[1] * PetscAbsReal(d[2]) > tol) return id[0] = 2, 1;
  for (int k = 0; k < 2; k++) p[1][k] = p[0][k];
  p[1][2] = p[0][2] - (d[2] >= 0.0 ? 2.0 : -2.0) * size[1];
  id[0] = d[2] >= 0.0 ? 1 : 0, id[1] = d[2] >= 0.0 ? 0 : 1;
  return 2;
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

static PetscBool PlaneUnitNormal(PetscReal size[3])
{
  const PetscReal norm = PetscSqrtReal(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
  if (!(norm > 0.0)) return PETSC_FALSE;
  for (int d = 0; d < 3; d++) size[d] = size[d] / norm;
  return PETSC_TRUE;
}

static PetscBool PlaneCurvature(const PetscReal size[3], PetscReal *curvature)
{
  (void)size;
  *curvature = 0.0;
  return PETSC_TRUE;
}

static void CompoundSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3]);

/* Points inside the shapes a compound's parts may be (the body's frame; a cylinder's and a capsule's axis is z) */
static PetscBool SphereContains(const PetscReal size[3], const PetscReal x[3])
{
  return (PetscBool)(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] <= size[0] * size[0]);
}

static PetscBool BoxContains(const PetscReal size[3], const PetscReal x[3])
{
  return (PetscBool)(PetscAbsReal(x[0]) <= size[0] && PetscAbsReal(x[1]) <= size[1] && PetscAbsReal(x[2]) <= size[2]);
}

static PetscBool CylinderContains(const PetscReal size[3], const PetscReal x[3])
{
  return (PetscBool)(x[0] * x[0] + x[1] * x[1] <= size[0] * size[0] && PetscAbsReal(x[2]) <= size[1]);
}

static PetscBool CapsuleContains(const PetscReal size[3], const PetscReal x[3])
{
  const PetscReal beyond = PetscMax(PetscAbsReal(x[2]) - size[1], 0.0); /* from the segment along z */
  return (PetscBool)(x[0] * x[0] + x[1] * x[1] + beyond * beyond <= size[0] * size[0]);
}

/* Indexed by TalusShape. The codes are stored in checkpoints: a code is never changed or reused. */
/* One shape a block, its fields in the order of TalusShapeOps */
/* clang-format off */
const TalusShapeOps TalusShapeTable[TALUS_NSHAPES] = {
  [TALUS_SPHERE] = {.name = "sphere", .code = 0, .size_key = "radius", .size_len = 1, .finite = PETSC_TRUE,
                    .mass_properties = SphereMass, .bounding_radius = SphereRadius, .check_size = SphereCheck,
                    .size_hint = "", .curvature = SphereCurvature, .glyph_extent = SphereGlyph,
                    .support = SphereSupport, .support_set = SphereSupportSet, .contains = SphereContains},
  [TALUS_BOX]    = {.name = "box", .code = 1, .size_key = "half_extents", .size_len = 3, .finite = PETSC_TRUE,
                    .mass_properties = BoxMass, .bounding_radius = BoxRadius, .check_size = BoxCheck,
                    .size_hint = "", .curvature = BoxCurvature, .glyph_extent = AxesGlyph, .foundation = PETSC_TRUE,
                    .support = BoxSupport, .support_set = BoxSupportSet, .contains = BoxContains},
  [TALUS_PLANE]  = {.name = "plane", .code = 2, .size_key = "normal", .size_len = 3, .finite = PETSC_FALSE,
                    .mass_properties = PlaneMass, .bounding_radius = PlaneRadius, .check_size = PlaneCheck,
                    .size_hint = "; a normal is a direction: e.g. [0, 0, 1]", .canonical_size = PlaneUnitNormal,
                    .curvature = PlaneCurvature, .glyph_extent = AxesGlyph},
  /* its rims are edges (no curvature for Hertz's law, as a box's) */
  [TALUS_CYLINDER] = {.name = "cylinder", .code = 3, .size_key = "radius", .size_len = 2, .size_key2 = "half_length",
                      .finite = PETSC_TRUE, .mass_properties = CylinderMass, .bounding_radius = CylinderRadius,
                      .check_size = CylinderCheck, .size_hint = "", .curvature = BoxCurvature,
                      .glyph_extent = CylinderGlyph, .support = CylinderSupport, .support_set = CylinderSupportSet,
                      .contains = CylinderContains},
  /* its side is round (no single curvature for Hertz's law) */
  [TALUS_CAPSULE] = {.name = "capsule", .code = 4, .size_key = "radius", .size_len = 2, .size_key2 = "half_length",
                     .finite = PETSC_TRUE, .mass_properties = CapsuleMass, .bounding_radius = CapsuleRadius,
                     .check_size = CylinderCheck, .size_hint = "", .curvature = BoxCurvature,
                     .glyph_extent = CapsuleGlyph, .support = CapsuleSupport, .support_set = CapsuleSupportSet,
                     .contains = CapsuleContains},
  /* a hull's faces are flat and its contacts at corners and edges (no curvature, as a box's) */
  [TALUS_HULL] = {.name = "hull", .code = 5, .size_key = "vertices", .size_len = 0, .finite = PETSC_TRUE,
                  .mass_properties = TalusDescribedMass, .bounding_radius = TalusDescribedRadius,
                  .check_size = TalusHullCheck, .size_hint = "", .curvature = BoxCurvature,
                  .glyph_extent = TalusDescribedGlyph, .glyph_mesh = TalusHullMesh, .support = TalusHullSupport,
                  .support_set = TalusHullSupportSet},
  /* not convex: its contacts are its parts' (compound.c), so it has no support set; its support (the furthest of
     its parts') is for what asks how far a body reaches (the rig's sinkage) */
  [TALUS_COMPOUND] = {.name = "compound", .code = 6, .size_key = "parts", .size_len = 0, .finite = PETSC_TRUE,
                      .mass_properties = TalusDescribedMass, .bounding_radius = TalusDescribedRadius,
                      .check_size = TalusCompoundCheck, .size_hint = "", .curvature = BoxCurvature,
                      .glyph_extent = TalusDescribedGlyph, .glyph_parts = TalusCompoundGlyphParts,
                      .support = CompoundSupport},
};
/* clang-format on */

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

/* A compound's furthest point along d (what asks how far a body reaches, such as the rig's sinkage): its furthest
   part's, the support of a union being the largest of its parts'. Here, beside the table its parts' supports are
   read from. */
static void CompoundSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  const TalusShapeData *e    = TalusShapeDataGet((PetscInt)size[0]);
  PetscReal             best = -PETSC_MAX_REAL;

  for (PetscInt i = 0; i < e->n; i++) {
    const TalusShapePart *part = &e->part[i];
    PetscReal             R[9], dl[3], pl[3], q[3];
    TalusQuatToMatrix(part->quaternion, R);
    TalusRotateBack(R, d, dl);
    TalusShapeTable[part->shape].support(part->size, dl, pl);
    TalusRotate(R, pl, q);
    for (int k = 0; k < 3; k++) q[k] += part->position[k];
    if (TalusDot3(q, d) <= best) continue;
    best = TalusDot3(q, d);
    for (int k = 0; k < 3; k++) p[k] = q[k];
  }
}
