/*
 * The simulation's parts as the public API gives them (include/talus/sim.h): its communicator,
 * bodies, contacts and clock. Below the rest of the simulator: the modules and the files above the
 * simulator read through these, and they call nothing back.
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
