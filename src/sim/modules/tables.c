/*
 * The simulation's tables of time (include/talus/table.h) as a module: kept the same on every rank,
 * named by handle (1, 2, ...) from drivers' motions, prescribed motions and loads. The module owns
 * them (its state); everything else reads them through TalusSimGetTables.
 */
#include "../modules.h"
#include "../../io/h5section.h"

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

static PetscErrorCode TablesCheckpointWrite(TalusSim, void *, TalusModuleSection *);
static PetscErrorCode TablesCheckpointRead(TalusSim, void *, TalusModuleSection *);

const TalusSimModuleOps TalusTablesModule = {.name             = "tables",
                                             .state_size       = sizeof(Tables),
                                             .destroy          = TablesDestroy,
                                             .checkpoint_write = TablesCheckpointWrite,
                                             .checkpoint_read  = TablesCheckpointRead};

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

/* Its checkpoint section (format 3 on): the count "tables" and of all their values "table_values" (root
   attributes), per table its value columns and points ("tables", n x 2) and all their rows one after the
   other ("table_values") */
static PetscErrorCode TablesCheckpointWrite(TalusSim sim, void *state, TalusModuleSection *s)
{
  const Tables   *t       = (const Tables *)state;
  const PetscBool writer  = (PetscBool)(s->w->rank == 0);
  PetscInt        nvalues = 0;
  PetscInt64     *shape; /* integer datasets hold 64-bit integers */
  PetscReal      *values;

  PetscFunctionBegin;
  (void)sim;
  for (PetscInt i = 0; i < t->n; i++) nvalues += t->tables[i].npoints * (t->tables[i].columns + 1);
  TalusSectionWriteCount(s, "tables", t->n);
  TalusSectionWriteCount(s, "table_values", nvalues);
  if (!t->n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(2 * t->n, &shape, nvalues, &values));
  nvalues = 0;
  for (PetscInt i = 0; i < t->n; i++) {
    const PetscInt size = t->tables[i].npoints * (t->tables[i].columns + 1);
    shape[2 * i] = t->tables[i].columns, shape[2 * i + 1] = t->tables[i].npoints;
    PetscCall(PetscArraycpy(&values[nvalues], t->tables[i].data, size));
    nvalues += size;
  }
  PetscCall(TalusH5WriteDataset(s->w, s->w->file, "tables", TALUS_H5_INT, t->n, 2, 0, writer ? t->n : 0, shape));
  PetscCall(
    TalusH5WriteDataset(s->w, s->w->file, "table_values", TALUS_H5_REAL, nvalues, 1, 0, writer ? nvalues : 0, values));
  PetscCall(PetscFree2(shape, values));
  PetscFunctionReturn(0);
}

/* ... read back, every table on every rank, checked as TalusSimAddTable checks them */
static PetscErrorCode TablesCheckpointRead(TalusSim sim, void *state, TalusModuleSection *s)
{
  TalusH5Reader *r = s->r;
  PetscInt       n, nvalues, total = 0, handle;
  PetscInt64    *shape; /* integer datasets hold 64-bit integers */
  PetscReal     *values;

  PetscFunctionBegin;
  PetscCheck(!((Tables *)state)->n, r->comm, PETSC_ERR_ORDER, "tables are restored into a simulation without them");
  TalusSectionReadCount(s, "tables", 3, 1000000, &n);
  TalusSectionReadCount(s, "table_values", 3, PETSC_MAX_INT / 8, &nvalues);
  if (!r->bad && nvalues < 3 * n) TalusH5Fault(r, "%s", "the count of table_values is not valid");
  if (!n || r->bad) PetscFunctionReturn(0);
  TalusH5CheckExtent(r, "tables", n);
  PetscCall(PetscCalloc1(2 * n, &shape));
  if (!r->bad) PetscCall(TalusH5ReadDataset(r, "tables", TALUS_H5_INT, n, 2, 0, n, shape, PETSC_FALSE));
  for (PetscInt i = 0; i < n && !r->bad; i++) {
    if (shape[2 * i] < 1 || shape[2 * i] > 16 || shape[2 * i + 1] < 2 ||
        shape[2 * i + 1] > (PetscInt64)nvalues / (shape[2 * i] + 1))
      TalusH5Fault(r, "%s", "a table's columns or points are not valid");
    else total += (PetscInt)(shape[2 * i + 1] * (shape[2 * i] + 1));
  }
  if (!r->bad && total != nvalues) TalusH5Fault(r, "%s", "the tables' sizes do not add up to their values");
  TalusH5CheckExtent(r, "table_values", nvalues);
  PetscCall(PetscMalloc1(nvalues + 1, &values));
  if (!r->bad)
    PetscCall(TalusH5ReadDataset(r, "table_values", TALUS_H5_REAL, nvalues, 1, 0, nvalues, values, PETSC_FALSE));
  total = 0;
  for (PetscInt i = 0; i < n && !r->bad; i++) {
    const PetscInt columns = (PetscInt)shape[2 * i], npoints = (PetscInt)shape[2 * i + 1];
    const char    *fault = TalusTableCheck(columns, npoints, &values[total]);
    if (fault) TalusH5Fault(r, "%s", fault);
    total += npoints * (columns + 1);
  }
  for (PetscInt i = 0, at = 0; i < n && !r->bad; i++) { /* all checked first: nothing of a faulty section is kept */
    PetscCall(TalusSimAddTable(sim, (PetscInt)shape[2 * i], (PetscInt)shape[2 * i + 1], &values[at], &handle));
    at += (PetscInt)(shape[2 * i + 1] * (shape[2 * i] + 1));
  }
  PetscCall(PetscFree(shape));
  PetscCall(PetscFree(values));
  PetscFunctionReturn(0);
}
