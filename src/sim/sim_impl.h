/* The simulator's private state: the core's (sim.c, sim_state.c, distribute.c, the step's files, the
   builders of B) and, until they are modules, the features' (drives, joints, planar bodies, links).
   Nothing outside the simulator includes it, and no module (modules.h) does. */
#ifndef TALUS_SIM_IMPL_H
#define TALUS_SIM_IMPL_H
#include <talus/sim.h>
#include <talus/joints.h>
#include <talus/drives.h>
#include "../grow.h"
#include <decomp.h>
#include "modules.h"
#include "jacobian_shell.h"

/* The regularisation floor of contact rows (contact_kind.c, ContactFloor; after Drake's SAP, Castro et
   al. 2022): a normal row's E at least beta^2 w_n / (4 pi^2), a tangent's at least sigma w_t, w the
   row's diagonal entry of N. beta = sigma = 0: seed 000's rigid rows. */
typedef struct {
  PetscReal beta, sigma;
} TalusContactFloor;

/* -ccp_force_check (step_force_check.c): the reference solves' tolerance RTOL |g| h (0: no check), every how
   many steps, their iteration limit */
typedef struct {
  PetscReal rtol;
  PetscInt  every, max_it;
} TalusForceCheck;

struct _p_TalusSim {
  MPI_Comm         comm;
  PetscMPIInt      rank, size;
  TalusBodies     *bodies;
  TalusContactList contacts; /* this step's contacts kept by this rank */
  /* the first contacts_active of them are the step's problem; the others, separated pairs screened out of it
     (step_screen.c), carry no impulse */
  PetscInt             contacts_active;
  PetscReal            screen; /* -contact_screen: the screening margin's factor (0: every contact in the problem) */
  PetscBool            rank_order; /* -contact_rank_order: B^T g's sums and the joined pairs in one rank's order */
  TalusContactHistory *history;    /* last step's contacts, for warm starts (sorted) */
  PetscInt             nhistory, history_capacity;
  PetscReal            gravity[3], dt, t, t_final, envelope;
  PetscReal            gravity_norm; /* |g|, kept with gravity (TalusSimSetGravity): the step reads it often */
  PetscInt             step;
  PetscBool            anti_relax;
  PetscReal            force_rtol; /* -ccp_force_rtol: the solver's tolerance is force_rtol |g| h (0: -tao_gatol's) */
  TalusForceCheck      force_check;
  PetscBool            perturbed; /* -perturb_positions done (or a restart's bodies, which it moved already) */
  /* the builder of the form of B (jacobian_builder.h): matrix-free, from per-contact records (jacobian_shell.c), or
     assembled (TalusSimSetMatrixFree, -ccp_matrix_free) */
  const struct _TalusJacobianBuilderOps *builder;
  PetscReal
    *jacobian; /* the matrix-free B's records (up to TALUS_JACOBIAN_GENERAL per contact), kept from step to step */
  PetscInt  *jacobian_slot; /* and their body slots (2 per contact) */
  char      *jacobian_kind; /* and their kinds (lengths) */
  PetscInt   jacobian_capacity;
  PetscReal *inverse_mass; /* the matrix-free M^-1 (TALUS_INVERSE_MASS per owned dynamic body), kept likewise */
  PetscInt   inverse_mass_capacity;
  /* the last step's ghosted body vector and its ghosts, kept for the next step while no rank's ghosts or dofs
     change (builder_matrix_free.c) */
  Vec                body_vector;
  PetscInt          *body_vector_ghosts, body_vector_nghost, body_vector_capacity;
  PetscInt          *body_slot, body_slot_capacity; /* each body's slot in this step's body vector (-1: none) */
  TalusCCP           ccp;
  TalusSimJointsInfo joints_info; /* the joints' count, compliance and jointed pairs (TalusSimSetJointsInfo) */
  /* this step's joint rows (the joints module's, TalusSimSetJointRows): the limits' one-sided rows first
     (nlimit_rows_local, the CCP's non-negative rows), then the two-sided ones (its free rows) */
  TalusJointRow *joint_rows;
  PetscInt       njoint_rows_local, nlimit_rows_local;
  /* this rank's largest violation before the step: lengths (m), angles (rad) (the step's statistics reduce them) */
  PetscReal         joint_drift[2];
  TalusContactFloor contact_floor; /* -contact_near_rigid, -contact_friction_sigma (contact_kind.c) */
  PetscReal        *joint_record;  /* the matrix-free B's joint rows (12 doubles each) and body slots (2) */
  PetscInt         *joint_record_slot, joint_record_capacity;
  /* this step's applied force and torque (world) per owned body, or NULL: none (the drives module's loads
     and springs, TalusSimResetWrenches) */
  PetscReal *wrench;
  /* module.c: each registered module's state (include/talus/module.h), indexed as the registry */
  void   **module_states;
  PetscInt nmodule_states;
  /* linked.c: the bodies joints, springs, loads and prescribed motions name, sorted */
  PetscInt  nlinked, *linked_ids;
  PetscInt *linked_local; /* their local indices (owned or ghost, -1: not here) this step: TalusSimMapLinked */
  /* the problem monitor (TalusSimSetProblemMonitor), and whether TalusSimStep is inside it */
  TalusSimProblemMonitorFn problem_monitor;
  void                    *problem_monitor_ctx;
  PetscErrorCode (*problem_monitor_destroy)(void **);
  PetscBool in_problem_monitor;
  PetscInt  ndynamic, dof_start; /* owned dynamic bodies; first global dof of this rank (TalusSimNumberDofs) */

