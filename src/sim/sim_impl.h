/* The simulator's private state, shared by sim.c (life cycle), sim_state.c (its state for
   checkpoints), distribute.c (ownership, ghosts, migration), ccp.c and jacobian_shell.c (the CCP of
   a step) and step.c. Nothing outside the simulator includes it. */
#ifndef TALUS_SIM_IMPL_H
#define TALUS_SIM_IMPL_H
#include <talus/sim.h>
#include "../grow.h"
#include <decomp.h>

struct _p_TalusSim {
  MPI_Comm             comm;
  PetscMPIInt          rank, size;
  TalusBodies         *bodies;
  TalusContactList     contacts; /* this step's contacts kept by this rank */
  TalusContactHistory *history;  /* last step's contacts, for warm starts (sorted) */
  PetscInt             nhistory, history_capacity;
  PetscReal            gravity[3], dt, t, t_final, envelope;
  PetscInt             step;
  PetscBool            anti_relax;
  PetscReal            force_rtol;  /* -ccp_force_rtol: the solver's tolerance is force_rtol |g| h (0: -tao_gatol's) */
  PetscBool            matrix_free; /* B applied from per-contact records (jacobian_shell.c) instead of assembled */
  PetscReal
    *jacobian; /* the matrix-free B's records (up to TALUS_JACOBIAN_GENERAL per contact), kept from step to step */
  PetscInt  *jacobian_slot; /* and their body slots (2 per contact) */
  char      *jacobian_kind; /* and their kinds (lengths) */
  PetscInt   jacobian_capacity;
  PetscReal *inverse_mass; /* the matrix-free M^-1 (TALUS_INVERSE_MASS per owned dynamic body), kept likewise */
  PetscInt   inverse_mass_capacity;
  TalusCCP   ccp;
  /* the problem monitor (TalusSimSetProblemMonitor), and whether TalusSimStep is inside it */
  TalusSimProblemMonitorFn problem_monitor;
  void                    *problem_monitor_ctx;
  PetscErrorCode (*problem_monitor_destroy)(void **);
  PetscBool in_problem_monitor;
  PetscInt  ndynamic, dof_start; /* owned dynamic bodies; first global dof of this rank (TalusSimNumberDofs) */

  /* decomposition */
  TalusDecomp    decomp;
  PetscBool      distributed; /* TalusSimDistribute() done */
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
} TalusStepCCP;

PETSC_INTERN PetscErrorCode TalusSimAssembleCCP(TalusSim, TalusStepCCP *);
/* The same in the assembled form, whatever form the run uses (for TalusSimGetStepProblem). */
PETSC_INTERN PetscErrorCode TalusSimAssembleCCPAssembled(TalusSim, TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusSimApplyImpulses(TalusSim, TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusStepCCPDestroy(TalusStepCCP *);
/* The matrix-free B (jacobian_shell.c): per contact a record of TALUS_JACOBIAN_AXIAL or _GENERAL
   doubles (its kind), two body slots; per owned dynamic body TALUS_INVERSE_MASS doubles of M^-1
   in the world frame. The arrays stay the caller's and must outlive B. */
#define TALUS_JACOBIAN_AXIAL   8
#define TALUS_JACOBIAN_GENERAL 12
#define TALUS_INVERSE_MASS     7
/* Writes contact's record from its frame and world-frame lever arms; returns its kind (length). */
PETSC_INTERN char TalusJacobianRecord(const PetscReal frame[9], const PetscReal arm_a[3], const PetscReal arm_b[3],
                                      PetscReal J[TALUS_JACOBIAN_GENERAL]);
PETSC_INTERN void TalusInverseMassRecord(PetscReal mass, const PetscReal inertia[3], const PetscReal A[9],
                                         PetscReal minv[TALUS_INVERSE_MASS]);
PETSC_INTERN PetscErrorCode TalusJacobianCreateShell(MPI_Comm, PetscInt ncontacts, PetscInt ndynamic,
                                                     const PetscInt *slot, const char *kind, const PetscReal *J,
                                                     const PetscReal *minv, Mat *B);
/* v <- M^-1 v for a body-space vector of the matrix-free B (a TalusInverseMassFn: ctx is B) */
PETSC_INTERN PetscErrorCode TalusJacobianApplyInverseMass(Vec v, void *B);

/* distribute.c */
PETSC_INTERN PetscErrorCode TalusSimNumberDofs(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimBuildGhosts(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimDropGhosts(TalusSim);
PETSC_INTERN PetscErrorCode TalusSimMigrate(TalusSim, PetscBool rebalance);

#endif
