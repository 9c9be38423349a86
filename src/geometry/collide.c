/*
 * Narrow phase in closed form: contact points, gaps and frames for sphere-sphere, sphere-plane,
 * sphere-box, box-plane (the box corners within the envelope, or an elastic foundation's grid of
 * points on the box's face nearest the plane: seed 004 sec. 5.5), cylinder-plane (its rims' lowest
 * points and samples around them), cylinder-sphere, and the capsule's with planes, spheres and
 * capsules (balls on its segment); convex.c makes the rest (box-box, and boxes, cylinders and
 * capsules with each other). Each routine works in its own natural order (first, second) with n
 * pointing from first to second; the pair table says which routine a pair of shapes takes and in
 * which order. Each pair routine then orders its contacts by global id as seed 000 requires (n from
 * the lower index to the higher), flipping n if needed.
 */
#include "collide_impl.h"
#include "../grow.h"
#include <talus/math3.h>
#include <talus/relaxation.h>
#include <math.h>

typedef TalusHit Hit;

/* Points sampled on each rim of a cylinder against a plane (a cap resting on it), besides each rim's lowest */
#define CYLINDER_RIM_SAMPLES 8
/* The most contact points one pair routine gives (a cylinder's rims on a plane, a box's corners; a
   foundation gives a grid's row at a time). */
#define MAX_HITS PetscMax(2 * (1 + CYLINDER_RIM_SAMPLES), TALUS_MAX_FOUNDATION_GRID)

/* The hit of two balls (centres p and q, radii r and R), n from the first to the second */
static void BallBall(const PetscReal p[3], PetscReal r, const PetscReal q[3], PetscReal R, PetscInt feature, Hit *hit)
{
  PetscReal d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, dist = TalusNorm3(d);

  if (dist == 0.0) d[2] = dist = 1.0; /* coincident centres: any direction is as good */
  hit->phi = dist - r - R;
  for (int k = 0; k < 3; k++) {
    hit->n[k]        = d[k] / dist;
    hit->p_first[k]  = p[k] + r * hit->n[k];
    hit->p_second[k] = q[k] - R * hit->n[k];
  }
  hit->feature = feature;
}

/* The hit of plane (unit normal m through p0) and a ball (centre c, radius r): n is the plane's outward normal */
static void PlaneBall(const PetscReal m[3], const PetscReal p0[3], const PetscReal c[3], PetscReal r, PetscInt feature,
                      Hit *hit)
{
  const PetscReal height = m[0] * (c[0] - p0[0]) + m[1] * (c[1] - p0[1]) + m[2] * (c[2] - p0[2]);

  hit->phi = height - r;
  for (int k = 0; k < 3; k++) {
    hit->n[k]        = m[k];
    hit->p_first[k]  = c[k] - height * m[k];
    hit->p_second[k] = c[k] - r * m[k];
  }
  hit->feature = feature;
}

static void SphereSphere(const TalusBodies *b, PetscInt i, PetscInt j, PetscReal envelope, Hit *hit, PetscInt *nhits)
{
  BallBall(&b->position[3 * i], b->size[3 * i], &b->position[3 * j], b->size[3 * j], 0, hit);
  *nhits = 1;
}

/* first = plane, second = sphere */
static void PlaneSphere(const TalusBodies *b, PetscInt p, PetscInt s, PetscReal envelope, Hit *hit, PetscInt *nhits)
{
  PlaneBall(&b->size[3 * p], &b->position[3 * p], &b->position[3 * s], b->size[3 * s], 0, hit);
  *nhits = 1;
}

/* A hit where body x's point `local` (its frame; A its rotation) is within the envelope of plane p: the
   gap is the point's height above the plane */
