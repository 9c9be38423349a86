/*
 * The joints' kinematics (include/talus/joints.h): each type's rows g, g_t and G of seed 000 eq. 6
 * and 9c, written with world-frame angular velocities. Two kinds of row make every type:
 *
 *   point row along a unit d, for g = d . (p_B - p_A) with p = r + A s the anchors and S = A s their
 *   lever arms:  dg/dt = d . (v_B + w_B x S_B - v_A - w_A x S_A) (+ (w_A x d) . (p_B - p_A) when
 *   d turns with A), so  G_B = (d, S_B x d),  G_A = (-d, -(S_A + e) x d),  e = p_B - p_A if d is
 *   carried by A, else 0;
 *
 *   angular row for g = u . w with u carried by A and w by B: dg/dt = (w_B - w_A) . (w x u), so
 *   G_B = (0, w x u),  G_A = -G_B.
 *
 * Spherical: 3 point rows along the world axes. Revolute: those and the B-carried directions
 * p, q normal to B's axis kept normal to A's axis a (g = a . p, a . q: the "dot-1" rows). Weld: 3
 * point rows and 3 angular rows pairing A's frame (e1, e2, e3) with B's (f1, f2, f3) as (e2, f3),
 * (e3, f1), (e1, f2), each zero when the frames agree. Prismatic: the weld's 3 angular rows and 2
 * point rows along A's directions normal to its axis. Distance: 1 point row along p_B - p_A. Planar
 * pin: 2 point rows along the world directions in the plane normal to A's axis. Drivers: the angle
 * of B's reference about A's axis from A's reference minus f(t), wrapped into (-pi, pi], with the
 * angular row of the axis; or the displacement along A's axis minus f(t), with its point row; both
 * with g_t = -f'(t). Limits: the drivers' angle or displacement s, as two one-sided rows
 * g = s - lower and g = upper - s (the second with the row negated), each >= 0 (seed 004 sec. 5.4).
 */
#include <talus/joints.h>
#include <talus/math3.h>
#include <math.h>

const char *const     TalusJointTypeNames[TALUS_NJOINT_TYPES] = {"spherical",    "revolute",      "prismatic",
                                                                 "weld",         "distance",      "planar_pin",
                                                                 "angle_driver", "linear_driver", "angle_limit",
                                                                 "linear_limit", "cylindrical"};
static const PetscInt joint_rows[TALUS_NJOINT_TYPES]          = {3, 5, 5, 6, 1, 2, 1, 1, 2, 2, 4};

PetscInt TalusJointTypeRows(TalusJointType type)
{
  return joint_rows[type];
}

