/*
 * Contacts of two convex bodies that have no closed form (box-box, box-cylinder, cylinder-cylinder), from each
 * shape's support function and support set (include/talus/bodies.h):
 *   1. whether the two shapes, each grown by half the envelope, overlap (then their gap is below the envelope: a
 *      ball's Minkowski sum moves every distance by its radius) and a normal near the contact's, by MPR (libccd);
 *      then the normal where the gap along it, n . (b(-n) - a(n)), is largest, climbing from MPR's;
 *   2. where both bodies meet the normal with a flat feature (a face, an edge, a cap's rim; the support set
 *      within the envelope), the points where the two features overlap, seen along the normal, each with its
 *      own gap: a box on a box touches at up to 8 points and does not rock. Otherwise EPA's one point.
 * Each hit's feature is its place in the pair's list: a warm start finds it again while the overlap keeps its
 * shape, and starts cold when it changes.
 */
#include "collide_impl.h"
#include <ccd/ccd.h>
#include <talus/math3.h>

/* A body as libccd sees it: its pose and how far it is grown */
typedef struct {
  const TalusBodies *b;
  PetscInt           k;
  PetscReal          A[9], margin;
} Solid;

/* Body s's furthest point along the unit d (world), not grown */
static void Furthest(const Solid *s, const PetscReal d[3], PetscReal p[3])
{
  PetscReal dl[3], pl[3];

  TalusRotateBack(s->A, d, dl);
  TalusShapeTable[s->b->shape[s->k]].support(&s->b->size[3 * s->k], dl, pl);
  TalusRotate(s->A, pl, p);
  for (int k = 0; k < 3; k++) p[k] += s->b->position[3 * s->k + k];
}

/* libccd's support: the furthest point of the body grown by its margin */
static void Support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec)
{
  const Solid    *s     = (const Solid *)obj;
  const PetscReal dw[3] = {dir->v[0], dir->v[1], dir->v[2]}, length = TalusNorm3(dw);
  PetscReal       unit[3] = {0, 0, 1}, p[3];

  if (length > 0.0)
    for (int d = 0; d < 3; d++) unit[d] = dw[d] / length;
  Furthest(s, unit, p);
  for (int d = 0; d < 3; d++) vec->v[d] = p[d] + s->margin * unit[d];
}

static void Center(const void *obj, ccd_vec3_t *c)
{
  const Solid *s = (const Solid *)obj;

  for (int d = 0; d < 3; d++) c->v[d] = s->b->position[3 * s->k + d];
}

/* A body's flat feature seen along n: its points' coordinates across n (along u, w) and heights along n, the
   3D points, and for a face (3 or more points) its height as a plane over (u, w): h = h0 + slope . (x - x0) */
typedef struct {
  PetscInt  n;
  PetscReal x[TALUS_MAX_SUPPORT_POINTS][2], h[TALUS_MAX_SUPPORT_POINTS], p[TALUS_MAX_SUPPORT_POINTS][3];
  PetscReal slope[2];
} Feature;