static void PlanePoint(const TalusBodies *b, PetscInt p, PetscInt x, const PetscReal A[9], const PetscReal local[3],
                       PetscReal envelope, PetscInt feature, Hit *hits, PetscInt *nhits)
{
  const PetscReal *m = &b->size[3 * p], *p0 = &b->position[3 * p];
  PetscReal        c[3], height;
  Hit             *hit;

  TalusRotate(A, local, c);
  for (int k = 0; k < 3; k++) c[k] += b->position[3 * x + k];
  height = m[0] * (c[0] - p0[0]) + m[1] * (c[1] - p0[1]) + m[2] * (c[2] - p0[2]);
  if (height > envelope) return;
  hit      = &hits[(*nhits)++];
  hit->phi = height;
  for (int k = 0; k < 3; k++) {
    hit->n[k]        = m[k];
    hit->p_first[k]  = c[k] - height * m[k];
    hit->p_second[k] = c[k];
  }
  hit->feature = feature;
}

/* first = plane, second = box: one contact per corner (feature = corner index) */
static void PlaneBox(const TalusBodies *b, PetscInt p, PetscInt x, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  const PetscReal *h = &b->size[3 * x];
  PetscReal        A[9];

  TalusQuatToMatrix(&b->quaternion[4 * x], A);
  *nhits = 0;
  for (PetscInt corner = 0; corner < 8; corner++) {
    const PetscReal local[3] = {(corner & 1) ? h[0] : -h[0], (corner & 2) ? h[1] : -h[1], (corner & 4) ? h[2] : -h[2]};
    PlanePoint(b, p, x, A, local, envelope, corner, hits, nhits);
  }
}

/* first = plane, second = a convex shape of flat faces (a hull): its corners within the envelope, which its
   support set against the plane's normal holds (a face resting on the plane: its corners in order), in order of
   their numbers (the feature) as the warm start needs */
static void PlaneHull(const TalusBodies *b, PetscInt p, PetscInt x, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  const TalusShapeOps *ops = &TalusShapeTable[b->shape[x]];
  const PetscReal     *m = &b->size[3 * p], *p0 = &b->position[3 * p], *size = &b->size[3 * x];
  PetscReal            A[9], down[3], mw[3] = {-m[0], -m[1], -m[2]}, lowest[3], c[3], height;
  PetscReal            corner[TALUS_MAX_SUPPORT_POINTS][3];
  PetscInt             id[TALUS_MAX_SUPPORT_POINTS], n, order[TALUS_MAX_SUPPORT_POINTS];

  TalusQuatToMatrix(&b->quaternion[4 * x], A);
  TalusRotateBack(A, mw, down);
  ops->support(size, down, lowest);
  TalusRotate(A, lowest, c);
  for (int k = 0; k < 3; k++) c[k] += b->position[3 * x + k];
  height = m[0] * (c[0] - p0[0]) + m[1] * (c[1] - p0[1]) + m[2] * (c[2] - p0[2]);
  *nhits = 0;
  if (height > envelope) return;
  n = ops->support_set(size, down, envelope - height, corner, id);
  for (PetscInt i = 0; i < n; i++) order[i] = i;
  for (PetscInt i = 1; i < n; i++)
    for (PetscInt j = i; j > 0 && id[order[j]] < id[order[j - 1]]; j--) {
      const PetscInt t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (PetscInt i = 0; i < n; i++) PlanePoint(b, p, x, A, corner[order[i]], envelope, id[order[i]], hits, nhits);
}

/* The face of box x nearest plane p, for a foundation's grid: its rotation, the axis of its normal
   and the normal's sign along it (the face whose outward normal is most against the plane's) */
typedef struct {
  PetscReal A[9], side;
  PetscInt  axis;
} BoxFace;

static void FaceNearestPlane(const TalusBodies *b, PetscInt p, PetscInt x, BoxFace *f)
{
  const PetscReal *m    = &b->size[3 * p];
  PetscReal        best = -1.0;

  TalusQuatToMatrix(&b->quaternion[4 * x], f->A);
  f->axis = 0, f->side = 1.0;
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal along = f->A[k] * m[0] + f->A[3 + k] * m[1] + f->A[6 + k] * m[2];
    if (PetscAbsReal(along) > best) best = PetscAbsReal(along), f->axis = k, f->side = along > 0.0 ? -1.0 : 1.0;
  }
}

