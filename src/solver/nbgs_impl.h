/*
 * Private to the Tao type nbgs (nbgs.c) and its two forms of a sweep: on the rows of an assembled W
 * (nbgs_rows.c: talus ccp's problems, FCLib files, dumps) and on body velocities through the row
 * blocks of a matrix-free B (nbgs_bodies.c: the simulator's N = B M^-1 B^T).
 */
#ifndef TALUS_NBGS_IMPL_H
#define TALUS_NBGS_IMPL_H
#include <petsc/private/taoimpl.h>
#include <talus.h>
#include "residual_norm.h"

typedef struct _NBGSForm NBGSForm;

typedef struct {
  TalusResidualNormSetting hdr; /* first: the norm the type stops on (residual_norm.h) */
  Mat                      W;
  Vec                      q;
  const TalusFeasibleSet  *set;
  PetscReal                omega;           /* relaxation of each block's update */
  PetscReal                interface_omega; /* that of blocks coupled to other ranks' (Jacobi) */
  PetscReal                residual_scale;  /* g_d = residual_scale / max_i W_ii */
  PetscBool                nncg;            /* nonsmooth nonlinear conjugate gradient acceleration */
  /* per solve */
  const NBGSForm *form;
  void           *data;          /* the form's */
  Vec             u;             /* W r + q after the last sweep */
  PetscReal      *blocks;        /* each cone's 3 x 3 block of W */
  PetscBool      *interface;     /* per local row: coupled to other ranks' rows (a cone's three alike) */
  PetscReal       residual_step; /* g_d */
  PetscInt        states[3];     /* separating, sticking, sliding contacts after the last sweep */
  PetscInt        restarts;      /* of the acceleration, in the last solve */
} TAO_NBGS;

struct _NBGSForm {
  const char *name;
  /* the form's data for one solve: the cones' blocks, which of them are interface blocks, g_d's max W_ii */
  PetscErrorCode (*setup)(Tao, PetscReal *max_diagonal);
  /* one sweep over this rank's blocks with the other ranks' impulses of the sweep's start */
  PetscErrorCode (*sweep)(Tao, Vec r);
  /* nb->u = W r + q */
  PetscErrorCode (*velocity)(Tao, Vec r);
  /* the form's state from r, where r did not come from its sweep (NULL: no state) */
  PetscErrorCode (*sync)(Tao, Vec r);
  /* destroys what the data holds (nbgs frees the data itself) */
  PetscErrorCode (*release)(void *data);
};

PETSC_INTERN const NBGSForm NBGSRows, NBGSBodies;

/* Cone c's update from qt (its velocity less its own block's part W_cc r_c): the exact Coulomb
   solution, relaxed by the block's omega, into x[0..2]. */
static inline void NBGSUpdateCone(TAO_NBGS *nb, PetscInt c, const PetscReal qt[3], PetscReal mu, PetscScalar x[3])
{
  const PetscReal omega = nb->interface[3 * c] ? nb->interface_omega : nb->omega;
  PetscReal       rc[3];

  nb->states[TalusCoulombLocalSolve(&nb->blocks[9 * c], qt, mu, rc)]++;
  for (PetscInt i = 0; i < 3; i++) x[i] = (1.0 - omega) * x[i] + omega * rc[i];
  if (omega > 1.0) { /* over-relaxed, the update can leave the cone */
    PetscReal y[3] = {PetscRealPart(x[0]), PetscRealPart(x[1]), PetscRealPart(x[2])};
    TalusProjectTriplet(mu, y, rc);
    for (PetscInt i = 0; i < 3; i++) x[i] = rc[i];
  }
}

#endif
