/*
 * Prescribed poses and spring forces (include/talus/drives.h): functions of time and of two points'
 * states, no bodies.
 */
#include <talus/drives.h>
#include <talus/math3.h>

void TalusPrescribedPose(const TalusPrescribedMotion *m, const TalusTable tables[], PetscReal t, PetscReal x[3],
                         PetscReal q[4])
{
  const PetscReal s = t - m->t0, wave = PetscSinReal(m->frequency * s + m->phase) - PetscSinReal(m->phase);
  const PetscReal w = TalusNorm3(m->angular_velocity);

  for (int d = 0; d < 3; d++) x[d] = m->position0[d] + m->velocity[d] * s + m->amplitude[d] * wave;
  if (m->table) {
    PetscReal D[3], D0[3];
    TalusTableEvaluate(&tables[m->table - 1], s, D, NULL);
    TalusTableEvaluate(&tables[m->table - 1], 0.0, D0, NULL);
    for (int d = 0; d < 3; d++) x[d] += D[d] - D0[d];
  }
  for (int d = 0; d < 4; d++) q[d] = m->quaternion0[d];
  if (w > 0.0) { /* q(t) = exp(w s) q0: the rotation by |w| s about w, in the world frame (on the left) */
    PetscReal dq[4] = {PetscCosReal(0.5 * w * s), 0, 0, 0};
    for (int d = 0; d < 3; d++) dq[1 + d] = PetscSinReal(0.5 * w * s) * m->angular_velocity[d] / w;
    TalusQuatMultiply(dq, m->quaternion0, q);
    TalusQuatNormalize(q);
  }
}

void TalusSpringForce(const TalusSpring *s, const PetscReal pa[3], const PetscReal pb[3], const PetscReal va[3],
                      const PetscReal vb[3], PetscReal f[3])
{
  PetscReal d[3], dv[3], e[3] = {0, 0, 0}, L;

  for (int k = 0; k < 3; k++) d[k] = pb[k] - pa[k], dv[k] = vb[k] - va[k];
  L = TalusNorm3(d);
  if (L > 0.0)
    for (int k = 0; k < 3; k++) e[k] = d[k] / L;
  if (s->axial_damping) {
    const PetscReal rate = TalusDot3(dv, e);
    for (int k = 0; k < 3; k++) f[k] = -s->stiffness * (L - s->rest_length) * e[k] - s->damping * rate * e[k];
  } else
    for (int k = 0; k < 3; k++) f[k] = -s->stiffness * (L - s->rest_length) * e[k] - s->damping * dv[k];
}
