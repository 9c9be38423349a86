/*
 * Contacts of a compound body (include/talus/shape_data.h): each of its parts meets the other body as a body of
 * its own would, placed where the compound holds it. The pair routines run on a two-body view whose bodies are
 * the parts (or the other body itself), with the real bodies' ids, materials and fixedness, so that friction,
 * compliance and the id order of every contact are the real pair's; each contact's offsets are then taken back
 * to the compound's centre and frame. A contact's feature names its parts and the part pair's own feature:
 * (part of the lower-id body x TALUS_MAX_COMPOUND_PARTS + part of the other) x COMPOUND_FEATURES + feature, in
 * the order they are found, as the warm start needs. The compound's pairs with every shape are entries of the
 * pair table (collide.c), registered at start-up; a part, never a compound, takes the table's entry for its shape.
 */
#include "collide_impl.h"
#include <talus/shape_data.h>
#include <talus/math3.h>
#include <talus/relaxation.h>

/* more than any pair routine's feature (an elastic foundation's last point, 8 + 100 x 100) */
#define COMPOUND_FEATURES 16384

/* One side of the pair: the body, and the part of it in the view (its pose in the body's frame) */
typedef struct {
  PetscInt              k;
  const TalusShapeData *e; /* NULL: the body is not a compound, its one part itself */
} Side;

/* Entry v of the view: body s.k as part p, placed by the body's pose (the pair routines read a body's id, material,
   fixedness and geometry only; the first three are set once a pair) */
static void Place(const TalusBodies *b, const Side *s, PetscInt p, TalusBodies *view, PetscInt v)
{
  const PetscInt k = s->k;

  if (!s->e) {
    view->shape[v] = b->shape[k];
    for (int d = 0; d < 3; d++)
      view->size[3 * v + d] = b->size[3 * k + d], view->position[3 * v + d] = b->position[3 * k + d];
    for (int d = 0; d < 4; d++) view->quaternion[4 * v + d] = b->quaternion[4 * k + d];
  } else {
    const TalusShapePart *part = &s->e->part[p];
    PetscReal             A[9], offset[3];
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotate(A, part->position, offset);
    view->shape[v] = part->shape;
    for (int d = 0; d < 3; d++)
      view->size[3 * v + d] = part->size[d], view->position[3 * v + d] = b->position[3 * k + d] + offset[d];
    TalusQuatMultiply(&b->quaternion[4 * k], part->quaternion, &view->quaternion[4 * v]);
  }
}

/* s, a part's offset in its own frame, as the offset in its body's frame: position + R s */
static void ToBody(const Side *side, PetscInt p, PetscReal s[3])
{
  PetscReal R[9], t[3];

  if (!side->e) return;
  TalusQuatToMatrix(side->e->part[p].quaternion, R);
  TalusRotate(R, s, t);
  for (int d = 0; d < 3; d++) s[d] = side->e->part[p].position[d] + t[d];
}

/* The contacts of a pair of which one or both are compounds: each part's, as the part's own pair routine finds them,
   in the body's frame (the pair table's entry for a compound with any shape) */
static PetscErrorCode CompoundPair(const TalusBodies *b, PetscInt first, PetscInt second, PetscReal envelope,
                                   TalusContactList *list)
{
  const PetscInt lo = b->id[first] < b->id[second] ? first : second, hi = lo == first ? second : first;
  Side           side[2] = {
              {lo, NULL},
              {hi, NULL}
  };
  PetscInt         nparts[2], id[2], material[2];
  PetscBool        fixed[2];
  TalusShape       shape[2];
  PetscReal        size[6], position[6], quaternion[8];
  TalusBodies      view;
  TalusContactList found = {0, 0, NULL};

  PetscFunctionBegin;
  for (int s = 0; s < 2; s++) {
    if (b->shape[side[s].k] == TALUS_COMPOUND) side[s].e = TalusShapeDataGet((PetscInt)b->size[3 * side[s].k]);
    nparts[s] = side[s].e ? side[s].e->n : 1;
    id[s] = b->id[side[s].k], material[s] = b->material[side[s].k], fixed[s] = b->fixed[side[s].k];
  }
  PetscCall(PetscMemzero(&view, sizeof(view)));
  view.n = view.nowned = view.capacity = 2;
  view.id = id, view.shape = shape, view.size = size, view.position = position, view.quaternion = quaternion;
  view.material = material, view.fixed = fixed;
  view.nmaterials = b->nmaterials, view.materials = b->materials, view.mu_pair = b->mu_pair;
  for (PetscInt p = 0; p < nparts[0]; p++) {
    Place(b, &side[0], p, &view, 0);
    for (PetscInt q = 0; q < nparts[1]; q++) {
      Place(b, &side[1], q, &view, 1);
      found.n = 0;
      /* relaxation.c shares an elastic foundation's K among its points by the real pair's shapes, which are
         not a box and a plane here */
      PetscCheck(!(TalusContactFoundationGrid(&view, 0, 1) && (shape[0] == TALUS_PLANE || shape[1] == TALUS_PLANE)),
                 PETSC_COMM_SELF, PETSC_ERR_SUP,
                 "body %" PetscInt_FMT " (a compound) on plane %" PetscInt_FMT
                 ": a compound's part on an elastic foundation (a material's grid) is not supported",
                 b->shape[lo] == TALUS_COMPOUND ? id[0] : id[1], b->shape[lo] == TALUS_COMPOUND ? id[1] : id[0]);
      PetscCall(TalusCollidePair(&view, 0, 1, envelope, &found));
      for (PetscInt c = 0; c < found.n; c++) {
        TalusContact *contact;
        PetscCall(TalusContactListAppend(list, &contact));
        *contact   = found.c[c];
        contact->a = lo, contact->b = hi;
        contact->feature = (p * TALUS_MAX_COMPOUND_PARTS + q) * COMPOUND_FEATURES + found.c[c].feature;
        ToBody(&side[0], p, contact->sa);
        ToBody(&side[1], q, contact->sb);
      }
    }
  }
  PetscCall(TalusContactListDestroy(&found));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCompoundRegisterPairs(void)
{
  PetscFunctionBegin;
  for (int s = 0; s < TALUS_NSHAPES; s++) { /* its parts meet every shape */
    PetscCall(TalusCollideRegisterPair(TALUS_COMPOUND, (TalusShape)s, CompoundPair, PETSC_FALSE));
    PetscCall(TalusCollideRegisterPair((TalusShape)s, TALUS_COMPOUND, CompoundPair, PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}
