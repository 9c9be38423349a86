/*
 * A compound's mass properties are its union's (issue 55, class 6): where parts overlap (a two-sphere clump's lens,
 * two coincident spheres) the sum of the parts' moments counts the shared volume twice or more. This file gives
 * the excess: the integrals of e(x), x e(x) and x x^T e(x) with e(x) = max(c(x) - 1, 0), c(x) the number of parts
 * holding x; the parts' sum less the excess is the union's, exactly where the parts do not overlap (no point holds
 * two parts: the excess is 0) and to the rule's accuracy where they do.
 *
 * The rule: every pair of parts whose bounding spheres meet gets a grid of M^3 cells over the box where their
 * bounding spheres' boxes meet, and a point x counts (with weight e(x)) in the pair of the two lowest-numbered parts
 * that hold it, so that each point of an overlap is counted once however many pairs' boxes hold it (those regions,
 * one per pair, are disjoint and cover where c >= 2). A cell whose eight corners agree is taken by its centre, one
 * the boundary crosses by the midpoint rule on sub^3 sub-cells, and x^2's integral over a cell is exact (its
 * h^2 / 12). On the shipped two-sphere clump (M = 64, sub = 8; its lens is 4.3 % of the parts' sum) the volume and
 * the axial moment come within 4e-7 of the closed form's, a sphere's (two or three coincident ones) within 2e-4
 * (tests/mpi/test_described.c). M and sub shrink with the parts and their overlapping pairs so that at most
 * OVERLAP_BUDGET point-in-part tests are made.
 */
#include "shape_data_impl.h"
#include <talus/math3.h>

#define OVERLAP_CELLS  64        /* cells along each side of a pair's box, at most */
#define OVERLAP_BUDGET (1 << 27) /* tests of a point against a part, over all pairs */
#define SUBCELLS       8         /* a cell the boundary crosses is integrated on at most this many sub-cells a side */

static PetscReal Distance(const PetscReal a[3], const PetscReal b[3])
{
  const PetscReal d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return TalusNorm3(d);
}

/* The parts, each with its rotation (the given frame from its own) made once */
typedef struct {
  PetscInt              n;
  const TalusShapePart *part;
  PetscReal            *A; /* 9 per part */
} Parts;

/* Whether part p holds x (the compound's given frame) */
static PetscBool PartContains(const Parts *P, PetscInt p, const PetscReal x[3])
{
  const TalusShapePart *part = &P->part[p];
  const PetscReal      *A    = &P->A[9 * p];
  PetscReal             d[3], local[3];

  for (int k = 0; k < 3; k++) d[k] = x[k] - part->position[k];
  TalusRotateBack(A, d, local);
  return TalusShapeTable[part->shape].contains(part->size, local);
}

/* How many times more than once the parts hold x, if its two lowest-numbered parts are i and j; else 0 */
static PetscInt Excess(const Parts *P, PetscInt i, PetscInt j, const PetscReal x[3])
{
  PetscInt holding = 2;

  if (!PartContains(P, i, x) || !PartContains(P, j, x)) return 0;
  for (PetscInt p = 0; p < P->n; p++) {
    if (p == i || p == j || !PartContains(P, p, x)) continue;
    if (p < j) return 0; /* a lower pair than (i, j) holds x: counted there */
    holding++;
  }
  return holding - 1;
}

/* The moments of the excess over the box [lo, lo + h] by the midpoint rule on sub^3 cells (the second moments with
   each sub-cell's own), added */
static void AddCell(const Parts *P, PetscInt i, PetscInt j, const PetscReal lo[3], const PetscReal h[3], PetscInt sub,
                    PetscReal *volume, PetscReal first[3], PetscReal S[9])
{
  const PetscReal dV = h[0] * h[1] * h[2] / (sub * sub * sub);

  for (PetscInt a = 0; a < sub; a++)
    for (PetscInt b = 0; b < sub; b++)
      for (PetscInt c = 0; c < sub; c++) {
        const PetscReal x[3] = {lo[0] + (a + 0.5) * h[0] / sub, lo[1] + (b + 0.5) * h[1] / sub,
                                lo[2] + (c + 0.5) * h[2] / sub};
        const PetscReal w    = Excess(P, i, j, x) * dV;
        if (w == 0.0) continue;
        *volume += w;
        for (int r = 0; r < 3; r++) {
          first[r] += w * x[r];
          for (int t = 0; t < 3; t++) S[3 * r + t] += w * x[r] * x[t];
          S[4 * r] += w * h[r] * h[r] / (12.0 * sub * sub); /* the cell's own: x^2 over it is h^3 (x_c^2 + h^2 / 12) */
        }
      }
}

