/*
 * What moves or loads bodies besides contacts and joints (docs/mechanisms.md):
 *   - prescribed (kinematic) bodies: fixed in the CCP, their pose a function of time; their velocity
 *     enters the rows of their contacts and joints as a known term (seed 002 eq. 70);
 *   - surface velocity: a fixed body whose material moves (a conveyor belt, a moving floor), the
 *     same known term without the body moving (seed 002 eq. 72);
 *   - applied loads: a force and a torque on a body, in the world's or the body's frame;
 *   - springs: linear spring-dampers between two points of two bodies (or a body and the world),
 *     explicit (seed 002 eq. 79-86).
 * Like joints they are few and kept the same on every rank.
 */
#ifndef TALUS_DRIVES_H
#define TALUS_DRIVES_H
#include <talus/joints.h>

/* x(t) = x0 + v s + a (sin(w s + phase) - sin(phase)) + D(s) - D(0), s = t - t0, turning about its
   centre at a constant world-frame angular velocity: x(t0) = x0, the pose the body had when it was
   given; D a three-column table of displacements (m, world) when `table` is one. */
typedef struct {
  PetscInt  body;                             /* global id */
  PetscReal velocity[3], amplitude[3];        /* m/s, m */
  PetscReal frequency, phase;                 /* rad/s, rad */
  PetscReal angular_velocity[3];              /* rad/s, world */
  PetscReal t0, position0[3], quaternion0[4]; /* set when it is added */
  PetscInt  table;                            /* handle of D (TalusSimAddTable), 0: none */
} TalusPrescribedMotion;

/* Position and orientation of a prescribed body at time t (tables: the simulation's). */
PETSC_EXTERN void TalusPrescribedPose(const TalusPrescribedMotion *, const TalusTable tables[], PetscReal t,
                                      PetscReal x[3], PetscReal q[4]);

typedef struct {
  PetscInt  body;       /* global id */
  PetscReal force[3];   /* N */
  PetscReal torque[3];  /* N m, about the centre */
  PetscReal point[3];   /* where the force acts, from the centre, in the load's frame (it adds point x force) */
  PetscInt  body_frame; /* 1: force, torque and point turn with the body; 0: they are world vectors */
  PetscInt  force_table, torque_table; /* three-column tables added to force and torque at t (handles; 0: none) */
} TalusLoad;

typedef struct {
  PetscInt  body[2];       /* global ids or TALUS_WORLD */
  PetscReal anchor[2][3];  /* the ends: body frame (world point for the world), set from world points when added */
  PetscReal stiffness;     /* K (N/m) >= 0 */
  PetscReal damping;       /* C (N s/m) >= 0 */
  PetscReal rest_length;   /* L0 (m) >= 0 */
  PetscInt  axial_damping; /* 1: damp the rate of length only; 0: the whole relative velocity (seed 002 eq. 85) */
} TalusSpring;

/* A body that moves in a plane: its velocity stays normal to `normal` and it turns about `normal`
   only. Its M^-1 loses the out-of-plane rows (the formulations note, sec. 2.4): the linear part
   (1 - n n^T) / m and the angular part n n^T / (n . I n), I the world-frame inertia; no constraint
   rows, so none are redundant with the joints of a planar mechanism (use planar pins there). */
typedef struct {
  PetscInt  body;      /* global id */
  PetscReal normal[3]; /* unit, world */
} TalusPlanar;

/* Spring force on end B (end A gets its opposite) with the ends at pa, pb moving at va, vb:
   -K (L - L0) e - C (vb - va) (or its part along e when axial), e = (pb - pa) / L. */
PETSC_EXTERN void TalusSpringForce(const TalusSpring *, const PetscReal pa[3], const PetscReal pb[3],
                                   const PetscReal va[3], const PetscReal vb[3], PetscReal f[3]);

#endif
