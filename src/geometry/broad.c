/*
 * Broad phase: which pairs of bodies may touch. Finite bodies (spheres, boxes) go into a uniform
 * grid of cells no smaller than the largest gridded bounding diameter plus the envelope, so that any two
 * bodies within reach lie in the same or in adjacent cells; the cells are found by sorting the
 * bodies by cell key, not by allocating the grid, so the domain needs no bounds. Planes are few
 * and infinite: every finite body is tested against every plane. So are the few bodies far larger than
 * the rest (a rig's wheel, carriage and post over 10^4 clumps: a grid sized for the wheel put the whole bin
 * in 2 x 2 cells, and half of each step's collision went to testing every clump against every other): a
 * body whose bounding radius exceeds LARGE_RADIUS times the mean is tested against every finite body
 * instead of being gridded (when there are at most LARGE_MAX of them). The pairs found are the same either way
 * (each pair once, by the same test).
 *
 * Both sorts (bodies by cell, pairs by body ids) are radix sorts of 64-bit keys, and the
 * neighbour cells are found by cursors that only move forward, so the broad phase is a few
 * sequential sweeps: comparison sorts and a binary search per neighbour cell cost cache misses
 * that grow with the bed (docs/notes/2026-11-performance-records.md).
 */
#include <talus/contacts.h>
#include <talus/math3.h>

/* A body whose bounding radius is more than this many times the mean of the finite bodies' is not gridded */
#define LARGE_RADIUS 4.0
/* ... unless there are more of them than this: then every body is gridded, as the largest one needs */
#define LARGE_MAX 64

/* A 64-bit key with a payload: a body and its cell, or a pair of bodies and their ids. */
typedef struct {
  PetscInt64 key;
  PetscInt   i, j;
} Keyed;

/* Stable LSD radix sort by key (non-negative), 16 bits per pass; passes whose digit is the same
   for every entry are skipped. */
static PetscErrorCode RadixSort(PetscInt n, Keyed *v)
{
  Keyed    *tmp, *from = v, *to;
  PetscInt *count;

  PetscFunctionBegin;
  if (n < 2) PetscFunctionReturn(0);
  if (n <= 64) { /* a few bodies (a mechanism): insertion, also stable, so the same order; the passes below clear
                    and scan 65536 counts each whatever n is, a fifth of a double pendulum's step */
    for (PetscInt k = 1; k < n; k++) {
      const Keyed x = v[k];
      PetscInt    j = k;
      for (; j > 0 && (uint64_t)v[j - 1].key > (uint64_t)x.key; j--) v[j] = v[j - 1]; /* the passes' order */
      v[j] = x;
    }
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc2(n, &tmp, 65536, &count));
  to = tmp;
  for (int shift = 0; shift < 64; shift += 16) {
    const PetscInt64 first = (from[0].key >> shift) & 0xffff;
    PetscBool        same  = PETSC_TRUE;
    PetscInt         sum   = 0;
    PetscCall(PetscArrayzero(count, 65536));
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt64 d = (from[k].key >> shift) & 0xffff;
      count[d]++;
      same = (PetscBool)(same && d == first);
    }
    if (same) continue;
    for (PetscInt d = 0; d < 65536; d++) {
      const PetscInt c = count[d];
      count[d]         = sum;
      sum += c;
    }
    for (PetscInt k = 0; k < n; k++) to[count[(from[k].key >> shift) & 0xffff]++] = from[k];
    to = from, from = (from == v) ? tmp : v;
  }
  if (from != v) PetscCall(PetscArraycpy(v, from, n));
  PetscCall(PetscFree2(tmp, count));
  PetscFunctionReturn(0);
}

/* 21 bits per coordinate, offset so that negative cells have positive keys */
static PetscInt64 CellKey(PetscInt64 ix, PetscInt64 iy, PetscInt64 iz)
{
  const PetscInt64 off = (PetscInt64)1 << 20;
  return ((ix + off) << 42) | ((iy + off) << 21) | (iz + off);
}

/* Appends pair (min(i, j), max(i, j)) keyed by its bodies' ids (lower id in the high half). */
static PetscErrorCode AppendPair(const TalusBodies *b, PetscInt i, PetscInt j, PetscInt *n, PetscInt *cap,
                                 Keyed **pairs)
{
  PetscFunctionBegin;
  if (*n == *cap) {
    Keyed *grown;
    *cap = PetscMax(256, 2 * *cap);
    PetscCall(PetscMalloc1(*cap, &grown));
    if (*n) PetscCall(PetscArraycpy(grown, *pairs, *n));
    PetscCall(PetscFree(*pairs));
    *pairs = grown;
  }
  (*pairs)[*n].i   = PetscMin(i, j);
  (*pairs)[*n].j   = PetscMax(i, j);
  (*pairs)[*n].key = ((PetscInt64)PetscMin(b->id[i], b->id[j]) << 32) | (PetscInt64)PetscMax(b->id[i], b->id[j]);
  (*n)++;
  PetscFunctionReturn(0);
}

