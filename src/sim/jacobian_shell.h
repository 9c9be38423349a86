/*
 * The matrix-free B (jacobian_shell.c), its records (jacobian_record.c) and M^-1: what the step's builder and B's
 * own files see of it, without the rest of the simulator's private header.
 */
#ifndef TALUS_JACOBIAN_SHELL_H
#define TALUS_JACOBIAN_SHELL_H
#include <petscmat.h>
#include <talus/contacts.h>
#include "modules.h"

/* The matrix-free B (jacobian_shell.c): per contact a record of TALUS_JACOBIAN_AXIAL or _GENERAL
   doubles (its kind), two body slots; after the contacts' rows, nrows free rows of TALUS_JACOBIAN_ROW
   doubles and two body slots each; per owned dynamic body TALUS_INVERSE_MASS doubles of M^-1 in the
   world frame. The arrays stay the caller's and must outlive B. */
#define TALUS_JACOBIAN_AXIAL   8
#define TALUS_JACOBIAN_GENERAL 12
/* A free row's record (a joint's): its row of B for each side, linear then angular, world frame. */
#define TALUS_JACOBIAN_ROW 12
/* Writes contact's record from its frame and world-frame lever arms; returns its kind (length). */
PETSC_INTERN char TalusJacobianRecord(const PetscReal frame[9], const PetscReal arm_a[3], const PetscReal arm_b[3],
                                      PetscReal J[TALUS_JACOBIAN_GENERAL]);
PETSC_INTERN void TalusInverseMassRecord(PetscReal mass, const PetscReal inertia[3], const PetscReal A[9],
                                         PetscReal minv[TALUS_INVERSE_MASS]);
PETSC_INTERN PetscErrorCode TalusJacobianCreateShell(PetscLayout rows, PetscLayout columns, PetscInt ncontacts,
                                                     PetscInt nrows, PetscInt ndynamic, const PetscInt *slot,
                                                     const char *kind, const PetscReal *J, const PetscInt *row_slot,
                                                     const PetscReal *row_J, const PetscReal *minv, Mat *B);
/* Collective: B^T g of the bodies whose contacts lie on several ranks added in one rank's order, the same bits on
   any number of ranks (jacobian_faces.c): the contacts of B's blocks (for their order) and the ghost slots' global
   block indices; nothing on one rank */
PETSC_INTERN PetscErrorCode TalusJacobianSetFaces(Mat B, const TalusContact *contacts, const PetscInt *ghost_block);
/* v <- M^-1 v for a body-space vector of the matrix-free B (a TalusInverseMassFn: ctx is B) */
PETSC_INTERN PetscErrorCode TalusJacobianApplyInverseMass(Vec v, void *B);

#endif
