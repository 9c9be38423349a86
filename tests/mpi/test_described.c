/*
 * Convex hulls and compound bodies (include/talus/shape_data.h; issue 36), on any number of ranks:
 *   - mass properties exact: the corner tetrahedron (0, e_x, e_y, e_z) has volume 1/6, its centroid at (1/4)(1, 1,
 *     1) and principal moments 1/96, 1/96, 1/60 (its tensor about the centroid: 1/80 on the diagonal, 1/480 off
 *     it); a box's 8 corners, given shifted and turned, are the box's mass and moments to 1e-12 and its centroid;
 *     a wheel of a cylinder and 6 box grousers is the cylinder's and the boxes' by the parallel axis theorem;
 *   - refusals, each saying why: 3 vertices, 5 in a plane, one inside the hull of the others (naming it); a
 *     compound part with no volume (a cylinder of radius 0) or that is a plane;
 *   - a hull of a box's corners dropped 1 mm on a plane and on a fixed box rests on its face: 4 contacts carry its
 *     weight (to 1e-6) and after 300 steps it neither moves nor rocks (1e-9);
 *   - a compound of one cylinder rolls down a 20 degree incline as the cylinder does, (2/3) g sin(20) t, to 0.1 %;
 *     a grousered wheel standing on its grousers rests on a plane (the weight to 1e-6, at rest to 1e-9).
 */
#include "../common/check.h"
#include <talus/math3.h>
#include <talus/shape_data.h>

static const PetscReal gravity[3] = {0, 0, -9.81}, origin[3] = {0, 0, 0};

/* a wheel: a cylinder (r 0.15, half width 0.05) along z and 6 box grousers 0.04 x 0.02 x 0.1 centred at radius 0.17,
   at 0, 60, ..., 300 degrees about the axis, each turned with its angle */
static void GrouseredWheel(TalusShapePart parts[7])
{
  parts[0] = (TalusShapePart){
    .shape = TALUS_CYLINDER, .size = {0.15, 0.05, 0},
         .quaternion = { 1,   0,    0, 0}
  };
  for (int g = 0; g < 6; g++) {
    const PetscReal angle = g * PETSC_PI / 3;
    parts[1 + g]          = (TalusShapePart){
               .shape      = TALUS_BOX,
               .size       = {0.02,                        0.01, 0.05},
               .position   = {                       0.17 * PetscCosReal(angle), 0.17 * PetscSinReal(angle),    0    },
               .quaternion = { PetscCosReal(angle / 2),                          0,       0,     PetscSinReal(angle / 2)}
    };
  }
}