/* The candidate pairs, sorted by their bodies' ids (lower id first): the order of the contacts. */
static PetscErrorCode SortedPairs(const TalusBodies *b, PetscReal envelope, PetscInt *npairs, Keyed **pairs)
{
  /* the neighbour cells with keys above a cell's own: columns (dx, dy) and their dz range */
  static const int column[5][3] = {
    {0, 0,  0 },
    {0, 1,  -1},
    {1, -1, -1},
    {1, 0,  -1},
    {1, 1,  -1}
  };
  Keyed      *cells;
  PetscInt    nfinite = 0, nlarge = 0, cap = 0, n = 0, cursor[5] = {0, 0, 0, 0, 0}, *large;
  PetscInt64 *coord, low_prev[5] = {-1, -1, -1, -1, -1};
  PetscReal   rmax = 0.0, rsum = 0.0, rlarge, cell, *radius, corner[3]; /* the bounding radii, -1 for a plane */

  PetscFunctionBegin;
  *pairs = NULL;
  PetscCall(PetscMalloc4(b->n, &cells, 3 * b->n, &coord, b->n, &radius, b->n, &large));
  TalusBodiesBoundingRadii(b, radius);
  for (PetscInt k = 0; k < b->n; k++)
    if (radius[k] >= 0.0) rsum += radius[k], nfinite++;
  rlarge = nfinite ? LARGE_RADIUS * rsum / nfinite : 0.0;
  for (PetscInt k = 0; k < b->n; k++) nlarge += (radius[k] > rlarge);
  if (nlarge > LARGE_MAX) rlarge = PETSC_MAX_REAL; /* not few: one grid for all (each large one scans every body) */
  nlarge = 0;
  /* cells counted from the gridded bodies' lowest corner, not the origin: a rank whose bodies are all small (its cell
     theirs) may hold them far from the origin; the pairs found, sorted by ids, are the same */
  for (int d = 0; d < 3; d++) corner[d] = PETSC_MAX_REAL;
  for (PetscInt k = 0; k < b->n; k++) {
    if (radius[k] < 0.0) continue;
    if (radius[k] > rlarge) {
      large[nlarge++] = k;
      continue;
    }
    rmax = PetscMax(rmax, radius[k]);
    for (int d = 0; d < 3; d++) corner[d] = PetscMin(corner[d], b->position[3 * k + d]);
  }
  cell = 2.0 * rmax + envelope;
  if (!(cell > 0.0)) cell = 1.0;
  nfinite = 0;
  for (PetscInt k = 0; k < b->n; k++) {
    PetscInt64 ix[3];
    if (radius[k] < 0.0 || radius[k] > rlarge) continue;
    for (int d = 0; d < 3; d++) {
      const PetscReal x = PetscFloorReal((b->position[3 * k + d] - corner[d]) / cell);
      PetscCheck(PetscAbsReal(x) < (PetscReal)((PetscInt64)1 << 20) - 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "body %" PetscInt_FMT " at %g m is %g cells of the collision grid from the lowest body, past its "
                 "2^20: a cell is the largest body's diameter and the envelope (%g m here), so the bodies are too "
                 "small for how far apart they are (sizes in other units than their positions?)",
                 b->id[k], (double)b->position[3 * k + d], (double)PetscAbsReal(x), (double)cell);
      ix[d] = (PetscInt64)x;
    }
    cells[nfinite].key = CellKey(ix[0], ix[1], ix[2]);
    cells[nfinite].i   = k;
    nfinite++;
  }
  PetscCall(RadixSort(nfinite, cells)); /* stable: bodies in index order within a cell */
  /* coordinates in sorted order, recomputed from the keys */
  for (PetscInt e = 0; e < nfinite; e++) {
    const PetscInt64 mask = ((PetscInt64)1 << 21) - 1, off = (PetscInt64)1 << 20;
    coord[3 * e]     = ((cells[e].key >> 42) & mask) - off;
    coord[3 * e + 1] = ((cells[e].key >> 21) & mask) - off;
    coord[3 * e + 2] = (cells[e].key & mask) - off;
  }
  for (PetscInt e = 0; e < nfinite; e++) {
    const PetscInt i = cells[e].i;
    for (int c = 0; c < 5; c++) {
      const PetscInt64 x = coord[3 * e] + column[c][0], y = coord[3 * e + 1] + column[c][1], z = coord[3 * e + 2];
      const PetscInt64 low = CellKey(x, y, z + column[c][2]), high = CellKey(x, y, z + 1);
      /* low grows with e (the keys are sorted and each column is a fixed offset), so the first
         entry at or above it is found by moving this column's cursor forward */
      if (low < low_prev[c]) cursor[c] = 0; /* cannot happen inside the grid's range; stay correct anyway */
      low_prev[c] = low;
      while (cursor[c] < nfinite && cells[cursor[c]].key < low) cursor[c]++;
      for (PetscInt f = (c == 0 ? e + 1 : cursor[c]); f < nfinite && cells[f].key <= high; f++) {
        const PetscInt  j     = cells[f].i;
        const PetscReal reach = radius[i] + radius[j] + envelope;
        PetscReal       d2    = 0.0;
        for (int d = 0; d < 3; d++) d2 += PetscSqr(b->position[3 * i + d] - b->position[3 * j + d]);
        if (d2 <= reach * reach) PetscCall(AppendPair(b, i, j, &n, &cap, pairs));
      }
    }
  }
  /* every large body against every other finite body (a pair of two large ones once) */
  for (PetscInt l = 0; l < nlarge; l++) {
    const PetscInt i = large[l];
    for (PetscInt j = 0; j < b->n; j++) {
      PetscReal reach, d2 = 0.0;
      if (j == i || radius[j] < 0.0 || (radius[j] > rlarge && j < i)) continue;
      reach = radius[i] + radius[j] + envelope;
      for (int d = 0; d < 3; d++) d2 += PetscSqr(b->position[3 * i + d] - b->position[3 * j + d]);
      if (d2 <= reach * reach) PetscCall(AppendPair(b, i, j, &n, &cap, pairs));
    }
  }
  /* every finite body against every plane, within its bounding radius plus the envelope */
  for (PetscInt p = 0; p < b->n; p++) {
    if (radius[p] >= 0.0) continue;
    for (PetscInt k = 0; k < b->n; k++) {
      const PetscReal *m = &b->size[3 * p];
      PetscReal        height;
      if (radius[k] < 0.0) continue;
      height = m[0] * (b->position[3 * k] - b->position[3 * p]) +
               m[1] * (b->position[3 * k + 1] - b->position[3 * p + 1]) +
               m[2] * (b->position[3 * k + 2] - b->position[3 * p + 2]);
      if (height <= radius[k] + envelope) PetscCall(AppendPair(b, p, k, &n, &cap, pairs));
    }
  }
  PetscCall(PetscFree4(cells, coord, radius, large));
  PetscCall(RadixSort(n, *pairs));
  *npairs = n;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusBroadPhasePairs(const TalusBodies *b, PetscReal envelope, PetscInt *npairs, PetscInt **pairs)
{
  Keyed *sorted;

  PetscFunctionBegin;
  PetscCall(SortedPairs(b, envelope, npairs, &sorted));
  PetscCall(PetscMalloc1(2 * *npairs + 1, pairs));
  for (PetscInt p = 0; p < *npairs; p++) (*pairs)[2 * p] = sorted[p].i, (*pairs)[2 * p + 1] = sorted[p].j;
  PetscCall(PetscFree(sorted));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFindContacts(const TalusBodies *b, PetscReal envelope, TalusContactList *list)
{
  PetscInt npairs;
  Keyed   *pairs;

  PetscFunctionBegin;
  list->n = 0;
  /* pairs sorted by ids, and a pair's contacts by feature: the contacts come out in the canonical
     order (id_a, id_b, feature), whatever the order bodies are stored in */
  PetscCall(SortedPairs(b, envelope, &npairs, &pairs));
  /* a pair of spheres or a sphere and a plane has at most one contact, and the broad phase's test
     is the narrow phase's for them: room for one per pair is room enough but for box corners, and
     one allocation instead of growing the list many times in the first step of a run */
  PetscCall(TalusContactListReserve(list, npairs));
  for (PetscInt p = 0; p < npairs; p++) PetscCall(TalusCollidePair(b, pairs[p].i, pairs[p].j, envelope, list));
  PetscCall(PetscFree(pairs));
  PetscFunctionReturn(0);
}
