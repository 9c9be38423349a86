/*
 * Rigid bodies: spheres, boxes and fixed half-spaces (planes), stored as arrays (structure of
 * arrays); whole bodies are packed into records to move between ranks. Bodies carry global ids.
 * On each rank entries [0, nowned) are the bodies it owns (planes are replicated: every rank holds
 * them among its own), entries [nowned, n) are ghost copies of other ranks' bodies.
 * Orientation: unit Euler parameters; angular velocity in the body frame (seed 000 sec. 1).
 */
#ifndef TALUS_BODIES_H
#define TALUS_BODIES_H
#include <petscsys.h>

typedef enum {
  TALUS_SPHERE,
  TALUS_BOX,
  TALUS_PLANE
} TalusShape;
PETSC_EXTERN const char *const TalusShapes[];

typedef struct {
  char      name[64];
  PetscReal mu;      /* friction coefficient */
  PetscReal density; /* kg/m^3, used when a body gives no mass */
} TalusMaterial;

typedef struct {
  PetscInt    n, capacity;
  PetscInt    nowned;
  PetscInt   *id;         /* global id */
  TalusShape *shape;
  PetscReal  *size;       /* 3 per body: sphere (radius, -, -); box half-extents; plane unit outward normal */
  PetscReal  *mass;       /* 0 for fixed bodies */
  PetscReal  *inertia;    /* 3 per body: principal moments in the body frame; 0 when fixed */
  PetscReal  *position;   /* 3: centre of mass, world; for a plane a point on it */
  PetscReal  *quaternion; /* 4: Euler parameters */
  PetscReal  *velocity;   /* 3: world frame */
  PetscReal  *omega;      /* 3: body frame */
  PetscInt   *material;
  PetscBool  *fixed;
  PetscInt   *slot;       /* index among the finite bodies in id order (rows of frames.h5) */
  PetscInt   *dof;        /* first global velocity dof of a dynamic body (6 per body), -1 if fixed */

  PetscInt       nmaterials;
  TalusMaterial *materials;
  PetscReal     *mu_pair; /* nmaterials^2 table, or NULL: a pair's mu is the smaller of the two */
} TalusBodies;

/* One body, packed: what migrates between ranks and what a ghost copy holds. */
typedef struct {
  PetscInt  id, slot, material, shape, fixed, dof;
  PetscReal size[3], mass, inertia[3], position[3], quaternion[4], velocity[3], omega[3];
} TalusBodyRecord;

PETSC_EXTERN PetscErrorCode TalusBodiesCreate(TalusBodies **);
PETSC_EXTERN void           TalusBodiesPack(const TalusBodies *, PetscInt k, TalusBodyRecord *);
/* Appends a packed body as it is (no mass computation). */
PETSC_EXTERN PetscErrorCode TalusBodiesAppendRecord(TalusBodies *, const TalusBodyRecord *);
/* Keeps the bodies k < n with keep[k] true, in order; nowned becomes the number of kept owned ones. */
PETSC_EXTERN PetscErrorCode TalusBodiesKeep(TalusBodies *, const PetscBool keep[]);
/* Room for `need` bodies without growing again. */
PETSC_EXTERN PetscErrorCode TalusBodiesReserve(TalusBodies *, PetscInt need);
/* Orders the bodies by global id (no ghosts may be present): the canonical order of checkpoints. */
PETSC_EXTERN PetscErrorCode TalusBodiesSortById(TalusBodies *);
PETSC_EXTERN PetscErrorCode TalusBodiesDestroy(TalusBodies **);
PETSC_EXTERN PetscErrorCode TalusBodiesAddMaterial(TalusBodies *, const char name[], PetscReal mu, PetscReal density, PetscInt *index);
PETSC_EXTERN PetscErrorCode TalusBodiesFindMaterial(TalusBodies *, const char name[], PetscInt *index);
/*
 * Appends a body with zero velocity and identity orientation. size: radius (sphere), half-extents
 * (box) or outward normal (plane, normalised here). mass <= 0 means "from the material's density".
 * Planes are always fixed. Returns its local index.
 */
PETSC_EXTERN PetscErrorCode TalusBodiesAdd(TalusBodies *, PetscInt id, TalusShape, const PetscReal size[3], PetscReal mass, PetscInt material, PetscBool fixed, const PetscReal position[3], PetscInt *index);
PETSC_EXTERN PetscReal      TalusBodiesPairFriction(const TalusBodies *, PetscInt a, PetscInt b);
/* Mass and principal inertia of a solid shape of the given density (sphere: 2/5 m r^2, box: m (b^2 + c^2) / 3 with half-extents). */
PETSC_EXTERN void           TalusShapeMassProperties(TalusShape, const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3]);
/* Radius of the sphere around the centre that contains the shape (infinite for planes). */
PETSC_EXTERN PetscReal      TalusBodiesBoundingRadius(const TalusBodies *, PetscInt b);
/* Kinetic energy of the owned dynamic bodies (translation plus rotation), local sum. */
PETSC_EXTERN PetscReal      TalusBodiesKineticEnergyLocal(const TalusBodies *);

#endif
