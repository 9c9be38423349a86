/* The simulator's private state, shared by sim.c (life cycle), ccp.c (the CCP of a step) and step.c. */
#ifndef TALUS_SIM_IMPL_H
#define TALUS_SIM_IMPL_H
#include <talus.h>

struct _p_TalusSim {
  MPI_Comm         comm;
  TalusBodies     *bodies;
  TalusContactList contacts, previous; /* this step's and the last step's (for warm starts) */
  PetscInt        *previous_ids;       /* (id_a, id_b) per previous contact */
  PetscInt         previous_capacity;
  PetscReal        gravity[3], dt, t, t_final, envelope;
  PetscInt         step;
  PetscBool        anti_relax;
  TalusCCP         ccp;
  PetscInt         ccp_rows; /* local rows the CCP's Tao was set up for */
  PetscInt        *dynamic;  /* per local body: its index among the dynamic bodies, or -1 if fixed */
  PetscInt         dynamic_capacity, ndynamic;
};

/* The CCP of one step (ccp.c). */
typedef struct {
  Mat B;       /* D^T: 3 rows per contact, 6 columns per dynamic body */
  Vec inverse_mass, v_free, v_plus, gamma, q, mu;
} TalusStepCCP;

PETSC_INTERN PetscErrorCode TalusSimAssembleCCP(TalusSim, TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusSimApplyImpulses(TalusSim, TalusStepCCP *);
PETSC_INTERN PetscErrorCode TalusStepCCPDestroy(TalusStepCCP *);

#endif
