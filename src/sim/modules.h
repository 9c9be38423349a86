/*
 * What the simulator's own modules (include/talus/module.h) see of it besides the public API: their
 * records, and the core's few functions they call. A module's file includes this header, not the
 * core's private one, so that it owns its state and reaches the rest through functions.
 */
#ifndef TALUS_SIM_MODULES_H
#define TALUS_SIM_MODULES_H
#include <talus/module.h>
#include <talus/joints.h>
#include <talus/drives.h>
#include <talus/math3.h>
#include <talus/relaxation.h>

/* talus's modules, registered in this order by TalusSimRegisterModules (modules.c) */
PETSC_INTERN const TalusSimModuleOps TalusMaterialsModule; /* materials.c: relaxation checked, slack Hertz dropped */
PETSC_INTERN const TalusSimModuleOps TalusTablesModule;    /* tables.c: the tables of time */
PETSC_INTERN const TalusSimModuleOps TalusJointsModule;    /* joints.c: joints, drivers, limits */
PETSC_INTERN const TalusSimModuleOps TalusDrivesModule;    /* drives.c: prescribed motions, loads, springs */
PETSC_INTERN const TalusSimModuleOps TalusPlanarModule;    /* planar.c: bodies that move in a plane */
PETSC_INTERN const TalusSimModuleOps TalusWatchesModule;   /* probe.c: the watched bodies' and groups' forces */
PETSC_INTERN const TalusSimModuleOps TalusRigModule;       /* rig.c: a single-wheel rig's slip, pull, torque, sinkage */

/* What a module's functions read of the simulation most (sim_getters.c): its communicator, bodies and clock
   (t the step's start, dt its length), the largest bounding radius of a finite body (what a step may move a
   body: the ghosts' reach), this step's contacts (from TALUS_HOOK_AFTER_COLLIDE on; a module may drop some there,
   as the materials module drops seed 004's slack Hertzian ones), with the module's state */
typedef struct {
  MPI_Comm          comm;
  TalusBodies      *b;
  PetscReal         t, dt, rmax;
  TalusContactList *contacts;
} TalusSimModuleView;
PETSC_INTERN PetscErrorCode TalusSimGetModuleView(TalusSim, const TalusSimModuleOps *, TalusSimModuleView *,
                                                  void **state);
/* tables.c: *why NULL if handle (0: none) names a table of that many value columns, else why not */
PETSC_INTERN PetscErrorCode TalusSimTableFault(TalusSim, PetscInt handle, PetscInt columns, const char **why);
/* linked.c: bodies a module links (by id, at any distance: found on every step, their ghosts made where the
   links need them); a linked body's local index by id (-1: the world, -2: not on this rank), found among
   the bodies [from, n) by TalusSimMapLinked (0: afresh); body id's index while every rank holds every
   body (before the first step), or -1; the poses of bodies by id on every rank, from their owners
   (collective, between steps) */
PETSC_INTERN PetscErrorCode TalusSimLinkBodies(TalusSim, PetscInt n, const PetscInt ids[]);
PETSC_INTERN PetscInt       TalusSimLinkedIndex(TalusSim, PetscInt id);
PETSC_INTERN PetscErrorCode TalusSimMapLinked(TalusSim, PetscInt from);
PETSC_INTERN PetscInt       TalusSimFindBody(TalusSim, PetscInt id);
PETSC_INTERN PetscErrorCode TalusSimGatherPoses(TalusSim, PetscInt n, const PetscInt ids[], TalusPose poses[]);
/* sim_getters.c: refuses a link given after the bodies are distributed (`what` names it) */
PETSC_INTERN PetscErrorCode TalusSimCheckBeforeStart(TalusSim, const char what[]);
/* sim_getters.c: the step's applied wrenches (force, torque in the world, 6 per owned body): the last
   step's freed and, with any, made zeroed for this one (else NULL), read by the free velocities */
PETSC_INTERN PetscErrorCode TalusSimResetWrenches(TalusSim, PetscBool any, PetscReal **wrench);

/* One row of a joint in this step's CCP (joints.c builds them, joint_kind.c is their constraint kind): its
   bodies, its row of B in the world frame (TalusJointRowTerms), its linear term g / h + g_t (seed 000
   eq. 9c) and impulse. */
typedef struct {
  PetscInt  a, b;       /* local body indices (owned or ghost), -1 for the world */
  PetscInt  joint;      /* its joint */
  PetscInt  row;        /* among all joints' rows */
  PetscReal G[2][6];    /* side A, side B: linear, then angular (world) */
  PetscReal bias;       /* g / h + g_t */
  PetscReal compliance; /* E = 1 / (h^2 K + h B) of a compliant joint (seed 004 eq. 60), 0 for a rigid one */
  PetscReal impulse;    /* warm start in, solution out */
} TalusJointRow;
/* sim_getters.c: this step's joint rows for the CCP (the rows stay the joints module's): nlimit
   non-negative rows first, then two-sided ones; the largest violations before the step (lengths, angles) */
PETSC_INTERN PetscErrorCode TalusSimSetJointRows(TalusSim, PetscInt n, PetscInt nlimit, TalusJointRow rows[],
                                                 const PetscReal drift[2]);
/* sim_getters.c: whether the bodies are distributed (the first step has begun) */
PETSC_INTERN PetscErrorCode TalusSimGetDistributed(TalusSim, PetscBool *);
/* What the core needs to know of the joints between steps, published by the joints module whenever
   they change (sim_getters.c keeps it): how many (the statistics, refusals), whether any is compliant (the
   problem is N + E), the pairs of bodies they hold together (sorted (a, b), a < b: they do not collide;
   the array stays the module's) */
typedef struct {
  PetscInt        njoints;
  PetscBool       compliant;
  PetscInt        njointed;
  const PetscInt *jointed;
} TalusSimJointsInfo;
PETSC_INTERN PetscErrorCode TalusSimSetJointsInfo(TalusSim, const TalusSimJointsInfo *);

/* doubles of a body's M^-1 record in the matrix-free B: 1 / m, then A J^-1 A^T as xx yy zz xy xz yz */
#define TALUS_INVERSE_MASS 7
/* The matrix-free step's body space (the body_space op; or only `assembled` when the assembled builder
   asks whether every module can do without it): per local body its slot in the body vector (-1:
   none), per slot the free velocity (6, world frame) and M^-1 record (TALUS_INVERSE_MASS, world frame),
   per owned body the step's applied wrench (6, or NULL: none); B once made (else NULL) */
struct _TalusSimBodySpace {
  const char      *assembled; /* an assembled B (which bodies' M^-1 a module cannot change): what asked for it */
  const PetscInt  *slot;
  PetscScalar     *v_free;
  PetscReal       *inverse_mass;
  const PetscReal *wrench;
  Mat              B;
};
/* jacobian_shell.c: the owned slots whose bodies move in a plane (normal: 3 per slot): the matrix-free
   M^-1 drops their velocity's out-of-plane part (their records hold the planar angular part already).
   Arrays stay the caller's. */
PETSC_INTERN PetscErrorCode TalusJacobianSetPlanar(Mat B, PetscInt n, const PetscInt slot[], const PetscReal normal[]);

#endif
