/*
 * The simulation's tables of time (include/talus/table.h): kept the same on every rank, named by
 * handle (1, 2, ...) from drivers' motions, prescribed motions and loads.
 */
#include "sim_impl.h"

PetscErrorCode TalusSimAddTable(TalusSim sim, PetscInt columns, PetscInt npoints, const PetscReal data[],
                                PetscInt *handle)
{
  const char *why = TalusTableCheck(columns, npoints, data);
  TalusTable  tab = {.columns = columns, .npoints = npoints};

  PetscFunctionBegin;
  PetscCheck(!why, sim->comm, PETSC_ERR_USER_INPUT, "table %" PetscInt_FMT ": %s", sim->ntables + 1, why);
  PetscCall(PetscMalloc1(npoints * (columns + 1), &tab.data));
  PetscCall(PetscArraycpy(tab.data, data, npoints * (columns + 1)));
  PetscCall(PetscRealloc(sizeof(tab) * (sim->ntables + 1), &sim->tables));
  sim->tables[sim->ntables++] = tab;
  *handle                     = sim->ntables;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetTables(TalusSim sim, PetscInt *n, const TalusTable **tables)
{
  PetscFunctionBegin;
  if (n) *n = sim->ntables;
  if (tables) *tables = sim->tables;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetTables(TalusSim sim, PetscInt n, const TalusTable tables[])
{
  PetscInt handle;

  PetscFunctionBegin;
  PetscCheck(!sim->ntables, sim->comm, PETSC_ERR_ORDER, "tables are restored into a simulation without them");
  for (PetscInt i = 0; i < n; i++)
    PetscCall(TalusSimAddTable(sim, tables[i].columns, tables[i].npoints, tables[i].data, &handle));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDestroyTables(TalusSim sim)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < sim->ntables; i++) PetscCall(PetscFree(sim->tables[i].data));
  PetscCall(PetscFree(sim->tables));
  sim->ntables = 0;
  PetscFunctionReturn(0);
}

const char *TalusSimTableFault(TalusSim sim, PetscInt handle, PetscInt columns)
{
  if (!handle) return NULL;
  if (handle < 0 || handle > sim->ntables) return "it names a table that does not exist";
  if (sim->tables[handle - 1].columns != columns)
    return columns == 1 ? "its table must have one value column" : "its table must have three value columns";
  return NULL;
}
