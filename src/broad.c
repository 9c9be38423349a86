/*
 * Broad phase: which pairs of bodies may touch. Finite bodies (spheres, boxes) go into a uniform
 * grid of cells no smaller than the largest bounding diameter plus the envelope, so that any two
 * bodies within reach lie in the same or in adjacent cells; the cells are found by sorting the
 * bodies by cell key, not by allocating the grid, so the domain needs no bounds. Planes are few
 * and infinite: every finite body is tested against every plane.
 */
#include <talus.h>

typedef struct {
  PetscInt64 key;
  PetscInt   body;
} CellEntry;

static int CompareCell(const void *x, const void *y)
{
  const CellEntry *a = (const CellEntry *)x, *b = (const CellEntry *)y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->body > b->body) - (a->body < b->body);
}

/* 21 bits per coordinate, offset so that negative cells have positive keys */
static PetscInt64 CellKey(PetscInt64 ix, PetscInt64 iy, PetscInt64 iz)
{
  const PetscInt64 off = (PetscInt64)1 << 20;
  return ((ix + off) << 42) | ((iy + off) << 21) | (iz + off);
}

static PetscErrorCode AppendPair(PetscInt i, PetscInt j, PetscInt *n, PetscInt *cap, PetscInt **pairs)
{
  PetscFunctionBegin;
  if (*n == *cap) {
    PetscInt *grown;
    *cap = PetscMax(256, 2 * *cap);
    PetscCall(PetscMalloc1(2 * *cap, &grown));
    if (*n) PetscCall(PetscArraycpy(grown, *pairs, 2 * *n));
    PetscCall(PetscFree(*pairs));
    *pairs = grown;
  }
  (*pairs)[2 * *n]     = PetscMin(i, j);
  (*pairs)[2 * *n + 1] = PetscMax(i, j);
  (*n)++;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBroadPhasePairs(const TalusBodies *b, PetscReal envelope, PetscInt *npairs, PetscInt **pairs)
{
  CellEntry *cells;
  PetscInt   nfinite = 0, cap = 0, n = 0;
  PetscInt64 *coord;
  PetscReal  rmax = 0.0, cell;

  PetscFunctionBegin;
  *pairs = NULL;
  for (PetscInt k = 0; k < b->n; k++)
    if (b->shape[k] != TALUS_PLANE) rmax = PetscMax(rmax, TalusBodiesBoundingRadius(b, k));
  cell = 2.0 * rmax + envelope;
  if (!(cell > 0.0)) cell = 1.0;
  PetscCall(PetscMalloc2(b->n, &cells, 3 * b->n, &coord));
  for (PetscInt k = 0; k < b->n; k++) {
    if (b->shape[k] == TALUS_PLANE) continue;
    for (int d = 0; d < 3; d++) {
      const PetscReal x = PetscFloorReal(b->position[3 * k + d] / cell);
      PetscCheck(PetscAbsReal(x) < (PetscReal)((PetscInt64)1 << 20), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "body %" PetscInt_FMT " at %g is too far from the origin for the collision grid (cell %g)", b->id[k], (double)b->position[3 * k + d], (double)cell);
      coord[3 * nfinite + d] = (PetscInt64)x;
    }
    cells[nfinite].key  = CellKey(coord[3 * nfinite], coord[3 * nfinite + 1], coord[3 * nfinite + 2]);
    cells[nfinite].body = k;
    nfinite++;
  }
  if (nfinite > 1) qsort(cells, (size_t)nfinite, sizeof(CellEntry), CompareCell);
  /* coordinates in sorted order, recomputed from the keys */
  for (PetscInt e = 0; e < nfinite; e++) {
    const PetscInt64 mask = ((PetscInt64)1 << 21) - 1, off = (PetscInt64)1 << 20;
    coord[3 * e]     = ((cells[e].key >> 42) & mask) - off;
    coord[3 * e + 1] = ((cells[e].key >> 21) & mask) - off;
    coord[3 * e + 2] = (cells[e].key & mask) - off;
  }
  for (PetscInt e = 0; e < nfinite; e++) {
    const PetscInt i = cells[e].body;
    /* the 13 neighbour cells with a larger key, plus the rest of this cell: each pair once */
    for (int dx = -1; dx <= 1; dx++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dz = -1; dz <= 1; dz++) {
          const PetscInt64 key = CellKey(coord[3 * e] + dx, coord[3 * e + 1] + dy, coord[3 * e + 2] + dz);
          PetscInt         lo = 0, hi = nfinite;
          if (key < cells[e].key) continue;
          while (lo < hi) { /* first entry with this key */
            const PetscInt mid = (lo + hi) / 2;
            if (cells[mid].key < key) lo = mid + 1;
            else hi = mid;
          }
          for (PetscInt f = (key == cells[e].key ? e + 1 : lo); f < nfinite && cells[f].key == key; f++) {
            const PetscInt  j     = cells[f].body;
            const PetscReal reach = TalusBodiesBoundingRadius(b, i) + TalusBodiesBoundingRadius(b, j) + envelope;
            PetscReal       d2    = 0.0;
            for (int d = 0; d < 3; d++) d2 += PetscSqr(b->position[3 * i + d] - b->position[3 * j + d]);
            if (d2 <= reach * reach) PetscCall(AppendPair(i, j, &n, &cap, pairs));
          }
        }
  }
  /* every finite body against every plane, within its bounding radius plus the envelope */
  for (PetscInt p = 0; p < b->n; p++) {
    if (b->shape[p] != TALUS_PLANE) continue;
    for (PetscInt k = 0; k < b->n; k++) {
      const PetscReal *m = &b->size[3 * p];
      PetscReal        height;
      if (b->shape[k] == TALUS_PLANE) continue;
      height = m[0] * (b->position[3 * k] - b->position[3 * p]) + m[1] * (b->position[3 * k + 1] - b->position[3 * p + 1]) + m[2] * (b->position[3 * k + 2] - b->position[3 * p + 2]);
      if (height <= TalusBodiesBoundingRadius(b, k) + envelope) PetscCall(AppendPair(p, k, &n, &cap, pairs));
    }
  }
  PetscCall(PetscFree2(cells, coord));
  *npairs = n;
  PetscFunctionReturn(0);
}

static const TalusBodies *sort_bodies; /* for the comparison below; contact sorting is serial */

static int CompareContact(const void *x, const void *y)
{
  const TalusContact *c = (const TalusContact *)x, *d = (const TalusContact *)y;
  const PetscInt      ca = sort_bodies->id[c->a], da = sort_bodies->id[d->a], cb = sort_bodies->id[c->b], db = sort_bodies->id[d->b];
  if (ca != da) return ca < da ? -1 : 1;
  if (cb != db) return cb < db ? -1 : 1;
  return (c->feature > d->feature) - (c->feature < d->feature);
}

PetscErrorCode TalusFindContacts(const TalusBodies *b, PetscReal envelope, TalusContactList *list)
{
  PetscInt  npairs, *pairs;

  PetscFunctionBegin;
  list->n = 0;
  PetscCall(TalusBroadPhasePairs(b, envelope, &npairs, &pairs));
  for (PetscInt p = 0; p < npairs; p++) PetscCall(TalusCollidePair(b, pairs[2 * p], pairs[2 * p + 1], envelope, list));
  PetscCall(PetscFree(pairs));
  /* a canonical order, whatever the order bodies are stored in */
  sort_bodies = b;
  if (list->n > 1) qsort(list->c, (size_t)list->n, sizeof(TalusContact), CompareContact);
  sort_bodies = NULL;
  PetscFunctionReturn(0);
}
