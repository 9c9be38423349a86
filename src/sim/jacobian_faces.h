/*
 * Private to jacobian_shell.c: the bodies at the ranks' faces, whose B^T g is added in one rank's order
 * (jacobian_faces.c).
 */
#ifndef TALUS_JACOBIAN_FACES_H
#define TALUS_JACOBIAN_FACES_H
#include <petscsf.h>
#include <talus/contacts.h>

typedef struct _TalusJacobianFaces *TalusJacobianFaces;

/* collective: n contacts (slots, kinds as the shell's; contacts for their keys), ndynamic owned slots, then the
   ghost slots' global block indices in the body vector of the layout columns */
PETSC_INTERN PetscErrorCode TalusJacobianFacesCreate(MPI_Comm, PetscLayout columns, PetscInt n, const PetscInt *slot,
                                                     const char *kind, const TalusContact *contacts, PetscInt ndynamic,
                                                     const PetscInt *ghost_block, TalusJacobianFaces *);
/* the ghost sides' terms of B^T D g sent (d NULL: the identity) */
PETSC_INTERN PetscErrorCode TalusJacobianFacesBegin(TalusJacobianFaces, const PetscReal *J, const char *kind,
                                                    const PetscScalar *d, const PetscScalar *g);
/* the face bodies' entries of y = B^T D g written over, their terms added in the contacts' order */
PETSC_INTERN PetscErrorCode TalusJacobianFacesEnd(TalusJacobianFaces, const PetscReal *J, const char *kind,
                                                  const PetscScalar *d, const PetscScalar *g, PetscScalar *y);
PETSC_INTERN PetscErrorCode TalusJacobianFacesDestroy(TalusJacobianFaces *);

#endif
