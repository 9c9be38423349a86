/*
 * Domain decomposition for talus. It knows items only as (global id, centre, weight) and opaque
 * payload bytes: no physics. Ranks own the items whose centres lie in their region of a recursive
 * coordinate bisection (Zoltan's RCB, weighted by work); items move to their owners (migration) and
 * are copied to every rank whose region comes within a distance (ghosts), through PetscSF.
 */
#ifndef TALUS_DECOMP_H
#define TALUS_DECOMP_H
#include <petscsf.h>

typedef struct _p_TalusDecomp *TalusDecomp;

PETSC_EXTERN PetscErrorCode TalusDecompCreate(MPI_Comm, TalusDecomp *);
PETSC_EXTERN PetscErrorCode TalusDecompDestroy(TalusDecomp *);
/* -decomp_rebalance_every N (0: never on a schedule), -decomp_imbalance X (max / mean work) */
PETSC_EXTERN PetscErrorCode TalusDecompSetFromOptions(TalusDecomp);

/* Recursive coordinate bisection of the items held on each rank (collective); keeps the cuts. */
PETSC_EXTERN PetscErrorCode TalusDecompPartition(TalusDecomp, PetscInt n, const PetscInt ids[],
                                                 const PetscReal centres[], const PetscReal weights[]);
/* The rank whose region holds x. */
PETSC_EXTERN PetscErrorCode TalusDecompOwner(TalusDecomp, const PetscReal x[3], PetscMPIInt *owner);
/* The ranks whose regions meet the box [lo, hi]; ranks must hold room for all of them. */
PETSC_EXTERN PetscErrorCode TalusDecompRanksInBox(TalusDecomp, const PetscReal lo[3], const PetscReal hi[3],
                                                  PetscInt *n, PetscMPIInt ranks[]);

/* max / mean over ranks of the local work (collective). */
PETSC_EXTERN PetscErrorCode TalusDecompImbalance(TalusDecomp, PetscReal local_work, PetscReal *imbalance);
/* the same from the ranks' largest and total work, already reduced (no communication) */
PETSC_EXTERN PetscReal TalusDecompImbalanceOf(TalusDecomp, PetscReal max_work, PetscReal total_work);
/* Whether to repartition at this step: on schedule or when the imbalance exceeds the threshold. */
PETSC_EXTERN PetscErrorCode TalusDecompWantsRebalance(TalusDecomp, PetscInt step, PetscReal imbalance, PetscBool *);

/* The back-off of imbalance-triggered repartitions (the step of the last one, the current wait),
   saved in checkpoints so a restarted run repartitions when the original would have. */
PETSC_EXTERN PetscErrorCode TalusDecompGetBackoff(TalusDecomp, PetscInt *last_rebalance, PetscInt *cooldown);
PETSC_EXTERN PetscErrorCode TalusDecompSetBackoff(TalusDecomp, PetscInt last_rebalance, PetscInt cooldown);

/*
 * Sends item k (item_bytes bytes at items + k * item_bytes) to rank dest[k] (which may be this
 * rank); *recv receives the items sent here, ordered by source rank then by source order (so the
 * result is deterministic). Free *recv with PetscFree. Collective.
 */
PETSC_EXTERN PetscErrorCode TalusDecompExchange(TalusDecomp, PetscInt n, const PetscMPIInt dest[], size_t item_bytes,
                                                const void *items, PetscInt *nrecv, void **recv);
/* An MPI type for opaque records of `bytes` bytes, made of the widest words that divide it
   (free with MPI_Type_free). */
PETSC_EXTERN PetscErrorCode TalusDecompCreateRecordType(size_t bytes, MPI_Datatype *unit);
/*
 * The ghost star forest: roots are the n local items, item k is copied to the ndest[k] ranks
 * listed at dest[offset[k] .. offset[k + 1]). Leaves are this rank's ghost slots, ordered by source
 * rank then root index. PetscSFBcast with it refreshes every ghost from its owner.
 */
PETSC_EXTERN PetscErrorCode TalusDecompCreateGhostSF(TalusDecomp, PetscInt n, const PetscInt offset[],
                                                     const PetscMPIInt dest[], PetscSF *sf, PetscInt *nghost);

#endif
