/* Contact Jacobian blocks (seed 000 eq. 5, 7) and warm starts between steps. */
#include <talus.h>

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

/* previous_ids holds (id_a, id_b) of each previous contact: the bodies may have moved in memory. */
PetscErrorCode TalusContactsWarmStart(const TalusBodies *bodies, const TalusContactList *previous, const PetscInt *previous_ids, TalusContactList *current, PetscInt *matched)
{
  PetscInt p = 0;

  PetscFunctionBegin;
  *matched = 0;
  for (PetscInt i = 0; i < current->n; i++) {
    TalusContact  *c  = &current->c[i];
    const PetscInt ia = bodies->id[c->a], ib = bodies->id[c->b];
    /* both lists are sorted by (id_a, id_b, feature): walk them together */
    while (p < previous->n && (previous_ids[2 * p] < ia || (previous_ids[2 * p] == ia && (previous_ids[2 * p + 1] < ib || (previous_ids[2 * p + 1] == ib && previous->c[p].feature < c->feature))))) p++;
    c->impulse[0] = c->impulse[1] = c->impulse[2] = 0.0;
    if (p < previous->n && previous_ids[2 * p] == ia && previous_ids[2 * p + 1] == ib && previous->c[p].feature == c->feature) {
      const TalusContact *o = &previous->c[p];
      PetscReal           world[3];
      for (int k = 0; k < 3; k++) world[k] = o->impulse[0] * o->frame[k] + o->impulse[1] * o->frame[3 + k] + o->impulse[2] * o->frame[6 + k];
      for (int r = 0; r < 3; r++) c->impulse[r] = TalusDot3(&c->frame[3 * r], world);
      (*matched)++;
    }
  }
  PetscFunctionReturn(0);
}
