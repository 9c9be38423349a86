/* The narrow phase's one contact point of a pair (collide.c's routines, convex.c's general pairs), before it is
   ordered by global id: its gap, the normal from first to second and the points on each body (world frame),
   and the feature that names it among the pair's contacts. */
#ifndef TALUS_COLLIDE_IMPL_H
#define TALUS_COLLIDE_IMPL_H
#include <talus/contacts.h>

typedef struct {
  PetscReal phi, n[3], p_first[3], p_second[3];
  PetscInt  feature;
} TalusHit;

/* The most contact points of a pair of flat features (two faces' overlap: 2 x TALUS_MAX_SUPPORT_POINTS) */
#define TALUS_MAX_CONVEX_HITS (2 * TALUS_MAX_SUPPORT_POINTS)

/* convex.c: the contacts within the envelope of two convex bodies without a closed form (each shape's support
   and support_set), at most TALUS_MAX_CONVEX_HITS */
PETSC_INTERN void TalusConvexHits(const TalusBodies *, PetscInt first, PetscInt second, PetscReal envelope,
                                  TalusHit hits[], PetscInt *nhits);

/* A pair routine: appends the contacts of (first, second) within the envelope, ordered by global id */
typedef PetscErrorCode (*TalusPairFn)(const TalusBodies *, PetscInt first, PetscInt second, PetscReal envelope,
                                      TalusContactList *);
/* collide.c: the pair table's entry for the shapes (a, b); with swap the routine takes the pair as (j, i) */
PETSC_INTERN PetscErrorCode TalusCollideRegisterPair(TalusShape a, TalusShape b, TalusPairFn, PetscBool swap);

#endif