/* first = plane, second = box of a foundation (seed 004 sec. 5.5): grid x grid points at the centres
   of the cells of the face f (feature TALUS_FOUNDATION_FEATURE + cell), one row of the grid, row, at
   a time */
static void PlaneBoxFoundationRow(const TalusBodies *b, PetscInt p, PetscInt x, const BoxFace *f, PetscInt grid,
                                  PetscInt row, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  const PetscReal *h = &b->size[3 * x];
  const PetscInt   u = (f->axis + 1) % 3, v = (f->axis + 2) % 3;

  *nhits = 0;
  for (PetscInt col = 0; col < grid; col++) {
    PetscReal local[3];
    local[f->axis] = f->side * h[f->axis];
    local[u]       = h[u] * (2.0 * row + 1.0 - grid) / grid;
    local[v]       = h[v] * (2.0 * col + 1.0 - grid) / grid;
    PlanePoint(b, p, x, f->A, local, envelope, TALUS_FOUNDATION_FEATURE + row * grid + col, hits, nhits);
  }
}

/* first = box, second = sphere: closest point of the box to the centre, or the nearest face from inside */
static void BoxSphere(const TalusBodies *b, PetscInt x, PetscInt s, PetscReal envelope, Hit *hit, PetscInt *nhits)
{
  const PetscReal *h = &b->size[3 * x], *c = &b->position[3 * s];
  const PetscReal  r = b->size[3 * s];
  PetscReal        A[9], rel[3], cl[3], q[3], nl[3] = {0, 0, 0}, dist2 = 0.0;

  TalusQuatToMatrix(&b->quaternion[4 * x], A);
  for (int k = 0; k < 3; k++) rel[k] = c[k] - b->position[3 * x + k];
  TalusRotateBack(A, rel, cl);
  for (int k = 0; k < 3; k++) {
    q[k] = PetscMin(PetscMax(cl[k], -h[k]), h[k]);
    dist2 += (cl[k] - q[k]) * (cl[k] - q[k]);
  }
  if (dist2 > 0.0) {
    const PetscReal dist = PetscSqrtReal(dist2);
    for (int k = 0; k < 3; k++) nl[k] = (cl[k] - q[k]) / dist;
    hit->phi = dist - r;
  } else { /* centre inside the box: push out through the face of least penetration */
    PetscInt  axis  = 0;
    PetscReal depth = PETSC_INFINITY;
    for (int k = 0; k < 3; k++)
      if (h[k] - PetscAbsReal(cl[k]) < depth) depth = h[k] - PetscAbsReal(cl[k]), axis = k;
    nl[axis] = cl[axis] >= 0.0 ? 1.0 : -1.0;
    q[axis]  = nl[axis] * h[axis];
    hit->phi = -depth - r;
  }
  TalusRotate(A, nl, hit->n);
  TalusRotate(A, q, hit->p_first);
  for (int k = 0; k < 3; k++) {
    hit->p_first[k] += b->position[3 * x + k];
    hit->p_second[k] = c[k] - r * hit->n[k];
  }
  hit->feature = 0;
  *nhits       = 1;
}

/* first = plane, second = cylinder: per rim (cap side = -1, +1), its lowest point towards the plane (feature
   9 * cap + CYLINDER_RIM_SAMPLES; none when the cap is parallel to the plane) and CYLINDER_RIM_SAMPLES points
   evenly around it in the body's frame (features 9 * cap + k), each within the envelope: a cylinder on its side
   touches along a line (the two lowest points), one standing on a cap along its rim (the samples) */
