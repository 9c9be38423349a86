/*
 * The narrow phase of one pair of bodies: a compound's contacts are its parts' (compound.c), every other pair is
 * the pair table's (collide.c). Above both, so that neither calls the other back.
 */
#include "collide_impl.h"

PetscBool TalusShapePairSupported(TalusShape a, TalusShape b)
{
  if (a == TALUS_COMPOUND || b == TALUS_COMPOUND) return PETSC_TRUE; /* its parts meet every shape */
  return TalusPrimitivePairSupported(a, b);
}

PetscErrorCode TalusCollidePair(const TalusBodies *b, PetscInt i, PetscInt j, PetscReal envelope,
                                TalusContactList *list)
{
  PetscFunctionBegin;
  if (b->shape[i] == TALUS_COMPOUND || b->shape[j] == TALUS_COMPOUND)
    PetscCall(TalusCompoundPair(b, i, j, envelope, list));
  else PetscCall(TalusCollidePrimitivePair(b, i, j, envelope, list));
  PetscFunctionReturn(0);
}