static PetscReal Cross2(const PetscReal a[2], const PetscReal b[2], const PetscReal c[2])
{
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* body s's support set along direction d (world, unit), within tol */
static void SupportSet(const Solid *s, const PetscReal d[3], PetscReal tol, Feature *f)
{
  PetscReal dl[3], local[TALUS_MAX_SUPPORT_POINTS][3];
  PetscInt  id[TALUS_MAX_SUPPORT_POINTS];

  TalusRotateBack(s->A, d, dl);
  f->n = TalusShapeTable[s->b->shape[s->k]].support_set(&s->b->size[3 * s->k], dl, tol, local, id);
  for (PetscInt i = 0; i < f->n; i++) {
    TalusRotate(s->A, local[i], f->p[i]);
    for (int k = 0; k < 3; k++) f->p[i][k] += s->b->position[3 * s->k + k];
  }
}

/* the feature's coordinates in the frame (n, u, w), counter-clockwise about n, and a face's plane */
static void Project(Feature *f, const PetscReal n[3], const PetscReal u[3], const PetscReal w[3])
{
  PetscReal area = 0.0;

  for (PetscInt i = 0; i < f->n; i++) {
    f->x[i][0] = TalusDot3(f->p[i], u), f->x[i][1] = TalusDot3(f->p[i], w), f->h[i] = TalusDot3(f->p[i], n);
  }
  for (PetscInt i = 2; i < f->n; i++) area += Cross2(f->x[0], f->x[i - 1], f->x[i]);
  if (area < 0.0) /* seen from the other side: reverse the order */
    for (PetscInt i = 0, j = f->n - 1; i < j; i++, j--) {
      PetscReal t;
      for (int k = 0; k < 2; k++) t = f->x[i][k], f->x[i][k] = f->x[j][k], f->x[j][k] = t;
      t = f->h[i], f->h[i] = f->h[j], f->h[j] = t;
      for (int k = 0; k < 3; k++) t = f->p[i][k], f->p[i][k] = f->p[j][k], f->p[j][k] = t;
    }
  if (f->n >= 3) { /* the plane through the point 0 and the two that span the largest triangle with it */
    PetscInt  bi = 1, bj = 2;
    PetscReal best = 0.0, det, a[2], c[2];
    for (PetscInt i = 1; i < f->n; i++)
      for (PetscInt j = i + 1; j < f->n; j++)
        if (PetscAbsReal(Cross2(f->x[0], f->x[i], f->x[j])) > best)
          best = PetscAbsReal(Cross2(f->x[0], f->x[i], f->x[j])), bi = i, bj = j;
    for (int k = 0; k < 2; k++) a[k] = f->x[bi][k] - f->x[0][k], c[k] = f->x[bj][k] - f->x[0][k];
    det         = a[0] * c[1] - a[1] * c[0];
    f->slope[0] = det != 0.0 ? ((f->h[bi] - f->h[0]) * c[1] - (f->h[bj] - f->h[0]) * a[1]) / det : 0.0;
    f->slope[1] = det != 0.0 ? ((f->h[bj] - f->h[0]) * a[0] - (f->h[bi] - f->h[0]) * c[0]) / det : 0.0;
  }
}

/* The feature's point (3D) seen at y along n: its one point; a segment's point nearest y; a face's point over y,
   or over the nearest point of its boundary when y is outside it */
static void PointAt(const Feature *f, const PetscReal n[3], const PetscReal u[3], const PetscReal w[3],
                    const PetscReal y[2], PetscReal p[3])
{
  PetscReal at[2] = {y[0], y[1]}, h;

  if (f->n == 1) {
    for (int k = 0; k < 3; k++) p[k] = f->p[0][k];
    return;
  }
  if (f->n == 2) {
    const PetscReal e[2] = {f->x[1][0] - f->x[0][0], f->x[1][1] - f->x[0][1]}, ee = e[0] * e[0] + e[1] * e[1];
    PetscReal       t = ee > 0.0 ? ((y[0] - f->x[0][0]) * e[0] + (y[1] - f->x[0][1]) * e[1]) / ee : 0.0;
    t                 = PetscMin(PetscMax(t, 0.0), 1.0);
    for (int k = 0; k < 3; k++) p[k] = f->p[0][k] + t * (f->p[1][k] - f->p[0][k]);
    return;
  }
  for (PetscInt e = 0; e < f->n; e++) { /* outside an edge: the nearest point of the boundary */
    const PetscReal *v0 = f->x[e], *v1 = f->x[(e + 1) % f->n];
    if (Cross2(v0, v1, y) < 0.0) {
      PetscReal best = PETSC_INFINITY;
      for (PetscInt g = 0; g < f->n; g++) {
        const PetscReal *a = f->x[g], *c = f->x[(g + 1) % f->n], d[2] = {c[0] - a[0], c[1] - a[1]};
        const PetscReal  dd = d[0] * d[0] + d[1] * d[1];
        const PetscReal  t = dd > 0.0 ? PetscMin(PetscMax(((y[0] - a[0]) * d[0] + (y[1] - a[1]) * d[1]) / dd, 0.0), 1.0)
                                      : 0.0;
        const PetscReal q[2] = {a[0] + t * d[0], a[1] + t * d[1]}, dist = PetscSqr(q[0] - y[0]) + PetscSqr(q[1] - y[1]);
        if (dist < best) best = dist, at[0] = q[0], at[1] = q[1];
      }
      break;
    }
  }
  h = f->h[0] + f->slope[0] * (at[0] - f->x[0][0]) + f->slope[1] * (at[1] - f->x[0][1]);
  for (int k = 0; k < 3; k++) p[k] = at[0] * u[k] + at[1] * w[k] + h * n[k];
}

#define MAX_CLIP (2 * TALUS_MAX_SUPPORT_POINTS + 2)

/* Sutherland-Hodgman: the polygon in[] (counter-clockwise) clipped by the convex polygon a (counter-clockwise) */
static PetscInt ClipPolygon(const Feature *a, PetscReal in[][2], PetscInt n, PetscReal out[][2])
{
  PetscReal buf[MAX_CLIP][2];

  for (PetscInt e = 0; e < a->n && n > 0; e++) {
    const PetscReal *v0 = a->x[e], *v1 = a->x[(e + 1) % a->n];
    PetscInt         m = 0;
    for (PetscInt i = 0; i < n; i++) buf[i][0] = in[i][0], buf[i][1] = in[i][1];
    for (PetscInt i = 0; i < n && m < MAX_CLIP - 1; i++) {
      const PetscReal *p = buf[i], *q = buf[(i + 1) % n];
      const PetscReal  fp = Cross2(v0, v1, p), fq = Cross2(v0, v1, q);
      if (fp >= 0.0) out[m][0] = p[0], out[m][1] = p[1], m++;
      if ((fp >= 0.0) != (fq >= 0.0)) {
        const PetscReal t = fp / (fp - fq);
        out[m][0] = p[0] + t * (q[0] - p[0]), out[m][1] = p[1] + t * (q[1] - p[1]), m++;
      }
    }
    for (PetscInt i = 0; i < m; i++) in[i][0] = out[i][0], in[i][1] = out[i][1];
    n = m;
  }
  return n;
}

/* the segment s (2 points) within the convex polygon a (counter-clockwise): its ends, or none */
static PetscInt ClipSegment(const Feature *a, const PetscReal s[2][2], PetscReal out[][2])
{
  PetscReal lo = 0.0, hi = 1.0;

  for (PetscInt e = 0; e < a->n; e++) {
    const PetscReal *v0 = a->x[e], *v1 = a->x[(e + 1) % a->n];
    const PetscReal  f0 = Cross2(v0, v1, s[0]), f1 = Cross2(v0, v1, s[1]);
    if (f0 < 0.0 && f1 < 0.0) return 0;
    if (f0 < 0.0) lo = PetscMax(lo, f0 / (f0 - f1));
    else if (f1 < 0.0) hi = PetscMin(hi, f0 / (f0 - f1));
  }
  if (lo > hi) return 0;
  for (int k = 0; k < 2; k++)
    out[0][k] = s[0][k] + lo * (s[1][k] - s[0][k]), out[1][k] = s[0][k] + hi * (s[1][k] - s[0][k]);
  return hi > lo ? 2 : 1;
}

/* two parallel segments' overlap along a's line, or none (-1 if they are not parallel) */
static PetscInt OverlapSegments(const Feature *a, const Feature *b, PetscReal out[][2])
{
  const PetscReal e[2] = {a->x[1][0] - a->x[0][0], a->x[1][1] - a->x[0][1]}, ee = e[0] * e[0] + e[1] * e[1];
  const PetscReal g[2] = {b->x[1][0] - b->x[0][0], b->x[1][1] - b->x[0][1]};
  PetscReal       s0, s1, lo, hi;

  if (!(ee > 0.0) || PetscAbsReal(e[0] * g[1] - e[1] * g[0]) > 1e-6 * ee) return -1;
  s0 = ((b->x[0][0] - a->x[0][0]) * e[0] + (b->x[0][1] - a->x[0][1]) * e[1]) / ee;
  s1 = ((b->x[1][0] - a->x[0][0]) * e[0] + (b->x[1][1] - a->x[0][1]) * e[1]) / ee;
  lo = PetscMax(0.0, PetscMin(s0, s1)), hi = PetscMin(1.0, PetscMax(s0, s1));
  if (lo > hi) return 0;
  for (int k = 0; k < 2; k++) out[0][k] = a->x[0][k] + lo * e[k], out[1][k] = a->x[0][k] + hi * e[k];
  return hi > lo ? 2 : 1;
}

/* a face's unit normal (its points in order round it), turned to side with n, into n */
static void FaceNormal(const Feature *f, PetscReal n[3])
{
  PetscReal e1[3], e2[3], m[3], length, side;

  for (int k = 0; k < 3; k++) e1[k] = f->p[1][k] - f->p[0][k], e2[k] = f->p[f->n - 1][k] - f->p[0][k];
  TalusCross3(e1, e2, m);
  length = TalusNorm3(m);
  side   = TalusDot3(m, n) >= 0.0 ? 1.0 : -1.0;
  for (int k = 0; k < 3; k++) n[k] = side * m[k] / length;
}

/* the gap along the unit n, s(n) = n . (b(-n) - a(n)) with a(n), b(-n) the bodies' furthest points */
static PetscReal GapAlong(const Solid s[2], const PetscReal n[3], PetscReal a[3], PetscReal b[3])
{
  const PetscReal minus[3] = {-n[0], -n[1], -n[2]};

  Furthest(&s[0], n, a);
  Furthest(&s[1], minus, b);
  return TalusDot3(n, b) - TalusDot3(n, a);
}

/*
 * s(n) is largest at the contact normal, bodies apart or not, and b(-n) - a(n) is its gradient. EPA stops short
 * of it on round surfaces (a cylinder's side, or any grown edge: its polytope only approximates them), so n climbs
 * s from EPA's: steps of the gradient across n, from 1 / (the bodies' bounding radii, which bound s's curvature
 * where it is smooth), halved until s grows (at a box's corners s has kinks). On return a, b are the furthest
 * points at n and the value is s(n).
 */
static PetscReal ClimbGap(const Solid s[2], PetscReal n[3], PetscReal a[3], PetscReal b[3])
{
  const PetscReal step = 1.0 / (TalusBodiesBoundingRadius(s[0].b, s[0].k) + TalusBodiesBoundingRadius(s[1].b, s[1].k));
  PetscReal       gap  = GapAlong(s, n, a, b);

  for (PetscInt it = 0; it < 200; it++) {
    PetscReal g[3], along, t = step;
    PetscBool grew = PETSC_FALSE;
    for (int k = 0; k < 3; k++) g[k] = b[k] - a[k];
    along = TalusDot3(g, n);
    for (int k = 0; k < 3; k++) g[k] -= along * n[k]; /* across n */
    if (TalusNorm3(g) * step <= 1e-15) break;
    while (!grew && t > 1e-12 * step) {
      PetscReal m[3], ta[3], tb[3], length, tried;
      for (int k = 0; k < 3; k++) m[k] = n[k] + t * g[k];
      length = TalusNorm3(m);
      for (int k = 0; k < 3; k++) m[k] /= length;
      tried = GapAlong(s, m, ta, tb);
      if (tried > gap) {
        gap = tried, grew = PETSC_TRUE;
        for (int k = 0; k < 3; k++) n[k] = m[k], a[k] = ta[k], b[k] = tb[k];
      } else t *= 0.5;
    }
    if (!grew) break;
  }
  return gap;
}

/* A point of the Minkowski difference B - A, and the bodies' points it is made of */
typedef struct {
  PetscReal w[3], a[3], b[3];
} Vertex;

/* the difference's furthest point along d: B's furthest along d less A's furthest against it */
static void SupportDifference(const Solid s[2], const PetscReal d[3], Vertex *v)
{
  const PetscReal length = TalusNorm3(d), unit[3] = {d[0] / length, d[1] / length, d[2] / length};
  const PetscReal minus[3] = {-unit[0], -unit[1], -unit[2]};

  Furthest(&s[1], unit, v->b);
  Furthest(&s[0], minus, v->a);
  for (int k = 0; k < 3; k++) v->w[k] = v->b[k] - v->a[k];
}

/* The point of the triangle (a, b, c) nearest the origin (Ericson, Real-Time Collision Detection 5.1.5): the
   vertices it lies on, kept in x (their number returned) with its weights lambda */
static PetscInt NearestOnTriangle(const Vertex *A, const Vertex *B, const Vertex *C, Vertex x[3], PetscReal lambda[3])
{
  const PetscReal *a = A->w, *b = B->w, *c = C->w;
  PetscReal        ab[3], ac[3], d1, d2, d3, d4, d5, d6, va, vb, vc, denom;

  for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k];
  d1 = -TalusDot3(ab, a), d2 = -TalusDot3(ac, a);
  if (d1 <= 0.0 && d2 <= 0.0) return x[0] = *A, lambda[0] = 1.0, 1;
  d3 = -TalusDot3(ab, b), d4 = -TalusDot3(ac, b);
  if (d3 >= 0.0 && d4 <= d3) return x[0] = *B, lambda[0] = 1.0, 1;
  vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
    return x[0] = *A, x[1] = *B, lambda[1] = d1 / (d1 - d3), lambda[0] = 1.0 - lambda[1], 2;
  d5 = -TalusDot3(ab, c), d6 = -TalusDot3(ac, c);
  if (d6 >= 0.0 && d5 <= d6) return x[0] = *C, lambda[0] = 1.0, 1;
  vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
    return x[0] = *A, x[1] = *C, lambda[1] = d2 / (d2 - d6), lambda[0] = 1.0 - lambda[1], 2;
  va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
    return x[0] = *B, x[1] = *C, lambda[1] = (d4 - d3) / ((d4 - d3) + (d5 - d6)), lambda[0] = 1.0 - lambda[1], 2;
  denom = 1.0 / (va + vb + vc);
  x[0] = *A, x[1] = *B, x[2] = *C, lambda[1] = vb * denom, lambda[2] = vc * denom,
  lambda[0] = 1.0 - lambda[1] - lambda[2];
  return 3;
}

