/*
 * Joints: bilateral constraints g(q, t) = 0 between two bodies, or a body and the world (seed 000
 * eq. 6). Each step every joint gives its rows of B (the Jacobian G^T, eq. 4) and its linear term
 * g / h + g_t (eq. 9c: the violation over h, the time derivative at t^l); their impulses are free
 * rows of the step's CCP (eq. 12: the cone is R), solved with the contacts. docs/mechanisms.md.
 * Limits are the one-sided kind (seed 004 sec. 5.4, a range of motion): g >= 0 with a
 * non-negative impulse, rows whose cone is R+.
 *
 * A joint is described in the world at the time it is added (a point, an axis) and kept in each
 * body's frame, so it moves with the bodies. The world's "frame" is the world itself.
 */
#ifndef TALUS_JOINTS_H
#define TALUS_JOINTS_H
#include <talus/bodies.h>
#include <talus/table.h>

/* The world as one side of a joint, instead of a body id. */
#define TALUS_WORLD (-1)

typedef enum {
  TALUS_JOINT_SPHERICAL,     /* 3 rows: the two anchors coincide */
  TALUS_JOINT_REVOLUTE,      /* 5: spherical, and the axes of the two bodies stay parallel */
  TALUS_JOINT_PRISMATIC,     /* 5: no relative rotation, B's anchor moves along A's axis only */
  TALUS_JOINT_WELD,          /* 6: no relative motion */
  TALUS_JOINT_DISTANCE,      /* 1: the distance between the two anchors is kept */
  TALUS_JOINT_PLANAR_PIN,    /* 2: the anchors coincide in the plane normal to the axis (planar mechanisms) */
  TALUS_JOINT_ANGLE_DRIVER,  /* 1: B's angle about A's axis, relative to A, follows f(t) (a motor) */
  TALUS_JOINT_LINEAR_DRIVER, /* 1: B's anchor's displacement along A's axis follows f(t) (an actuator) */
  TALUS_JOINT_ANGLE_LIMIT,   /* 2 one-sided: the drivers' angle stays in [lower, upper] (a range of motion) */
  TALUS_JOINT_LINEAR_LIMIT,  /* 2 one-sided: the drivers' displacement stays in [lower, upper] */
  TALUS_JOINT_CYLINDRICAL,   /* 4: the axes stay parallel and B's anchor on A's axis: it slides along it and turns */
  TALUS_NJOINT_TYPES
} TalusJointType;

/* A prescribed function of time: f(t) = offset + rate t + amplitude sin(frequency t + phase), plus
   y(t) of a one-column table when `table` is one (a handle of TalusSimAddTable; 0: none). */
typedef struct {
  PetscReal offset, rate, amplitude, frequency, phase;
  PetscInt  table;
} TalusMotion;

/* f(t) and f'(t); tables: the simulation's (TalusSimGetTables), table handle k is tables[k - 1] */
PETSC_EXTERN PetscReal TalusMotionValue(const TalusMotion *, const TalusTable tables[], PetscReal t);
PETSC_EXTERN PetscReal TalusMotionRate(const TalusMotion *, const TalusTable tables[], PetscReal t);

/* A joint as the simulator keeps it (the same on every rank; what checkpoints store). Side 0 is body
   A, side 1 body B; vectors are in that body's frame, or in the world's for TALUS_WORLD. */
typedef struct {
  PetscInt    type;               /* TalusJointType */
  PetscInt    body[2];            /* global ids, or TALUS_WORLD */
  PetscInt    owner_side;         /* the side whose body keeps the joint: the lower-id dynamic one (as for contacts) */
  PetscReal   anchor[2][3];       /* the joint's point on each side */
  PetscReal   axis[2][3];         /* its unit axis on each side (revolute, prismatic, drivers; a planar pin's normal) */
  PetscReal   reference[2][3];    /* a unit direction normal to the axis on each side: angles, the weld's frame */
  PetscReal   length;             /* distance joint: the distance kept between the anchors (m) */
  TalusMotion motion;             /* drivers: the relative angle (rad) or displacement (m) prescribed */
  PetscReal   zeta, delta;        /* seed 003's relaxation of its rows (docs/relaxation.md); delta 0: seed 000's */
  PetscReal   stiffness, damping; /* seed 004's compliance of its rows (docs/compliance.md); stiffness 0: rigid */
  PetscReal   lower, upper;       /* limits: the range of the angle (rad) or displacement (m) */
} TalusJoint;