static void PlaneCylinder(const TalusBodies *b, PetscInt p, PetscInt c, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  const PetscReal *m = &b->size[3 * p], r = b->size[3 * c], L = b->size[3 * c + 1];
  PetscReal        A[9], m_body[3], down[2], across;

  TalusQuatToMatrix(&b->quaternion[4 * c], A);
  TalusRotateBack(A, m, m_body); /* the plane's normal in the cylinder's frame */
  across = PetscSqrtReal(m_body[0] * m_body[0] + m_body[1] * m_body[1]);
  *nhits = 0;
  for (PetscInt cap = 0; cap < 2; cap++) {
    const PetscReal z = cap ? L : -L;
    for (PetscInt k = 0; k < CYLINDER_RIM_SAMPLES; k++) {
      const PetscReal angle    = 2.0 * PETSC_PI * k / CYLINDER_RIM_SAMPLES;
      const PetscReal local[3] = {r * PetscCosReal(angle), r * PetscSinReal(angle), z};
      PlanePoint(b, p, c, A, local, envelope, 9 * cap + k, hits, nhits);
    }
    if (across > 1e-12 * PetscAbsReal(m_body[2])) { /* the rim's point furthest against the normal */
      PetscReal at;
      down[0] = -m_body[0] / across, down[1] = -m_body[1] / across;
      at = PetscAtan2Real(down[1], down[0]) * CYLINDER_RIM_SAMPLES / (2.0 * PETSC_PI);
      if (PetscAbsReal(at - round(at)) > 1e-9) { /* unless a sample is that point already */
        const PetscReal local[3] = {r * down[0], r * down[1], z};
        PlanePoint(b, p, c, A, local, envelope, 9 * cap + CYLINDER_RIM_SAMPLES, hits, nhits);
      }
    }
  }
}

/* first = cylinder, second = sphere: the point of the solid cylinder nearest the sphere's centre, or from
   inside the nearest of its side and caps */
static void CylinderSphere(const TalusBodies *b, PetscInt c, PetscInt s, PetscReal envelope, Hit *hit, PetscInt *nhits)
{
  const PetscReal r = b->size[3 * c], L = b->size[3 * c + 1], R = b->size[3 * s];
  PetscReal       A[9], rel[3], p[3], q[3], nl[3] = {0, 0, 0}, rho;

  TalusQuatToMatrix(&b->quaternion[4 * c], A);
  for (int k = 0; k < 3; k++) rel[k] = b->position[3 * s + k] - b->position[3 * c + k];
  TalusRotateBack(A, rel, p);
  rho = PetscSqrtReal(p[0] * p[0] + p[1] * p[1]);
  if (rho > r || PetscAbsReal(p[2]) > L) { /* outside: the nearest point of the solid */
    const PetscReal scale = rho > r ? r / rho : 1.0;
    PetscReal       dist;
    q[0] = scale * p[0], q[1] = scale * p[1], q[2] = PetscMin(PetscMax(p[2], -L), L);
    dist = PetscSqrtReal(PetscSqr(p[0] - q[0]) + PetscSqr(p[1] - q[1]) + PetscSqr(p[2] - q[2]));
    for (int k = 0; k < 3; k++) nl[k] = (p[k] - q[k]) / dist;
    hit->phi = dist - R;
  } else if (r - rho < L - PetscAbsReal(p[2])) { /* inside, nearer the side: out along the radius */
    if (rho > 0.0) nl[0] = p[0] / rho, nl[1] = p[1] / rho;
    else nl[0] = 1.0;
    q[0] = r * nl[0], q[1] = r * nl[1], q[2] = p[2];
    hit->phi = -(r - rho) - R;
  } else { /* inside, nearer a cap */
    nl[2] = p[2] >= 0.0 ? 1.0 : -1.0;
    q[0] = p[0], q[1] = p[1], q[2] = nl[2] * L;
    hit->phi = -(L - PetscAbsReal(p[2])) - R;
  }
  TalusRotate(A, nl, hit->n);
  TalusRotate(A, q, hit->p_first);
  for (int k = 0; k < 3; k++) {
    hit->p_first[k] += b->position[3 * c + k];
    hit->p_second[k] = b->position[3 * s + k] - R * hit->n[k];
  }
  hit->feature = 0;
  *nhits       = 1;
}

