/*
 * The contact as a constraint kind: a block of 3 rows (normal n, tangents u and w of its frame,
 * seed 000 eq. 7) between two bodies, with the gap stabilisation b_n = Phi / h of seed 000 eq. 13,
 * or seed 003's relaxation when a material sets one (include/talus/relaxation.h).
 */
#include "jacobian_builder.h"
#include <talus/relaxation.h>

static inline PetscBool IsZero3(const PetscReal v[3])
{
  return (PetscBool)(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0);
}

/* b_n = Phi / h (seed 000 eq. 13), plus the frame's components of the fixed sides' material velocity
   at the contact point (seed 002 eq. 70, 72): zero for a fixed body at rest */
/* Seed 003 eq. 64 discretised with explicit damping (the formulations note, sec. 3.4), times h:
   b = (h / delta^2) Phi e_n + (2 zeta h / delta - 1) D^T v^l, v^l the bodies' velocities at the step's
   start (both sides', fixed ones' material velocity too), before the known term of the fixed sides */
static void RelaxedStabilisation(const TalusBodies *bodies, const TalusContact *ct, PetscReal h, PetscReal zeta,
                                 PetscReal delta, PetscScalar b[])
{
  const PetscInt   body[2] = {ct->a, ct->b};
  const PetscReal *arm[2] = {ct->sa, ct->sb}, damping = 2.0 * zeta * h / delta - 1.0;

  b[0] = h / (delta * delta) * ct->phi;
  b[1] = b[2] = 0.0;
  for (int side = 0; side < 2; side++) {
    PetscReal A[9], S[3], v[3];
    TalusQuatToMatrix(&bodies->quaternion[4 * body[side]], A);
    TalusRotate(A, arm[side], S);
    TalusBodyPointVelocity(bodies, body[side], S, v);
    for (int r = 0; r < 3; r++) b[r] += damping * (side ? 1.0 : -1.0) * TalusDot3(&ct->frame[3 * r], v);
  }
}

static void ContactStabilisation(const TalusBodies *bodies, const void *block, PetscReal h, PetscScalar b[])
{
  const TalusContact *ct      = (const TalusContact *)block;
  const PetscInt      body[2] = {ct->a, ct->b};
  const PetscReal    *arm[2]  = {ct->sa, ct->sb};
  PetscReal           zeta, delta;

  TalusContactRelaxation(bodies, ct->a, ct->b, &zeta, &delta);
  if (delta > 0.0) RelaxedStabilisation(bodies, ct, h, zeta, delta, b);
  else {
    PetscReal K, B, share;
    (void)TalusContactNormalLaw(bodies, ct, h, &K, &B, &share);
    /* seed 004 eq. 61 in the CCP: the gap's stabilisation K / (h K + B) (1 / h in the rigid limit) */
    b[0] = K > 0.0 ? K / (h * K + B) * ct->phi : ct->phi / h;
    b[1] = b[2] = 0.0;
  }
  for (int side = 0; side < 2; side++) {
    const PetscInt k = body[side];
    PetscReal      A[9], S[3], v[3];
    if (bodies->dof[k] >= 0 || (IsZero3(&bodies->velocity[3 * k]) && IsZero3(&bodies->omega[3 * k]))) continue;
    TalusQuatToMatrix(&bodies->quaternion[4 * k], A);
    TalusRotate(A, arm[side], S);
    TalusBodyPointVelocity(bodies, k, S, v);
    for (int r = 0; r < 3; r++) b[r] += (side ? 1.0 : -1.0) * TalusDot3(&ct->frame[3 * r], v);
  }
}

/* Seed 004 eq. 60: E_n = 1 / (h^2 K + h B) on the normal row of a compliant contact (a foundation's
   point: its share; a Hertzian contact: its secant; relaxation.c); the tangents stay rigid (Coulomb
   friction: K_r = K_s = 0 with no tangential compliance, the paper's choice). */
static void ContactCompliance(const TalusBodies *bodies, const void *block, PetscReal h, PetscScalar E[])
{
  const TalusContact *ct = (const TalusContact *)block;
  PetscReal           K, B, share;

  (void)TalusContactNormalLaw(bodies, ct, h, &K, &B, &share);
  K *= share, B *= share;
  E[0] = K > 0.0 ? 1.0 / (h * h * K + h * B) : 0.0;
  E[1] = E[2] = 0.0;
}

static void ContactGetImpulse(const void *block, PetscScalar gamma[])
{
  const TalusContact *ct = (const TalusContact *)block;
  for (int r = 0; r < 3; r++) gamma[r] = ct->impulse[r];
}

static void ContactSetImpulse(void *block, const PetscScalar gamma[])
{
  TalusContact *ct = (TalusContact *)block;
  for (int r = 0; r < 3; r++) ct->impulse[r] = gamma[r];
}

/* The matrix-free record (jacobian_shell.c): the two bodies' slots, the frame and the world-frame
   lever arms A s of the bodies (zero for a fixed body); its length is its kind. */
static PetscInt ContactRecord(const TalusBodies *b, const void *block, const PetscInt slot[], PetscInt block_slot[2],
                              PetscReal J[])
{
  const TalusContact *ct          = (const TalusContact *)block;
  const PetscInt      body[2]     = {ct->a, ct->b};
  const PetscReal    *arm[2]      = {ct->sa, ct->sb};
  PetscReal           world[2][3] = {
              {0.0, 0.0, 0.0},
              {0.0, 0.0, 0.0}
  };

  for (int side = 0; side < 2; side++) {
    PetscReal A[9];
    block_slot[side] = slot[body[side]];
    if (b->dof[body[side]] < 0) continue;
    TalusQuatToMatrix(&b->quaternion[4 * body[side]], A);
    TalusRotate(A, arm[side], world[side]);
  }
  return TalusJacobianRecord(ct->frame, world[0], world[1], J);
}

