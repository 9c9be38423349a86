/*
 * The simulation's tables of time (include/talus/table.h) as a module: kept the same on every rank,
 * named by handle (1, 2, ...) from drivers' motions, prescribed motions and loads. The module owns
 * them (its state); everything else reads them through TalusSimGetTables.
 */
#include "modules.h"

typedef struct {
  PetscInt    n;
  TalusTable *tables; /* handle k is tables[k - 1] */
} Tables;

static PetscErrorCode TablesDestroy(TalusSim sim, void *state)
{
  Tables *t = (Tables *)state;

  PetscFunctionBegin;
  (void)sim;
  for (PetscInt i = 0; i < t->n; i++) PetscCall(PetscFree(t->tables[i].data));
  PetscCall(PetscFree(t->tables));
  t->n = 0;
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusTablesModule = {.name = "tables", .state_size = sizeof(Tables), .destroy = TablesDestroy};

static PetscErrorCode GetTables(TalusSim sim, Tables **t)
{
  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleState(sim, &TalusTablesModule, (void **)t));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAddTable(TalusSim sim, PetscInt columns, PetscInt npoints, const PetscReal data[],
                                PetscInt *handle)
{
  const char *why = TalusTableCheck(columns, npoints, data);
  TalusTable  tab = {.columns = columns, .npoints = npoints};
  Tables     *t;
  MPI_Comm    comm;

  PetscFunctionBegin;
  PetscCall(GetTables(sim, &t));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCheck(!why, comm, PETSC_ERR_USER_INPUT, "table %" PetscInt_FMT ": %s", t->n + 1, why);
  PetscCall(PetscMalloc1(npoints * (columns + 1), &tab.data));
  PetscCall(PetscArraycpy(tab.data, data, npoints * (columns + 1)));
  PetscCall(PetscRealloc(sizeof(tab) * (t->n + 1), &t->tables));
  t->tables[t->n++] = tab;
  *handle           = t->n;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetTables(TalusSim sim, PetscInt *n, const TalusTable **tables)
{
  Tables *t;

  PetscFunctionBegin;
  PetscCall(GetTables(sim, &t));
  if (n) *n = t->n;
  if (tables) *tables = t->tables;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetTables(TalusSim sim, PetscInt n, const TalusTable tables[])
{
  Tables  *t;
  MPI_Comm comm;
  PetscInt handle;

  PetscFunctionBegin;
  PetscCall(GetTables(sim, &t));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCheck(!t->n, comm, PETSC_ERR_ORDER, "tables are restored into a simulation without them");
  for (PetscInt i = 0; i < n; i++)
    PetscCall(TalusSimAddTable(sim, tables[i].columns, tables[i].npoints, tables[i].data, &handle));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimTableFault(TalusSim sim, PetscInt handle, PetscInt columns, const char **why)
{
  Tables *t;

  PetscFunctionBegin;
  PetscCall(GetTables(sim, &t));
  *why = NULL;
  if (!handle) PetscFunctionReturn(0);
  if (handle < 0 || handle > t->n) *why = "it names a table that does not exist";
  else if (t->tables[handle - 1].columns != columns)
    *why = columns == 1 ? "its table must have one value column" : "its table must have three value columns";
  PetscFunctionReturn(0);
}