/* A capsule's segment: its ends (world) */
static void CapsuleEnds(const TalusBodies *b, PetscInt c, PetscReal e[2][3])
{
  PetscReal A[9];

  TalusQuatToMatrix(&b->quaternion[4 * c], A);
  for (int k = 0; k < 3; k++) {
    e[0][k] = b->position[3 * c + k] - b->size[3 * c + 1] * A[3 * k + 2];
    e[1][k] = b->position[3 * c + k] + b->size[3 * c + 1] * A[3 * k + 2];
  }
}

/* the point of the segment e nearest p */
static void NearestOnSegment(const PetscReal e[2][3], const PetscReal p[3], PetscReal q[3])
{
  PetscReal d[3], t;

  for (int k = 0; k < 3; k++) d[k] = e[1][k] - e[0][k];
  t = TalusDot3(d, d) > 0.0 ? (TalusDot3(p, d) - TalusDot3(e[0], d)) / TalusDot3(d, d) : 0.0;
  t = PetscMin(PetscMax(t, 0.0), 1.0);
  for (int k = 0; k < 3; k++) q[k] = e[0][k] + t * d[k];
}

/* first = plane, second = capsule: its two end balls (features 0, 1), each within the envelope */
static void PlaneCapsule(const TalusBodies *b, PetscInt p, PetscInt c, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  PetscReal e[2][3];

  CapsuleEnds(b, c, e);
  *nhits = 0;
  for (PetscInt end = 0; end < 2; end++) {
    PlaneBall(&b->size[3 * p], &b->position[3 * p], e[end], b->size[3 * c], end, &hits[*nhits]);
    if (hits[*nhits].phi <= envelope) (*nhits)++;
  }
}

/* first = capsule, second = sphere: the ball of the capsule's segment nearest the sphere's centre */
static void CapsuleSphere(const TalusBodies *b, PetscInt c, PetscInt s, PetscReal envelope, Hit *hit, PetscInt *nhits)
{
  PetscReal e[2][3], q[3];

  CapsuleEnds(b, c, e);
  NearestOnSegment(e, &b->position[3 * s], q);
  BallBall(q, b->size[3 * c], &b->position[3 * s], b->size[3 * s], 0, hit);
  *nhits = 1;
}

/* Two capsules: where their segments are parallel and overlap along them, a ball at each end of the overlap
   (features 0, 1: a capsule lying along another does not rock); else the balls at the segments' nearest points
   (Ericson, Real-Time Collision Detection 5.1.9) */
static void CapsuleCapsule(const TalusBodies *b, PetscInt i, PetscInt j, PetscReal envelope, Hit *hits, PetscInt *nhits)
{
  const PetscReal ri = b->size[3 * i], rj = b->size[3 * j];
  PetscReal       e[2][3], g[2][3], d1[3], d2[3], r[3], a, bb, c, e2, f, s, t, cross[3];

  CapsuleEnds(b, i, e);
  CapsuleEnds(b, j, g);
  for (int k = 0; k < 3; k++) d1[k] = e[1][k] - e[0][k], d2[k] = g[1][k] - g[0][k], r[k] = e[0][k] - g[0][k];
  a = TalusDot3(d1, d1), e2 = TalusDot3(d2, d2), f = TalusDot3(d2, r), c = TalusDot3(d1, r), bb = TalusDot3(d1, d2);
  TalusCross3(d1, d2, cross);
  *nhits = 0;
  if (TalusNorm3(cross) <= 1e-9 * a) { /* parallel: the overlap of j's ends projected on i's segment */
    const PetscReal t0 = -c / a, t1 = (TalusDot3(d1, g[1]) - TalusDot3(d1, e[0])) / a;
    const PetscReal lo = PetscMax(0.0, PetscMin(t0, t1)), hi = PetscMin(1.0, PetscMax(t0, t1));
    if (lo < hi) {
      for (PetscInt end = 0; end < 2; end++) {
        PetscReal p[3], q[3];
        for (int k = 0; k < 3; k++) p[k] = e[0][k] + (end ? hi : lo) * d1[k];
        NearestOnSegment(g, p, q);
        BallBall(p, ri, q, rj, end, &hits[(*nhits)++]);
      }
      return;
    }
  }
  { /* the nearest points of two segments */
    const PetscReal denom = a * e2 - bb * bb;
    s                     = denom > 0.0 ? PetscMin(PetscMax((bb * f - c * e2) / denom, 0.0), 1.0) : 0.0;
    t                     = (bb * s + f) / e2;
    if (t < 0.0) t = 0.0, s = PetscMin(PetscMax(-c / a, 0.0), 1.0);
    else if (t > 1.0) t = 1.0, s = PetscMin(PetscMax((bb - c) / a, 0.0), 1.0);
  }
  {
    PetscReal p[3], q[3];
    for (int k = 0; k < 3; k++) p[k] = e[0][k] + s * d1[k], q[k] = g[0][k] + t * d2[k];
    BallBall(p, ri, q, rj, 0, &hits[(*nhits)++]);
  }
}

