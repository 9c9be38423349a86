/* Contact Jacobian blocks (seed 000 eq. 5, 7), warm starts between steps, and pairs of bodies that do not collide. */
#include <talus/contacts.h>
#include <talus/math3.h>
#include "../grow.h"

void TalusContactJacobian(const TalusBodies *bodies, const TalusContact *c, PetscBool body_b, PetscReal rows[3][6])
{
  const PetscInt   k    = body_b ? c->b : c->a;
  const PetscReal  sign = body_b ? 1.0 : -1.0;
  const PetscReal *s    = body_b ? c->sb : c->sa;
  PetscReal        A[9];

  TalusQuatToMatrix(&bodies->quaternion[4 * k], A);
  for (int r = 0; r < 3; r++) {
    const PetscReal *d = &c->frame[3 * r];
    PetscReal        d_body[3], arm[3];
    TalusRotateBack(A, d, d_body);
    TalusCross3(s, d_body, arm);
    for (int j = 0; j < 3; j++) {
      rows[r][j]     = sign * d[j];
      rows[r][3 + j] = sign * arm[j];
    }
  }
}

int TalusContactHistoryCompare(const void *x, const void *y)
{
  const TalusContactHistory *a = (const TalusContactHistory *)x, *b = (const TalusContactHistory *)y;
  return TalusContactKeyCompare(a->id_a, a->id_b, a->feature, b->id_a, b->id_b, b->feature);
}

PetscErrorCode TalusContactsRecordHistory(const TalusBodies *bodies, const TalusContactList *list,
                                          TalusContactHistory **history, PetscInt *capacity, PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(TalusGrowArray(sizeof(TalusContactHistory), list->n, capacity, history));
  for (PetscInt i = 0; i < list->n; i++) {
    const TalusContact  *c = &list->c[i];
    TalusContactHistory *h = &(*history)[i];
    h->id_a                = bodies->id[c->a];
    h->id_b                = bodies->id[c->b];
    h->feature             = c->feature;
    h->owner               = bodies->fixed[c->a] ? bodies->id[c->b] : bodies->id[c->a];
    for (int k = 0; k < 3; k++)
      h->impulse[k] = c->impulse[0] * c->frame[k] + c->impulse[1] * c->frame[3 + k] + c->impulse[2] * c->frame[6 + k];
  }
  *n = list->n; /* already sorted: contacts come sorted by (id_a, id_b, feature) */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusContactsWarmStart(const TalusBodies *bodies, const TalusContactHistory *history, PetscInt nhistory,
                                      TalusContactList *current, PetscInt *matched)
{
  PetscInt p = 0;

  PetscFunctionBegin;
  *matched = 0;
  for (PetscInt i = 0; i < current->n; i++) {
    TalusContact       *c   = &current->c[i];
    TalusContactHistory key = {
      bodies->id[c->a], bodies->id[c->b], c->feature, 0, {0, 0, 0}
    };
    /* both are sorted by (id_a, id_b, feature): walk them together */
    while (p < nhistory && TalusContactHistoryCompare(&history[p], &key) < 0) p++;
    c->impulse[0] = c->impulse[1] = c->impulse[2] = 0.0;
    if (p < nhistory && TalusContactHistoryCompare(&history[p], &key) == 0) {
      for (int r = 0; r < 3; r++) c->impulse[r] = TalusDot3(&c->frame[3 * r], history[p].impulse);
      (*matched)++;
    }
  }
  PetscFunctionReturn(0);
}

PetscBool TalusIdPairsContain(PetscInt n, const PetscInt pairs[], PetscInt id_a, PetscInt id_b)
{
  PetscInt lo = 0, hi = n;

  while (lo < hi) { /* the pairs are sorted by (a, b) */
    const PetscInt mid = (lo + hi) / 2, a = pairs[2 * mid], b = pairs[2 * mid + 1];
    if (a == id_a && b == id_b) return PETSC_TRUE;
    if (a < id_a || (a == id_a && b < id_b)) lo = mid + 1;
    else hi = mid;
  }
  return PETSC_FALSE;
}

void TalusContactsDropPairs(TalusContactList *list, PetscInt n, const PetscInt pairs[])
{
  PetscInt kept = 0;

  if (!n) return;
  for (PetscInt c = 0; c < list->n; c++)
    if (!TalusIdPairsContain(n, pairs, list->c[c].id_a, list->c[c].id_b)) list->c[kept++] = list->c[c];
  list->n = kept;
}
