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
/* The solver layer is built with TALUS_SOLVER_LAYER (meson.build) and must not see bodies or shapes. */
#ifdef TALUS_SOLVER_LAYER
  #error "the solver layer (src/solver) must not include the simulator's headers"
#endif

/* The shapes; what each one is comes from its entry in TalusShapeTable (src/geometry/shapes.c). */
typedef enum {
  TALUS_SPHERE,
  TALUS_BOX,
  TALUS_PLANE,
  TALUS_CYLINDER, /* radius size[0], half length size[1], its axis the body's z */
  TALUS_CAPSULE,  /* a segment along the body's z of half length size[1], swept by a ball of radius size[0] */
  TALUS_HULL, /* the convex hull of its vertices: size[0] the number of its description (include/talus/shape_data.h) */
  TALUS_COMPOUND, /* several shapes in one rigid body: size[0] the number of its description */
  TALUS_NSHAPES
} TalusShape;

typedef struct {
  const char *name;      /* in scenes, messages and outputs */
  PetscInt    code;      /* stored in checkpoints: never changed, never reused */
  const char *size_key;  /* the scene key that gives the size */
  PetscInt    size_len;  /* 1: a number, size[0]; 2: two numbers, size[0] by size_key and size[1] by size_key2;
                            3: a vector, size[0..2]; 0: a description under size_key, kept in the table of
                            include/talus/shape_data.h, size[0] its number there */
  const char *size_key2; /* the second number's key (size_len 2), or NULL */
  PetscBool   finite;    /* PETSC_FALSE: unbounded, always fixed, replicated on every rank (planes) */
  void (*mass_properties)(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3]);
  PetscReal (*bounding_radius)(const PetscReal size[3]); /* of the sphere about the centre that holds the shape */
  const char *(*check_size)(const PetscReal size[3]);    /* why a size is invalid, or NULL */
  const char *size_hint; /* what a scene's size-out-of-range message adds for this shape ("" or "; ...") */
  /* The size as stored (NULL: as given; a plane's normal made unit); PETSC_FALSE where it cannot be */
  PetscBool (*canonical_size)(PetscReal size[3]);
  /* The surface's curvature 1/r for Hertz's law (seed 004 sec. 6.4; 0: flat); PETSC_FALSE where the
     shape has none to give (a box's corners and edges) */
  PetscBool (*curvature)(const PetscReal size[3], PetscReal *curvature);
  /* The glyph drawn in frames.h5: its full extents along the body's axes */
  void (*glyph_extent)(const PetscReal size[3], PetscReal extent[3]);
  /* NULL, or the number of glyphs a body of this shape is drawn as in frames.h5 instead of its own (a compound:
     its parts; 0: its own); for 0 <= i < that number, glyph i's shape, size, and centre and orientation in the
     body's frame */
  PetscInt (*glyph_parts)(const PetscReal size[3], PetscInt i, TalusShape *shape, PetscReal part_size[3],
                          PetscReal position[3], PetscReal quaternion[4]);
  /* NULL, or the surface frames.h5 draws a body of this shape as instead of its glyph (a hull: its faces): nv corners
     (3 nv numbers, the body's frame) and nt triangles (3 corner numbers each, counterclockwise seen from outside) */
  void (*glyph_mesh)(const PetscReal size[3], PetscInt *nv, const PetscReal **v, PetscInt *nt, const PetscInt **t);
  /* Its face can rest on an elastic foundation (seed 004 sec. 5.5; a material's grid): its contacts with a plane
     from TALUS_FOUNDATION_FEATURE on are the grid's points, sharing the material's K and B */
  PetscBool foundation;
  /* For the general convex pairs (src/geometry/convex.c), in the body's frame, d a unit direction; NULL for an
     unbounded shape. support: the shape's point furthest along d. support_set: its points within tol of the
     furthest along d (tol held below a tenth of its smallest size), which the contacts of two flat features are
     made from: a face's corners (or samples of a round face's rim) in order around it, an edge's two ends, or
     one point; their number (at most TALUS_MAX_SUPPORT_POINTS), with a number for each that names it (a
     contact's feature) */
  void (*support)(const PetscReal size[3], const PetscReal d[3], PetscReal p[3]);
  PetscInt (*support_set)(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                          PetscInt id[]);
  /* NULL, or whether the point x (the body's frame) lies in the shape: for a compound's union volume, which counts
     its parts' overlaps once (src/geometry/compound_overlap.c) */
  PetscBool (*contains)(const PetscReal size[3], const PetscReal x[3]);
} TalusShapeOps;
#define TALUS_MAX_SUPPORT_POINTS 16

