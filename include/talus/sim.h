/*
 * The time stepper (seed 000 eq. 9): a TalusSim owns the bodies, finds the contacts, poses and
 * solves the CCP of each step and integrates. On P ranks each rank owns the bodies in its region
 * of a recursive coordinate bisection (decomp/), sees ghost copies of its neighbours' bodies,
 * keeps the contacts whose lower-id dynamic body it owns, and contributes their rows to one
 * distributed CCP.
 */
#ifndef TALUS_SIM_H
#define TALUS_SIM_H
#include <talus.h>
#include <talus/math3.h>
#include <talus/contacts.h>
#include <talus/joints.h>
#include <talus/drives.h>

typedef struct {
  PetscInt           step;
  PetscReal          t;
  PetscInt           bodies, contacts, joints, warm_started;
  PetscReal          joint_drift, joint_angle_drift; /* largest joint violation before the step: m, rad */
  PetscInt           iterations;
  PetscInt           finish_iterations; /* -ccp_finish's sweeps (its answer kept), included in iterations, else 0 */
  PetscInt           linear_iterations; /* the Krylov iterations of the solver's linear systems (newton_ccp), else 0 */
  PetscInt           screened;          /* the contacts left out of the problem as apart (-contact_screen) */
  PetscInt           solves;            /* the problem's solves: 1, more when a screened pair would have closed */
  TaoConvergedReason reason;
  PetscReal          residual;
  PetscReal          kinetic_energy;
  PetscReal          potential_energy;          /* of gravity (-m g . x) and the springs, after the step */
  PetscReal          max_penetration;           /* max(0, -Phi) over contacts before the step */
  PetscReal          complementarity_error;     /* max_i |gamma_n (Phi/h + v_n)| after the step (seed 001 eq. 8) */
  PetscReal          support_force_over_weight; /* force on fixed bodies along gravity / weight of dynamic bodies */
  /* Per contact, the natural-map residual in force units (N): |r - Pi_K(r - u~ / N_nn)| / h, with r
     the impulse, u~ the velocity the problem's dual condition measures (De Saxce's for Coulomb) and
     N_nn the contact's diagonal entry of N (1 / effective mass); max and RMS over contacts. */
  PetscReal force_residual_max, force_residual_rms;
  /* the largest over the weight of the contact's lighter dynamic body, and that body's id */
  PetscReal force_residual_max_over_weight;
  PetscInt  force_residual_max_body;
  /* -ccp_force_check: whether this step was checked; then the largest dynamic body's contact-force error
     against the tight reference, over its weight, that body's id, whether the reference met its tolerance */
  PetscBool force_checked, force_check_converged;
  PetscReal force_error_max;
  PetscInt  force_error_body;
  PetscReal wall_step, wall_collide, wall_assemble, wall_solve, wall_integrate, wall_migrate, wall_ghost;
  /* per-rank spread, for load balance */
  PetscInt  bodies_min, bodies_max, contacts_min, contacts_max;
  PetscReal imbalance; /* max / mean over ranks of (owned bodies + owned contacts) */
  /* communication, max over ranks: bytes received per product with N (the ghost velocities of B's
     columns gathered by MatMult, the same volume sent back by MatMultTranspose), and bytes of ghost
     body records received this step */
  PetscReal bytes_per_product, ghost_bytes;
} TalusStepStats;

typedef struct {
  PetscInt       bodies_lost, rebalances, ghosts;
  PetscReal      imbalance;
  PetscLogDouble seconds_migrate, seconds_ghost;
} TalusParallelStats;

typedef struct _p_TalusSim *TalusSim;

PETSC_EXTERN PetscErrorCode TalusSimCreate(MPI_Comm, TalusSim *);
PETSC_EXTERN PetscErrorCode TalusSimDestroy(TalusSim *);
PETSC_EXTERN PetscErrorCode TalusSimGetBodies(TalusSim, TalusBodies **);
PETSC_EXTERN PetscErrorCode TalusSimSetGravity(TalusSim, const PetscReal g[3]);
PETSC_EXTERN PetscErrorCode TalusSimGetGravity(TalusSim, PetscReal g[3]);
PETSC_EXTERN PetscErrorCode TalusSimSetTimeStep(TalusSim, PetscReal dt);
PETSC_EXTERN PetscErrorCode TalusSimSetFinalTime(TalusSim, PetscReal t_final);
PETSC_EXTERN PetscErrorCode TalusSimSetEnvelope(TalusSim, PetscReal envelope);
PETSC_EXTERN PetscErrorCode TalusSimSetAntiRelaxation(TalusSim, PetscBool);
/* B applied matrix-free from a compact record per contact (default) or assembled (-ccp_matrix_free). */
PETSC_EXTERN PetscErrorCode TalusSimSetMatrixFree(TalusSim, PetscBool);
/* -joint_lookahead: rigid and compliant two-sided joint rows linearised at q + theta h v, theta in [0, 1]
   (default 1: the step's predicted end, no energy gain; 0: at q, seed 000 eq. 9c; docs/mechanisms.md) */