/* s = A^T (p - centre) */
static void BodyOffset(const TalusBodies *b, PetscInt k, const PetscReal p[3], PetscReal s[3])
{
  PetscReal A[9], rel[3];
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  for (int d = 0; d < 3; d++) rel[d] = p[d] - b->position[3 * k + d];
  TalusRotateBack(A, rel, s);
}

/* The hits of (first, second) within the envelope appended to the list, ordered by global id */
static PetscErrorCode AppendHits(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope,
                                 const Hit hits[], PetscInt nhits, TalusContactList *list)
{
  PetscFunctionBegin;
  for (PetscInt h = 0; h < nhits; h++) {
    TalusContact   *c;
    const PetscBool flip = (PetscBool)(b->id[first] > b->id[second]);
    PetscReal       n[3];
    if (hits[h].phi > envelope) continue;
    PetscCall(TalusContactListAppend(list, &c));
    c->a       = flip ? second : first;
    c->b       = flip ? first : second;
    c->id_a    = b->id[c->a];
    c->id_b    = b->id[c->b];
    c->feature = hits[h].feature;
    c->phi     = hits[h].phi;
    for (int k = 0; k < 3; k++) n[k] = flip ? -hits[h].n[k] : hits[h].n[k];
    for (int k = 0; k < 3; k++) c->frame[k] = n[k];
    TalusCompleteFrame(n, &c->frame[3], &c->frame[6]);
    BodyOffset(b, c->a, flip ? hits[h].p_second : hits[h].p_first, c->sa);
    BodyOffset(b, c->b, flip ? hits[h].p_first : hits[h].p_second, c->sb);
    c->mu         = TalusBodiesPairFriction(b, first, second);
    c->impulse[0] = c->impulse[1] = c->impulse[2] = 0.0;
  }
  PetscFunctionReturn(0);
}

/* The pair routine of a routine that gives hits: its hits within the envelope appended */
#define PAIR_OF(hits_of) \
  static PetscErrorCode hits_of##Pair(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope, \
                                      TalusContactList *list) \
  { \
    Hit      hits[MAX_HITS]; \
    PetscInt nhits = 0; \
    PetscFunctionBegin; \
    hits_of(b, first, second, envelope, hits, &nhits); \
    PetscCall(AppendHits(b, first, second, envelope, hits, nhits, list)); \
    PetscFunctionReturn(0); \
  }
PAIR_OF(SphereSphere)
PAIR_OF(PlaneSphere)
PAIR_OF(BoxSphere)
PAIR_OF(PlaneCylinder)
PAIR_OF(CylinderSphere)
PAIR_OF(PlaneCapsule)
PAIR_OF(CapsuleSphere)
PAIR_OF(PlaneHull)

/* A routine that is not symmetric in its two bodies is given them in id order, so that a pair's contacts do not
   depend on where the bodies sit on a rank (1 and P ranks give the same run) */