PETSC_EXTERN const TalusShapeOps TalusShapeTable[TALUS_NSHAPES];
/* The shape with this name or stored code; PETSC_FALSE if there is none. */
PETSC_EXTERN PetscBool TalusShapeFromName(const char name[], TalusShape *);
PETSC_EXTERN PetscBool TalusShapeFromCode(PetscInt code, TalusShape *);
/* "sphere, box or plane": the names for messages. */
PETSC_EXTERN PetscErrorCode TalusShapeNames(char names[], size_t size);

typedef struct {
  char      name[64];
  PetscReal mu;                 /* friction coefficient */
  PetscReal density;            /* kg/m^3, used when a body gives no mass */
  PetscReal zeta, delta;        /* seed 003's relaxation of its contacts (include/talus/relaxation.h); delta 0: rigid */
  PetscReal stiffness, damping; /* seed 004's compliant contacts: K (N/m), B (N s/m); K 0: rigid */
  PetscInt  grid; /* seed 004 sec. 5.5's elastic foundation: a box face on a plane as grid x grid points sharing K, B */
  PetscReal modulus; /* seed 004 sec. 6.4's Hertz contacts: E* (Pa) in f = E* sqrt(r d^3), damping B; 0: none */
} TalusMaterial;

typedef struct {
  PetscInt    n, capacity;
  PetscInt    nowned;
  PetscInt   *id; /* global id */
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
  PetscInt   *slot; /* index among the finite bodies in id order (rows of frames.h5) */
  PetscInt   *dof;  /* first global velocity dof of a dynamic body (6 per body), -1 if fixed */

  PetscInt       nmaterials;
  TalusMaterial *materials;
  PetscReal     *mu_pair; /* nmaterials^2 table, or NULL: a pair's mu is the smaller of the two */
} TalusBodies;

/* One body, packed: what migrates between ranks and what a ghost copy holds. */
typedef struct {
  PetscInt  id, slot, material, shape, fixed, dof;
  PetscReal size[3], mass, inertia[3], position[3], quaternion[4], velocity[3], omega[3];
} TalusBodyRecord;

/* A finite body (not an unbounded, replicated shape such as a plane): it has a bounding radius, a
   slot among the finite bodies and, unless fixed, velocity dofs. */
PETSC_EXTERN PetscBool TalusBodiesIsFinite(const TalusBodies *, PetscInt k);
/* Moves every dynamic finite body by a uniform random vector of [-amplitude, amplitude]^3 drawn from (seed, its id):
   the same bodies on any number of ranks (src/geometry/body_perturb.c; -perturb_positions, ensembles) */
PETSC_EXTERN PetscErrorCode TalusBodiesPerturbPositions(TalusBodies *, PetscReal amplitude, PetscInt seed);

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
PETSC_EXTERN PetscErrorCode TalusBodiesAddMaterial(TalusBodies *, const char name[], PetscReal mu, PetscReal density,
                                                   PetscInt *index);
PETSC_EXTERN PetscErrorCode TalusBodiesFindMaterial(TalusBodies *, const char name[], PetscInt *index);
/* Material m's contacts relaxed as seed 003 eq. 64 (include/talus/relaxation.h): damping ratio zeta >= 0,
   time constant delta > 0 (s); delta = 0 makes them rigid again. */
PETSC_EXTERN PetscErrorCode TalusBodiesSetMaterialRelaxation(TalusBodies *, PetscInt m, PetscReal zeta,
                                                             PetscReal delta);
/* Material m's contacts compliant as seed 004 eq. 53-62 (include/talus/relaxation.h): normal stiffness K > 0
   (N/m) and damping B >= 0 (N s/m); K = 0 makes them rigid again. Not with a relaxation. */
PETSC_EXTERN PetscErrorCode TalusBodiesSetMaterialCompliance(TalusBodies *, PetscInt m, PetscReal stiffness,
                                                             PetscReal damping);
