/*
 * A hull's or a compound's entry made (include/talus/shape_data.h): its mass properties about the centroid in
 * principal axes, a hull's corners from Qhull (the packaged convex-hull library) and its volume and second moments
 * by the tetrahedra of its triangulated faces, a compound's by its parts and the parallel axis theorem.
 */
#include "shape_data_impl.h"
#include <talus/math3.h>
#include <petscblaslapack.h>
#include <libqhull_r/qhull_ra.h>

/* the Euler parameters of the rotation matrix R (row-major, det +1; Shepperd's choice of the largest term) */
static void MatrixToQuat(const PetscReal R[9], PetscReal q[4])
{
  const PetscReal t = R[0] + R[4] + R[8];

  if (t >= R[0] && t >= R[4] && t >= R[8]) {
    q[0] = 0.5 * PetscSqrtReal(1.0 + t);
    q[1] = (R[7] - R[5]) / (4 * q[0]), q[2] = (R[2] - R[6]) / (4 * q[0]), q[3] = (R[3] - R[1]) / (4 * q[0]);
  } else if (R[0] >= R[4] && R[0] >= R[8]) {
    q[1] = 0.5 * PetscSqrtReal(1.0 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / (4 * q[1]), q[2] = (R[1] + R[3]) / (4 * q[1]), q[3] = (R[2] + R[6]) / (4 * q[1]);
  } else if (R[4] >= R[8]) {
    q[2] = 0.5 * PetscSqrtReal(1.0 - R[0] + R[4] - R[8]);
    q[0] = (R[2] - R[6]) / (4 * q[2]), q[1] = (R[1] + R[3]) / (4 * q[2]), q[3] = (R[5] + R[7]) / (4 * q[2]);
  } else {
    q[3] = 0.5 * PetscSqrtReal(1.0 - R[0] - R[4] + R[8]);
    q[0] = (R[3] - R[1]) / (4 * q[3]), q[1] = (R[2] + R[6]) / (4 * q[3]), q[2] = (R[5] + R[7]) / (4 * q[3]);
  }
  TalusQuatNormalize(q);
}

/* The principal axes of the inertia tensor J (about the centroid, given frame): the moments and the rotation from
   the principal frame to the given one. A tensor that is diagonal already (to 1e-12 of its trace) keeps the given
   axes, so a symmetric body stays as the scene put it. */
static PetscErrorCode PrincipalAxes(const PetscReal J[9], PetscReal moments[3], PetscReal quaternion[4])
{
  const PetscReal trace = J[0] + J[4] + J[8];
  PetscBLASInt    n = 3, lwork = 64, info;
  PetscReal       a[9], work[64], R[9];

  PetscFunctionBegin;
  if (PetscAbsReal(J[1]) + PetscAbsReal(J[2]) + PetscAbsReal(J[5]) <= 1e-12 * trace) {
    moments[0] = J[0], moments[1] = J[4], moments[2] = J[8];
    quaternion[0] = 1, quaternion[1] = quaternion[2] = quaternion[3] = 0;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscArraycpy(a, J, 9)); /* symmetric: row- and column-major alike */
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("V", "U", &n, a, &n, moments, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK syev failed on an inertia tensor: info %d", (int)info);
  /* a[] holds the axes as columns (column-major): R's column j is axis j */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = a[3 * j + i];
  {
    const PetscReal c0[3] = {R[0], R[3], R[6]}, c1[3] = {R[1], R[4], R[7]};
    PetscReal       c2[3];
    TalusCross3(c0, c1, c2); /* a right-handed frame */
    R[2] = c2[0], R[5] = c2[1], R[8] = c2[2];
  }
  MatrixToQuat(R, quaternion);
  PetscFunctionReturn(0);
}

/* x in the principal frame: rotation^T (x - centroid) */
static void ToPrincipal(const TalusShapeData *e, const PetscReal x[3], PetscReal y[3])
{
  PetscReal A[9], d[3];

  TalusQuatToMatrix(e->rotation, A);
  for (int k = 0; k < 3; k++) d[k] = x[k] - e->centroid[k];
  TalusRotateBack(A, d, y);
}

/* The entry's moments and axes from its volume, centroid and second moments about the given origin
   (S = integral of x x^T dV): J = tr(S_c) I - S_c about the centroid */
static PetscErrorCode FinishMassProperties(TalusShapeData *e, const PetscReal first[3], const PetscReal S[9])
{
  PetscReal Sc[9], J[9], trace;

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) e->centroid[k] = first[k] / e->volume;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Sc[3 * i + j] = S[3 * i + j] - e->volume * e->centroid[i] * e->centroid[j];
  trace = Sc[0] + Sc[4] + Sc[8];
  for (int i = 0; i < 9; i++) J[i] = (i % 4 == 0 ? trace : 0.0) - Sc[i];
  PetscCall(PrincipalAxes(J, e->inertia, e->rotation));
  PetscFunctionReturn(0);
}

/* The tetrahedron (o, a, b, c)'s signed volume, first moment and second moments (integral of x x^T: V / 20 times
   the sum of x_i x_i^T plus (sum x_i)(sum x_i)^T over its 4 corners), added */
static void AddTetrahedron(const PetscReal o[3], const PetscReal a[3], const PetscReal b[3], const PetscReal c[3],
                           PetscReal *volume, PetscReal first[3], PetscReal S[9])
{
  const PetscReal *x[4] = {o, a, b, c};
  PetscReal        u[3], v[3], w[3], uv[3], V, sum[3];

  for (int k = 0; k < 3; k++) u[k] = a[k] - o[k], v[k] = b[k] - o[k], w[k] = c[k] - o[k];
  TalusCross3(u, v, uv);
  V = TalusDot3(uv, w) / 6.0;
  *volume += V;
  for (int k = 0; k < 3; k++) sum[k] = o[k] + a[k] + b[k] + c[k], first[k] += V * sum[k] / 4.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal s = sum[i] * sum[j];
      for (int p = 0; p < 4; p++) s += x[p][i] * x[p][j];
      S[3 * i + j] += V * s / 20.0;
    }
}

