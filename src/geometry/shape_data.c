/*
 * The table of hull and compound descriptions (include/talus/shape_data.h): where the entries are kept, found and
 * placed. What an entry holds is made by shape_data_build.c; the shape table's operations on it are
 * shapes_described.c's.
 */
#include "shape_data_impl.h"
#include <talus/math3.h>

static TalusShapeData *table;
static PetscInt        ntable, capacity;

const TalusShapeData *TalusShapeDataGet(PetscInt index)
{
  return index >= 0 && index < ntable ? &table[index] : NULL;
}

PetscInt TalusShapeDataCount(void)
{
  return ntable;
}

PetscErrorCode TalusShapeDataReset(void)
{
  PetscFunctionBegin;
  for (PetscInt e = 0; e < ntable; e++)
    PetscCall(PetscFree4(table[e].vertex, table[e].face, table[e].part, table[e].given));
  PetscCall(PetscFree(table));
  ntable = capacity = 0;
  PetscFunctionReturn(0);
}

PetscInt TalusShapeDataFind(TalusShape shape, PetscInt ngiven, const PetscReal given[], PetscInt per)
{
  for (PetscInt e = 0; e < ntable; e++)
    if (table[e].shape == shape && table[e].ngiven == ngiven &&
        !memcmp(table[e].given, given, sizeof(PetscReal) * per * ngiven))
      return e;
  return -1;
}

PetscErrorCode TalusShapeDataAppend(TalusShape shape, PetscInt n, PetscInt ngiven, PetscInt per, TalusShapeData **entry)
{
  TalusShapeData *e;

  PetscFunctionBegin;
  if (ntable == capacity) {
    TalusShapeData *grown;
    PetscCall(PetscCalloc1(2 * capacity + 4, &grown));
    if (ntable) PetscCall(PetscArraycpy(grown, table, ntable));
    else PetscCall(PetscRegisterFinalize(TalusShapeDataReset));
    PetscCall(PetscFree(table));
    table = grown, capacity = 2 * capacity + 4;
  }
  e         = &table[ntable];
  e->shape  = shape;
  e->n      = n;
  e->ngiven = ngiven;
  /* a hull's surface, triangulated, has at most 2 n - 4 triangles (Euler's formula) */
  PetscCall(PetscCalloc4(shape == TALUS_HULL ? 3 * n : 0, &e->vertex, shape == TALUS_HULL ? 6 * n : 0, &e->face,
                         shape == TALUS_COMPOUND ? n : 0, &e->part, per * ngiven, &e->given));
  *entry = e;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusShapeDataKeep(TalusShapeData *e, PetscBool keep, PetscInt *index)
{
  PetscFunctionBegin;
  *index = -1;
  if (keep) *index = ntable++;
  else {
    PetscCall(PetscFree4(e->vertex, e->face, e->part, e->given));
    PetscCall(PetscMemzero(e, sizeof(*e)));
  }
  PetscFunctionReturn(0);
}

void TalusShapeDataPlace(const TalusShapeData *e, const PetscReal given_position[3],
                         const PetscReal given_quaternion[4], PetscReal position[3], PetscReal quaternion[4])
{
  PetscReal A[9], c[3];

  TalusQuatToMatrix(given_quaternion, A);
  TalusRotate(A, e->centroid, c);
  for (int k = 0; k < 3; k++) position[k] = given_position[k] + c[k];
  TalusQuatMultiply(given_quaternion, e->rotation, quaternion);
  TalusQuatNormalize(quaternion);
}