/* Material m, compliant, an elastic (Winkler) foundation (seed 004 sec. 5.5): a box that touches a
   plane, either of them of this material, does so at grid x grid points on its face nearest the plane,
   each with K / grid^2 and B / grid^2 (K, B: the whole face's); 0: its corners, as rigid boxes. */
#define TALUS_MAX_FOUNDATION_GRID 100
PETSC_EXTERN PetscErrorCode TalusBodiesSetMaterialFoundation(TalusBodies *, PetscInt m, PetscInt grid);
/* Material m's contacts Hertzian (seed 004 eq. 121-123, docs/compliance.md): f = E* sqrt(r d^3) at depth
   d, r the contact's radius, linearised each step (the secant stiffness E* sqrt(r d)); modulus E* > 0
   (Pa: the classical (4/3) E / (1 - nu^2)), damping B >= 0 (N s/m); modulus 0 makes them rigid again.
   Not with a stiffness, a foundation or a relaxation; only spheres and planes may carry it. */
PETSC_EXTERN PetscErrorCode TalusBodiesSetMaterialHertz(TalusBodies *, PetscInt m, PetscReal modulus,
                                                        PetscReal damping);
/*
 * Appends a body with zero velocity and identity orientation. size: radius (sphere), half-extents
 * (box) or outward normal (plane, normalised here). mass <= 0 means "from the material's density".
 * Planes are always fixed. Returns its local index.
 */
PETSC_EXTERN PetscErrorCode TalusBodiesAdd(TalusBodies *, PetscInt id, TalusShape, const PetscReal size[3],
                                           PetscReal mass, PetscInt material, PetscBool fixed,
                                           const PetscReal position[3], PetscInt *index);
PETSC_EXTERN PetscReal      TalusBodiesPairFriction(const TalusBodies *, PetscInt a, PetscInt b);
/* the velocity of body k's material at the world-frame lever arm S from its centre: v + omega x S
   (a fixed body's: its surface velocity, or a prescribed body's) */
PETSC_EXTERN void TalusBodyPointVelocity(const TalusBodies *, PetscInt k, const PetscReal S[3], PetscReal v[3]);
/* Mass and principal inertia of a solid shape of the given density (the shape's table entry). */
PETSC_EXTERN void TalusShapeMassProperties(TalusShape, const PetscReal size[3], PetscReal density, PetscReal *mass,
                                           PetscReal inertia[3]);
/* Radius of the sphere around the centre that contains the shape (infinite for planes). */
PETSC_EXTERN PetscReal TalusBodiesBoundingRadius(const TalusBodies *, PetscInt b);
/* The fastest speed of a point of body k: |v| + |omega| r, r its bounding radius (an unbounded body's: |v|). */
PETSC_EXTERN PetscReal TalusBodiesSurfaceSpeed(const TalusBodies *, PetscInt k);
/* Every body's bounding radius, -1 for an unbounded one (a plane): radius[] has room for b->n. */
PETSC_EXTERN void TalusBodiesBoundingRadii(const TalusBodies *, PetscReal radius[]);
/* Body k's angular velocity in the world frame, A omega (the bodies keep it in their own frame, seed 000 sec. 1). */
PETSC_EXTERN void TalusBodiesGetAngularVelocityWorld(const TalusBodies *, PetscInt k, PetscReal w[3]);
/* Kinetic energy of the owned dynamic bodies (translation plus rotation), local sum. */
PETSC_EXTERN PetscReal TalusBodiesKineticEnergyLocal(const TalusBodies *);
/* Gravity's potential energy of this rank's owned dynamic bodies, -sum m g . x. */
PETSC_EXTERN PetscReal TalusBodiesGravityEnergyLocal(const TalusBodies *, const PetscReal gravity[3]);
/* This rank's owned bodies' sums for a step's statistics: the finite bodies, the kinetic and gravity's potential
   energy, and the farthest a dynamic body moves in dt at its velocity, with its id (-1: none moves). */
typedef struct {
  PetscInt  finite, fastest;
  PetscReal kinetic, gravity, travel;
} TalusBodiesSums;
PETSC_EXTERN void TalusBodiesSumsLocal(const TalusBodies *, const PetscReal gravity[3], PetscReal dt,
                                       TalusBodiesSums *);

#endif