/* The simplex's point nearest the origin: the simplex cut to the vertices it lies on, their weights; -1 when a
   tetrahedron holds the origin */
static PetscInt NearestOnSimplex(Vertex x[4], PetscInt m, PetscReal lambda[4])
{
  if (m == 1) return lambda[0] = 1.0, 1;
  if (m == 2) {
    PetscReal e[3], t;
    for (int k = 0; k < 3; k++) e[k] = x[1].w[k] - x[0].w[k];
    t = -TalusDot3(x[0].w, e) / TalusDot3(e, e);
    if (t <= 0.0) return lambda[0] = 1.0, 1;
    if (t >= 1.0) return x[0] = x[1], lambda[0] = 1.0, 1;
    return lambda[0] = 1.0 - t, lambda[1] = t, 2;
  }
  if (m == 3) {
    Vertex v[3] = {x[0], x[1], x[2]};
    return NearestOnTriangle(&v[0], &v[1], &v[2], x, lambda);
  }
  { /* a tetrahedron: the nearest of its faces that the origin is outside of */
    static const int face[4][4] = {
      {0, 1, 2, 3},
      {0, 1, 3, 2},
      {0, 2, 3, 1},
      {1, 2, 3, 0}
    };
    Vertex    v[4]   = {x[0], x[1], x[2], x[3]}, best[3];
    PetscReal best_d = PETSC_INFINITY, best_l[3] = {1, 0, 0};
    PetscInt  best_m = 0;
    for (int f = 0; f < 4; f++) {
      const PetscReal *a = v[face[f][0]].w, *b = v[face[f][1]].w, *c = v[face[f][2]].w, *d = v[face[f][3]].w;
      PetscReal        e1[3], e2[3], nrm[3], to_d[3], y[3] = {0, 0, 0}, l[3], dist;
      Vertex           t[3];
      PetscInt         k;
      for (int j = 0; j < 3; j++) e1[j] = b[j] - a[j], e2[j] = c[j] - a[j], to_d[j] = d[j] - a[j];
      TalusCross3(e1, e2, nrm);
      /* the origin strictly on d's side of this face (a flat tetrahedron, support points of one face, has none) */
      if ((-TalusDot3(nrm, a)) * TalusDot3(nrm, to_d) > 0.0 &&
          PetscAbsReal(TalusDot3(nrm, to_d)) > 1e-12 * TalusNorm3(nrm) * TalusNorm3(to_d))
        continue;
      k = NearestOnTriangle(&v[face[f][0]], &v[face[f][1]], &v[face[f][2]], t, l);
      for (PetscInt j = 0; j < k; j++)
        for (int q = 0; q < 3; q++) y[q] += l[j] * t[j].w[q];
      dist = TalusNorm3(y);
      if (dist < best_d) {
        best_d = dist, best_m = k;
        for (PetscInt j = 0; j < k; j++) best[j] = t[j], best_l[j] = l[j];
      }
    }
    if (!best_m) return -1;
    for (PetscInt j = 0; j < best_m; j++) x[j] = best[j], lambda[j] = best_l[j];
    return best_m;
  }
}

