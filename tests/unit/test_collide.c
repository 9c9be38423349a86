/* Narrow and broad phase against closed-form geometry and brute force. */
#include "../common/check.h"
#include "../common/random_problem.h"
#include <talus/shape_data.h>

static const PetscReal zero3[3] = {0, 0, 0};

static PetscErrorCode NewBodies(TalusBodies **b)
{
  PetscFunctionBegin;
  PetscCall(TalusBodiesCreate(b));
  PetscCall(TalusBodiesAddMaterial(*b, "default", 0.3, 1000.0, NULL));
  PetscFunctionReturn(0);
}

static PetscReal Dist3(const PetscReal a[3], const PetscReal b[3])
{
  return PetscSqrtReal(PetscSqr(a[0] - b[0]) + PetscSqr(a[1] - b[1]) + PetscSqr(a[2] - b[2]));
}

/*
 * Every pair of shapes, from a table: two bodies with ids 0 and 1, the closed-form gap, normal (from
 * id 0 to id 1, seed 000's order) and number of contacts; each case is collided as (0, 1) and as
 * (1, 0), which must give the same contacts. A pair the narrow phase has no routine for is refused.
 */
typedef struct {
  const char *what;
  TalusShape  shape[2];
  PetscReal   size[2][3], position[2][3], envelope;
  PetscInt    ncontacts; /* -1: refused */
  PetscReal   phi, normal[3];
} PairCase;

