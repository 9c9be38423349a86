/*
 * The simulation's parts as the public API gives them (include/talus/sim.h): its communicator,
 * bodies, contacts and clock; and what the modules need of the core (modules.h): their view, the
 * step's applied wrenches and joint rows, whether links may still be given. Below the rest of the
 * simulator: the modules and the files above it read through these, and they call nothing back.
 */
#include "sim_impl.h"

PetscErrorCode TalusSimGetComm(TalusSim sim, MPI_Comm *comm)
{
  PetscFunctionBegin;
  *comm = sim->comm;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetBodies(TalusSim sim, TalusBodies **bodies)
{
  PetscFunctionBegin;
  *bodies = sim->bodies;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetContacts(TalusSim sim, const TalusContactList **contacts)
{
  PetscFunctionBegin;
  *contacts = &sim->contacts;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetTime(TalusSim sim, PetscReal *t, PetscReal *t_final, PetscReal *dt)
{
  PetscFunctionBegin;
  if (t) *t = sim->t;
  if (t_final) *t_final = sim->t_final;
  if (dt) *dt = sim->dt;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimResetWrenches(TalusSim sim, PetscBool any, PetscReal **wrench)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sim->wrench));
  if (any) PetscCall(PetscCalloc1(6 * sim->bodies->nowned + 1, &sim->wrench));
  *wrench = sim->wrench;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimCheckBeforeStart(TalusSim sim, const char what[])
{
  PetscFunctionBegin;
  PetscCheck(!sim->distributed, sim->comm, PETSC_ERR_ORDER,
             "%s is given while every rank holds every body: before the first step", what);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetJointRows(TalusSim sim, PetscInt n, PetscInt nlimit, TalusJointRow rows[],
                                    const PetscReal drift[2])
{
  PetscFunctionBegin;
  sim->joint_rows        = rows;
  sim->njoint_rows_local = n;
  sim->nlimit_rows_local = nlimit;
  sim->joint_drift[0] = drift[0], sim->joint_drift[1] = drift[1];
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetDistributed(TalusSim sim, PetscBool *distributed)
{
  PetscFunctionBegin;
  *distributed = sim->distributed;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetModuleView(TalusSim sim, const TalusSimModuleOps *ops, TalusSimModuleView *view, void **state)
{
  PetscFunctionBegin;
  view->comm = sim->comm, view->b = sim->bodies, view->t = sim->t, view->dt = sim->dt, view->rmax = sim->rmax;
  view->contacts = &sim->contacts;
  PetscCall(TalusSimGetModuleState(sim, ops, state));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetJointsInfo(TalusSim sim, const TalusSimJointsInfo *info)
{
  PetscFunctionBegin;
  sim->joints_info = *info;
  PetscFunctionReturn(0);
}