  /* decomposition */
  TalusDecomp    decomp;
  PetscBool      distributed; /* TalusSimDistribute() done */
  PetscInt       nreplicated; /* before it: the first bodies, held by every rank (TalusSimSetReplicatedBodies) */
  PetscReal      rmax;        /* largest bounding radius of a finite body */
  PetscBool      has_domain;
  PetscReal      domain_min[3], domain_max[3];
  PetscInt       bodies_lost; /* global count */
  PetscInt       nfinite;     /* global number of finite bodies */
  PetscInt       nghost;
  PetscReal      imbalance;
  PetscInt       rebalances;
  PetscLogDouble seconds_migrate, seconds_ghost;
};

/* The CCP of one step (ccp.c). */
typedef struct {
  Mat B;            /* D^T: 3 rows per owned contact, 6 columns per dynamic body (global dofs) */
  Vec inverse_mass; /* diag(M^-1) of the assembled B (body-frame angular velocities); NULL when matrix-free */
  TalusInverseMassFn apply_inverse_mass; /* M^-1 in the body space of B, whichever form B takes */
  void              *inverse_mass_ctx;
  Vec       v_free, v_plus, gamma, q, mu; /* body-space ones are ghosted, in the world frame, when B is matrix-free */
  PetscReal bytes_per_product;            /* bytes of other ranks' velocities one product with B gathers */
  Vec       compliance;                   /* seed 004's E per row (the operator is N + E), or NULL: rigid rows */
  PetscInt  nnonneg, nfree; /* this rank's non-negative and free rows, after its cones (the feasible set's) */
} TalusStepCCP;

PETSC_INTERN PetscErrorCode TalusSimAssembleCCP(TalusSim, TalusStepCCP *);
/* The same in the assembled form, whatever form the run uses (for TalusSimGetStepProblem). */
PETSC_INTERN PetscErrorCode TalusSimAssembleCCPAssembled(TalusSim, TalusStepCCP *);
/* W = B M^-1 B^T + E formed from an assembled step (its inverse_mass set): the operator the step's
   problem has, for the solvers that factorise or gather it and for the step's FCLib form. */
