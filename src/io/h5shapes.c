/*
 * The table of hull and compound descriptions (include/talus/shape_data.h) in a checkpoint (which a bodies_file may
 * read its rows from too): each entry's shape
 * code and what it was given (a hull's vertices, a compound's parts), rank 0 writing and every rank reading. A
 * restart adds them again in order, so an entry's number may differ from the writer's when this process holds
 * entries already; the bodies' numbers are mapped to the new ones. A file without the group (one written before
 * hulls and compounds, or by a run that had none) has no entries.
 */
#include "h5shapes.h"
#include <talus/shape_data.h>

/* more descriptions than a file of this kind is believed to hold */
#define MOST_ENTRIES (1 << 16)

typedef struct {
  PetscInt code, count, offset; /* the shape's code, its given vertices or parts, its first value */
} EntryRow;

typedef struct {
  PetscReal value;
} ValueRow;

static const TalusH5Field entry_fields[] = {
  {"code",   PETSC_TRUE, 1, offsetof(EntryRow, code)  },
  {"count",  PETSC_TRUE, 1, offsetof(EntryRow, count) },
  {"offset", PETSC_TRUE, 1, offsetof(EntryRow, offset)},
};
static const TalusH5Field value_fields[] = {
  {"value", PETSC_FALSE, 1, offsetof(ValueRow, value)},
};

/* numbers a given vertex or part is stored as */
static PetscInt PerGiven(TalusShape shape)
{
  return shape == TALUS_HULL ? 3 : TALUS_SHAPE_PART_NUMBERS;
}

PetscErrorCode TalusH5WriteShapeData(TalusModuleSection *s)
{
  const PetscInt n = TalusShapeDataCount();
  EntryRow      *entries;
  ValueRow      *values;
  PetscInt       nvalues = 0;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < n; e++) {
    const TalusShapeData *d = TalusShapeDataGet(e);
    nvalues += PerGiven(d->shape) * d->ngiven;
  }
  if (!n) PetscFunctionReturn(0); /* a run without hulls and compounds writes the files it wrote before them */
  TalusSectionWriteCount(s, "shape_descriptions", n);
  TalusSectionWriteCount(s, "shape_description_values", nvalues);
  PetscCall(PetscMalloc2(n + 1, &entries, nvalues + 1, &values));
  nvalues = 0;
  for (PetscInt e = 0; e < n; e++) {
    const TalusShapeData *d = TalusShapeDataGet(e);
    entries[e]              = (EntryRow){TalusShapeTable[d->shape].code, d->ngiven, nvalues};
    for (PetscInt i = 0; i < PerGiven(d->shape) * d->ngiven; i++) values[nvalues++].value = d->given[i];
  }
  PetscCall(TalusSectionWriteRecords(s, "shape_descriptions", entry_fields, 3, sizeof(EntryRow), n, entries));
  PetscCall(
    TalusSectionWriteRecords(s, "shape_description_values", value_fields, 1, sizeof(ValueRow), nvalues, values));
  PetscCall(PetscFree2(entries, values));
  PetscFunctionReturn(0);
}

/* entry e as stored, added again: its number here, or a fault */
static PetscErrorCode AddAgain(TalusModuleSection *s, const EntryRow *row, const ValueRow values[], PetscInt nvalues,
                               PetscInt *index)
{
  TalusShape shape;
  PetscReal *given;
  char       why[256] = "";

  PetscFunctionBegin;
  *index = -1;
  if (!TalusShapeFromCode(row->code, &shape) || (shape != TALUS_HULL && shape != TALUS_COMPOUND) || row->count < 1 ||
      row->count > TALUS_MAX_HULL_VERTICES || row->offset < 0 || row->offset + PerGiven(shape) * row->count > nvalues) {
    TalusH5Fault(s->r, "%s", "a shape description has a code, count or offset that is not valid");
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(PerGiven(shape) * row->count, &given));
  for (PetscInt i = 0; i < PerGiven(shape) * row->count; i++) given[i] = values[row->offset + i].value;
  if (shape == TALUS_HULL) PetscCall(TalusShapeDataAddHull(row->count, given, index, why, sizeof(why)));
  else {
    TalusShapePart *parts;
    PetscCall(PetscCalloc1(row->count, &parts));
    for (PetscInt p = 0; p < row->count && !why[0]; p++) {
      const PetscReal *x = &given[TALUS_SHAPE_PART_NUMBERS * p];
      TalusShape       part;
      if (x[0] != PetscFloorReal(x[0]) || !TalusShapeFromCode((PetscInt)x[0], &part))
        PetscCall(PetscSNPrintf(why, sizeof(why), "part %" PetscInt_FMT " has no shape", p));
      parts[p].shape = part;
      for (int k = 0; k < 3; k++) parts[p].size[k] = x[1 + k], parts[p].position[k] = x[4 + k];
      for (int k = 0; k < 4; k++) parts[p].quaternion[k] = x[7 + k];
    }
    if (!why[0]) PetscCall(TalusShapeDataAddCompound(row->count, parts, index, why, sizeof(why)));
    PetscCall(PetscFree(parts));
  }
  PetscCall(PetscFree(given));
  if (*index < 0) TalusH5Fault(s->r, "a shape description is refused: %s", why);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusH5ReadShapeData(TalusModuleSection *s, PetscInt *n, PetscInt **map)
{
  EntryRow *entries = NULL;
  ValueRow *values  = NULL;
  PetscInt  nvalues = 0;

  PetscFunctionBegin;
  *n = 0, *map = NULL;
  if (!TalusSectionHas(s, "shape_descriptions")) PetscFunctionReturn(0);
  TalusSectionReadCount(s, "shape_descriptions", 0, MOST_ENTRIES, n);
  TalusSectionReadCount(s, "shape_description_values", 0, MOST_ENTRIES * TALUS_MAX_HULL_VERTICES * 3, &nvalues);
  PetscCall(TalusSectionReadRecords(s, "shape_descriptions", entry_fields, 3, sizeof(EntryRow), *n, (void **)&entries));
  PetscCall(TalusSectionReadRecords(s, "shape_description_values", value_fields, 1, sizeof(ValueRow), nvalues,
                                    (void **)&values));
  PetscCall(PetscMalloc1(*n + 1, map));
  for (PetscInt e = 0; e < *n && !s->r->bad; e++) PetscCall(AddAgain(s, &entries[e], values, nvalues, &(*map)[e]));
  PetscCall(PetscFree(entries));
  PetscCall(PetscFree(values));
  PetscFunctionReturn(0);
}
