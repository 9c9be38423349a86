/* The one growth policy of talus's growable arrays (bodies, contacts, warm starts, B's records, the
   outputs' series, texts), shared by the layers of libtalus. */
#ifndef TALUS_GROW_H
#define TALUS_GROW_H
#include <petscsys.h>

/* Room for need entries and a quarter more than before, at least 64: a quarter, not double, since
   most of these arrays are kept from step to step and their slack is paid at the memory peak. */
static inline PetscInt TalusGrowCapacity(PetscInt capacity, PetscInt need)
{
  return PetscMax(PetscMax(need, 64), capacity + capacity / 4);
}

/* Room for need entries of size bytes in the PetscMalloc'ed array *(void **)array, contents kept. */
static inline PetscErrorCode TalusGrowArray(size_t size, PetscInt need, PetscInt *capacity, void *array)
{
  PetscFunctionBegin;
  if (need <= *capacity) PetscFunctionReturn(0);
  *capacity = TalusGrowCapacity(*capacity, need);
  PetscCall(PetscRealloc(size * (size_t)*capacity, array));
  PetscFunctionReturn(0);
}

#endif