#define PAIR_IN_ID_ORDER(hits_of, most) \
  static PetscErrorCode hits_of##Pair(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope, \
                                      TalusContactList *list) \
  { \
    Hit            hits[most]; \
    PetscInt       nhits = 0; \
    const PetscInt lo = b->id[first] < b->id[second] ? first : second, hi = lo == first ? second : first; \
    PetscFunctionBegin; \
    hits_of(b, lo, hi, envelope, hits, &nhits); \
    PetscCall(AppendHits(b, lo, hi, envelope, hits, nhits, list)); \
    PetscFunctionReturn(0); \
  }
PAIR_IN_ID_ORDER(CapsuleCapsule, MAX_HITS)
/* two convex bodies without a closed form (convex.c: MPR, GJK, the overlap of two flat features) */
PAIR_IN_ID_ORDER(TalusConvexHits, TALUS_MAX_CONVEX_HITS)

/* first = plane, second = box: its corners, or an elastic foundation's points (seed 004 sec. 5.5) by rows of
   the grid, in feature order */
static PetscErrorCode PlaneBoxPair(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope,
                                   TalusContactList *list)
{
  Hit            hits[MAX_HITS];
  PetscInt       nhits = 0;
  const PetscInt grid  = TalusContactFoundationGrid(b, first, second);

  PetscFunctionBegin;
  if (grid) {
    BoxFace face;
    FaceNearestPlane(b, first, second, &face);
    for (PetscInt row = 0; row < grid; row++) {
      PlaneBoxFoundationRow(b, first, second, &face, grid, row, envelope, hits, &nhits);
      PetscCall(AppendHits(b, first, second, envelope, hits, nhits, list));
    }
  } else {
    PlaneBox(b, first, second, envelope, hits, &nhits);
    PetscCall(AppendHits(b, first, second, envelope, hits, nhits, list));
  }
  PetscFunctionReturn(0);
}

/*
 * The pair table, indexed by the shapes of (i, j): the routine that appends the pair's contacts, and
 * whether it takes the pair as (j, i). An empty entry is a pair talus cannot collide; two unbounded
 * shapes (planes) are both fixed and never reach the table. The closed forms and the general routine
 * are filled in here; a shape whose pairs are made elsewhere registers them at start-up
 * (TalusCollideRegisterPair: the compound's, compound.c, which calls back into this table for its parts).
 */
typedef struct {
  TalusPairFn collide;
  PetscBool   swap;
} PairEntry;

// clang-format off
static PairEntry pair_table[TALUS_NSHAPES][TALUS_NSHAPES] = {
  [TALUS_SPHERE][TALUS_SPHERE] = {SphereSpherePair, PETSC_FALSE},
  [TALUS_SPHERE][TALUS_BOX]    = {BoxSpherePair,    PETSC_TRUE},
  [TALUS_SPHERE][TALUS_PLANE]  = {PlaneSpherePair,  PETSC_TRUE},
  [TALUS_BOX][TALUS_SPHERE]    = {BoxSpherePair,    PETSC_FALSE},
  [TALUS_BOX][TALUS_PLANE]     = {PlaneBoxPair,     PETSC_TRUE},
  [TALUS_PLANE][TALUS_SPHERE]  = {PlaneSpherePair,  PETSC_FALSE},
  [TALUS_PLANE][TALUS_BOX]     = {PlaneBoxPair,     PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_PLANE]  = {PlaneCylinderPair,  PETSC_TRUE},
  [TALUS_PLANE][TALUS_CYLINDER]  = {PlaneCylinderPair,  PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_SPHERE] = {CylinderSpherePair, PETSC_FALSE},
  [TALUS_BOX][TALUS_BOX]           = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_BOX][TALUS_CYLINDER]      = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_BOX]      = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_CYLINDER] = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CAPSULE][TALUS_PLANE]     = {PlaneCapsulePair,   PETSC_TRUE},
  [TALUS_PLANE][TALUS_CAPSULE]     = {PlaneCapsulePair,   PETSC_FALSE},
  [TALUS_CAPSULE][TALUS_SPHERE]    = {CapsuleSpherePair,  PETSC_FALSE},
  [TALUS_SPHERE][TALUS_CAPSULE]    = {CapsuleSpherePair,  PETSC_TRUE},
  [TALUS_CAPSULE][TALUS_CAPSULE]   = {CapsuleCapsulePair, PETSC_FALSE},
  [TALUS_CAPSULE][TALUS_BOX]       = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_BOX][TALUS_CAPSULE]       = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CAPSULE][TALUS_CYLINDER]  = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_CAPSULE]  = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_SPHERE][TALUS_CYLINDER] = {CylinderSpherePair, PETSC_TRUE},
  [TALUS_HULL][TALUS_PLANE]     = {PlaneHullPair,       PETSC_TRUE},
  [TALUS_PLANE][TALUS_HULL]     = {PlaneHullPair,       PETSC_FALSE},
  [TALUS_HULL][TALUS_SPHERE]    = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_SPHERE][TALUS_HULL]    = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_HULL][TALUS_BOX]       = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_BOX][TALUS_HULL]       = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_HULL][TALUS_CYLINDER]  = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CYLINDER][TALUS_HULL]  = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_HULL][TALUS_CAPSULE]   = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_CAPSULE][TALUS_HULL]   = {TalusConvexHitsPair, PETSC_FALSE},
  [TALUS_HULL][TALUS_HULL]      = {TalusConvexHitsPair, PETSC_FALSE},
};
// clang-format on