/*
 * GJK's distance between two bodies apart (Gilbert, Johnson and Keerthi 1988; libccd has none): the point of
 * B - A nearest the origin, from support points, to a relative 1e-12. On return the bodies' nearest points; false
 * when they overlap or touch (the origin in B - A, or within 1e-12 of their size of it).
 */
static PetscBool Distance(const Solid s[2], const PetscReal d0[3], PetscReal *dist, PetscReal a[3], PetscReal b[3])
{
  const PetscReal size = TalusBodiesBoundingRadius(s[0].b, s[0].k) + TalusBodiesBoundingRadius(s[1].b, s[1].k);
  Vertex          x[4], w;
  PetscReal       lambda[4] = {1, 0, 0, 0}, v[3];
  PetscInt        m         = 1;

  SupportDifference(s, d0, &x[0]);
  for (int k = 0; k < 3; k++) v[k] = x[0].w[k];
  for (PetscInt it = 0; it < 128; it++) {
    const PetscReal vv = TalusDot3(v, v), minus[3] = {-v[0], -v[1], -v[2]};
    PetscBool       again = PETSC_FALSE;
    if (vv <= PetscSqr(1e-12 * size)) return PETSC_FALSE;
    SupportDifference(s, minus, &w);
    if (vv - TalusDot3(v, w.w) <= 1e-12 * vv) break; /* no support point gets nearer: v is the nearest */
    for (PetscInt j = 0; j < m && !again; j++)       /* a vertex found again: v is the nearest too */
      again = (PetscBool)(PetscSqr(w.w[0] - x[j].w[0]) + PetscSqr(w.w[1] - x[j].w[1]) + PetscSqr(w.w[2] - x[j].w[2]) <=
                          1e-24 * vv);
    if (again) break;
    x[m++] = w;
    if ((m = NearestOnSimplex(x, m, lambda)) < 0) return PETSC_FALSE;
    for (int k = 0; k < 3; k++) {
      v[k] = 0.0;
      for (PetscInt j = 0; j < m; j++) v[k] += lambda[j] * x[j].w[k];
    }
  }
  for (int k = 0; k < 3; k++) {
    a[k] = b[k] = 0.0;
    for (PetscInt j = 0; j < m; j++) a[k] += lambda[j] * x[j].a[k], b[k] += lambda[j] * x[j].b[k];
  }
  *dist = TalusNorm3(v);
  return PETSC_TRUE;
}