PETSC_EXTERN PetscErrorCode TalusSimSetJointLookahead(TalusSim, PetscReal theta);
/* -contact_near_rigid BETA (default 1), -contact_friction_sigma SIGMA (default 0): contact rows'
   compliance at least BETA^2 w_n / (4 pi^2) (normal) and SIGMA w_t (tangents), w the row's diagonal
   entry of N (docs/compliance.md, "The near-rigid floor"); 0, 0: seed 000's rigid rows */
PETSC_EXTERN PetscErrorCode TalusSimSetContactFloor(TalusSim, PetscReal beta, PetscReal sigma);
PETSC_EXTERN PetscErrorCode TalusSimSetContactScreen(TalusSim, PetscReal factor);
/* The screening factor in effect: -contact_screen's, or 0 where the run's form of B cannot check screened pairs
   (-ccp_matrix_free false) */
PETSC_EXTERN PetscErrorCode TalusSimGetContactScreen(TalusSim, PetscReal *factor);
/* The solver of every step's CCP (made from the options on first use): its Tao can be tuned
   between steps (tolerances, iteration limits, monitors). Do not destroy it. */
PETSC_EXTERN PetscErrorCode TalusSimGetCCP(TalusSim, TalusCCP *);
/* Makes what the steps use that the options choose (the contact solver: -ccp_problem, -tao_type and theirs), once
   the settings it depends on are made (gravity, time step, anti-relaxation, TalusSimSetFromOptions's options).
   TalusSimGetCCP calls it; TalusSimStep refuses a simulation that is not set up. */
PETSC_EXTERN PetscErrorCode TalusSimSetUp(TalusSim);
/* -ccp_force_rtol: solve each step to the residual rtol |g| h (m/s) instead of -tao_gatol, which keeps
   each body's contact force within about 5 rtol of its weight (docs/solver.md); 0: -tao_gatol's */
PETSC_EXTERN PetscErrorCode TalusSimSetContactForceTolerance(TalusSim, PetscReal rtol);
/* the norm the contact solver's tolerance bounds (-tao_residual_norm: the largest contact's, or the 2-norm) */
PETSC_EXTERN PetscErrorCode TalusSimGetResidualNorm(TalusSim, TaoResidualNorm *);
/* the contact solver's tolerance (m/s), and -ccp_force_rtol when it set it (else 0) */
PETSC_EXTERN PetscErrorCode TalusSimGetContactTolerance(TalusSim, PetscReal *tolerance, PetscReal *force_rtol);
PETSC_EXTERN PetscErrorCode TalusSimSetFromOptions(TalusSim);
/* Bodies leaving this box are removed with a warning (counted in bodies_lost). */
PETSC_EXTERN PetscErrorCode TalusSimSetDomain(TalusSim, const PetscReal lo[3], const PetscReal hi[3]);
/*
 * Before the first step, the first n bodies (ids 0 .. n-1 in that order) are held by every rank and
 * each of the others by one rank (a scene's generated spheres, made in parallel: their ids follow
 * on). Unset, every rank holds every body.
 */
PETSC_EXTERN PetscErrorCode TalusSimSetReplicatedBodies(TalusSim, PetscInt n);
/*
 * Numbers the finite bodies for the frames, partitions them (from what each rank holds: nothing is
 * gathered), sends each to its owner and keeps on each rank the ones it owns (planes stay
 * everywhere). Called by the first TalusSimStep() if not before.
 */
PETSC_EXTERN PetscErrorCode TalusSimDistribute(TalusSim);
PETSC_EXTERN PetscErrorCode TalusSimGetParallelStatistics(TalusSim, TalusParallelStats *);
/*
 * Checks the distribution (collective; for tests and debugging): every finite body owned by
 * exactly one rank and none lost (beyond the ones removed at the domain's edge), and every ghost a
 * bitwise copy of its owner's body. Counts are global.
 */