static PetscErrorCode MassProperties(void)
{
  const PetscReal       tetra[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  PetscReal             corners[24], box[3] = {0.3, 0.2, 0.1}, m, J[3], A[9], q[4];
  PetscInt              index;
  char                  why[256];
  const TalusShapeData *e;

  PetscFunctionBegin;
  PetscCall(TalusShapeDataAddHull(4, tetra, &index, why, sizeof(why)));
  CHECK(index >= 0, "the corner tetrahedron is refused: %s", why);
  if (index >= 0) {
    PetscReal moments[3];
    e = TalusShapeDataGet(index);
    for (int k = 0; k < 3; k++) moments[k] = e->inertia[k];
    PetscCall(PetscSortReal(3, moments));
    CHECK(PetscAbsReal(e->volume - 1.0 / 6.0) < 1e-14 && PetscAbsReal(moments[0] - 1.0 / 96) < 1e-14 &&
            PetscAbsReal(moments[1] - 1.0 / 96) < 1e-14 && PetscAbsReal(moments[2] - 1.0 / 60) < 1e-14,
          "tetrahedron: volume %.15g (1/6), moments %.15g %.15g %.15g (1/96, 1/96, 1/60)", (double)e->volume,
          (double)moments[0], (double)moments[1], (double)moments[2]);
    CHECK(PetscAbsReal(e->centroid[0] - 0.25) + PetscAbsReal(e->centroid[1] - 0.25) +
              PetscAbsReal(e->centroid[2] - 0.25) <
            1e-14,
          "tetrahedron: centroid (%g, %g, %g)", (double)e->centroid[0], (double)e->centroid[1], (double)e->centroid[2]);
  }
  /* a box's corners, turned 30 degrees about (1, 2, 3) and shifted by (1, -2, 0.5) */
  q[0] = PetscCosReal(PETSC_PI / 12);
  for (int k = 0; k < 3; k++) q[1 + k] = PetscSinReal(PETSC_PI / 12) * (k + 1) / PetscSqrtReal(14.0);
  TalusQuatToMatrix(q, A);
  for (int c = 0; c < 8; c++) {
    const PetscReal local[3] = {c & 1 ? box[0] : -box[0], c & 2 ? box[1] : -box[1], c & 4 ? box[2] : -box[2]};
    const PetscReal shift[3] = {1, -2, 0.5};
    TalusRotate(A, local, &corners[3 * c]);
    for (int k = 0; k < 3; k++) corners[3 * c + k] += shift[k];
  }
  PetscCall(TalusShapeDataAddHull(8, corners, &index, why, sizeof(why)));
  CHECK(index >= 0, "a box's corners are refused: %s", why);
  if (index >= 0) {
    PetscReal moments[3], expected[3];
    e = TalusShapeDataGet(index);
    TalusShapeMassProperties(TALUS_BOX, box, 1.0, &m, J);
    for (int k = 0; k < 3; k++) moments[k] = e->inertia[k], expected[k] = J[k];
    PetscCall(PetscSortReal(3, moments));
    PetscCall(PetscSortReal(3, expected));
    CHECK(PetscAbsReal(e->volume - m) < 1e-12 && PetscAbsReal(moments[0] - expected[0]) < 1e-12 &&
            PetscAbsReal(moments[1] - expected[1]) < 1e-12 && PetscAbsReal(moments[2] - expected[2]) < 1e-12 &&
            PetscAbsReal(e->centroid[0] - 1) + PetscAbsReal(e->centroid[1] + 2) + PetscAbsReal(e->centroid[2] - 0.5) <
              1e-12 &&
            e->n == 8,
          "a box's corners: volume %g (%g), moments %g %g %g (%g %g %g), %" PetscInt_FMT " corners", (double)e->volume,
          (double)m, (double)moments[0], (double)moments[1], (double)moments[2], (double)expected[0],
          (double)expected[1], (double)expected[2], e->n);
  }
  { /* the grousered wheel against the cylinder's and the boxes' closed forms */
    TalusShapePart  parts[7];
    PetscReal       mc, Jc[3], mg, Jg[3], Iz, Ix;
    const PetscReal grouser[3] = {0.02, 0.01, 0.05}, at = 0.17;
    GrouseredWheel(parts);
    PetscCall(TalusShapeDataAddCompound(7, parts, &index, why, sizeof(why)));
    CHECK(index >= 0, "the wheel is refused: %s", why);
    TalusShapeMassProperties(TALUS_CYLINDER, parts[0].size, 1.0, &mc, Jc);
    TalusShapeMassProperties(TALUS_BOX, grouser, 1.0, &mg, Jg);
    Iz = Jc[2] + 6 * (Jg[2] + mg * at * at);
    Ix = Jc[0] + 3 * (Jg[0] + Jg[1]) + 3 * mg * at * at; /* six grousers about x: each its moments turned, plus m y^2 */
    if (index >= 0) {
      e = TalusShapeDataGet(index);
      CHECK(PetscAbsReal(e->volume - (mc + 6 * mg)) < 1e-15 && PetscAbsReal(e->inertia[2] - Iz) < 1e-12 * Iz &&
              PetscAbsReal(e->inertia[0] - Ix) < 1e-12 * Ix && PetscAbsReal(e->inertia[1] - Ix) < 1e-12 * Ix &&
              TalusNorm3(e->centroid) < 1e-15,
            "the wheel: volume %g (%g), moments %.12g %.12g %.12g (%.12g %.12g %.12g)", (double)e->volume,
            (double)(mc + 6 * mg), (double)e->inertia[0], (double)e->inertia[1], (double)e->inertia[2], (double)Ix,
            (double)Ix, (double)Iz);
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectRefused(PetscInt index, const char why[], const char words[], const char what[])
{
  PetscFunctionBegin;
  CHECK(index < 0 && strstr(why, words), "%s: expected a refusal saying \"%s\", got %" PetscInt_FMT " \"%s\"", what,
        words, index, why);
  PetscFunctionReturn(0);
}

static PetscErrorCode Refusals(void)
{
  const PetscReal three[9]   = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const PetscReal flat[15]   = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0};
  const PetscReal inside[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.1, 0.1, 0.1};
  /* an L-shaped prism (its cross-section 2 x 2 less the square [1, 2] x [1, 2]): its inner corner (1, 1, +-0.5) lies
     on the hull's end faces, so it ran as its hull; and a vertex given twice */
  const PetscReal prism[36]    = {0, 0, -0.5, 2, 0, -0.5, 2, 1, -0.5, 1, 1, -0.5, 1, 2, -0.5, 0, 2, -0.5,
                                  0, 0, 0.5,  2, 0, 0.5,  2, 1, 0.5,  1, 1, 0.5,  1, 2, 0.5,  0, 2, 0.5};
  const PetscReal twice[15]    = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0};
  TalusShapePart  no_volume[2] = {
     {.shape = TALUS_CYLINDER, .size = {0.1, 0.1, 0}, .quaternion = {1, 0, 0, 0}},
     {.shape = TALUS_CYLINDER, .size = {0, 0.1, 0},   .quaternion = {1, 0, 0, 0}}
  };
  TalusShapePart plane[1] = {
    {.shape = TALUS_PLANE, .size = {0, 0, 1}, .quaternion = {1, 0, 0, 0}}
  };
  PetscInt index;
  char     why[256];

  PetscFunctionBegin;
  PetscCall(TalusShapeDataAddHull(3, three, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "4 to 1024 vertices, got 3", "3 vertices"));
  PetscCall(TalusShapeDataAddHull(5, flat, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "span no volume", "5 vertices in a plane"));
  PetscCall(TalusShapeDataAddHull(5, inside, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "vertex 4 (0.1, 0.1, 0.1) lies inside the hull", "a vertex inside"));
  PetscCall(TalusShapeDataAddHull(12, prism, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "vertex 3 (1., 1., -0.5) lies on the hull's surface and is none of its corners",
                          "an L-shaped prism"));
  PetscCall(TalusShapeDataAddHull(5, twice, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "vertex 4 repeats vertex 1", "a vertex twice"));
  PetscCall(TalusShapeDataAddCompound(2, no_volume, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "part 1 (a cylinder) has no volume", "a part of radius 0"));
  PetscCall(TalusShapeDataAddCompound(1, plane, &index, why, sizeof(why)));
  PetscCall(ExpectRefused(index, why, "part 0 is a plane", "a plane part"));
  PetscFunctionReturn(0);
}

/* A body of a description added to sim's bodies at `at` (given frame), placed at its centroid */
static PetscErrorCode AddDescribed(TalusBodies *b, PetscInt id, TalusShape shape, PetscInt index, const PetscReal at[3],
                                   const PetscReal q[4], PetscInt *k)
{
  const PetscReal size[3] = {(PetscReal)index, (PetscReal)TalusShapeDataGet(index)->n, 0};

  PetscFunctionBegin;
  PetscCall(TalusBodiesAdd(b, id, shape, size, 0, 0, PETSC_FALSE, at, k));
  TalusShapeDataPlace(TalusShapeDataGet(index), at, q, &b->position[3 * *k], &b->quaternion[4 * *k]);
  PetscFunctionReturn(0);
}

/* a hull of a 0.5 x 0.3 x 0.2 box's corners (its corner at the given origin) dropped 1 mm onto base */
static PetscErrorCode HullRests(TalusShape base, const char what[])
{
  PetscReal       corners[24];
  const PetscReal base_size[3] = {2, 2, 0.5}, base_at[3] = {0, 0, base == TALUS_PLANE ? 0 : 0.5};
  const PetscReal floor = base == TALUS_PLANE ? 0 : 1, at[3] = {-0.3, 0.1, floor + 1e-3}, q[4] = {1, 0, 0, 0};
  PetscInt        index, k;
  char            why[256];
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;

  PetscFunctionBegin;
  for (int c = 0; c < 8; c++)
    corners[3 * c] = c & 1 ? 0.5 : 0, corners[3 * c + 1] = c & 2 ? 0.3 : 0, corners[3 * c + 2] = c & 4 ? 0.2 : 0;
  PetscCall(TalusShapeDataAddHull(8, corners, &index, why, sizeof(why)));
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 1e-3, 0.005, 0.5, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, base, base == TALUS_PLANE ? (PetscReal[3]){0, 0, 1} : base_size,
                           base == TALUS_PLANE ? 0.0 : 1.0, 0, PETSC_TRUE, base_at, NULL));
  PetscCall(AddDescribed(b, 1, TALUS_HULL, index, at, q, &k));
  PetscCall(TalusSimSetUp(sim));
  for (PetscInt s = 0; s < 300; s++) PetscCall(TalusSimStep(sim, &st));
  PetscCall(TestGetBody(sim, 1, &rec));
  CHECK(st.contacts == 4 && PetscAbsReal(st.support_force_over_weight - 1.0) < 1e-6,
        "%s: %" PetscInt_FMT " contacts (4) carry %.9f of the weight", what, st.contacts,
        (double)st.support_force_over_weight);
  CHECK(TalusNorm3(rec.velocity) < 1e-9 && TalusNorm3(rec.omega) < 1e-9 &&
          PetscAbsReal(rec.position[2] - floor - 0.1) < 1e-6,
        "%s: moves at %g m/s, %g rad/s, its centre %g m above its rest", what, (double)TalusNorm3(rec.velocity),
        (double)TalusNorm3(rec.omega), (double)(rec.position[2] - floor - 0.1));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a compound of one cylinder (r 0.2, length 0.6) on a 20 degree incline, its axis across the slope: the cylinder's
   rolling rate */
static PetscErrorCode CompoundRolls(void)
{
  const PetscReal theta = 20.0 * PETSC_PI / 180.0, r = 0.2, h = 1e-3, T = 0.5;
  const PetscReal n[3]    = {PetscSinReal(theta), 0, PetscCosReal(theta)},
                  down[3] = {PetscCosReal(theta), 0, -PetscSinReal(theta)};
  const PetscReal c[3] = {r * n[0], r * n[1], r * n[2]}, a = 2.0 / 3.0 * 9.81 * PetscSinReal(theta);
  const PetscReal q[4] = {PetscCosReal(0.25 * PETSC_PI), PetscSinReal(0.25 * PETSC_PI), 0, 0};
  TalusShapePart  part = {
     .shape = TALUS_CYLINDER, .size = {r,  0.3, 0},
          .quaternion = { 1, 0,   0, 0}
  };
  PetscInt        index, k;
  char            why[256];
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       v;

  PetscFunctionBegin;
  PetscCall(TalusShapeDataAddCompound(1, &part, &index, why, sizeof(why)));
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, h, 0.005, 0.5, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, n, 0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(AddDescribed(b, 1, TALUS_COMPOUND, index, c, q, &k));
  PetscCall(TalusSimSetUp(sim));
  for (PetscInt s = 0; s < (PetscInt)(T / h + 0.5); s++) PetscCall(TalusSimStep(sim, &st));
  PetscCall(TestGetBody(sim, 1, &rec));
  v = TalusDot3(rec.velocity, down);
  CHECK(PetscAbsReal(v - a * T) < 1e-3 * a * T, "a compound cylinder rolling: %.6f m/s after %g s, expected %.6f",
        (double)v, (double)T, (double)(a * T));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* a wheel of a cylinder and 6 grousers standing on two grousers' ends on a plane: its weight carried, at rest */
static PetscErrorCode WheelRests(void)
{
  TalusShapePart  parts[7];
  const PetscReal q[4] = {PetscCosReal(0.25 * PETSC_PI), PetscSinReal(0.25 * PETSC_PI), 0, 0}; /* axis along -y */
  /* the lowest corners: 0.19 out and 0.01 across, the grouser 60 degrees from the vertical */
  const PetscReal tip   = 0.19 * PetscSinReal(PETSC_PI / 3) + 0.01 * PetscCosReal(PETSC_PI / 3),
                  at[3] = {0, 0, tip + 1e-3};
  PetscInt        index, k;
  char            why[256];
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;

  PetscFunctionBegin;
  GrouseredWheel(parts); /* two grousers down, at -60 and -120 degrees */
  PetscCall(TalusShapeDataAddCompound(7, parts, &index, why, sizeof(why)));
  PetscCall(TestNewSim(PETSC_COMM_WORLD, gravity, 1e-3, 0.005, 0.5, 1e-12, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, (PetscReal[3]){0, 0, 1}, 0, 0, PETSC_TRUE, origin, NULL));
  PetscCall(AddDescribed(b, 1, TALUS_COMPOUND, index, at, q, &k));
  PetscCall(TalusSimSetUp(sim));
  for (PetscInt s = 0; s < 300; s++) PetscCall(TalusSimStep(sim, &st));
  PetscCall(TestGetBody(sim, 1, &rec));
  CHECK(st.contacts >= 2 && PetscAbsReal(st.support_force_over_weight - 1.0) < 1e-6,
        "a grousered wheel: %" PetscInt_FMT " contacts carry %.9f of the weight", st.contacts,
        (double)st.support_force_over_weight);
  CHECK(TalusNorm3(rec.velocity) < 1e-9 && TalusNorm3(rec.omega) < 1e-9,
        "a grousered wheel: moves at %g m/s, %g rad/s, its centre %g m high", (double)TalusNorm3(rec.velocity),
        (double)TalusNorm3(rec.omega), (double)rec.position[2]);
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* A compound weighs its union, its parts' overlaps counted once (issue 55, class 6), against closed forms: the
   shipped two-sphere clump (radius 6 mm, centres 9 mm apart: the lens, two caps of height r - d/2, is 4.3 % of the
   parts' sum), two and three coincident spheres (one sphere), a sphere inside a box (the box) */
static PetscErrorCode UnionMassProperties(void)
{
  const PetscReal r = 0.006, d = 0.009, c = r - d / 2, sphere = 4.0 / 3.0 * PETSC_PI * r * r * r;
  /* the lens's volume and its moment about the line of the centres: two caps of height c */
  const PetscReal lens         = PETSC_PI * (4 * r + d) * (2 * r - d) * (2 * r - d) / 12.0,
                  lens_axial   = 2.0 * PETSC_PI * c * c * c / 30.0 * (20 * r * r - 15 * r * c + 3 * c * c);
  const PetscReal clump_volume = 2 * sphere - lens, clump_axial = 2 * 0.4 * sphere * r * r - lens_axial;
  TalusShapePart  parts[3];
  PetscInt        index;
  char            why[256];

  PetscFunctionBegin;
  for (int p = 0; p < 3; p++)
    parts[p] = (TalusShapePart){
      .shape = TALUS_SPHERE, .size = {r,  0, 0},
           .quaternion = { 1, 0, 0, 0}
    };
  parts[0].position[0] = -d / 2, parts[1].position[0] = d / 2;
  PetscCall(TalusShapeDataAddCompound(2, parts, &index, why, sizeof(why)));
  CHECK(index >= 0, "the clump is refused: %s", why);
  if (index >= 0) {
    const TalusShapeData *e = TalusShapeDataGet(index);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  the two-sphere clump's union: volume off by %.2e, axial moment by %.2e\n",
                          (double)(e->volume / clump_volume - 1), (double)(e->inertia[0] / clump_axial - 1)));
    /* principal moments sorted: the axial one is the smallest */
    CHECK(PetscAbsReal(e->volume - clump_volume) < 2e-5 * clump_volume &&
            PetscAbsReal(e->inertia[0] - clump_axial) < 1e-4 * clump_axial && TalusNorm3(e->centroid) < 1e-12,
          "the two-sphere clump: volume %.10g (union %.10g, the parts' sum %.10g), axial moment %.10g (%.10g)",
          (double)e->volume, (double)clump_volume, (double)(2 * sphere), (double)e->inertia[0], (double)clump_axial);
  }
  for (PetscInt n = 2; n <= 3; n++) {
    parts[0].position[0] = parts[1].position[0] = 0.0;
    PetscCall(TalusShapeDataAddCompound(n, parts, &index, why, sizeof(why)));
    if (index >= 0) {
      const TalusShapeData *e = TalusShapeDataGet(index);
      CHECK(PetscAbsReal(e->volume - sphere) < 2e-4 * sphere &&
              PetscAbsReal(e->inertia[2] - 0.4 * sphere * r * r) < 4e-4 * 0.4 * sphere * r * r,
            "%" PetscInt_FMT " coincident spheres: volume %.10g, moment %.10g (one sphere: %.10g, %.10g)", n,
            (double)e->volume, (double)e->inertia[2], (double)sphere, (double)(0.4 * sphere * r * r));
    }
  }
  parts[1] = (TalusShapePart){
    .shape = TALUS_BOX, .size = {2 * r, 2 * r, 2 * r},
         .quaternion = { 1,    0,     0,     0}
  };
  PetscCall(TalusShapeDataAddCompound(2, parts, &index, why, sizeof(why)));
  if (index >= 0) {
    const TalusShapeData *e   = TalusShapeDataGet(index);
    const PetscReal       box = 64 * r * r * r;
    CHECK(PetscAbsReal(e->volume - box) < 1e-4 * box, "a sphere inside a box: volume %.10g, the box's %.10g",
          (double)e->volume, (double)box);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(MassProperties());
  PetscCall(UnionMassProperties());
  PetscCall(Refusals());
  PetscCall(HullRests(TALUS_PLANE, "a hull on a plane"));
  PetscCall(HullRests(TALUS_BOX, "a hull on a box"));
  PetscCall(CompoundRolls());
  PetscCall(WheelRests());
  {
    int status = TestSummary("test_described");
    PetscCall(TalusFinalize());
    return status;
  }
}
