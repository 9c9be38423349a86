/*
 * The shape table's operations (shapes.c) of a hull and a compound: size[0] is its entry's number in the table of
 * include/talus/shape_data.h. They read the entry only, never the shape table (a compound's parts are shapes).
 */
#include "shape_data_ops.h"
#include <talus/math3.h>

static const TalusShapeData *EntryOf(const PetscReal size[3])
{
  return TalusShapeDataGet((PetscInt)size[0]);
}

void TalusDescribedMass(const PetscReal size[3], PetscReal density, PetscReal *mass, PetscReal inertia[3])
{
  const TalusShapeData *e = EntryOf(size);

  *mass = e ? density * e->volume : 0.0;
  for (int k = 0; k < 3; k++) inertia[k] = e ? density * e->inertia[k] : 0.0;
}

PetscReal TalusDescribedRadius(const PetscReal size[3])
{
  return EntryOf(size)->radius;
}

static const char *Check(const PetscReal size[3], TalusShape shape)
{
  const TalusShapeData *e = EntryOf(size);

  if (size[0] != PetscFloorReal(size[0]) || !e || e->shape != shape || size[1] != (PetscReal)e->n)
    return "names no description of its shape";
  return NULL;
}

const char *TalusHullCheck(const PetscReal size[3])
{
  return Check(size, TALUS_HULL);
}

const char *TalusCompoundCheck(const PetscReal size[3])
{
  return Check(size, TALUS_COMPOUND);
}

/* the box about the centroid that holds it */
void TalusDescribedGlyph(const PetscReal size[3], PetscReal extent[3])
{
  const TalusShapeData *e = EntryOf(size);

  for (int k = 0; k < 3; k++) extent[k] = e->extent[k];
}

/* a hull is drawn as its faces */
void TalusHullMesh(const PetscReal size[3], PetscInt *nv, const PetscReal **v, PetscInt *nt, const PetscInt **t)
{
  const TalusShapeData *e = EntryOf(size);

  *nv = e->n, *v = e->vertex, *nt = e->nfaces, *t = e->face;
}

/* a compound is drawn as its parts */
PetscInt TalusCompoundGlyphParts(const PetscReal size[3], PetscInt i, TalusShape *shape, PetscReal part_size[3],
                                 PetscReal position[3], PetscReal quaternion[4])
{
  const TalusShapeData *e = EntryOf(size);

  if (i >= 0 && i < e->n) {
    *shape = e->part[i].shape;
    for (int k = 0; k < 3; k++) part_size[k] = e->part[i].size[k], position[k] = e->part[i].position[k];
    for (int k = 0; k < 4; k++) quaternion[k] = e->part[i].quaternion[k];
  }
  return e->n;
}

void TalusHullSupport(const PetscReal size[3], const PetscReal d[3], PetscReal p[3])
{
  const TalusShapeData *e    = EntryOf(size);
  PetscInt              best = 0;

  for (PetscInt i = 1; i < e->n; i++)
    if (TalusDot3(&e->vertex[3 * i], d) > TalusDot3(&e->vertex[3 * best], d)) best = i;
  for (int k = 0; k < 3; k++) p[k] = e->vertex[3 * best + k];
}

/* The corners within tol of the furthest along d (tol held below a tenth of the hull's radius), in order of their
   angle about their mean seen along d, at most TALUS_MAX_SUPPORT_POINTS of them (evenly chosen when more); each
   named by its corner's number */
PetscInt TalusHullSupportSet(const PetscReal size[3], const PetscReal d[3], PetscReal tol, PetscReal p[][3],
                             PetscInt id[])
{
  const TalusShapeData *e   = EntryOf(size);
  PetscReal             top = -PETSC_MAX_REAL, angle[TALUS_MAX_HULL_VERTICES], mean[3] = {0, 0, 0}, u[3], w[3];
  PetscInt              near[TALUS_MAX_HULL_VERTICES], n = 0, kept;

  tol = PetscMin(tol, 0.1 * e->radius);
  for (PetscInt i = 0; i < e->n; i++) top = PetscMax(top, TalusDot3(&e->vertex[3 * i], d));
  for (PetscInt i = 0; i < e->n; i++)
    if (TalusDot3(&e->vertex[3 * i], d) >= top - tol) {
      near[n++] = i;
      for (int k = 0; k < 3; k++) mean[k] += e->vertex[3 * i + k];
    }
  TalusCompleteFrame(d, u, w);
  for (PetscInt j = 0; j < n; j++) {
    PetscReal r[3];
    for (int k = 0; k < 3; k++) r[k] = e->vertex[3 * near[j] + k] - mean[k] / n;
    angle[j] = PetscAtan2Real(TalusDot3(r, w), TalusDot3(r, u));
  }
  for (PetscInt j = 1; j < n; j++) /* insertion sort by angle: a face has few corners */
    for (PetscInt i = j; i > 0 && angle[i] < angle[i - 1]; i--) {
      const PetscReal a = angle[i];
      const PetscInt  c = near[i];
      angle[i] = angle[i - 1], near[i] = near[i - 1], angle[i - 1] = a, near[i - 1] = c;
    }
  kept = PetscMin(n, TALUS_MAX_SUPPORT_POINTS);
  for (PetscInt j = 0; j < kept; j++) {
    const PetscInt c = near[j * n / kept];
    for (int k = 0; k < 3; k++) p[j][k] = e->vertex[3 * c + k];
    id[j] = c;
  }
  return kept;
}