PETSC_INTERN PetscErrorCode TalusStepCCPFormOperator(const TalusStepCCP *, Mat *W);
/* v+ = v_free + M^-1 B^T gamma into ccp->v_plus, then (ApplyImpulses) into the bodies and gamma into the blocks */
PETSC_INTERN PetscErrorCode TalusStepCCPVelocities(TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusSimApplyImpulses(TalusSim, TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusSimSetImpulses(TalusSim, TalusStepCCP *);
/* Screening separated pairs out of the step's problem (step_screen.c): before the assembly, and after a solve
   whether a screened pair would close (then it joins the problem and the step solves again) */
PETSC_INTERN PetscErrorCode TalusSimScreenContacts(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimCheckScreened(TalusSim, TalusStepCCP *, PetscInt *joined);
/* One step's figures that need every rank (step_statistics.c): this rank's share of the contacts' after the
   solve, then with the bodies' after they moved, all reduced at once into stats; the travel check. */
#define TALUS_STEP_TOTALS 16
typedef struct {
  PetscReal sum[TALUS_STEP_TOTALS], max[TALUS_STEP_TOTALS];
  PetscInt  force_residual_body; /* the id of the body of this rank's largest force residual over weight */
} TalusStepTotals;
PETSC_INTERN PetscErrorCode TalusSimContactStatistics(TalusSim, TalusStepCCP *, TalusStepStats *, TalusStepTotals *);
PETSC_INTERN PetscErrorCode TalusSimReduceStatistics(TalusSim, TalusStepStats *, TalusStepTotals *);
PETSC_INTERN PetscErrorCode TalusStepCCPDestroy(TalusStepCCP *);
/* -ccp_force_check (step_force_check.c): its options, inside TalusSimSetFromOptions's block; after a step's solve,
   with its problem still set, the bodies' force error against a tight reference into stats */
PETSC_INTERN PetscErrorCode TalusSimForceCheckSetFromOptions(TalusSim, PetscOptionItems *);
PETSC_INTERN PetscErrorCode TalusSimForceCheck(TalusSim, TalusStepCCP *, TalusStepStats *);
/* The matrix-free step's body vector kept for the next step's (builder_matrix_free.c); call before the destroy. */
PETSC_INTERN PetscErrorCode TalusSimKeepBodyVector(TalusSim, TalusStepCCP *);
/* linked.c (besides what modules.h declares): the other ranks that need an owned body as a ghost
   because a link they keep reaches it: n pairs (owned body, rank), sorted by body */
PETSC_INTERN PetscErrorCode TalusSimLinkedGhostRequests(TalusSim, PetscInt *n, PetscInt **body, PetscMPIInt **rank);
/* module.c: the modules' hooks at one point of the step, in their order; their states' release */
PETSC_INTERN PetscErrorCode TalusSimRunHook(TalusSim, TalusSimHook);
PETSC_INTERN PetscErrorCode TalusSimDestroyModules(TalusSim);
/* the modules' potential energy (collective), the pairs of bodies their links join (pairs NULL: the
   count), what of them names body id, for messages: "joint 3 (revolute)", "spring 0", ... (empty if nothing) */
PETSC_INTERN PetscErrorCode TalusSimModulesEnergy(TalusSim, PetscReal *);
/* the modules' options, inside TalusSimSetFromOptions's block */
PETSC_INTERN PetscErrorCode TalusSimModulesSetFromOptions(TalusSim, PetscOptionItems *);
PETSC_INTERN PetscErrorCode TalusSimModulesLinks(TalusSim, PetscInt *n, PetscInt (*pairs)[2]);
PETSC_INTERN PetscErrorCode TalusSimModulesDescribe(TalusSim, PetscInt id, char what[], size_t size);
PETSC_INTERN PetscErrorCode TalusSimModulesBodySpace(TalusSim, const TalusSimBodySpace *);

/* distribute.c */
PETSC_INTERN PetscErrorCode TalusSimNumberDofs(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimBuildGhosts(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimDropGhosts(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimMigrate(TalusSim, PetscBool rebalance);

#endif
