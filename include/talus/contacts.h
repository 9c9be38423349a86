/*
 * Contacts: what the narrow phase finds between two bodies (seed 000 sec. 1): the gap Phi, the
 * frame {n, u, w} with n pointing from the body with the lower global id (a) to the other (b),
 * and the contact point's offset from each body's centre in that body's frame.
 */
#ifndef TALUS_CONTACTS_H
#define TALUS_CONTACTS_H
#include <talus/bodies.h>

typedef struct {
  PetscInt  a, b;         /* local body indices; id[a] < id[b]; valid until bodies migrate */
  PetscInt  id_a, id_b;   /* their global ids */
  PetscInt  feature;      /* which contact of the pair (box corner, foundation point), 0 when there is one */
  PetscReal phi;          /* gap: < 0 penetration */
  PetscReal frame[9];     /* rows n, u, w (world) */
  PetscReal sa[3], sb[3]; /* contact point minus centre, in the body frame of a and of b */
  PetscReal mu;
  PetscReal impulse[3]; /* gamma = h * force, in (n, u, w): warm start in, solution out */
} TalusContact;

/* A box-plane contact's feature from here on is an elastic foundation's point: TALUS_FOUNDATION_FEATURE
   + i grid + j (TalusBodiesSetMaterialFoundation); below it, a box corner. */
#define TALUS_FOUNDATION_FEATURE 8

typedef struct {
  PetscInt      n, capacity;
  TalusContact *c;
} TalusContactList;

PETSC_EXTERN PetscErrorCode TalusContactListAppend(TalusContactList *, TalusContact **);
/* Room for `need` contacts in all (one allocation instead of many growths). */
PETSC_EXTERN PetscErrorCode TalusContactListReserve(TalusContactList *, PetscInt need);
PETSC_EXTERN PetscErrorCode TalusContactListDestroy(TalusContactList *);

/* Whether the narrow phase has a routine for this pair of shapes (collide.c's pair table). */
PETSC_EXTERN PetscBool TalusShapePairSupported(TalusShape, TalusShape);
/* Narrow phase for one pair: appends the contacts with Phi <= envelope (seed 000's delta_K). */
PETSC_EXTERN PetscErrorCode TalusCollidePair(const TalusBodies *, PetscInt i, PetscInt j, PetscReal envelope,
                                             TalusContactList *);
/* The compound's entries of the pair table (every shape with a compound), made from its parts' pairs
   (compound.c); TalusRegisterAll calls it. */
PETSC_EXTERN PetscErrorCode TalusCompoundRegisterPairs(void);

/* Broad phase + narrow phase over all bodies: a uniform grid of cells for the finite bodies,
   every finite body against every plane. Contacts come out sorted by (id_a, id_b, feature). */
PETSC_EXTERN PetscErrorCode TalusFindContacts(const TalusBodies *, PetscReal envelope, TalusContactList *);
/* The candidate pairs of the broad phase (i < j local indices), for tests and benchmarks. */
PETSC_EXTERN PetscErrorCode TalusBroadPhasePairs(const TalusBodies *, PetscReal envelope, PetscInt *npairs,
                                                 PetscInt **pairs);

/*
 * The three rows of D_i^T (seed 000 eq. 7) for one body of contact c: with d each of n, u, w,
 *   translation: sign d,   rotation (body-frame omega): sign s x (A^T d),
 * sign = +1 for body b, -1 for body a; s the contact point's offset in that body's frame.
 * rows[3][6] for (n, u, w) x (v_x, v_y, v_z, w_x, w_y, w_z).
 */
PETSC_EXTERN void TalusContactJacobian(const TalusBodies *, const TalusContact *, PetscBool body_b,
                                       PetscReal rows[3][6]);
/*
 * What a contact leaves for the next step's warm start (seed 001 warm-starts from the previous
 * step's impulses): the pair, the feature, the impulse as a world-frame vector (the contact frame
 * turns from step to step), and the id of the body whose owner keeps the contact.
 */
typedef struct {
  PetscInt  id_a, id_b, feature, owner;
  PetscReal impulse[3];
} TalusContactHistory;

/* The contacts' order (TalusFindContacts's): (id_a, id_b, feature) of one against another's, < 0, 0 or > 0 */
static inline int TalusContactKeyCompare(PetscInt id_a, PetscInt id_b, PetscInt feature, PetscInt other_a,
                                         PetscInt other_b, PetscInt other_feature)
{
  if (id_a != other_a) return id_a < other_a ? -1 : 1;
  if (id_b != other_b) return id_b < other_b ? -1 : 1;
  return (feature > other_feature) - (feature < other_feature);
}
/* Orders histories by (id_a, id_b, feature), the order TalusFindContacts gives contacts. */
PETSC_EXTERN int TalusContactHistoryCompare(const void *, const void *);
/* The histories of the list's contacts (each owned by its lower-id dynamic body), in its order, into *history (grown
   to *capacity as needed; *n of them): the next step's warm starts. */
PETSC_EXTERN PetscErrorCode TalusContactsRecordHistory(const TalusBodies *, const TalusContactList *,
                                                       TalusContactHistory **history, PetscInt *capacity, PetscInt *n);
/*
 * Warm start: each contact of `current` found in `history` (sorted) takes the stored impulse,
 * re-expressed in its new frame; the others start from zero.
 */
/* Whether (id_a, id_b) is one of the n pairs of body ids sorted by (a, b). */
PETSC_EXTERN PetscBool TalusIdPairsContain(PetscInt n, const PetscInt pairs[], PetscInt id_a, PetscInt id_b);
/* Drops, in order, the contacts between the n pairs of body ids sorted by (a, b), a < b (bodies that a joint holds
   together do not collide). */
PETSC_EXTERN void           TalusContactsDropPairs(TalusContactList *, PetscInt n, const PetscInt pairs[]);
PETSC_EXTERN PetscErrorCode TalusContactsWarmStart(const TalusBodies *, const TalusContactHistory *history,
                                                   PetscInt nhistory, TalusContactList *current, PetscInt *matched);

#endif