/* The hull of the given points by Qhull, triangulated ("Qt"): its corners and, by the tetrahedra from the first
   corner to each outward triangle, its volume and moments. why[] is set when the points are refused. */
static PetscErrorCode HullOf(TalusShapeData *e, PetscInt n, const PetscReal given[], char why[], size_t why_size)
{
  qhT        qh_storage, *qh = &qh_storage;
  coordT    *points;
  facetT    *facet;
  vertexT   *vertex, **vertexp;
  PetscBool *corner;
  PetscReal  first[3] = {0, 0, 0}, S[9] = {0}, scale = 0.0, o[3];
  int        exitcode, curlong, totlong;
  FILE      *quiet = fopen("/dev/null", "w");

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(3 * n, &points));
  PetscCall(PetscCalloc1(n, &corner));
  for (PetscInt i = 0; i < 3 * n; i++) points[i] = given[i], scale = PetscMax(scale, PetscAbsReal(given[i]));
  qh_zero(qh, quiet);
  exitcode = qh_new_qhull(qh, 3, (int)n, points, False, (char *)"qhull Qt", NULL, quiet);
  if (exitcode) PetscCall(PetscSNPrintf(why, why_size, "its vertices span no volume (they lie in a plane or a line)"));
  else {
    PetscInt       ncorner = 0, stray = -1, twin = -1;
    PetscReal      outermost                             = -PETSC_MAX_REAL;
    FORALLvertices corner[qh_pointid(qh, vertex->point)] = PETSC_TRUE;
    /* every given point must be a corner: one that is not lies inside the hull (by more than a millionth of the
       hull's size from every face: the body is not convex), repeats a corner, or lies on the surface (a prism's
       inner corners lie on the hull's end faces: it ran as its hull) */
    for (PetscInt i = 0; i < n && stray < 0; i++)
      if (!corner[i]) stray = i;
    if (stray >= 0) {
      const PetscReal *p = &given[3 * stray];
      FORALLfacets
      {
        realT dist;
        qh_distplane(qh, &points[3 * stray], facet, &dist);
        outermost = PetscMax(outermost, dist);
      }
      for (PetscInt j = 0; j < n && twin < 0; j++) {
        const PetscReal d[3] = {given[3 * j] - p[0], given[3 * j + 1] - p[1], given[3 * j + 2] - p[2]};
        if (corner[j] && TalusNorm3(d) <= 1e-12 * scale) twin = j;
      }
      if (outermost < -1e-6 * scale)
        PetscCall(PetscSNPrintf(why, why_size,
                                "vertex %" PetscInt_FMT " (%g, %g, %g) lies inside the hull of the others: a hull's "
                                "vertices must be the corners of a convex body",
                                stray, (double)p[0], (double)p[1], (double)p[2]));
      else if (twin >= 0)
        PetscCall(PetscSNPrintf(why, why_size, "vertex %" PetscInt_FMT " repeats vertex %" PetscInt_FMT, stray, twin));
      else
        PetscCall(PetscSNPrintf(why, why_size,
                                "vertex %" PetscInt_FMT " (%g, %g, %g) lies on the hull's surface and is none of its "
                                "corners: a hull's vertices must be the corners of a convex body (a body with an "
                                "inner corner, such as an L-shaped prism, is a compound of convex parts)",
                                stray, (double)p[0], (double)p[1], (double)p[2]));
    } else {
      for (PetscInt i = 0; i < n; i++) ncorner += corner[i];
      e->n = ncorner;
      for (int k = 0; k < 3; k++) o[k] = qh->vertex_list->point[k];
      FORALLfacets
      {
        PetscReal tri[3][3], u[3], v[3], normal[3];
        PetscInt  id[3];
        int       t = 0;
        FOREACHvertex_(facet->vertices)
        {
          for (int k = 0; k < 3; k++) tri[t][k] = vertex->point[k];
          id[t++] = qh_pointid(qh, vertex->point);
        }
        for (int k = 0; k < 3; k++) u[k] = tri[1][k] - tri[0][k], v[k] = tri[2][k] - tri[0][k];
        TalusCross3(u, v, normal);
        if (TalusDot3(normal, facet->normal) < 0.0) { /* outward: counterclockwise seen from outside */
          AddTetrahedron(o, tri[0], tri[2], tri[1], &e->volume, first, S);
          PetscInt swap = id[1];
          id[1] = id[2], id[2] = swap;
        } else AddTetrahedron(o, tri[0], tri[1], tri[2], &e->volume, first, S);
        if (e->nfaces < 2 * n) /* the given points' numbers, made corner numbers below */
          for (int k = 0; k < 3; k++) e->face[3 * e->nfaces + k] = id[k];
        e->nfaces++;
      }
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  if (quiet) fclose(quiet);
  if (!why[0]) {
    PetscInt c = 0;
    if (!(e->volume > 1e-12 * scale * scale * scale))
      PetscCall(PetscSNPrintf(why, why_size, "its vertices span no volume (they lie in a plane or a line)"));
    else if (e->nfaces > 2 * n - 4)
      PetscCall(PetscSNPrintf(why, why_size,
                              "Qhull gave %" PetscInt_FMT " triangles for "
                              "%" PetscInt_FMT " points (at most 2 n - 4)",
                              e->nfaces, n));
    else {
      PetscInt *number; /* a given point's corner number */
      PetscCall(PetscMalloc1(n, &number));
      PetscCall(FinishMassProperties(e, first, S));
      for (PetscInt i = 0, next = 0; i < n; i++) number[i] = corner[i] ? next++ : -1;
      for (PetscInt f = 0; f < 3 * e->nfaces; f++) e->face[f] = number[e->face[f]];
      PetscCall(PetscFree(number));
      for (PetscInt i = 0; i < n; i++)
        if (corner[i]) {
          ToPrincipal(e, &given[3 * i], &e->vertex[3 * c]);
          e->radius = PetscMax(e->radius, TalusNorm3(&e->vertex[3 * c]));
          for (int k = 0; k < 3; k++) e->extent[k] = PetscMax(e->extent[k], 2.0 * PetscAbsReal(e->vertex[3 * c + k]));
          c++;
        }
    }
  }
  PetscCall(PetscFree(points));
  PetscCall(PetscFree(corner));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusShapeDataAddHull(PetscInt n, const PetscReal vertex[], PetscInt *index, char why[], size_t why_size)
{
  TalusShapeData *e;

  PetscFunctionBegin;
  why[0] = 0;
  *index = -1;
  if (n < 4 || n > TALUS_MAX_HULL_VERTICES) {
    PetscCall(
      PetscSNPrintf(why, why_size, "a hull needs 4 to %d vertices, got %" PetscInt_FMT, TALUS_MAX_HULL_VERTICES, n));
    PetscFunctionReturn(0);
  }
  for (PetscInt i = 0; i < 3 * n; i++)
    if (!PetscIsNormalReal(vertex[i]) && vertex[i] != 0.0) {
      PetscCall(PetscSNPrintf(why, why_size, "vertex %" PetscInt_FMT " is not a finite number", i / 3));
      PetscFunctionReturn(0);
    }
  if ((*index = TalusShapeDataFind(TALUS_HULL, n, vertex, 3)) >= 0) PetscFunctionReturn(0);
  PetscCall(TalusShapeDataAppend(TALUS_HULL, n, n, 3, &e));
  PetscCall(PetscArraycpy(e->given, vertex, 3 * n));
  PetscCall(HullOf(e, n, vertex, why, why_size));
  PetscCall(TalusShapeDataKeep(e, (PetscBool)!why[0], index)); /* refused: not kept */
  PetscFunctionReturn(0);
}

/* the part's 11 numbers as a checkpoint and the comparison of entries keep them */
static void PartNumbers(const TalusShapePart *p, PetscReal x[TALUS_SHAPE_PART_NUMBERS])
{
  x[0] = (PetscReal)TalusShapeTable[p->shape].code;
  for (int k = 0; k < 3; k++) x[1 + k] = p->size[k], x[4 + k] = p->position[k];
  for (int k = 0; k < 4; k++) x[7 + k] = p->quaternion[k];
}

/* Why part i cannot be a compound's (NULL: it can) */
static PetscErrorCode CheckPart(PetscInt i, const TalusShapePart *p, char why[], size_t why_size)
{
  const TalusShapeOps *ops = &TalusShapeTable[p->shape];
  const char          *invalid;
  PetscReal            m, J[3];

  PetscFunctionBegin;
  if (p->shape == TALUS_HULL || p->shape == TALUS_COMPOUND || !ops->finite)
    PetscCall(PetscSNPrintf(why, why_size,
                            "part %" PetscInt_FMT " is a %s: a part is a sphere, box, cylinder or capsule", i,
                            ops->name));
  else if ((invalid = ops->check_size(p->size)))
    PetscCall(PetscSNPrintf(why, why_size, "part %" PetscInt_FMT " (a %s) has no volume: %s", i, ops->name, invalid));
  else if (ops->mass_properties(p->size, 1.0, &m, J), !(m > 0.0))
    PetscCall(PetscSNPrintf(why, why_size, "part %" PetscInt_FMT " (a %s) has no volume", i, ops->name));
  else if (!(TalusNorm3(&p->quaternion[0]) + PetscAbsReal(p->quaternion[3]) > 0.0))
    PetscCall(PetscSNPrintf(why, why_size, "part %" PetscInt_FMT "'s rotation is zero", i));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusShapeDataAddCompound(PetscInt n, const TalusShapePart part[], PetscInt *index, char why[],
                                         size_t why_size)
{
  TalusShapeData *e;
  PetscReal      *given, first[3] = {0, 0, 0}, S[9] = {0};

  PetscFunctionBegin;
  why[0] = 0;
  *index = -1;
  if (n < 1 || n > TALUS_MAX_COMPOUND_PARTS) {
    PetscCall(
      PetscSNPrintf(why, why_size, "a compound needs 1 to %d parts, got %" PetscInt_FMT, TALUS_MAX_COMPOUND_PARTS, n));
    PetscFunctionReturn(0);
  }
  for (PetscInt i = 0; i < n && !why[0]; i++) PetscCall(CheckPart(i, &part[i], why, why_size));
  if (why[0]) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(TALUS_SHAPE_PART_NUMBERS * n, &given));
  for (PetscInt i = 0; i < n; i++) PartNumbers(&part[i], &given[TALUS_SHAPE_PART_NUMBERS * i]);
  if ((*index = TalusShapeDataFind(TALUS_COMPOUND, n, given, TALUS_SHAPE_PART_NUMBERS)) >= 0) {
    PetscCall(PetscFree(given));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusShapeDataAppend(TALUS_COMPOUND, n, n, TALUS_SHAPE_PART_NUMBERS, &e));
  PetscCall(PetscArraycpy(e->given, given, TALUS_SHAPE_PART_NUMBERS * n));
  PetscCall(PetscFree(given));
  /* each part's second moments about the given origin: its own, turned into the given frame (S_p = tr(J)/2 I - J
     in its axes), plus V p p^T */
  for (PetscInt i = 0; i < n; i++) {
    const TalusShapePart *p = &part[i];
    PetscReal             V, J[3], q[4], A[9], half;
    TalusShapeTable[p->shape].mass_properties(p->size, 1.0, &V, J);
    for (int k = 0; k < 4; k++) q[k] = p->quaternion[k];
    TalusQuatNormalize(q);
    TalusQuatToMatrix(q, A);
    half = 0.5 * (J[0] + J[1] + J[2]);
    e->volume += V;
    for (int r = 0; r < 3; r++) {
      first[r] += V * p->position[r];
      for (int c = 0; c < 3; c++) {
        PetscReal s = V * p->position[r] * p->position[c];
        for (int k = 0; k < 3; k++) s += A[3 * r + k] * (half - J[k]) * A[3 * c + k];
        S[3 * r + c] += s;
      }
    }
  }
  { /* the union's: what the parts share counted once */
    PetscReal shared, shared_first[3], shared_S[9];
    PetscCall(TalusCompoundOverlap(n, part, &shared, shared_first, shared_S));
    e->volume -= shared;
    for (int k = 0; k < 3; k++) first[k] -= shared_first[k];
    for (int k = 0; k < 9; k++) S[k] -= shared_S[k];
  }
  PetscCall(FinishMassProperties(e, first, S));
  for (PetscInt i = 0; i < n; i++) {
    TalusShapePart *p          = &e->part[i];
    PetscReal       inverse[4] = {e->rotation[0], -e->rotation[1], -e->rotation[2], -e->rotation[3]}, q[4], reach;
    *p                         = part[i];
    ToPrincipal(e, part[i].position, p->position);
    for (int k = 0; k < 4; k++) q[k] = part[i].quaternion[k];
    TalusQuatNormalize(q);
    TalusQuatMultiply(inverse, q, p->quaternion);
    reach     = TalusShapeTable[p->shape].bounding_radius(p->size);
    e->radius = PetscMax(e->radius, TalusNorm3(p->position) + reach);
    for (int k = 0; k < 3; k++) e->extent[k] = PetscMax(e->extent[k], 2.0 * (PetscAbsReal(p->position[k]) + reach));
  }
  PetscCall(TalusShapeDataKeep(e, PETSC_TRUE, index));
  PetscFunctionReturn(0);
}