typedef struct {
  PetscInt owned, duplicated, missing, ghosts, ghost_mismatches;
} TalusDistributionReport;
PETSC_EXTERN PetscErrorCode TalusSimVerifyDistribution(TalusSim, TalusDistributionReport *);
/* Every finite body's record, in id order, on every rank (collective; for tests and output). */
PETSC_EXTERN PetscErrorCode TalusSimGatherBodies(TalusSim, PetscInt *n, TalusBodyRecord **records);
/* Finite bodies (spheres, boxes) at the start of the run: the rows of a frame. */
PETSC_EXTERN PetscErrorCode TalusSimGetFiniteBodyCount(TalusSim, PetscInt *);
PETSC_EXTERN PetscErrorCode TalusSimGetTime(TalusSim, PetscReal *t, PetscReal *t_final, PetscReal *dt);
/* Steps taken since the start of the run (restarts included). */
PETSC_EXTERN PetscErrorCode TalusSimGetStep(TalusSim, PetscInt *step);
/* The last step's contacts kept by this rank (their local body indices are stale after migration: use id_a, id_b). */
PETSC_EXTERN PetscErrorCode TalusSimGetContacts(TalusSim, const TalusContactList **);
/* ---------------------------------------------------------------- joints (docs/mechanisms.md) */

/* Adds a joint described in the world at the bodies' present poses (collective, the same on every
   rank; before the first step). *index: its number, in the order joints are added. */
PETSC_EXTERN PetscErrorCode TalusSimAddJoint(TalusSim, const TalusJointSpec *, PetscInt *index);
/* Whether TalusSimAddJoint would take the spec: *why NULL, or the reason it would refuse it. */
PETSC_EXTERN PetscErrorCode TalusSimCheckJoint(TalusSim, const TalusJointSpec *, const char **why);
/* The joints, the first row of each (n + 1 entries) and the last step's impulse of every row
   (h times the force or torque), the same on every rank. */
PETSC_EXTERN PetscErrorCode TalusSimGetJoints(TalusSim, PetscInt *n, const TalusJoint **, const PetscInt **row_start,
                                              const PetscReal **impulse);
/* The last step's force and torque of each joint on its body B (the second of its bodies), then on
   body A: 12 numbers per joint, world frame, N and N m about the body's centre; NULL before the
   first step. A driver's actuation is its torque (force) along its axis. The same on every rank. */
PETSC_EXTERN PetscErrorCode TalusSimGetJointWrenches(TalusSim, const PetscReal **wrench);
/* What a watch measured over the last step (TalusSimGetWatch): the force and torque (world frame,
   N and N m) that contacts and joints with bodies outside the group exert on it, the torque about
   the body's centre (one body) or the group's centre of mass; for a group of two or more, its bodies,
   mass, centre of mass and its velocity (the mean of the centres when it has no mass: fixed or
   prescribed bodies; a single body's own state is in TalusSimGatherBodies). */
typedef struct {
  PetscInt  bodies;
  PetscReal mass, centre[3], velocity[3], force[3], torque[3];
} TalusWatchMeasure;
/* Watches a group of n bodies by id (n = 1: one body) from the next step on; *index names it. */
PETSC_EXTERN PetscErrorCode TalusSimAddWatch(TalusSim, PetscInt n, const PetscInt ids[], PetscInt *index);
PETSC_EXTERN PetscErrorCode TalusSimGetWatch(TalusSim, PetscInt index, TalusWatchMeasure *);
/* Each joint drawn as a path through the world now: A's centre, A's anchor, B's anchor, B's centre
   (12 numbers a joint; a world side's centre is its anchor; collective). */
PETSC_EXTERN PetscErrorCode TalusSimGetJointAnchors(TalusSim, PetscReal points[]);
/* Joint j's rows at the present configuration and time (collective). */
PETSC_EXTERN PetscErrorCode TalusSimEvaluateJoint(TalusSim, PetscInt j, TalusJointRowTerms rows[]);

/* ---------------------------------------------------------------- drives (include/talus/drives.h) */

/* Body motion->body follows the motion from now (made fixed: out of the velocity space). Before the
   first step, as are the others below. */