/* Where two features meet that do not overlap as flat ones: a feature of one point, or where two edges cross seen
   along n, or (an overlap lost to rounding) the middle of the two features' centres */
static PetscInt OnePoint(const Feature f[2], PetscReal y[2])
{
  const Feature *one = f[1].n == 1 ? &f[1] : f[0].n == 1 ? &f[0] : NULL;

  if (one) y[0] = one->x[0][0], y[1] = one->x[0][1];
  else if (f[0].n == 2 && f[1].n == 2) {
    const PetscReal e[2] = {f[0].x[1][0] - f[0].x[0][0], f[0].x[1][1] - f[0].x[0][1]};
    const PetscReal g[2] = {f[1].x[1][0] - f[1].x[0][0], f[1].x[1][1] - f[1].x[0][1]};
    const PetscReal r[2] = {f[1].x[0][0] - f[0].x[0][0], f[1].x[0][1] - f[0].x[0][1]};
    const PetscReal det  = e[0] * g[1] - e[1] * g[0];
    const PetscReal t    = det != 0.0 ? PetscMin(PetscMax((r[0] * g[1] - r[1] * g[0]) / det, 0.0), 1.0) : 0.5;
    y[0] = f[0].x[0][0] + t * e[0], y[1] = f[0].x[0][1] + t * e[1];
  } else {
    y[0] = y[1] = 0.0;
    for (int i = 0; i < 2; i++)
      for (PetscInt j = 0; j < f[i].n; j++)
        for (int k = 0; k < 2; k++) y[k] += 0.5 * f[i].x[j][k] / f[i].n;
  }
  return 1;
}