/* The entries of the assembled B at rows row, row + 1, row + 2 (global dofs, body-frame angular
   velocities: TalusContactJacobian). */
static PetscInt ContactEntries(const TalusBodies *b, const void *block, PetscInt row, PetscInt coo_i[],
                               PetscInt coo_j[], PetscScalar coo_v[])
{
  const TalusContact *ct      = (const TalusContact *)block;
  const PetscInt      body[2] = {ct->a, ct->b};
  PetscInt            n       = 0;

  for (int side = 0; side < 2; side++) {
    const PetscInt dof = b->dof[body[side]]; /* global: the body may be a ghost */
    PetscReal      rows[3][6];
    if (dof < 0) continue;
    TalusContactJacobian(b, ct, (PetscBool)side, rows);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 6; j++) coo_i[n] = row + r, coo_j[n] = dof + j, coo_v[n++] = rows[r][j];
  }
  return n;
}

/* N_rr = sum over the two bodies of J_r M^-1 J_r^T, with J_r a row of TalusContactJacobian (body-frame
   angular velocities, so M^-1 = diag(1/m, 1/m, 1/m, 1/J_1, 1/J_2, 1/J_3)). */
static void ContactDiagonal(const TalusBodies *b, const void *block, PetscScalar diag[])
{
  const TalusContact *ct      = (const TalusContact *)block;
  const PetscInt      body[2] = {ct->a, ct->b};

  diag[0] = diag[1] = diag[2] = 0.0;
  for (int side = 0; side < 2; side++) {
    const PetscInt   k = body[side];
    const PetscReal *J = &b->inertia[3 * k];
    PetscReal        rows[3][6];
    if (b->dof[k] < 0) continue;
    TalusContactJacobian(b, ct, (PetscBool)side, rows);
    for (int r = 0; r < 3; r++)
      diag[r] += (rows[r][0] * rows[r][0] + rows[r][1] * rows[r][1] + rows[r][2] * rows[r][2]) / b->mass[k] +
                 rows[r][3] * rows[r][3] / J[0] + rows[r][4] * rows[r][4] / J[1] + rows[r][5] * rows[r][5] / J[2];
  }
}

/* The near-rigid floor (after Castro et al. 2022, SAP sec. V): a normal row's E at least
   beta^2 w_n / (4 pi^2), w_n its diagonal entry of N (1 / w_n is the contact's effective mass), so
   that the row is at softest a spring K = 1 / (h^2 E) of period beta h on that mass (at beta 1 one
   step: implicit Euler does not follow it), so the contact stays near-rigid (a body on a plane sinks
   h^2 g beta^2 / (4 pi^2) under its weight, 25 um at h = 0.01; an impact rebounds by about 2 % of its
   speed, implicit Euler's damping of a spring it cannot follow), while N + E's eigenvalues are bounded
   below and first-order solvers converge in iterations that do not grow with a pile's height. SAP floors all three rows
   with one w (the block's trace / 3); each row's own diagonal keeps a sphere's period beta h where
   its tangents' rotational inertia would make the normal row 2.7 times softer. The tangents get
   sigma w_t, w_t the mean of their two diagonal entries (one value for both, so that the friction
   cone's regularisation is isotropic, as newton_ccp's analytic projection needs): a sticking contact
   creeps at about sigma w_t gamma_t, a fraction sigma of the velocity its friction impulse gives it. A
   material's own compliance above the floor is kept; seed 003's relaxed contacts keep their law (the floor
   would change their restitution). */
static void ContactFloor(const TalusBodies *bodies, const void *block, const TalusContactFloor *fl, PetscScalar E[])
{
  const TalusContact *ct = (const TalusContact *)block;
  PetscReal           zeta, delta;
  PetscScalar         w[3];

  TalusContactRelaxation(bodies, ct->a, ct->b, &zeta, &delta);
  if (delta > 0.0) return;
  ContactDiagonal(bodies, block, w);
  E[0] = PetscMax(E[0], fl->beta * fl->beta * w[0] / (4.0 * PETSC_PI * PETSC_PI));
  for (int r = 1; r < 3; r++) E[r] = PetscMax(E[r], fl->sigma * 0.5 * (w[1] + w[2]));
}

static PetscInt ContactCount(TalusSim sim)
{
  return sim->contacts_active; /* the screened ones are not in the problem (step_screen.c) */
}

static void *ContactBlock(TalusSim sim, PetscInt i)
{
  return &sim->contacts.c[i];
}

const TalusConstraintKind TalusContactKind = {
  .name          = "contact",
  .rows          = 3,
  .form          = TALUS_BLOCK_CONE,
  .set           = TALUS_SET_CONE,
  .count         = ContactCount,
  .block         = ContactBlock,
  .max_record    = TALUS_JACOBIAN_GENERAL,
  .max_entries   = 2 * 3 * 6,
  .stabilisation = ContactStabilisation,
  .compliance    = ContactCompliance,
  .get_impulse   = ContactGetImpulse,
  .set_impulse   = ContactSetImpulse,
  .record        = ContactRecord,
  .entries       = ContactEntries,
  .diagonal      = ContactDiagonal,
  .floor         = ContactFloor,
};
