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
PETSC_INTERN const TalusSimModuleOps TalusDrivesModule;  /* drives.c: prescribed motions, loads, springs */
PETSC_INTERN const TalusSimModuleOps TalusWatchesModule; /* probe.c: the watched bodies' and groups' forces */

/* tables.c: *why NULL if handle (0: none) names a table of that many value columns, else why not */
PETSC_INTERN PetscErrorCode TalusSimTableFault(TalusSim, PetscInt handle, PetscInt columns, const char **why);
/* linked.c: bodies a module links (by id, at any distance: found on every step, their ghosts made where the
   links need them); a linked body's local index by id (-1: the world, -2: not on this rank), found among
   the bodies [from, n) by TalusSimMapLinked (0: afresh); body id's index while every rank holds every
   body (before the first step), or -1; the poses of bodies by id on every rank, from their owners
   (collective, between steps) */
PETSC_INTERN PetscErrorCode TalusSimLinkBodies(TalusSim, PetscInt n, const PetscInt ids[]);
PETSC_INTERN PetscInt       TalusSimLinkedIndex(TalusSim, PetscInt id);
PETSC_INTERN PetscErrorCode TalusSimMapLinked(TalusSim, PetscInt from);
PETSC_INTERN PetscInt       TalusSimFindBody(TalusSim, PetscInt id);
PETSC_INTERN PetscErrorCode TalusSimGatherPoses(TalusSim, PetscInt n, const PetscInt ids[], TalusPose poses[]);
/* sim_getters.c: refuses a link given after the bodies are distributed (`what` names it) */
PETSC_INTERN PetscErrorCode TalusSimCheckBeforeStart(TalusSim, const char what[]);
/* sim_getters.c: the largest bounding radius of a finite body (what a step may move a body: the ghosts'
   reach); the step's applied wrenches (force, torque in the world, 6 per owned body): the last step's
   freed and, with any, made zeroed for this one (else NULL), read by the free velocities */
PETSC_INTERN PetscErrorCode TalusSimGetLargestRadius(TalusSim, PetscReal *);
PETSC_INTERN PetscErrorCode TalusSimResetWrenches(TalusSim, PetscBool any, PetscReal **wrench);

#endif