PetscBool TalusJointTypeFromName(const char name[], TalusJointType *type)
{
  for (int t = 0; t < TALUS_NJOINT_TYPES; t++)
    if (!strcmp(name, TalusJointTypeNames[t])) {
      *type = (TalusJointType)t;
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}

PetscErrorCode TalusJointTypeList(char names[], size_t size)
{
  PetscFunctionBegin;
  names[0] = 0;
  for (int t = 0; t < TALUS_NJOINT_TYPES; t++) {
    PetscCall(PetscStrlcat(names, TalusJointTypeNames[t], size));
    PetscCall(PetscStrlcat(names, t == TALUS_NJOINT_TYPES - 2 ? " or " : t < TALUS_NJOINT_TYPES - 1 ? ", " : "", size));
  }
  PetscFunctionReturn(0);
}

PetscBool TalusJointTypeHasAxis(TalusJointType type)
{
  return (PetscBool)(type != TALUS_JOINT_SPHERICAL && type != TALUS_JOINT_WELD && type != TALUS_JOINT_DISTANCE);
}

PetscBool TalusJointTypeIsDriver(TalusJointType type)
{
  return (PetscBool)(type == TALUS_JOINT_ANGLE_DRIVER || type == TALUS_JOINT_LINEAR_DRIVER);
}

PetscBool TalusJointTypeIsLimit(TalusJointType type)
{
  return (PetscBool)(type == TALUS_JOINT_ANGLE_LIMIT || type == TALUS_JOINT_LINEAR_LIMIT);
}

PetscReal TalusMotionValue(const TalusMotion *m, const TalusTable tables[], PetscReal t)
{
  PetscReal y = 0.0;

  if (m->table) TalusTableEvaluate(&tables[m->table - 1], t, &y, NULL);
  return m->offset + m->rate * t + m->amplitude * PetscSinReal(m->frequency * t + m->phase) + y;
}

PetscReal TalusMotionRate(const TalusMotion *m, const TalusTable tables[], PetscReal t)
{
  PetscReal dy = 0.0;

  if (m->table) TalusTableEvaluate(&tables[m->table - 1], t, NULL, &dy);
  return m->rate + m->amplitude * m->frequency * PetscCosReal(m->frequency * t + m->phase) + dy;
}

/* The world-frame image of a side's vector: A v, and for points r + A v. */
static void ToWorld(const TalusPose *P, const PetscReal v[3], PetscReal w[3])
{
  TalusRotate(P->A, v, w);
}

static void PointRow(const PetscReal d[3], const PetscReal SA[3], const PetscReal SB[3], const PetscReal e[3],
                     TalusJointRowTerms *row)
{
  PetscReal arm[3];

  for (int k = 0; k < 3; k++) arm[k] = SA[k] + (e ? e[k] : 0.0);
  for (int k = 0; k < 3; k++) row->G[1][k] = d[k], row->G[0][k] = -d[k];
  TalusCross3(SB, d, &row->G[1][3]);
  TalusCross3(arm, d, &row->G[0][3]);
  for (int k = 3; k < 6; k++) row->G[0][k] = -row->G[0][k];
  row->angular = PETSC_FALSE;
}

/* g = u . w, u carried by A, w by B */
static void AngularRow(const PetscReal u[3], const PetscReal w[3], TalusJointRowTerms *row)
{
  PetscReal c[3];

  TalusCross3(w, u, c);
  for (int k = 0; k < 3; k++) row->G[0][k] = row->G[1][k] = 0.0, row->G[1][3 + k] = c[k], row->G[0][3 + k] = -c[k];
  row->g       = TalusDot3(u, w);
  row->angular = PETSC_TRUE;
}

/* A side's frame: its axis, its reference and their cross product, in the world. */
static void SideFrame(const TalusJoint *j, int side, const TalusPose *P, PetscReal f[3][3])
{
  ToWorld(P, j->axis[side], f[0]);
  ToWorld(P, j->reference[side], f[1]);
  TalusCross3(f[0], f[1], f[2]);
}

/* The angle of B's reference about A's axis from A's reference, in (-pi, pi], and its row */
static void AngleRow(const PetscReal e[3][3], const PetscReal f[3][3], TalusJointRowTerms *row)
{
  PetscReal c[3];

  TalusCross3(e[1], f[1], c);
  for (int k = 0; k < 3; k++)
    row->G[0][k] = row->G[1][k] = 0.0, row->G[1][3 + k] = e[0][k], row->G[0][3 + k] = -e[0][k];
  row->g       = PetscAtan2Real(TalusDot3(c, e[0]), TalusDot3(e[1], f[1]));
  row->angular = PETSC_TRUE;
}

/* The weld's and the prismatic joint's three angular rows */
static void OrientationRows(const PetscReal e[3][3], const PetscReal f[3][3], TalusJointRowTerms rows[3])
{
  AngularRow(e[1], f[2], &rows[0]);
  AngularRow(e[2], f[0], &rows[1]);
  AngularRow(e[0], f[1], &rows[2]);
}

void TalusJointEvaluate(const TalusJoint *j, const TalusPose *A, const TalusPose *B, const TalusTable tables[],
                        PetscReal t, TalusJointRowTerms rows[])
{
  PetscReal SA[3], SB[3], d[3], e[3][3], f[3][3];
  const int n = (int)joint_rows[j->type];

  ToWorld(A, j->anchor[0], SA);
  ToWorld(B, j->anchor[1], SB);
  for (int k = 0; k < 3; k++) d[k] = (B->r[k] + SB[k]) - (A->r[k] + SA[k]); /* p_B - p_A */
  SideFrame(j, 0, A, e);
  SideFrame(j, 1, B, f);
  for (int r = 0; r < n; r++) rows[r].g = rows[r].gt = 0.0;
  switch ((TalusJointType)j->type) {
  case TALUS_JOINT_SPHERICAL:
  case TALUS_JOINT_REVOLUTE:
  case TALUS_JOINT_WELD:
    for (int r = 0; r < 3; r++) {
      const PetscReal axis[3] = {r == 0, r == 1, r == 2};
      PointRow(axis, SA, SB, NULL, &rows[r]);
      rows[r].g = d[r];
    }
    if (j->type == TALUS_JOINT_REVOLUTE) {
      AngularRow(e[0], f[1], &rows[3]);
      AngularRow(e[0], f[2], &rows[4]);
    } else if (j->type == TALUS_JOINT_WELD) OrientationRows(e, f, &rows[3]);
    break;
  case TALUS_JOINT_PRISMATIC:
    OrientationRows(e, f, rows);
    for (int r = 0; r < 2; r++) {
      PointRow(e[1 + r], SA, SB, d, &rows[3 + r]);
      rows[3 + r].g = TalusDot3(e[1 + r], d);
    }
    break;
  case TALUS_JOINT_CYLINDRICAL: /* the revolute's two angular rows and the prismatic's two point rows */
    AngularRow(e[0], f[1], &rows[0]);
    AngularRow(e[0], f[2], &rows[1]);
    for (int r = 0; r < 2; r++) {
      PointRow(e[1 + r], SA, SB, d, &rows[2 + r]);
      rows[2 + r].g = TalusDot3(e[1 + r], d);
    }
    break;
  case TALUS_JOINT_DISTANCE: {
    const PetscReal L    = TalusNorm3(d);
    PetscReal       u[3] = {e[0][0], e[0][1], e[0][2]}; /* coincident anchors: any direction does */
    if (L > 0.0)
      for (int k = 0; k < 3; k++) u[k] = d[k] / L;
    PointRow(u, SA, SB, NULL, &rows[0]);
    rows[0].g = L - j->length;
  } break;
  case TALUS_JOINT_PLANAR_PIN: {
    PetscReal u[3], w[3];
    TalusCompleteFrame(e[0], u, w);
    PointRow(u, SA, SB, NULL, &rows[0]);
    PointRow(w, SA, SB, NULL, &rows[1]);
    rows[0].g = TalusDot3(u, d), rows[1].g = TalusDot3(w, d);
  } break;
  case TALUS_JOINT_ANGLE_DRIVER:
    AngleRow(e, f, &rows[0]);
    rows[0].g  = remainder(rows[0].g - TalusMotionValue(&j->motion, tables, t), 2.0 * PETSC_PI);
    rows[0].gt = -TalusMotionRate(&j->motion, tables, t);
    break;
  case TALUS_JOINT_LINEAR_DRIVER:
    PointRow(e[0], SA, SB, d, &rows[0]);
    rows[0].g  = TalusDot3(e[0], d) - TalusMotionValue(&j->motion, tables, t);
    rows[0].gt = -TalusMotionRate(&j->motion, tables, t);
    break;
  case TALUS_JOINT_ANGLE_LIMIT:
  case TALUS_JOINT_LINEAR_LIMIT:
    if (j->type == TALUS_JOINT_ANGLE_LIMIT) AngleRow(e, f, &rows[0]);
    else {
      PointRow(e[0], SA, SB, d, &rows[0]);
      rows[0].g = TalusDot3(e[0], d);
    }
    rows[1] = rows[0];
    for (int k = 0; k < 12; k++) (&rows[1].G[0][0])[k] = -(&rows[0].G[0][0])[k];
    rows[1].g = j->upper - rows[0].g;
    rows[0].g = rows[0].g - j->lower;
    break;
  case TALUS_NJOINT_TYPES:
    break;
  }
}

/* v in a side's frame: A^T v */
static void ToSide(const TalusPose *P, const PetscReal w[3], PetscReal v[3])
{
  TalusRotateBack(P->A, w, v);
}

const char *TalusJointFromSpec(const TalusJointSpec *s, const TalusPose *A, const TalusPose *B, PetscBool dynamic_a,
                               PetscBool dynamic_b, TalusJoint *j)
{
  const TalusPose *pose[2] = {A, B};
  PetscReal        axis[3] = {0.0, 0.0, 1.0}, reference[3], other[3], n;

  if ((PetscInt)s->type < 0 || s->type >= TALUS_NJOINT_TYPES) return "unknown joint type";
  if (s->body[0] == s->body[1]) return "a joint needs two different bodies (or a body and the world)";
  if (!dynamic_a && !dynamic_b) return "neither side of the joint is a dynamic body (both fixed, or the world)";
  if (TalusJointTypeHasAxis(s->type)) {
    n = TalusNorm3(s->axis);
    if (!(n > 0.0) || !PetscIsNormalReal(n)) return "the joint's axis must be a nonzero vector";
    for (int k = 0; k < 3; k++) axis[k] = s->axis[k] / n;
  }
  *j         = (TalusJoint){0};
  j->type    = s->type;
  j->body[0] = s->body[0], j->body[1] = s->body[1];
  /* the lower-id dynamic side keeps the joint, as the lower-id dynamic body keeps a contact */
  if (dynamic_a && dynamic_b) j->owner_side = s->body[0] < s->body[1] ? 0 : 1;
  else j->owner_side = dynamic_a ? 0 : 1;
  TalusCompleteFrame(axis, reference, other);
  for (int side = 0; side < 2; side++) {
    PetscReal lever[3];
    for (int k = 0; k < 3; k++) lever[k] = s->point[side][k] - pose[side]->r[k];
    ToSide(pose[side], lever, j->anchor[side]);
    ToSide(pose[side], axis, j->axis[side]);
    ToSide(pose[side], reference, j->reference[side]);
  }
  if (s->type == TALUS_JOINT_DISTANCE) {
    PetscReal d[3];
    for (int k = 0; k < 3; k++) d[k] = s->point[1][k] - s->point[0][k];
    j->length = s->length >= 0.0 ? s->length : TalusNorm3(d);
    if (!(j->length > 0.0)) return "a distance joint needs a positive length (its two points apart, or length > 0)";
  }
  j->motion = s->motion;
  if (!(s->zeta >= 0.0 && s->zeta < PETSC_INFINITY && s->delta >= 0.0 && s->delta < PETSC_INFINITY))
    return "its relaxation's zeta and delta must be finite and >= 0";
  j->zeta = s->zeta, j->delta = s->delta;
  if (!(s->stiffness >= 0.0 && s->stiffness < PETSC_INFINITY && s->damping >= 0.0 && s->damping < PETSC_INFINITY))
    return "its compliance's stiffness and damping must be finite and >= 0";
  if (s->stiffness == 0.0 && s->damping > 0.0) return "its compliance needs a positive stiffness with its damping";
  if (s->stiffness > 0.0 && s->delta > 0.0) return "its rows are relaxed (seed 003) or compliant (seed 004), not both";
  j->stiffness = s->stiffness, j->damping = s->damping;
  if (TalusJointTypeIsLimit(s->type)) {
    const char *fault = TalusJointLimitFault(s->type, s->lower, s->upper);
    if (fault) return fault;
    j->lower = s->lower, j->upper = s->upper;
  }
  return NULL;
}

const char *TalusJointLimitFault(TalusJointType type, PetscReal lower, PetscReal upper)
{
  const PetscReal range = type == TALUS_JOINT_ANGLE_LIMIT ? PETSC_PI : PETSC_INFINITY;

  if (lower <= upper && lower >= -range && upper <= range && lower > -PETSC_INFINITY && upper < PETSC_INFINITY)
    return NULL;
  return type == TALUS_JOINT_ANGLE_LIMIT ? "an angle limit needs -pi <= lower <= upper <= pi (rad)"
                                         : "a linear limit needs finite lower <= upper (m)";
}
