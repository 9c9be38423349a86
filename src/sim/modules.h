/*
 * What the simulator's own modules (include/talus/module.h) see of it besides the public API: their
 * records, and the core's few functions they call. A module's file includes this header, not the
 * core's private one, so that it owns its state and reaches the rest through functions.
 */
#ifndef TALUS_SIM_MODULES_H
#define TALUS_SIM_MODULES_H
#include <talus/module.h>
#include <talus/joints.h>
#include <talus/drives.h>
#include <talus/math3.h>

/* talus's modules, registered in this order by TalusSimRegisterModules (modules.c) */
PETSC_INTERN const TalusSimModuleOps TalusTablesModule;  /* tables.c: the tables of time */
PETSC_INTERN const TalusSimModuleOps TalusWatchesModule; /* probe.c: the watched bodies' and groups' forces */

/* tables.c: *why NULL if handle (0: none) names a table of that many value columns, else why not */
PETSC_INTERN PetscErrorCode TalusSimTableFault(TalusSim, PetscInt handle, PetscInt columns, const char **why);
/* linked.c: a linked body's local index by id (-1: the world, -2: not on this rank) */
PETSC_INTERN PetscInt TalusSimLinkedIndex(TalusSim, PetscInt id);

#endif