PetscErrorCode TalusCompoundOverlap(PetscInt n, const TalusShapePart part[], PetscReal *volume, PetscReal first[3],
                                    PetscReal S[9])
{
  PetscReal *reach;
  PetscInt   npairs = 0, cells, sub, *corner;
  Parts      P      = {n, part, NULL};

  PetscFunctionBegin;
  *volume = 0.0;
  for (int k = 0; k < 3; k++) first[k] = 0.0;
  for (int k = 0; k < 9; k++) S[k] = 0.0;
  PetscCall(PetscMalloc2(n, &reach, 9 * n, &P.A));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal q[4];
    for (int k = 0; k < 4; k++) q[k] = part[i].quaternion[k];
    TalusQuatNormalize(q);
    TalusQuatToMatrix(q, &P.A[9 * i]);
    reach[i] = TalusShapeTable[part[i].shape].bounding_radius(part[i].size);
  }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) npairs += (Distance(part[i].position, part[j].position) < reach[i] + reach[j]);
  { /* half the points a pair may test for its corners, half for the sub-cells of the ~3 M^2 cells its boundary
       crosses */
    const PetscReal points = (PetscReal)OVERLAP_BUDGET / (PetscMax(npairs, 1) * n);
    cells                  = PetscMax(4, PetscMin(OVERLAP_CELLS, (PetscInt)PetscCbrtReal(points / 2)));
    sub                    = PetscMax(1, PetscMin(SUBCELLS, (PetscInt)PetscCbrtReal(points / (6.0 * cells * cells))));
  }
  PetscCall(PetscMalloc1((cells + 1) * (cells + 1) * (cells + 1), &corner));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      const PetscInt m = cells + 1;
      PetscReal      lo[3], hi[3], h[3];
      if (!(Distance(part[i].position, part[j].position) < reach[i] + reach[j])) continue;
      for (int k = 0; k < 3; k++) {
        lo[k] = PetscMax(part[i].position[k] - reach[i], part[j].position[k] - reach[j]);
        hi[k] = PetscMin(part[i].position[k] + reach[i], part[j].position[k] + reach[j]);
        h[k]  = (hi[k] - lo[k]) / cells;
      }
      for (PetscInt a = 0; a < m; a++) /* the cells' corners */
        for (PetscInt b = 0; b < m; b++)
          for (PetscInt c = 0; c < m; c++) {
            const PetscReal x[3]        = {lo[0] + a * h[0], lo[1] + b * h[1], lo[2] + c * h[2]};
            corner[(a * m + b) * m + c] = Excess(&P, i, j, x);
          }
      for (PetscInt a = 0; a < cells; a++)
        for (PetscInt b = 0; b < cells; b++)
          for (PetscInt c = 0; c < cells; c++) {
            const PetscReal at[3]        = {lo[0] + a * h[0], lo[1] + b * h[1], lo[2] + c * h[2]};
            const PetscInt  first_corner = corner[(a * m + b) * m + c];
            PetscBool       same         = PETSC_TRUE;
            for (int q = 1; q < 8 && same; q++)
              same = (PetscBool)(corner[((a + (q >> 2)) * m + b + ((q >> 1) & 1)) * m + c + (q & 1)] == first_corner);
            /* a cell inside or outside (its corners alike) by its centre; one the boundary crosses by sub^3 */
            AddCell(&P, i, j, at, h, same ? 1 : sub, volume, first, S);
          }
    }
  PetscCall(PetscFree(corner));
  PetscCall(PetscFree2(reach, P.A));
  PetscFunctionReturn(0);
}
