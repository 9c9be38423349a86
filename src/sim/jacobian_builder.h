/*
 * Private to the simulator's assembly of a step's CCP (step_ccp.c and the builders).
 *
 * Constraint kinds: a row block of the CCP is one constraint, and its kind says how many rows it
 * has, where they go in the feasible set and gives its rows' terms. Contacts (contact_kind.c, 3 rows:
 * normal and two tangents, seed 000 eq. 7, in a friction cone) come first on each rank, then the
 * joints' limits (joint_kind.c, 1 non-negative row each), then the other rows of joints (joint_kind.c,
 * 1 free row each, seed 000 eq. 12).
 *
 * Builders of B = D^T: one step's B in the form the run uses, fed the owned dynamic bodies and the
 * row blocks by TalusSimAssembleCCP, which knows no form. Matrix-free (builder_matrix_free.c: the
 * records of jacobian_shell.c, world-frame angular velocities, block-diagonal M^-1) and assembled
 * (builder_assembled.c: COO into an MPIAIJ matrix, the body-frame angular velocities of seed 000,
 * diagonal M^-1), for cross-checking.
 */
#ifndef TALUS_JACOBIAN_BUILDER_H
#define TALUS_JACOBIAN_BUILDER_H
#include "sim_impl.h"

/* The section of the matrix-free B a kind's blocks go in. */
typedef enum {
  TALUS_BLOCK_CONE, /* 3 rows: a contact's record of 8 or 12 doubles */
  TALUS_BLOCK_ROW   /* 1 row: its row of B for each side, 12 doubles */
} TalusBlockForm;

/* Where a kind's blocks go in the feasible set (TalusCCPSetFeasibleSet): every rank's rows are the
   cones, then the non-negative rows, then the free rows. */
typedef enum {
  TALUS_SET_CONE,        /* a friction cone of 3 rows (the set's mu) */
  TALUS_SET_NONNEGATIVE, /* one-sided rows (joint limits) */
  TALUS_SET_FREE         /* two-sided rows (joints, drivers) */
} TalusBlockSet;

typedef struct {
  const char    *name;
  PetscInt       rows; /* rows per block */
  TalusBlockForm form;
  TalusBlockSet  set;
  /* This step's blocks of the kind on this rank, and block i */
  PetscInt (*count)(TalusSim);
  void *(*block)(TalusSim, PetscInt i);
  PetscInt max_record;  /* doubles of the longest matrix-free record of a block */
  PetscInt max_entries; /* nonzeros of B a block has at most (two bodies, 6 columns each) */
  /* The block's rows of the linear term before B v_free: its stabilisation (contacts: seed 000
     eq. 13, b_n = Phi / h, 0 on the tangents) and the known velocity of its fixed bodies' material
     (seed 002 eq. 70, 72: a prescribed body's, a conveyor's). */
  void (*stabilisation)(const TalusBodies *, const void *block, PetscReal h, PetscScalar b[]);
  /* Its impulse: the warm start before the solve, the solution after it. */
  void (*get_impulse)(const void *block, PetscScalar gamma[]);
  void (*set_impulse)(void *block, const PetscScalar gamma[]);
  /* Its rows of B: a matrix-free record (the two bodies' slots in the ghosted body vector, the
     record; returns the record's length), or COO entries at global row `row` (returns how many). */
  PetscInt (*record)(const TalusBodies *, const void *block, const PetscInt slot[], PetscInt block_slot[2],
                     PetscReal J[]);
  PetscInt (*entries)(const TalusBodies *, const void *block, PetscInt row, PetscInt coo_i[], PetscInt coo_j[],
                      PetscScalar coo_v[]);
  /* Its rows' entries of the diagonal of N = B M^-1 B^T, from the two bodies' masses and inertias. */
  void (*diagonal)(const TalusBodies *, const void *block, PetscScalar diag[]);
  /* Its rows' compliance E (seed 004 eq. 60: the problem's operator is N + E), or NULL: rigid rows. */
  void (*compliance)(const TalusBodies *, const void *block, PetscReal h, PetscScalar E[]);
  /* Raises its rows' E to the regularisation floor (docs/compliance.md, "The near-rigid floor"), or
     NULL: the kind keeps its rows as compliance() made them. */
  void (*floor)(const TalusBodies *, const void *block, const TalusContactFloor *, PetscScalar E[]);
} TalusConstraintKind;

PETSC_INTERN const TalusConstraintKind TalusContactKind, TalusJointLimitKind, TalusJointRowKind;

typedef struct _TalusJacobianBuilder TalusJacobianBuilder;

typedef struct _TalusJacobianBuilderOps {
  /* This step's body-space vector ccp->v_free (its layout: 6 entries per owned dynamic body, and
     for the matrix-free form the ghost bodies the blocks touch) and the room for M^-1. */
  PetscErrorCode (*begin_bodies)(TalusJacobianBuilder *, TalusStepCCP *);
  /* Owned dynamic body k at entries [d, d + 6) of v_free, which hold its free velocity with the
     body-frame angular velocity: put into the form's frame, and its M^-1 recorded. */
  void (*add_body)(TalusJacobianBuilder *, PetscInt k, PetscInt d, PetscScalar v[6]);
  PetscErrorCode (*end_bodies)(TalusJacobianBuilder *, TalusStepCCP *);
  /* Room for nblocks blocks of a form (the kind is the form's first; the form's kinds are consecutive),
     then each block (index among the form's blocks) at its first global row; the cones first. */
  PetscErrorCode (*begin_blocks)(TalusJacobianBuilder *, const TalusConstraintKind *, PetscInt nblocks);
  void (*add_block)(TalusJacobianBuilder *, const TalusConstraintKind *, PetscInt index, const void *block,
                    PetscInt row);
  /* ccp->B (this rank's rows: jb->nrows), ccp->apply_inverse_mass and its context, ccp->bytes_per_product. */
  PetscErrorCode (*end)(TalusJacobianBuilder *, TalusStepCCP *);
  /* After the solve: body k's velocity and body-frame angular velocity from its entries of v+. */
  void (*get_body)(TalusBodies *, PetscInt k, const PetscScalar v[6]);
  /* After the solve: dynamic body k's velocity at the world-frame offset S from its centre, from v+'s local form
     with its ghosts updated (any body of the step's contacts, screened ones included); NULL where the form
     has no ghosts (the assembled one): then no contact is screened (step_screen.c). */
  void (*point_velocity)(TalusSim, const PetscScalar *v_local, PetscInt k, const PetscReal S[3], PetscReal out[3]);
} TalusJacobianBuilderOps;

struct _TalusJacobianBuilder {
  const TalusJacobianBuilderOps *ops;
  TalusSim                       sim;
  PetscInt                       nblocks[2]; /* blocks of each form (TalusBlockForm) */
  PetscInt                       nrows;      /* this rank's rows of B */
  /* matrix-free: each body's slot in the ghosted body vector, the running length of the records */
  PetscInt *slot;
  PetscInt  offset;
  /* assembled: diag(M^-1) while it is filled, the COO triplets */
  PetscScalar *minv;
  PetscInt     ncoo, *coo_i, *coo_j;
  PetscScalar *coo_v;
};

PETSC_INTERN const TalusJacobianBuilderOps TalusJacobianBuilderMatrixFree, TalusJacobianBuilderAssembled;

#endif