/* What a joint is, in the world at the time it is added. */
typedef struct {
  TalusJointType type;
  PetscInt       body[2];     /* global ids, or TALUS_WORLD */
  PetscReal      point[2][3]; /* the anchors, world (the same point twice but for a distance joint) */
  PetscReal      axis[3];     /* world; ignored by spherical, weld and distance joints */
  PetscReal      length;      /* distance joint: < 0 for the distance between the points when added */
  TalusMotion    motion;
  PetscReal      zeta, delta;        /* relaxed rows (seed 003 eq. 64): damping ratio, time constant (s); 0, 0: rigid */
  PetscReal      stiffness, damping; /* compliant rows (seed 004 eq. 60-62): K (N/m or N m/rad), B; 0, 0: rigid */
  PetscReal      lower, upper;       /* limits: lower <= upper; an angle's within [-pi, pi] */
} TalusJointSpec;

PETSC_EXTERN const char *const TalusJointTypeNames[TALUS_NJOINT_TYPES];
/* Rows of the CCP one joint of this type has. */
PETSC_EXTERN PetscInt  TalusJointTypeRows(TalusJointType);
PETSC_EXTERN PetscBool TalusJointTypeFromName(const char name[], TalusJointType *);
/* "spherical, revolute, ..." for messages. */
PETSC_EXTERN PetscErrorCode TalusJointTypeList(char names[], size_t size);
/* Whether a joint of this type reads spec->axis. */
PETSC_EXTERN PetscBool TalusJointTypeHasAxis(TalusJointType);
PETSC_EXTERN PetscBool TalusJointTypeIsDriver(TalusJointType);
/* Whether its rows are one-sided (g >= 0, impulse >= 0: cone R+) rather than free. */
PETSC_EXTERN PetscBool TalusJointTypeIsLimit(TalusJointType);
/* NULL when [lower, upper] is a range a limit of this type can have (finite, lower <= upper, an angle's
   within [-pi, pi]), else why not: what scenes and checkpoints both check. */
PETSC_EXTERN const char *TalusJointLimitFault(TalusJointType, PetscReal lower, PetscReal upper);

/* A body's pose: centre and rotation matrix (the world: origin and identity). */
typedef struct {
  PetscReal r[3], A[9];
} TalusPose;

/* One row of a joint at a configuration: its violation g, its explicit time derivative g_t, and
   its row of B for each side (linear part, then angular part for world-frame angular velocities),
   so that dg/dt = G[1] . (v_B, omega_B) + G[0] . (v_A, omega_A) + g_t. */
typedef struct {
  PetscReal g, gt, G[2][6];
  PetscBool angular; /* g is an angle (rad), else a length (m) */
} TalusJointRowTerms;

/* The rows of joint j with its two sides at these poses, at time t (TalusJointTypeRows of them);
   tables: those a driver's motion may name (TalusMotionValue). */
PETSC_EXTERN void TalusJointEvaluate(const TalusJoint *, const TalusPose *A, const TalusPose *B,
                                     const TalusTable tables[], PetscReal t, TalusJointRowTerms rows[]);
/* The joint kept from a spec, with the two sides' poses when it is added and whether each side is
   a dynamic body. Returns NULL, or why it cannot be (a zero axis, no dynamic side, ...). */
PETSC_EXTERN const char *TalusJointFromSpec(const TalusJointSpec *, const TalusPose *A, const TalusPose *B,
                                            PetscBool dynamic_a, PetscBool dynamic_b, TalusJoint *);

#endif
