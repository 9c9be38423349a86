/*
 * Piecewise-linear functions of time given as tables (docs/mechanisms.md): a driver's relative angle
 * or displacement, a prescribed body's displacement, a load's force or torque. A table is n >= 2
 * points (t_i, y_i) with strictly increasing times and `columns` values each; between two points y
 * is interpolated linearly, before the first and after the last it holds the end value (its rate 0
 * there). The rate at a point t_i is the slope of the segment that starts there (the derivative
 * from the right: what a step that starts at t_i will follow).
 */
#ifndef TALUS_TABLE_H
#define TALUS_TABLE_H
#include <petscsys.h>

/* Structs that name a table hold a handle: 0 for none, else what TalusSimAddTable returned. */
typedef struct {
  PetscInt   columns, npoints;
  PetscReal *data; /* npoints rows of (t, y_1 .. y_columns) */
} TalusTable;

/* y(t) and dy/dt(t) (either may be NULL), columns values each. */
PETSC_EXTERN void TalusTableEvaluate(const TalusTable *, PetscReal t, PetscReal y[], PetscReal rate[]);
/* NULL if (columns, npoints, data) make a table, else why not. */
PETSC_EXTERN const char *TalusTableCheck(PetscInt columns, PetscInt npoints, const PetscReal data[]);

#endif
