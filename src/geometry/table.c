/*
 * Piecewise-linear tables of time (include/talus/table.h).
 */
#include <talus/table.h>

const char *TalusTableCheck(PetscInt columns, PetscInt npoints, const PetscReal data[])
{
  if (columns < 1) return "a table needs at least one value column";
  if (npoints < 2) return "a table needs at least two points";
  for (PetscInt i = 0; i < npoints * (columns + 1); i++)
    if (PetscIsInfOrNanReal(data[i])) return "a table holds a value that is not a finite number";
  for (PetscInt i = 1; i < npoints; i++)
    if (!(data[i * (columns + 1)] > data[(i - 1) * (columns + 1)])) return "a table's times must increase strictly";
  return NULL;
}

void TalusTableEvaluate(const TalusTable *tab, PetscReal t, PetscReal y[], PetscReal rate[])
{
  const PetscInt   w = tab->columns + 1, n = tab->npoints;
  const PetscReal *d  = tab->data;
  PetscInt         lo = 0, hi = n - 1;

  if (t < d[0] || t >= d[(n - 1) * w]) { /* held at an end */
    const PetscReal *end = t < d[0] ? d : &d[(n - 1) * w];
    for (PetscInt c = 0; c < tab->columns; c++) {
      if (y) y[c] = end[1 + c];
      if (rate) rate[c] = 0.0;
    }
    return;
  }
  while (hi - lo > 1) { /* d[lo * w] <= t < d[hi * w] */
    const PetscInt mid = (lo + hi) / 2;
    if (d[mid * w] <= t) lo = mid;
    else hi = mid;
  }
  {
    const PetscReal *a = &d[lo * w], *b = &d[hi * w], s = (t - a[0]) / (b[0] - a[0]);
    for (PetscInt c = 0; c < tab->columns; c++) {
      if (y) y[c] = a[1 + c] + s * (b[1 + c] - a[1 + c]);
      if (rate) rate[c] = (b[1 + c] - a[1 + c]) / (b[0] - a[0]);
    }
  }
}
