/*
 * Private to jacobian_shell.c and jacobian_wide.c: the matrix-free B's products on 8 contacts at a time with
 * AVX-512, where the processor has it, for runs of axial records (spheres on spheres and planes: the granular
 * beds' contacts). Operation for operation the scalar code's, so every result is bitwise its own.
 */
#ifndef TALUS_JACOBIAN_WIDE_H
#define TALUS_JACOBIAN_WIDE_H
#include <petscsys.h>

/* What the scaled gather of jacobian_shell.c reads and writes, each array at the run's first contact (slot: 2 per
   contact; d, z, e, r, y: 3 per contact; s: 1 per contact); z, s, e and r may be NULL (e and r together), add
   reads y before writing it (then z is NULL). */
typedef struct {
  const PetscInt    *slot;
  const char        *kind;
  const PetscReal   *J; /* the run's transposed records (TalusJacobianWideRecords), at its first contact */
  const PetscScalar *x; /* the ghosted body vector (all slots) */
  const PetscScalar *d, *z, *s, *e, *r;
  PetscBool          add;
  PetscScalar       *y;
} TalusGatherArgs;

/* The axial records of each group of 8 contacts 8g..8g+7 whose records are all axial, transposed so that field f
   (n0 n1 n2 t0 t1 t2 lambda_a lambda_b) of contact 8g + i is (*soa)[64 g + 8 f + i]: 8 doubles a contact, like the
   records; other groups' entries are not set. *soa is NULL where the wide code is not used (no AVX-512, -simd
   false, fewer than 8 contacts); the caller frees it. */
PETSC_INTERN PetscErrorCode TalusJacobianWideRecords(PetscInt n, const char *kind, const PetscReal *J, PetscReal **soa);

/* y_c = D (B x + E D r) + z + shift for the first 8k of n contacts while each group of 8 is axial; returns how
   many it did (0 where the processor lacks AVX-512 or the wide code is turned off). */
PETSC_INTERN PetscInt TalusJacobianGatherWide(PetscInt n, const TalusGatherArgs *);

/* What the scatter of jacobian_shell.c reads and writes, each array at the run's first contact (slot: 2 per
   contact; first: 1; d and g: 3); d may be NULL (no scaling); y is the ghosted body vector (all slots). */
typedef struct {
  const PetscInt      *slot;
  const char          *kind;
  const PetscReal     *J;     /* as TalusGatherArgs' */
  const unsigned char *first; /* 1: the contact is its body a's first (assigns instead of adding), 2: body b's */
  const PetscScalar   *d, *g;
  PetscScalar         *y;
} TalusScatterArgs;

/* y_a -= (f, S_a x f), y_b += (f, S_b x f) with f = F^T D g for the first 8k of n contacts while each group of 8 is
   axial; returns how many it did (as TalusJacobianGatherWide). */
PETSC_INTERN PetscInt TalusJacobianScatterWide(PetscInt n, const TalusScatterArgs *);

#endif