PETSC_EXTERN PetscErrorCode TalusSimAddPrescribedMotion(TalusSim, const TalusPrescribedMotion *);
/* A fixed body's material moves at v + w x (x - centre), world frame (a conveyor); it stays put. */
PETSC_EXTERN PetscErrorCode TalusSimSetSurfaceVelocity(TalusSim, PetscInt id, const PetscReal v[3],
                                                       const PetscReal w[3]);
PETSC_EXTERN PetscErrorCode TalusSimAddLoad(TalusSim, const TalusLoad *);
/* A spring between the world points points[0] (on body[0]) and points[1] (on body[1]) now;
   *stability: its h^2 K / m + 2 h C / m (refused at 4 and above). */
PETSC_EXTERN PetscErrorCode TalusSimAddSpring(TalusSim, const TalusSpring *, const PetscReal points[2][3],
                                              PetscReal *stability);
/* The stability number TalusSimAddSpring would find, without adding the spring. */
PETSC_EXTERN PetscErrorCode TalusSimCheckSpring(TalusSim, const TalusSpring *, const PetscReal points[2][3],
                                                PetscReal *stability);
PETSC_EXTERN PetscErrorCode TalusSimGetDrives(TalusSim, PetscInt *nprescribed, const TalusPrescribedMotion **,
                                              PetscInt *nloads, const TalusLoad **, PetscInt *nsprings,
                                              const TalusSpring **);
/* A piecewise-linear table of time (include/talus/table.h): npoints rows of (t, columns values);
   *handle names it in drivers' motions, prescribed motions and loads. */
PETSC_EXTERN PetscErrorCode TalusSimAddTable(TalusSim, PetscInt columns, PetscInt npoints, const PetscReal data[],
                                             PetscInt *handle);
PETSC_EXTERN PetscErrorCode TalusSimGetTables(TalusSim, PetscInt *n, const TalusTable **);
/* Body id moves in the plane normal to normal[] from now (a dynamic body; its velocity and angular
   velocity are projected onto the plane's motions). Needs the matrix-free B and a solver on it. */
PETSC_EXTERN PetscErrorCode TalusSimAddPlanar(TalusSim, PetscInt id, const PetscReal normal[3]);
PETSC_EXTERN PetscErrorCode TalusSimGetPlanar(TalusSim, PetscInt *n, const TalusPlanar **);
/* Gravity's and the springs' potential energy of the present configuration (collective). */
PETSC_EXTERN PetscErrorCode TalusSimGetPotentialEnergy(TalusSim, PetscReal *);

/* ---------------------------------------------------------------- the state, for checkpoints */

/* The simulator's state besides its bodies, materials and warm starts: what a checkpoint keeps and
   a restart gives back (TalusSimGetState, TalusSimRestore). */
typedef struct {
  PetscInt  step; /* steps taken since the start of the run */
  PetscReal t, dt, t_final;
  PetscReal gravity[3], envelope;
  PetscBool anti_relax;
  PetscBool has_domain;
  PetscReal domain_min[3], domain_max[3];
  PetscReal rmax;        /* largest bounding radius of a finite body */
  PetscInt  nfinite;     /* finite bodies at the start of the run: the slots, the rows of frames */
  PetscInt  bodies_lost; /* removed at the domain's edge since the start (global) */
  PetscInt  rebalances;
  PetscInt  decomp_last_rebalance, decomp_cooldown; /* the decomposition's back-off (decomp.h) */
} TalusSimState;

/* What TalusSimRestore loads into a new, empty simulator: the core's state. The modules' (joints, drives,
   tables, planar bodies) is read by their checkpoint sections first (include/talus/module.h). */
typedef struct {
  TalusSimState        state;
  PetscInt             nmaterials;
  const TalusMaterial *materials;
  const PetscReal     *mu_pair; /* nmaterials^2 friction table, or NULL */
  /* the unbounded bodies (planes): all of them, the same on every rank */
  PetscInt               nplanes;
  const TalusBodyRecord *planes;
  /* this rank's share of the finite bodies and the rank each goes to */
  PetscInt           nbodies;
  TalusBodyRecord   *bodies;
  const PetscMPIInt *body_rank;
  /* this rank's share of the warm starts and the rank each goes to (that of the body that keeps it) */
  PetscInt             nhistory;
  TalusContactHistory *history;
  const PetscMPIInt   *history_rank;
} TalusSimSnapshot;