PetscErrorCode TalusCollideRegisterPair(TalusShape a, TalusShape b, TalusPairFn collide, PetscBool swap)
{
  PetscFunctionBegin;
  PetscCheck(a >= 0 && a < TALUS_NSHAPES && b >= 0 && b < TALUS_NSHAPES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shape codes %d and %d: the pair table has %d shapes", (int)a, (int)b, (int)TALUS_NSHAPES);
  pair_table[a][b].collide = collide, pair_table[a][b].swap = swap;
  PetscFunctionReturn(0);
}

PetscBool TalusShapePairSupported(TalusShape a, TalusShape b)
{
  return (PetscBool)(pair_table[a][b].collide != NULL);
}

PetscErrorCode TalusCollidePair(const TalusBodies *b, PetscInt i, PetscInt j, PetscReal envelope,
                                TalusContactList *list)
{
  const PairEntry *pair = &pair_table[b->shape[i]][b->shape[j]];

  PetscFunctionBegin;
  if (b->fixed[i] && b->fixed[j]) PetscFunctionReturn(0); /* nothing can move: no contact to solve */
  PetscCheck(pair->collide, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "bodies %" PetscInt_FMT " and %" PetscInt_FMT
             " (a %s and a %s) are within reach of each other: %s-%s contact is not supported (the pair table has no"
             " routine for it; the pairs a shape registers at start-up need TalusInitialize or TalusRegisterAll)",
             b->id[i], b->id[j], TalusShapeTable[b->shape[i]].name, TalusShapeTable[b->shape[j]].name,
             TalusShapeTable[b->shape[i]].name, TalusShapeTable[b->shape[j]].name);
  PetscCall(pair->swap ? pair->collide(b, j, i, envelope, list) : pair->collide(b, i, j, envelope, list));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusContactListReserve(TalusContactList *list, PetscInt need)
{
  TalusContact *grown;

  PetscFunctionBegin;
  if (need <= list->capacity) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(need, &grown));
  if (list->n) PetscCall(PetscArraycpy(grown, list->c, list->n));
  PetscCall(PetscFree(list->c));
  list->c        = grown;
  list->capacity = need;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusContactListAppend(TalusContactList *list, TalusContact **c)
{
  PetscFunctionBegin;
  if (list->n == list->capacity)
    PetscCall(TalusContactListReserve(list, TalusGrowCapacity(list->capacity, list->n + 1)));
  *c = &list->c[list->n++];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusContactListDestroy(TalusContactList *list)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(list->c));
  list->n = list->capacity = 0;
  PetscFunctionReturn(0);
}
