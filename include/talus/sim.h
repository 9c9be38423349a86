/*
 * The time stepper (seed 000 eq. 9): a TalusSim owns the bodies, finds the contacts, poses and
 * solves the CCP of each step and integrates. One rank until the spatial decomposition lands:
 * the data are already the distributed ones (PETSc objects on the simulator's communicator,
 * bodies by global id), and more ranks are refused with a message.
 */
#ifndef TALUS_SIM_H
#define TALUS_SIM_H
#include <petsctao.h>
#include <talus/contacts.h>

typedef struct {
  PetscInt           step;
  PetscReal          t;
  PetscInt           bodies, contacts, joints, warm_started;
  PetscInt           iterations;
  TaoConvergedReason reason;
  PetscReal          residual;
  PetscReal          kinetic_energy;
  PetscReal          max_penetration;           /* max(0, -Phi) over contacts before the step */
  PetscReal          complementarity_error;     /* max_i |gamma_n (Phi/h + v_n)| after the step (seed 001 eq. 8) */
  PetscReal          support_force_over_weight; /* force on fixed bodies along gravity / weight of dynamic bodies */
  PetscReal          wall_step, wall_collide, wall_assemble, wall_solve, wall_integrate;
} TalusStepStats;

typedef struct _p_TalusSim *TalusSim;

PETSC_EXTERN PetscErrorCode TalusSimCreate(MPI_Comm, TalusSim *);
PETSC_EXTERN PetscErrorCode TalusSimDestroy(TalusSim *);
PETSC_EXTERN PetscErrorCode TalusSimGetBodies(TalusSim, TalusBodies **);
PETSC_EXTERN PetscErrorCode TalusSimSetGravity(TalusSim, const PetscReal g[3]);
PETSC_EXTERN PetscErrorCode TalusSimSetTimeStep(TalusSim, PetscReal dt);
PETSC_EXTERN PetscErrorCode TalusSimSetFinalTime(TalusSim, PetscReal t_final);
PETSC_EXTERN PetscErrorCode TalusSimSetEnvelope(TalusSim, PetscReal envelope);
PETSC_EXTERN PetscErrorCode TalusSimSetAntiRelaxation(TalusSim, PetscBool);
PETSC_EXTERN PetscErrorCode TalusSimSetFromOptions(TalusSim);
PETSC_EXTERN PetscErrorCode TalusSimGetTime(TalusSim, PetscReal *t, PetscReal *t_final, PetscReal *dt);
PETSC_EXTERN PetscErrorCode TalusSimGetContacts(TalusSim, const TalusContactList **);
/* One step: collide, assemble, solve, integrate. */
PETSC_EXTERN PetscErrorCode TalusSimStep(TalusSim, TalusStepStats *);

PETSC_EXTERN PetscLogEvent TALUS_EventCollide, TALUS_EventAssemble, TALUS_EventSolve, TALUS_EventIntegrate, TALUS_EventOutput;

#endif