PETSC_EXTERN PetscErrorCode TalusSimGetComm(TalusSim, MPI_Comm *);
PETSC_EXTERN PetscErrorCode TalusSimGetState(TalusSim, TalusSimState *);
/* The warm starts this rank keeps (the last step's contacts, sorted by (id_a, id_b, feature)). */
PETSC_EXTERN PetscErrorCode TalusSimGetHistory(TalusSim, PetscInt *n, const TalusContactHistory **);
/*
 * Sends items[k] (bytes each) to rank dest[k]; *recv gets what this rank receives (collective). When
 * no rank sends anything away, the items stay as they are and *recv = items: free *recv only when it
 * is not items.
 */
PETSC_EXTERN PetscErrorCode TalusSimExchange(TalusSim, PetscInt n, const PetscMPIInt dest[], size_t bytes, void *items,
                                             PetscInt *nrecv, void **recv);
/*
 * Before a checkpoint: the owned bodies in id order (the canonical layout a restart rebuilds). After
 * it, on several ranks, a fresh partition of them, so that the regions of the run that goes on and
 * of a run restarted on as many ranks come from the same input (docs/checkpoint-format.md).
 */
PETSC_EXTERN PetscErrorCode TalusSimCanonicalize(TalusSim);
PETSC_EXTERN PetscErrorCode TalusSimRepartition(TalusSim);
/*
 * Loads a snapshot into a new, empty simulator (collective, any number of ranks): the materials,
 * the planes on every rank, the bodies and warm starts moved to the ranks given, the state; then
 * the partition the run that wrote the snapshot made right after writing it (TalusSimRepartition).
 */
PETSC_EXTERN PetscErrorCode TalusSimRestore(TalusSim, const TalusSimSnapshot *);

/* One step: collide, assemble, solve, integrate. */
PETSC_EXTERN PetscErrorCode TalusSimStep(TalusSim, TalusStepStats *);

/* ---------------------------------------------------------------- a step's problem, for others */

/*
 * A monitor called by TalusSimStep after the solve and before the impulses are applied, with the
 * step's statistics so far (step, t, iterations, residual, reason). Within it, and only there,
 * TalusSimGetStepProblem gives the step's contact problem in FCLib's two forms.
 */
typedef PetscErrorCode (*TalusSimProblemMonitorFn)(TalusSim, const TalusStepStats *, void *ctx);
PETSC_EXTERN PetscErrorCode TalusSimSetProblemMonitor(TalusSim, TalusSimProblemMonitorFn, void *ctx,
                                                      PetscErrorCode (*destroy)(void **ctx));
/*
 * The contact problem of the step being taken (collective; within a problem monitor only), assembled
 * with the body-frame angular velocities of seed 000 and a diagonal M, whatever form B takes in the
 * run: local W = B M^-1 B^T, q = b + B v_free, mu; global M, H = B^T, f = M v_free, w = b (seed
 * 000 eq. 13-14; the same problem, W = H^T M^-1 H and q = w + H^T M^-1 f). With compliant rows or
 * the contacts' floor the local W is N + E, the problem the step solves, and the global form, which
 * has no place for E, is left empty (global->M NULL). The caller destroys
 * both with TalusFCLibProblemDestroy and TalusFCLibGlobalDestroy. The warm start (the impulses the
 * solve started from) goes to *warm_start if it is not NULL.
 */
/*
 * The diagonal of the step's N = B M^-1 B^T, row by row in the order of the step's problem, from
 * the bodies' masses and inertias block by block (collective; after the step's contacts are found,
 * e.g. within a problem monitor). 1 / N_nn is a contact's effective mass; -ccp_scale scales by it.
 */
PETSC_EXTERN PetscErrorCode TalusSimGetDelassusDiagonal(TalusSim, Vec *diagonal);
PETSC_EXTERN PetscErrorCode TalusSimGetStepProblem(TalusSim, TalusFCLibProblem *local, TalusFCLibGlobal *global,
                                                   Vec *warm_start);

PETSC_EXTERN PetscLogEvent TALUS_EventCollide, TALUS_EventAssemble, TALUS_EventSolve, TALUS_EventIntegrate,
  TALUS_EventOutput, TALUS_EventCheckpointWrite, TALUS_EventCheckpointRead, TALUS_EventSceneGenerate,
  TALUS_EventScenePlacement, TALUS_EventDistribute;

#endif