static const PairCase pair_cases[] = {
  {"sphere-sphere",
   {TALUS_SPHERE, TALUS_SPHERE},
   {{1, 0, 0}, {0.5, 0, 0}},
   {{0, 0, 0}, {2, 0, 0}},
   0.6,                                                                                                      1,
   0.5,                                                                                                               {1, 0, 0} },
  {"plane-sphere",
   {TALUS_PLANE, TALUS_SPHERE},
   {{0, 0, 1}, {1, 0, 0}},
   {{0, 0, 0}, {0.3, -0.2, 1.2}},
   0.5,                                                                                                      1,
   0.2,                                                                                                               {0, 0, 1} },
  {"sphere-plane",
   {TALUS_SPHERE, TALUS_PLANE},
   {{1, 0, 0}, {0, 0, 1}},
   {{0.3, -0.2, 1.2}, {0, 0, 0}},
   0.5,                                                                                                      1,
   0.2,                                                                                                               {0, 0, -1}},
  {"plane-box",
   {TALUS_PLANE, TALUS_BOX},
   {{0, 0, 1}, {0.5, 0.4, 0.3}},
   {{0, 0, 0}, {0, 0, 0.35}},
   0.1,                                                                                                      4,
   0.05,                                                                                                              {0, 0, 1} },
  {"box-plane",
   {TALUS_BOX, TALUS_PLANE},
   {{0.5, 0.4, 0.3}, {0, 0, 1}},
   {{0, 0, 0.35}, {0, 0, 0}},
   0.1,                                                                                                      4,
   0.05,                                                                                                              {0, 0, -1}},
  {"box-sphere",        {TALUS_BOX, TALUS_SPHERE}, {{1, 1, 1}, {0.5, 0, 0}}, {{0, 0, 0}, {2, 0, 0}},    0.6, 1, 0.5,  {1, 0, 0} },
  {"sphere-box",        {TALUS_SPHERE, TALUS_BOX}, {{0.5, 0, 0}, {1, 1, 1}}, {{0, 2, 0}, {0, 0, 0}},    0.6, 1, 0.5,  {0, -1, 0}},
 /* the general convex pairs (GJK, EPA and the overlap of flat features): face on face, a side on a face, sides */
  {"box-box",           {TALUS_BOX, TALUS_BOX},    {{1, 1, 1}, {1, 1, 1}},   {{0, 0, 0}, {2.05, 0, 0}}, 0.1, 4, 0.05, {1, 0, 0} },
 /* a cylinder standing on its cap (axis z): the bottom rim's 8 samples at 0.05, the top rim beyond the envelope */
  {"plane-cylinder",
   {TALUS_PLANE, TALUS_CYLINDER},
   {{0, 0, 1}, {0.5, 0.3, 0}},
   {{0, 0, 0}, {0, 0, 0.35}},
   0.1,                                                                                                      8,
   0.05,                                                                                                              {0, 0, 1} },
  {"cylinder-plane",
   {TALUS_CYLINDER, TALUS_PLANE},
   {{0.5, 0.3, 0}, {0, 0, 1}},
   {{0, 0, 0.35}, {0, 0, 0}},
   0.1,                                                                                                      8,
   0.05,                                                                                                              {0, 0, -1}},
 /* a sphere beside the cylinder's side, and one beyond its cap */
  {"cylinder-sphere",
   {TALUS_CYLINDER, TALUS_SPHERE},
   {{1, 1, 0}, {0.5, 0, 0}},
   {{0, 0, 0}, {2, 0, 0}},
   0.6,                                                                                                      1,
   0.5,                                                                                                               {1, 0, 0} },
  {"sphere-cylinder",
   {TALUS_SPHERE, TALUS_CYLINDER},
   {{0.5, 0, 0}, {1, 1, 0}},
   {{0, 0, 2}, {0, 0, 0}},
   0.6,                                                                                                      1,
   0.5,                                                                                                               {0, 0, -1}},
  {"cylinder-box",
   {TALUS_CYLINDER, TALUS_BOX},
   {{1, 1, 0}, {1, 1, 1}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"box-cylinder",
   {TALUS_BOX, TALUS_CYLINDER},
   {{1, 1, 1}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"cylinder-cylinder",
   {TALUS_CYLINDER, TALUS_CYLINDER},
   {{1, 1, 0}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
 /* capsules: a standing one's lower ball on a plane, a sphere beside and beyond its segment, two side by side
     (parallel: the overlap's two ends), and with a box's face and a cylinder's side (the general pairs) */
  {"plane-capsule",
   {TALUS_PLANE, TALUS_CAPSULE},
   {{0, 0, 1}, {0.5, 0.3, 0}},
   {{0, 0, 0}, {0, 0, 0.85}},
   0.1,                                                                                                      1,
   0.05,                                                                                                              {0, 0, 1} },
  {"capsule-plane",
   {TALUS_CAPSULE, TALUS_PLANE},
   {{0.5, 0.3, 0}, {0, 0, 1}},
   {{0, 0, 0.85}, {0, 0, 0}},
   0.1,                                                                                                      1,
   0.05,                                                                                                              {0, 0, -1}},
  {"capsule-sphere",
   {TALUS_CAPSULE, TALUS_SPHERE},
   {{1, 1, 0}, {0.5, 0, 0}},
   {{0, 0, 0}, {2, 0, 0.5}},
   0.6,                                                                                                      1,
   0.5,                                                                                                               {1, 0, 0} },
  {"sphere-capsule",
   {TALUS_SPHERE, TALUS_CAPSULE},
   {{0.5, 0, 0}, {1, 1, 0}},
   {{0, 0, 3.5}, {0, 0, 0}},
   1.1,                                                                                                      1,
   1.0,                                                                                                               {0, 0, -1}},
  {"capsule-capsule",
   {TALUS_CAPSULE, TALUS_CAPSULE},
   {{1, 1, 0}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"capsule-box",
   {TALUS_CAPSULE, TALUS_BOX},
   {{1, 1, 0}, {1, 1, 1}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"box-capsule",
   {TALUS_BOX, TALUS_CAPSULE},
   {{1, 1, 1}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"capsule-cylinder",
   {TALUS_CAPSULE, TALUS_CYLINDER},
   {{1, 1, 0}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
  {"cylinder-capsule",
   {TALUS_CYLINDER, TALUS_CAPSULE},
   {{1, 1, 0}, {1, 1, 0}},
   {{0, 0, 0}, {2.05, 0, 0}},
   0.1,                                                                                                      2,
   0.05,                                                                                                              {1, 0, 0} },
};

/*
 * The hull's and the compound's pairs, made here: a hull of a cube's corners (half side 0.5, entry 0 of the
 * descriptions) and a compound of one ball (radius 0.5, entry 1) meet each shape, one body at the origin and the
 * other above it along z at the gap 0.2: the cube's face on a face or a cap touches at the face's corners or the
 * cap's 8 rim samples, at one point elsewhere. Each pair comes in both orders of the shapes, the body with id 0
 * the lower one (a plane is always at the origin).
 */
typedef struct {
  TalusShape shape;
  PetscReal  size[3], half; /* its half height along z */
} Upright;

static char described_names[64][40];

static PetscInt DescribedCases(PairCase cases[])
{
  const Upright kinds[] = {
    {TALUS_SPHERE,   {0.5, 0, 0},     0.5},
    {TALUS_BOX,      {0.5, 0.5, 0.5}, 0.5},
    {TALUS_PLANE,    {0, 0, 1},       0  },
    {TALUS_CYLINDER, {0.3, 0.3, 0},   0.3},
    {TALUS_CAPSULE,  {0.3, 0.3, 0},   0.6},
    {TALUS_HULL,     {0, 8, 0},       0.5},
    {TALUS_COMPOUND, {1, 1, 0},       0.5},
  };
  const PetscInt nk = (PetscInt)(sizeof(kinds) / sizeof(kinds[0]));
  PetscInt       n  = 0;

  for (PetscInt i = 0; i < nk; i++)
    for (PetscInt j = 0; j < nk; j++) {
      const Upright *lo = &kinds[i], *hi = &kinds[j];
      PetscInt       faces = 1;
      if (!(lo->shape == TALUS_HULL || lo->shape == TALUS_COMPOUND || hi->shape == TALUS_HULL ||
            hi->shape == TALUS_COMPOUND) ||
          (lo->shape == TALUS_PLANE && hi->shape == TALUS_PLANE))
        continue;
      /* flat on flat: the cube hull on a plane, a box, a hull (4 corners) or under a cylinder's cap (8 samples) */
      if (lo->shape == TALUS_HULL || hi->shape == TALUS_HULL) {
        const TalusShape other = lo->shape == TALUS_HULL ? hi->shape : lo->shape;
        faces = other == TALUS_PLANE || other == TALUS_BOX || other == TALUS_HULL ? 4 : other == TALUS_CYLINDER ? 8 : 1;
      }
      cases[n] = (PairCase){
        .shape = {lo->shape, hi->shape},
          .envelope = 0.3, .ncontacts = faces, .phi = 0.2
      };
      for (int k = 0; k < 3; k++) cases[n].size[0][k] = lo->size[k], cases[n].size[1][k] = hi->size[k];
      if (hi->shape == TALUS_PLANE) { /* the plane (id 1) at the origin, the other (id 0) above it */
        cases[n].position[0][2] = hi->half + lo->half + 0.2;
        cases[n].normal[2]      = -1;
      } else {
        cases[n].position[1][2] = lo->half + hi->half + 0.2;
        cases[n].normal[2]      = 1;
      }
      n++;
    }
  return n;
}

static PetscErrorCode CheckPairCases(const PairCase cases[], size_t ncases, PetscInt covered[][TALUS_NSHAPES])
{
  PetscFunctionBegin;
  for (size_t t = 0; t < ncases; t++) {
    const PairCase *pc = &cases[t];
    TalusBodies    *b;
    PetscErrorCode  ierr;

    PetscCall(NewBodies(&b));
    for (int k = 0; k < 2; k++)
      PetscCall(TalusBodiesAdd(b, k, pc->shape[k], pc->size[k], 0, 0, PETSC_FALSE, pc->position[k], NULL));
    covered[pc->shape[0]][pc->shape[1]]++;
    CHECK(TalusShapePairSupported(pc->shape[0], pc->shape[1]) == (pc->ncontacts >= 0), "%s: the pair table says %s",
          pc->what, pc->ncontacts >= 0 ? "unsupported" : "supported");
    for (int order = 0; order < 2; order++) {
      TalusContactList list = {0};
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = TalusCollidePair(b, order, 1 - order, pc->envelope, &list);
      PetscCall(PetscPopErrorHandler());
      if (pc->ncontacts < 0)
        CHECK(ierr == PETSC_ERR_SUP, "%s (order %d): not refused (error %d)", pc->what, order, (int)ierr);
      else {
        CHECK(!ierr && list.n == pc->ncontacts, "%s (order %d): %" PetscInt_FMT " contacts, expected %" PetscInt_FMT,
              pc->what, order, list.n, pc->ncontacts);
        for (PetscInt c = 0; c < list.n; c++) {
          const TalusContact *ct = &list.c[c];
          CHECK(ct->id_a == 0 && ct->id_b == 1,
                "%s (order %d): contact between ids %" PetscInt_FMT " and %" PetscInt_FMT ", expected 0 then 1",
                pc->what, order, ct->id_a, ct->id_b);
          CHECK(PetscAbsReal(ct->phi - pc->phi) < 1e-14, "%s (order %d): phi = %.17g, expected %g", pc->what, order,
                (double)ct->phi, (double)pc->phi);
          CHECK(Dist3(ct->frame, pc->normal) < 1e-14, "%s (order %d): n = (%g %g %g), expected (%g %g %g)", pc->what,
                order, ct->frame[0], ct->frame[1], ct->frame[2], pc->normal[0], pc->normal[1], pc->normal[2]);
        }
      }
      PetscCall(TalusContactListDestroy(&list));
    }
    PetscCall(TalusBodiesDestroy(&b));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckPairTable(void)
{
  PetscInt        covered[TALUS_NSHAPES][TALUS_NSHAPES] = {{0}}, index[2], ndescribed;
  PairCase        described[64];
  const PetscReal cube[24] = {-.5, -.5, -.5, .5, -.5, -.5, -.5, .5, -.5, .5, .5, -.5,
                              -.5, -.5, .5,  .5, -.5, .5,  -.5, .5, .5,  .5, .5, .5};
  TalusShapePart  ball     = {
         .shape = TALUS_SPHERE, .size = {0.5, 0, 0},
              .quaternion = { 1,  0, 0, 0}
  };
  char why[256];

  PetscFunctionBegin;
  PetscCall(CheckPairCases(pair_cases, sizeof(pair_cases) / sizeof(pair_cases[0]), covered));
  PetscCall(TalusShapeDataAddHull(8, cube, &index[0], why, sizeof(why)));
  PetscCall(TalusShapeDataAddCompound(1, &ball, &index[1], why, sizeof(why)));
  CHECK(index[0] == 0 && index[1] == 1,
        "the cube hull and the ball compound are entries %" PetscInt_FMT " and %" PetscInt_FMT ", not 0 and 1",
        index[0], index[1]);
  ndescribed = DescribedCases(described);
  for (PetscInt t = 0; t < ndescribed; t++) {
    PetscCall(PetscSNPrintf(described_names[t], sizeof(described_names[t]), "%s-%s",
                            TalusShapeTable[described[t].shape[0]].name, TalusShapeTable[described[t].shape[1]].name));
    described[t].what = described_names[t];
  }
  PetscCall(CheckPairCases(described, (size_t)ndescribed, covered));
  /* every pair of shapes that can meet (not two unbounded ones) has a case */
  for (int i = 0; i < TALUS_NSHAPES; i++)
    for (int j = 0; j < TALUS_NSHAPES; j++)
      if (TalusShapeTable[i].finite || TalusShapeTable[j].finite)
        CHECK(covered[i][j], "no test case for the pair %s-%s", TalusShapeTable[i].name, TalusShapeTable[j].name);
  PetscFunctionReturn(0);
}

/*
 * The shape table: names and stored codes found again, the codes those of format-1 checkpoints
 * (sphere 0, box 1, plane 2: changing one would misread every file written before), the mass
 * properties' closed forms, the bounding radii and the size checks.
 */
static PetscErrorCode CheckShapeTable(void)
{
  const PetscReal r[3] = {0.5, 0, 0}, half[3] = {1, 2, 3}, normal[3] = {0, 0, 0}, density = 1000.0;
  /* the codes of format-1 files, and the cylinder's since it came (format 9) */
  const PetscInt format1_code[TALUS_NSHAPES] = {
    [TALUS_SPHERE] = 0,  [TALUS_BOX] = 1,  [TALUS_PLANE] = 2,   [TALUS_CYLINDER] = 3,
    [TALUS_CAPSULE] = 4, [TALUS_HULL] = 5, [TALUS_COMPOUND] = 6};
  const PetscReal cyl[3] = {0.5, 2, 0};
  PetscReal       m, J[3];
  TalusShape      found;

  PetscFunctionBegin;
  for (int s = 0; s < TALUS_NSHAPES; s++) {
    CHECK(TalusShapeFromName(TalusShapeTable[s].name, &found) && found == (TalusShape)s, "%s not found by its name",
          TalusShapeTable[s].name);
    CHECK(TalusShapeFromCode(TalusShapeTable[s].code, &found) && found == (TalusShape)s, "%s not found by its code",
          TalusShapeTable[s].name);
    CHECK(TalusShapeTable[s].code == format1_code[s],
          "%s has code %" PetscInt_FMT ", format-1 files store %" PetscInt_FMT, TalusShapeTable[s].name,
          TalusShapeTable[s].code, format1_code[s]);
  }
  CHECK(!TalusShapeFromName("cone", &found) && !TalusShapeFromCode(99, &found), "an unknown name or code was found");
  TalusShapeMassProperties(TALUS_SPHERE, r, density, &m, J);
  CHECK(PetscAbsReal(m - density * 4.0 / 3.0 * PETSC_PI * 0.125) < 1e-12 &&
          PetscAbsReal(J[0] - 0.4 * m * 0.25) < 1e-12 && J[1] == J[0] && J[2] == J[0],
        "sphere: m = %g, J = %g", (double)m, (double)J[0]);
  TalusShapeMassProperties(TALUS_BOX, half, density, &m, J);
  CHECK(PetscAbsReal(m - density * 48.0) < 1e-9 && PetscAbsReal(J[0] - m * 13.0 / 3.0) < 1e-9 &&
          PetscAbsReal(J[1] - m * 10.0 / 3.0) < 1e-9 && PetscAbsReal(J[2] - m * 5.0 / 3.0) < 1e-9,
        "box: m = %g, J = (%g %g %g)", (double)m, (double)J[0], (double)J[1], (double)J[2]);
  /* r 0.5, length 4: m = rho pi r^2 4, I_z = m r^2 / 2, I_x = m (3 r^2 + 16) / 12 */
  TalusShapeMassProperties(TALUS_CYLINDER, cyl, density, &m, J);
  CHECK(PetscAbsReal(m - density * PETSC_PI) < 1e-9 && PetscAbsReal(J[2] - m * 0.125) < 1e-9 &&
          PetscAbsReal(J[0] - m * (0.75 + 16.0) / 12.0) < 1e-9 && J[1] == J[0],
        "cylinder: m = %g, J = (%g %g %g)", (double)m, (double)J[0], (double)J[1], (double)J[2]);
  CHECK(PetscAbsReal(TalusShapeTable[TALUS_CYLINDER].bounding_radius(cyl) - PetscSqrtReal(4.25)) < 1e-15 &&
          !TalusShapeTable[TALUS_CYLINDER].check_size(cyl) && TalusShapeTable[TALUS_CYLINDER].check_size(r),
        "cylinder: bounding radius, size check");
  /* r 0.5, segment 4: a cylinder of m_c = rho pi r^2 4 and a ball of m_b = rho 4/3 pi r^3; I_z = m_c r^2 / 2 +
     2/5 m_b r^2, I_x = m_c (3 r^2 + 16) / 12 + m_b (2/5 r^2 + L^2 + 3/4 L r) with L = 2 */
  TalusShapeMassProperties(TALUS_CAPSULE, cyl, density, &m, J);
  {
    const PetscReal mc = density * PETSC_PI, mb = density * 4.0 / 3.0 * PETSC_PI * 0.125;
    CHECK(PetscAbsReal(m - mc - mb) < 1e-9 && PetscAbsReal(J[2] - (mc * 0.125 + 0.4 * mb * 0.25)) < 1e-9 &&
            PetscAbsReal(J[0] - (mc * (0.75 + 16.0) / 12.0 + mb * (0.1 + 4.0 + 0.75))) < 1e-9 && J[1] == J[0],
          "capsule: m = %g, J = (%g %g %g)", (double)m, (double)J[0], (double)J[1], (double)J[2]);
  }
  CHECK(TalusShapeTable[TALUS_CAPSULE].bounding_radius(cyl) == 2.5, "capsule: bounding radius");
  CHECK(TalusShapeTable[TALUS_SPHERE].bounding_radius(r) == 0.5 &&
          PetscAbsReal(TalusShapeTable[TALUS_BOX].bounding_radius(half) - PetscSqrtReal(14.0)) < 1e-15 &&
          TalusShapeTable[TALUS_PLANE].bounding_radius(normal) == PETSC_INFINITY,
        "bounding radii");
  CHECK(!TalusShapeTable[TALUS_SPHERE].check_size(r) && TalusShapeTable[TALUS_SPHERE].check_size(normal) &&
          TalusShapeTable[TALUS_BOX].check_size(r) && TalusShapeTable[TALUS_PLANE].check_size(normal),
        "size checks");
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckSpheres(void)
{
  TalusBodies     *b;
  TalusContactList list  = {0};
  const PetscReal  r1[3] = {1, 0, 0}, r2[3] = {0.5, 0, 0}, c1[3] = {0, 0, 0}, c2[3] = {2, 0, 0};
  TalusContact    *c;

  PetscFunctionBegin;
  PetscCall(NewBodies(&b));
  /* the second sphere has the LOWER id: n must point from it (body 1) to the first (body 0) */
  PetscCall(TalusBodiesAdd(b, 7, TALUS_SPHERE, r1, 0, 0, PETSC_FALSE, c1, NULL));
  PetscCall(TalusBodiesAdd(b, 3, TALUS_SPHERE, r2, 0, 0, PETSC_FALSE, c2, NULL));
  PetscCall(TalusCollidePair(b, 0, 1, 0.6, &list));
  CHECK(list.n == 1, "sphere-sphere within the envelope: %" PetscInt_FMT " contacts", list.n);
  if (list.n != 1) PetscFunctionReturn(0);
  c = &list.c[0];
  CHECK(PetscAbsReal(c->phi - 0.5) < 1e-15, "phi = %g, expected 0.5", (double)c->phi);
  CHECK(c->a == 1 && c->b == 0, "pair not ordered by global id: a = %" PetscInt_FMT, c->a);
  CHECK(PetscAbsReal(c->frame[0] + 1.0) < 1e-15, "n = (%g %g %g), expected (-1 0 0)", c->frame[0], c->frame[1],
        c->frame[2]);
  CHECK(PetscAbsReal(TalusDot3(c->frame, &c->frame[3])) < 1e-15 &&
          PetscAbsReal(TalusDot3(c->frame, &c->frame[6])) < 1e-15 &&
          PetscAbsReal(TalusDot3(&c->frame[3], &c->frame[6])) < 1e-15,
        "frame not orthogonal");
  {
    PetscReal nxu[3];
    TalusCross3(c->frame, &c->frame[3], nxu);
    CHECK(Dist3(nxu, &c->frame[6]) < 1e-15, "frame not right-handed");
  }
  CHECK(PetscAbsReal(c->sa[0] + 0.5) < 1e-15 && PetscAbsReal(c->sb[0] - 1.0) < 1e-15, "offsets sa = %g, sb = %g",
        c->sa[0], c->sb[0]);
  CHECK(PetscAbsReal(c->mu - 0.3) < 1e-15, "mu = %g", c->mu);
  /* outside the envelope: nothing */
  list.n = 0;
  PetscCall(TalusCollidePair(b, 0, 1, 0.4, &list));
  CHECK(list.n == 0, "contact beyond the envelope kept (phi 0.5 > 0.4)");
  PetscCall(TalusContactListDestroy(&list));
  PetscCall(TalusBodiesDestroy(&b));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckPlaneSphereAndBox(void)
{
  TalusBodies     *b;
  TalusContactList list  = {0};
  const PetscReal  up[3] = {0, 0, 2}, r[3] = {1, 0, 0}, c[3] = {0.3, -0.2, 1.2};
  const PetscReal  half[3] = {1.0, 0.5, 0.25}, cb[3] = {5, 0, 0.25};

  PetscFunctionBegin;
  PetscCall(NewBodies(&b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, zero3, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, r, 0, 0, PETSC_FALSE, c, NULL));
  PetscCall(TalusBodiesAdd(b, 2, TALUS_BOX, half, 0, 0, PETSC_FALSE, cb, NULL));
  CHECK(b->size[2] == 1.0, "plane normal not normalised");
  PetscCall(TalusCollidePair(b, 1, 0, 0.5, &list));
  CHECK(list.n == 1 && PetscAbsReal(list.c[0].phi - 0.2) < 1e-15, "sphere-plane phi = %g, expected 0.2",
        list.n ? (double)list.c[0].phi : -1.0);
  CHECK(list.n == 1 && list.c[0].a == 0 && list.c[0].frame[2] == 1.0,
        "sphere-plane normal not from the plane (lower id) up");
  CHECK(list.n == 1 && PetscAbsReal(list.c[0].sb[2] + 1.0) < 1e-15 && PetscAbsReal(list.c[0].sb[0]) < 1e-15,
        "sphere offset (%g %g %g), expected (0 0 -1)", list.c[0].sb[0], list.c[0].sb[1], list.c[0].sb[2]);
  /* resting box: four corners at phi = 0 */
  list.n = 0;
  PetscCall(TalusCollidePair(b, 0, 2, 0.01, &list));
  CHECK(list.n == 4, "resting box: %" PetscInt_FMT " contacts, expected 4", list.n);
  for (PetscInt k = 0; k < list.n; k++) {
    CHECK(PetscAbsReal(list.c[k].phi) < 1e-15, "corner %" PetscInt_FMT ": phi = %g", list.c[k].feature,
          (double)list.c[k].phi);
    CHECK(PetscAbsReal(list.c[k].sb[2] + 0.25) < 1e-15 && PetscAbsReal(PetscAbsReal(list.c[k].sb[0]) - 1.0) < 1e-15,
          "corner offset wrong");
  }
  /* tilt it by 30 degrees about y: two corners remain within a small envelope */
  {
    const PetscReal t = PETSC_PI / 6.0;
    b->quaternion[8] = PetscCosReal(t / 2), b->quaternion[9] = 0, b->quaternion[10] = PetscSinReal(t / 2),
    b->quaternion[11] = 0;
    b->position[8]    = 1.0 * PetscSinReal(t) + 0.25 * PetscCosReal(t); /* lowest corner exactly on the plane */
    list.n            = 0;
    PetscCall(TalusCollidePair(b, 2, 0, 1e-9, &list));
    CHECK(list.n == 2, "tilted box: %" PetscInt_FMT " contacts, expected 2", list.n);
    for (PetscInt k = 0; k < list.n; k++)
      CHECK(PetscAbsReal(list.c[k].phi) < 1e-12, "tilted corner phi = %g", (double)list.c[k].phi);
  }
  PetscCall(TalusContactListDestroy(&list));
  PetscCall(TalusBodiesDestroy(&b));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckSphereBox(void)
{
  TalusBodies     *b;
  TalusContactList list    = {0};
  const PetscReal  half[3] = {1, 1, 1}, rs[3] = {0.5, 0, 0}, cs[3] = {2, 0, 0}, inside[3] = {0.2, 0.9, 0.1};

  PetscFunctionBegin;
  PetscCall(NewBodies(&b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_BOX, half, 0, 0, PETSC_FALSE, zero3, NULL));
  PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, rs, 0, 0, PETSC_FALSE, cs, NULL));
  /* box turned 45 degrees about z: its vertical edge points at the sphere, sqrt(2) from the centre */
  b->quaternion[0] = PetscCosReal(PETSC_PI / 8), b->quaternion[3] = PetscSinReal(PETSC_PI / 8);
  PetscCall(TalusCollidePair(b, 0, 1, 1.0, &list));
  CHECK(list.n == 1 && PetscAbsReal(list.c[0].phi - (2.0 - PetscSqrtReal(2.0) - 0.5)) < 1e-14,
        "sphere-edge phi = %g, expected %g", list.n ? (double)list.c[0].phi : -1.0, 2.0 - PetscSqrtReal(2.0) - 0.5);
  CHECK(list.n == 1 && PetscAbsReal(list.c[0].frame[0] - 1.0) < 1e-14, "sphere-edge normal (%g %g %g)",
        list.c[0].frame[0], list.c[0].frame[1], list.c[0].frame[2]);
  /* centre inside the unrotated box, nearest face +y: phi = -(1 - 0.9) - 0.5 */
  b->quaternion[0] = 1, b->quaternion[3] = 0;
  for (int k = 0; k < 3; k++) b->position[3 + k] = inside[k];
  list.n = 0;
  PetscCall(TalusCollidePair(b, 1, 0, 0.0, &list));
  CHECK(list.n == 1 && PetscAbsReal(list.c[0].phi + 0.6) < 1e-14 && PetscAbsReal(list.c[0].frame[1] - 1.0) < 1e-14,
        "deep sphere-box: phi = %g, n_y = %g", list.n ? (double)list.c[0].phi : 0.0,
        list.n ? (double)list.c[0].frame[1] : 0.0);
  PetscCall(TalusContactListDestroy(&list));
  PetscCall(TalusBodiesDestroy(&b));
  PetscFunctionReturn(0);
}

/* Broad phase: exactly the pairs whose bounding spheres come within the envelope, also with a few bodies far
   larger than the rest (tested against every body, not gridded: a rig's wheel over its grains; two of them close
   enough to touch each other) and with many (all gridded again). */
static PetscErrorCode CheckBroadPhase(PetscInt nlarge)
{
  TalusBodies    *b;
  TestRng         rng;
  const PetscInt  n        = 1500;
  const PetscReal envelope = 0.05;
  PetscInt        npairs, *pairs, nbrute = 0, missing = 0;
  PetscBool      *found;

  PetscFunctionBegin;
  PetscCall(NewBodies(&b));
  TestRngSeed(&rng, 99);
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal r[3] = {k < nlarge ? 2.0 + TestRngUniform(&rng) : 0.1 + 0.4 * TestRngUniform(&rng), 0, 0};
    PetscReal x[3] = {-8 + 16 * TestRngUniform(&rng), -8 + 16 * TestRngUniform(&rng), -3 + 6 * TestRngUniform(&rng)};
    if (k < PetscMin(nlarge, 2)) x[0] = k ? 1.0 : -1.0, x[1] = x[2] = 0.0; /* two large ones 2 apart, radii >= 2 */
    PetscCall(TalusBodiesAdd(b, k, TALUS_SPHERE, r, 1.0, 0, PETSC_FALSE, x, NULL));
  }
  PetscCall(TalusBroadPhasePairs(b, envelope, &npairs, &pairs));
  PetscCall(PetscCalloc1(n * n, &found));
  for (PetscInt p = 0; p < npairs; p++) {
    CHECK(!found[pairs[2 * p] * n + pairs[2 * p + 1]], "pair (%" PetscInt_FMT ", %" PetscInt_FMT ") reported twice",
          pairs[2 * p], pairs[2 * p + 1]);
    found[pairs[2 * p] * n + pairs[2 * p + 1]] = PETSC_TRUE;
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      const PetscReal reach = b->size[3 * i] + b->size[3 * j] + envelope;
      if (Dist3(&b->position[3 * i], &b->position[3 * j]) <= reach) {
        nbrute++;
        if (!found[i * n + j]) missing++;
      }
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  broad phase, %" PetscInt_FMT " large bodies: %" PetscInt_FMT
                        " pairs, brute force %" PetscInt_FMT "\n",
                        nlarge, npairs, nbrute));
  CHECK(missing == 0 && npairs == nbrute,
        "broad phase found %" PetscInt_FMT " pairs, brute force %" PetscInt_FMT ", missing %" PetscInt_FMT, npairs,
        nbrute, missing);
  PetscCall(PetscFree(found));
  PetscCall(PetscFree(pairs));
  PetscCall(TalusBodiesDestroy(&b));
  PetscFunctionReturn(0);
}

static int CompareContactIds(const void *x, const void *y)
{
  const TalusContact *c = (const TalusContact *)x, *d = (const TalusContact *)y;
  if (c->id_a != d->id_a) return c->id_a < d->id_a ? -1 : 1;
  if (c->id_b != d->id_b) return c->id_b < d->id_b ? -1 : 1;
  return (c->feature > d->feature) - (c->feature < d->feature);
}

/*
 * TalusFindContacts against every pair collided by brute force: the same contacts, in the canonical
 * order (id_a, id_b, feature) although the bodies are stored in another order (ids shuffled),
 * with spheres, tilted boxes (several corners on the floor), planes and negative coordinates.
 */
static PetscErrorCode CheckContactOrder(void)
{
  TalusBodies     *b;
  TestRng          rng;
  TalusContactList found = {0}, brute = {0};
  const PetscInt   nbodies  = 900;
  const PetscReal  envelope = 0.05, up[3] = {0, 0, 1}, wall[3] = {1, 0, 0}, floor0[3] = {0, 0, -2},
                  wall0[3] = {-6, 0, 0};
  PetscInt *id, mismatched = 0, unordered = 0, corners = 0;

  PetscFunctionBegin;
  PetscCall(NewBodies(&b));
  TestRngSeed(&rng, 5);
  PetscCall(PetscMalloc1(nbodies + 2, &id));
  for (PetscInt k = 0; k < nbodies + 2; k++) id[k] = k;
  for (PetscInt k = nbodies + 1; k > 0; k--) { /* shuffle the ids */
    const PetscInt j = (PetscInt)(TestRngUniform(&rng) * (k + 1)) % (k + 1), t = id[k];
    id[k] = id[j], id[j] = t;
  }
  PetscCall(TalusBodiesAdd(b, id[0], TALUS_PLANE, up, 0, 0, PETSC_TRUE, floor0, NULL));
  PetscCall(TalusBodiesAdd(b, id[1], TALUS_PLANE, wall, 0, 0, PETSC_TRUE, wall0, NULL));
  for (PetscInt k = 0; k < nbodies; k++) {
    const PetscBool box  = (PetscBool)(k % 10 == 0);
    const PetscReal x[3] = {-6 + 12 * TestRngUniform(&rng), -6 + 12 * TestRngUniform(&rng),
                            box ? -1.9 : -2 + 4 * TestRngUniform(&rng)};
    const PetscReal r[3] = {0.2 + 0.3 * TestRngUniform(&rng), 0, 0}, half[3] = {0.3, 0.2, 0.1};
    PetscInt        slot;
    if (box) { /* boxes sit on the floor, tilted a little, and spheres keep away from them */
      PetscReal q[4] = {1.0, 0.05 * TestRngUniform(&rng), 0.05 * TestRngUniform(&rng), 0.0}, norm = 0.0;
      PetscBool clear = PETSC_TRUE;
      for (PetscInt j = 0; j < b->n; j++)
        if (b->shape[j] != TALUS_PLANE && Dist3(&b->position[3 * j], x) < 1.5) clear = PETSC_FALSE;
      if (!clear) continue;
      PetscCall(TalusBodiesAdd(b, id[2 + k], TALUS_BOX, half, 0, 0, PETSC_FALSE, x, &slot));
      for (int e = 0; e < 4; e++) norm += q[e] * q[e];
      for (int e = 0; e < 4; e++) b->quaternion[4 * slot + e] = q[e] / PetscSqrtReal(norm);
    } else {
      PetscBool clear = PETSC_TRUE;
      for (PetscInt j = 0; j < b->n; j++)
        if (b->shape[j] == TALUS_BOX && Dist3(&b->position[3 * j], x) < 1.5) clear = PETSC_FALSE;
      if (!clear) continue;
      PetscCall(TalusBodiesAdd(b, id[2 + k], TALUS_SPHERE, r, 0, 0, PETSC_FALSE, x, NULL));
    }
  }
  PetscCall(TalusFindContacts(b, envelope, &found));
  for (PetscInt i = 0; i < b->n; i++)
    for (PetscInt j = i + 1; j < b->n; j++)
      if (b->shape[i] != b->shape[j] || b->shape[i] == TALUS_SPHERE)
        PetscCall(TalusCollidePair(b, i, j, envelope, &brute)); /* no plane-plane, no box-box (kept apart) */
  qsort(brute.c, (size_t)brute.n, sizeof(TalusContact), CompareContactIds);
  for (PetscInt c = 0; c < found.n; c++) {
    if (c > 0 && CompareContactIds(&found.c[c - 1], &found.c[c]) >= 0) unordered++;
    corners += found.c[c].feature > 0;
  }
  for (PetscInt c = 0; c < PetscMin(found.n, brute.n); c++)
    if (CompareContactIds(&found.c[c], &brute.c[c]) || found.c[c].phi != brute.c[c].phi) mismatched++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  contact order: %" PetscInt_FMT " contacts (%" PetscInt_FMT
                        " box corners) among %" PetscInt_FMT " bodies, brute force %" PetscInt_FMT "\n",
                        found.n, corners, b->n, brute.n));
  CHECK(found.n == brute.n && mismatched == 0,
        "%" PetscInt_FMT " contacts found, %" PetscInt_FMT " by brute force, %" PetscInt_FMT " differ", found.n,
        brute.n, mismatched);
  CHECK(unordered == 0, "%" PetscInt_FMT " contacts out of (id_a, id_b, feature) order", unordered);
  CHECK(corners > 10 && found.n > 500, "the scene does not test the order of several contacts per pair");
  PetscCall(PetscFree(id));
  PetscCall(TalusContactListDestroy(&found));
  PetscCall(TalusContactListDestroy(&brute));
  PetscCall(TalusBodiesDestroy(&b));
  PetscFunctionReturn(0);
}

/* Two boxes within reach: refused, not silently ignored. */
/* The signed distance from a point (world) to body k, a box or a cylinder, in closed form */
static PetscReal SignedDistance(const TalusBodies *b, PetscInt k, const PetscReal p[3])
{
  PetscReal A[9], rel[3], q[3], out2 = 0.0, inside;

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  for (int d = 0; d < 3; d++) rel[d] = p[d] - b->position[3 * k + d];
  TalusRotateBack(A, rel, q);
  if (b->shape[k] == TALUS_BOX) {
    inside = -PETSC_INFINITY;
    for (int d = 0; d < 3; d++) {
      const PetscReal e = PetscAbsReal(q[d]) - b->size[3 * k + d];
      out2 += e > 0.0 ? e * e : 0.0;
      inside = PetscMax(inside, e);
    }
  } else if (b->shape[k] == TALUS_CAPSULE) { /* the distance to its segment, less its radius */
    const PetscReal z = PetscMin(PetscMax(q[2], -b->size[3 * k + 1]), b->size[3 * k + 1]);
    return PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + (q[2] - z) * (q[2] - z)) - b->size[3 * k];
  } else {
    const PetscReal er = PetscSqrtReal(q[0] * q[0] + q[1] * q[1]) - b->size[3 * k],
                    ez = PetscAbsReal(q[2]) - b->size[3 * k + 1];
    out2               = (er > 0.0 ? er * er : 0.0) + (ez > 0.0 ? ez * ez : 0.0);
    inside             = PetscMax(er, ez);
  }
  return out2 > 0.0 ? PetscSqrtReal(out2) : inside;
}

/* The least distance from body j's surface to body i, over a fine sampling of j's surface (faces, caps and side
   on a grid of m x m points each) */
static PetscReal SampledGap(const TalusBodies *b, PetscInt i, PetscInt j, PetscInt m)
{
  const PetscReal *s = &b->size[3 * j];
  PetscReal        A[9], best = PETSC_INFINITY;

  TalusQuatToMatrix(&b->quaternion[4 * j], A);
  for (PetscInt face = 0; face < 6; face++)
    for (PetscInt a = 0; a <= m; a++)
      for (PetscInt c = 0; c <= m; c++) {
        const PetscReal sa = 2.0 * a / m - 1.0, sc = 2.0 * c / m - 1.0, side = face % 2 ? 1.0 : -1.0;
        PetscReal       local[3], world[3];
        if (b->shape[j] == TALUS_BOX) {
          const int axis = (int)(face / 2);
          local[axis] = side * s[axis], local[(axis + 1) % 3] = sa * s[(axis + 1) % 3],
          local[(axis + 2) % 3] = sc * s[(axis + 2) % 3];
        } else if (b->shape[j] == TALUS_CAPSULE && face < 2) { /* its end half balls: a polar grid */
          const PetscReal polar = 0.5 * PETSC_PI * a / m, angle = 2.0 * PETSC_PI * c / m;
          local[0] = s[0] * PetscSinReal(polar) * PetscCosReal(angle),
          local[1] = s[0] * PetscSinReal(polar) * PetscSinReal(angle);
          local[2] = side * (s[1] + s[0] * PetscCosReal(polar));
        } else if (face < 2) { /* the caps: a polar grid */
          const PetscReal rho = s[0] * a / m, angle = 2.0 * PETSC_PI * c / m;
          local[0] = rho * PetscCosReal(angle), local[1] = rho * PetscSinReal(angle), local[2] = side * s[1];
        } else if (face == 2) { /* the side */
          const PetscReal angle = 2.0 * PETSC_PI * c / m;
          local[0] = s[0] * PetscCosReal(angle), local[1] = s[0] * PetscSinReal(angle), local[2] = sa * s[1];
        } else continue;
        TalusRotate(A, local, world);
        for (int d = 0; d < 3; d++) world[d] += b->position[3 * j + d];
        best = PetscMin(best, SignedDistance(b, i, world));
      }
  return best;
}

/*
 * The general convex pairs (convex.c: GJK and EPA, then the overlap of flat features): a box resting on a box,
 * tilted within the envelope, touches at its 4 corners with their own gaps; on 250 random poses of boxes,
 * cylinders and capsules near each other, the deepest contact's gap is the least distance over a sampling of both bodies'
 * surfaces against the other (to the sampling's spacing) where they are apart within reach, there is no contact
 * where they are beyond it, and every contact's points lie on the two bodies' surfaces (to 1e-6).
 */
static PetscErrorCode CheckConvexPairs(void)
{
  const PetscReal  half[3] = {1, 0.5, 0.25}, cyl[3] = {0.4, 0.6, 0}, zero[3] = {0, 0, 0};
  TalusBodies     *b;
  TalusContactList list = {0};
  PetscRandom      rng;
  PetscInt         checked = 0;
  PetscReal        worst   = 0.0;

  PetscFunctionBegin;
  { /* a 2 x 1 x 0.5 box on a wide box, tilted by 0.002 rad about y: 4 corners, gaps 0.01 -/+ 0.002 */
    const PetscReal wide[3] = {3, 3, 1}, top[3] = {0, 0, 1 + 0.25 + 0.01}, angle = 0.002;
    PetscInt        k;
    PetscReal       lo = PETSC_INFINITY, hi = -PETSC_INFINITY;
    PetscCall(NewBodies(&b));
    PetscCall(TalusBodiesAdd(b, 0, TALUS_BOX, wide, 0, 0, PETSC_TRUE, zero, NULL));
    PetscCall(TalusBodiesAdd(b, 1, TALUS_BOX, half, 0, 0, PETSC_FALSE, top, &k));
    b->quaternion[4 * k] = PetscCosReal(0.5 * angle), b->quaternion[4 * k + 2] = PetscSinReal(0.5 * angle);
    PetscCall(TalusCollidePair(b, 0, 1, 0.05, &list));
    for (PetscInt c = 0; c < list.n; c++) lo = PetscMin(lo, list.c[c].phi), hi = PetscMax(hi, list.c[c].phi);
    /* a corner at x = -+1, z = -0.25 turned by the angle: 0.01 + (-0.25 cos a -+ sin a) + 0.25 */
    CHECK(list.n == 4 && PetscAbsReal(lo - (0.01 - 0.25 * PetscCosReal(angle) - PetscSinReal(angle) + 0.25)) < 1e-12 &&
            PetscAbsReal(hi - (0.01 - 0.25 * PetscCosReal(angle) + PetscSinReal(angle) + 0.25)) < 1e-12 && list.n &&
            PetscAbsReal(list.c[0].frame[2] - 1.0) < 1e-12,
          "a tilted box on a box: %" PetscInt_FMT " contacts, gaps %.15g .. %.15g", list.n, (double)lo, (double)hi);
    list.n = 0;
    PetscCall(TalusBodiesDestroy(&b));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rng));
  PetscCall(PetscRandomSetSeed(rng, 36));
  PetscCall(PetscRandomSeed(rng));
  for (PetscInt t = 0; t < 250; t++) {
    /* box-box, box-cylinder, cylinder-cylinder, capsule-box, capsule-cylinder, by turns */
    const TalusShape first[5]  = {TALUS_BOX, TALUS_BOX, TALUS_CYLINDER, TALUS_CAPSULE, TALUS_CAPSULE};
    const TalusShape second[5] = {TALUS_BOX, TALUS_CYLINDER, TALUS_CYLINDER, TALUS_BOX, TALUS_CYLINDER};
    const TalusShape shape[2]  = {first[t % 5], second[t % 5]};
    PetscReal        x[3], q[2][4], sampled, deepest = PETSC_INFINITY, envelope = 0.3;
    PetscInt         k[2];
    PetscCall(NewBodies(&b));
    for (int i = 0; i < 2; i++) {
      PetscReal norm = 0.0;
      for (int d = 0; d < 4; d++) {
        PetscCall(PetscRandomGetValueReal(rng, &q[i][d]));
        q[i][d] -= 0.5, norm += q[i][d] * q[i][d];
      }
      for (int d = 0; d < 4; d++) q[i][d] /= PetscSqrtReal(norm);
    }
    for (int d = 0; d < 3; d++) {
      PetscCall(PetscRandomGetValueReal(rng, &x[d]));
      x[d] = 3.2 * (x[d] - 0.5);
    }
    PetscCall(TalusBodiesAdd(b, 0, shape[0], shape[0] == TALUS_BOX ? half : cyl, 0, 0, PETSC_FALSE, zero, &k[0]));
    PetscCall(TalusBodiesAdd(b, 1, shape[1], shape[1] == TALUS_BOX ? half : cyl, 0, 0, PETSC_FALSE, x, &k[1]));
    for (int i = 0; i < 2; i++)
      for (int d = 0; d < 4; d++) b->quaternion[4 * k[i] + d] = q[i][d];
    /* both ways: a corner of either into the other (an edge crossing an edge deeper than the spacing is missed) */
    sampled = PetscMin(SampledGap(b, 0, 1, 120), SampledGap(b, 1, 0, 120));
    PetscCall(TalusCollidePair(b, 0, 1, envelope, &list));
    for (PetscInt c = 0; c < list.n; c++) {
      PetscReal pa[3], pb[3], A[9];
      deepest = PetscMin(deepest, list.c[c].phi);
      TalusQuatToMatrix(&b->quaternion[4 * list.c[c].a], A);
      TalusRotate(A, list.c[c].sa, pa);
      TalusQuatToMatrix(&b->quaternion[4 * list.c[c].b], A);
      TalusRotate(A, list.c[c].sb, pb);
      for (int d = 0; d < 3; d++) pa[d] += b->position[3 * list.c[c].a + d], pb[d] += b->position[3 * list.c[c].b + d];
      CHECK(PetscAbsReal(SignedDistance(b, list.c[c].a, pa)) < 1e-6 &&
              PetscAbsReal(SignedDistance(b, list.c[c].b, pb)) < 1e-6,
            "pose %" PetscInt_FMT " (%s-%s): contact %" PetscInt_FMT "'s points off the surfaces by %g and %g", t,
            TalusShapeTable[shape[0]].name, TalusShapeTable[shape[1]].name, c,
            (double)SignedDistance(b, list.c[c].a, pa), (double)SignedDistance(b, list.c[c].b, pb));
    }
    if (sampled > 0.01 && sampled < envelope - 0.05) { /* apart, within reach: the deepest contact is the gap */
      CHECK(list.n > 0 && PetscAbsReal(deepest - sampled) < 0.005,
            "pose %" PetscInt_FMT " (%s-%s): deepest gap %g, sampled %g", t, TalusShapeTable[shape[0]].name,
            TalusShapeTable[shape[1]].name, (double)deepest, (double)sampled);
      worst = PetscMax(worst, PetscAbsReal(deepest - sampled));
      checked++;
    } else if (sampled > envelope + 0.05) CHECK(list.n == 0, "pose %" PetscInt_FMT ": a contact beyond reach", t);
    list.n = 0;
    PetscCall(TalusBodiesDestroy(&b));
  }
  PetscCall(PetscRandomDestroy(&rng));
  PetscCall(TalusContactListDestroy(&list));
  CHECK(checked >= 35, "only %" PetscInt_FMT " random poses within reach", checked);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  convex pairs: %" PetscInt_FMT " poses within reach, gaps within %.2e of sampling\n", checked,
                        (double)worst));
  PetscFunctionReturn(0);
}

/* A cylinder turned: on its side (two lowest points, one per rim), tilted 30 degrees (its lowest rim point in
   closed form), and spheres inside it (out through the side or the cap) */
static PetscErrorCode CheckCylinders(void)
{
  const PetscReal  up[3] = {0, 0, 1}, origin[3] = {0, 0, 0}, size[3] = {0.5, 1, 0}, R[3] = {0.2, 0, 0};
  const PetscReal  tilt[2] = {0.5 * PETSC_PI, PETSC_PI / 6.0};
  TalusBodies     *b;
  TalusContactList list = {0};

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    const PetscReal c[3] = {0, 0, 1.2};
    PetscInt        k;
    PetscReal       lowest = PETSC_INFINITY, expect;
    PetscCall(NewBodies(&b));
    PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, origin, NULL));
    PetscCall(TalusBodiesAdd(b, 1, TALUS_CYLINDER, size, 0, 0, PETSC_FALSE, c, &k));
    b->quaternion[4 * k] = PetscCosReal(0.5 * tilt[t]), b->quaternion[4 * k + 2] = PetscSinReal(0.5 * tilt[t]);
    /* the lower rim's lowest point: the centre's height less L cos(tilt) and r sin(tilt) */
    expect = 1.2 - 1.0 * PetscCosReal(tilt[t]) - 0.5 * PetscSinReal(tilt[t]);
    PetscCall(TalusCollidePair(b, 0, 1, 1.0, &list));
    for (PetscInt h = 0; h < list.n; h++) lowest = PetscMin(lowest, list.c[h].phi);
    CHECK(PetscAbsReal(lowest - expect) < 1e-12, "cylinder tilted %g rad: lowest gap %.15g, expected %.15g",
          (double)tilt[t], (double)lowest, (double)expect);
    if (t == 0) { /* on its side: the two lowest points (once each, no sample on top of them) at x = -1 and 1 */
      PetscInt at_bottom = 0;
      for (PetscInt h = 0; h < list.n; h++)
        if (PetscAbsReal(list.c[h].phi - expect) < 1e-12) at_bottom++;
      CHECK(at_bottom == 2, "cylinder on its side: %" PetscInt_FMT " points at its lowest (2)", at_bottom);
    }
    list.n = 0;
    PetscCall(TalusBodiesDestroy(&b));
  }
  { /* spheres inside: 0.1 from the side (depth 0.1 + R out through it), 0.05 from the cap */
    const PetscReal near_side[3] = {0.4, 0, 0}, near_cap[3] = {0, 0.1, 0.95};
    for (int s = 0; s < 2; s++) {
      PetscCall(NewBodies(&b));
      PetscCall(TalusBodiesAdd(b, 0, TALUS_CYLINDER, size, 0, 0, PETSC_FALSE, origin, NULL));
      PetscCall(TalusBodiesAdd(b, 1, TALUS_SPHERE, R, 0, 0, PETSC_FALSE, s ? near_cap : near_side, NULL));
      PetscCall(TalusCollidePair(b, 1, 0, 0.1, &list));
      CHECK(list.n == 1 && PetscAbsReal(list.c[0].phi - (s ? -0.25 : -0.3)) < 1e-14 &&
              PetscAbsReal(list.c[0].frame[s ? 2 : 0] - 1.0) < 1e-14,
            "a sphere inside a cylinder near its %s: phi %g, n (%g %g %g)", s ? "cap" : "side",
            list.n ? (double)list.c[0].phi : 0.0, list.n ? list.c[0].frame[0] : 0.0, list.n ? list.c[0].frame[1] : 0.0,
            list.n ? list.c[0].frame[2] : 0.0);
      list.n = 0;
      PetscCall(TalusBodiesDestroy(&b));
    }
  }
  PetscCall(TalusContactListDestroy(&list));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(CheckShapeTable());
  PetscCall(CheckPairTable());
  PetscCall(CheckSpheres());
  PetscCall(CheckPlaneSphereAndBox());
  PetscCall(CheckSphereBox());
  PetscCall(CheckBroadPhase(0));
  PetscCall(CheckBroadPhase(5));
  PetscCall(CheckBroadPhase(100));
  PetscCall(CheckContactOrder());
  PetscCall(CheckConvexPairs());
  PetscCall(CheckCylinders());
  int status = TestSummary("test_collide");
  PetscCall(TalusFinalize());
  return status;
}
