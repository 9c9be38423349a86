/*
 * The calls a module's checkpoint section is made of (h5section.h): its counts as attributes of the
 * file's root and its records, which every rank holds alike, written by rank 0 and read whole by
 * every rank through the reader's one error idiom (h5io.c).
 */
#include "h5section.h"

PetscBool TalusSectionHas(TalusModuleSection *s, const char name[])
{
  if (s->r->bad) return PETSC_FALSE;
  return (PetscBool)(H5Aexists(s->r->file, name) > 0 || H5Lexists(s->r->file, name, H5P_DEFAULT) > 0);
}

void TalusSectionWriteCount(TalusModuleSection *s, const char name[], PetscInt n)
{
  TalusH5WriteAttribute(s->w, s->w->file, name, PETSC_TRUE, 1, &n);
}

void TalusSectionReadCount(TalusModuleSection *s, const char name[], PetscInt added, PetscInt max, PetscInt *n)
{
  *n = 0;
  if (s->version < added) return;
  TalusH5ReadAttribute(s->r, s->r->file, name, PETSC_TRUE, 1, n);
  if (!s->r->bad && (*n < 0 || *n > max)) TalusH5Fault(s->r, "the count of %s is not valid", name);
  if (s->r->bad) *n = 0; /* nothing is allocated from a count that was not read */
}

PetscErrorCode TalusSectionWriteRecords(TalusModuleSection *s, const char group[], const TalusH5Field fields[],
                                        int nfields, size_t row_bytes, PetscInt n, const void *rows)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  PetscCall(TalusH5WriteTable(s->w, group, fields, nfields, row_bytes, n, 0, s->w->rank == 0 ? n : 0, rows));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSectionReadRecords(TalusModuleSection *s, const char group[], const TalusH5Field fields[],
                                       int nfields, size_t row_bytes, PetscInt n, void **rows)
{
  char first[64];

  PetscFunctionBegin;
  *rows = NULL;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(first, sizeof(first), "%s/%s", group, fields[0].name));
  TalusH5CheckExtent(s->r, first, n);
  PetscCall(PetscCalloc(row_bytes * n, rows));
  PetscCall(TalusH5ReadTable(s->r, group, fields, nfields, row_bytes, n, 0, n, *rows, PETSC_FALSE));
  PetscFunctionReturn(0);
}