void TalusConvexHits(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope, TalusHit hits[],
                     PetscInt *nhits)
{
  Solid s[2] = {
    {.b = b, .k = first,  .margin = 0.5 * envelope},
    {.b = b, .k = second, .margin = 0.5 * envelope}
  };
  ccd_t      ccd;
  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  Feature    f[2];
  PetscReal  n[3], minus[3], u[3], w[3], y[MAX_CLIP][2], scratch[MAX_CLIP][2], phi;
  PetscInt   ny = 0;

  *nhits = 0;
  for (int i = 0; i < 2; i++) TalusQuatToMatrix(&b->quaternion[4 * s[i].k], s[i].A);
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = Support;
  ccd.center1 = ccd.center2 = Center;
  ccd.max_iterations        = 500;
  ccd.mpr_tolerance         = 1e-6 * (TalusBodiesBoundingRadius(b, first) + TalusBodiesBoundingRadius(b, second));
  /* MPR (robust where the grown bodies just touch or their features are square to each other) finds whether
     they overlap and a normal near the contact's; the climb makes it the contact's */
  if (ccdMPRPenetration(&s[0], &s[1], &ccd, &depth, &dir, &pos) != 0) return; /* apart beyond the envelope */
  for (int k = 0; k < 3; k++) n[k] = dir.v[k];
  {
    PetscReal a[3], b[3];
    if (Distance(s, n, &phi, a, b)) /* apart: GJK's distance and the direction of its nearest points */
      for (int k = 0; k < 3; k++) n[k] = (b[k] - a[k]) / phi;
    else phi = ClimbGap(s, n, a, b); /* overlapping: the climb from MPR's normal */
  }
  if (phi > envelope) return;
  for (int k = 0; k < 3; k++) minus[k] = -n[k];
  /* the flat features that meet: each body's support set within the envelope (and the gap) of its furthest */
  SupportSet(&s[0], n, envelope + PetscMax(phi, 0.0), &f[0]);
  SupportSet(&s[1], minus, envelope + PetscMax(phi, 0.0), &f[1]);
  if (f[0].n >= 3 || f[1].n >= 3) FaceNormal(f[0].n >= 3 ? &f[0] : &f[1], n); /* a face's own, exactly */
  TalusCompleteFrame(n, u, w);
  for (int i = 0; i < 2; i++) Project(&f[i], n, u, w);
  if (f[0].n >= 3 && f[1].n >= 3) {
    for (PetscInt i = 0; i < f[1].n; i++) y[i][0] = f[1].x[i][0], y[i][1] = f[1].x[i][1];
    ny = ClipPolygon(&f[0], y, f[1].n, scratch);
  } else if (f[0].n >= 3 && f[1].n == 2) ny = ClipSegment(&f[0], (const PetscReal(*)[2])f[1].x, y);
  else if (f[1].n >= 3 && f[0].n == 2) ny = ClipSegment(&f[1], (const PetscReal(*)[2])f[0].x, y);
  else if (f[0].n == 2 && f[1].n == 2) ny = PetscMax(OverlapSegments(&f[0], &f[1], y), 0);
  if (ny == 0) ny = OnePoint(f, y[0]);
  for (PetscInt i = 0; i < ny && *nhits < TALUS_MAX_CONVEX_HITS; i++) {
    TalusHit *hit = &hits[*nhits];
    PointAt(&f[0], n, u, w, y[i], hit->p_first);
    PointAt(&f[1], n, u, w, y[i], hit->p_second);
    hit->phi = TalusDot3(n, hit->p_second) - TalusDot3(n, hit->p_first);
    if (hit->phi > envelope) continue;
    for (int k = 0; k < 3; k++) hit->n[k] = n[k];
    hit->feature = (*nhits)++;
  }
}
