/*
 * Bodies that move in a plane (include/talus/drives.h, docs/mechanisms.md): seed 002's planar
 * examples run in 3D without constraint rows that hold them in the plane. A planar body's M^-1
 * keeps only the plane's motions (the formulations note, sec. 2.4):
 *
 *   linear  (1 - n n^T) / m,      angular  n n^T / (n . I n),   I = A J A^T the world inertia,
 *
 * which is the inverse mass of the body constrained to translate in the plane and turn about n (its
 * reduced mass matrix is diag(m, m, n . I n) in the plane's coordinates), for any orientation of
 * its principal axes. Turning about n keeps n . I n constant. The gyroscopic torque -w x I w is
 * normal to w = (w . n) n, so it drops out.
 *
 * Each step (matrix-free B only) the owned planar bodies' free velocities and inverse-mass records
 * are made planar here, and jacobian_shell.c removes the normal part of M^-1's linear rows.
 */
#include "sim_impl.h"

static PetscBool IsPlanar(TalusSim sim, PetscInt id)
{
  for (PetscInt p = 0; p < sim->nplanar; p++)
    if (sim->planar[p].body == id) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* x <- (1 - n n^T) x, or (n n^T) x when keep_normal */
static void Project(const PetscReal n[3], PetscBool keep_normal, PetscReal x[3])
{
  const PetscReal along = TalusDot3(n, x);

  for (int d = 0; d < 3; d++) x[d] = keep_normal ? along * n[d] : x[d] - along * n[d];
}

PetscErrorCode TalusSimAddPlanar(TalusSim sim, PetscInt id, const PetscReal normal[3])
{
  TalusBodies    *b      = sim->bodies;
  const PetscInt  k      = TalusSimFindBody(sim, id);
  const PetscReal length = TalusNorm3(normal);
  TalusPlanar     p      = {.body = id};
  PetscReal       A[9], w[3];

  PetscFunctionBegin;
  PetscCall(TalusSimCheckBeforeStart(sim, "a planar body"));
  PetscCheck(k >= 0 && TalusBodiesIsFinite(b, k) && !b->fixed[k], sim->comm, PETSC_ERR_USER_INPUT,
             "planar motion is for a moving body of finite shape (not fixed, not prescribed), and %" PetscInt_FMT
             " is not one",
             id);
  PetscCheck(!IsPlanar(sim, id), sim->comm, PETSC_ERR_USER_INPUT, "body %" PetscInt_FMT " is made planar twice", id);
  PetscCheck(length > 0.0 && length < PETSC_INFINITY, sim->comm, PETSC_ERR_USER_INPUT,
             "body %" PetscInt_FMT "'s plane needs a normal of finite, non-zero length", id);
  for (int d = 0; d < 3; d++) p.normal[d] = normal[d] / length;
  /* from now on it moves in the plane: its velocity loses the normal part, its spin all but it */
  Project(p.normal, PETSC_FALSE, &b->velocity[3 * k]);
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, &b->omega[3 * k], w);
  Project(p.normal, PETSC_TRUE, w);
  TalusRotateBack(A, w, &b->omega[3 * k]);
  PetscCall(PetscRealloc(sizeof(p) * (sim->nplanar + 1), &sim->planar));
  sim->planar[sim->nplanar++] = p;
  PetscCall(TalusSimLinkBodies(sim, 1, &id));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetPlanar(TalusSim sim, PetscInt *n, const TalusPlanar **planar)
{
  PetscFunctionBegin;
  if (n) *n = sim->nplanar;
  if (planar) *planar = sim->planar;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetPlanar(TalusSim sim, PetscInt n, const TalusPlanar *planar)
{
  PetscFunctionBegin;
  PetscCheck(!sim->nplanar, sim->comm, PETSC_ERR_ORDER, "planar bodies are restored into a simulation without them");
  PetscCall(PetscMalloc1(n + 1, &sim->planar));
  PetscCall(PetscArraycpy(sim->planar, planar, n));
  sim->nplanar = n;
  for (PetscInt p = 0; p < n; p++) PetscCall(TalusSimLinkBodies(sim, 1, &planar[p].body));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimDestroyPlanar(TalusSim sim)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sim->planar));
  PetscCall(PetscFree2(sim->planar_slot, sim->planar_normal));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimPlanarRefuse(TalusSim sim, const char where[])
{
  PetscFunctionBegin;
  PetscCheck(!sim->nplanar, sim->comm, PETSC_ERR_SUP,
             "%s cannot hold bodies in a plane (%" PetscInt_FMT
             " are planar): they need the matrix-free B (-ccp_matrix_free true, the default) and a solver that "
             "applies it, such as apgd",
             where, sim->nplanar);
  PetscFunctionReturn(0);
}

/*
 * v_free = v + h M^-1 F with the planar M^-1 (seed 000 eq. 9b's free velocity): the in-plane part
 * of v + h (g + F / m), and the spin n ((n . w) + h (n . T) / (n . I n)); the record's angular part
 * n n^T / (n . I n).
 */
PetscErrorCode TalusSimPlanarFreeVelocities(TalusSim sim, const PetscInt slot[], PetscScalar vf[])
{
  const TalusBodies *b = sim->bodies;

  PetscFunctionBegin;
  if (!sim->nplanar) PetscFunctionReturn(0);
  if (!sim->planar_slot)
    PetscCall(PetscMalloc2(sim->nplanar, &sim->planar_slot, 3 * sim->nplanar, &sim->planar_normal));
  sim->nplanar_local = 0;
  for (PetscInt p = 0; p < sim->nplanar; p++) {
    const PetscInt   k = TalusSimLinkedIndex(sim, sim->planar[p].body);
    const PetscReal *n = sim->planar[p].normal, *F = sim->wrench ? &sim->wrench[6 * k] : NULL;
    PetscReal        A[9], nb[3], w[3], nIn = 0.0, *minv;
    PetscScalar     *v;
    if (k < 0 || k >= b->nowned || slot[k] < 0) continue;
    v = &vf[6 * slot[k]], minv = &sim->inverse_mass[TALUS_INVERSE_MASS * slot[k]];
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotateBack(A, n, nb);
    for (int d = 0; d < 3; d++) nIn += b->inertia[3 * k + d] * nb[d] * nb[d];
    for (int d = 0; d < 3; d++)
      v[d] = b->velocity[3 * k + d] + sim->dt * (sim->gravity[d] + (F ? F[d] / b->mass[k] : 0.0));
    Project(n, PETSC_FALSE, v);
    TalusRotate(A, &b->omega[3 * k], w);
    {
      const PetscReal spin = TalusDot3(n, w) + (F ? sim->dt * TalusDot3(n, &F[3]) / nIn : 0.0);
      for (int d = 0; d < 3; d++) v[3 + d] = spin * n[d];
    }
    /* A J^-1 A^T as xx yy zz xy xz yz (TalusInverseMassRecord) becomes n n^T / (n . I n) */
    minv[1] = n[0] * n[0] / nIn, minv[2] = n[1] * n[1] / nIn, minv[3] = n[2] * n[2] / nIn;
    minv[4] = n[0] * n[1] / nIn, minv[5] = n[0] * n[2] / nIn, minv[6] = n[1] * n[2] / nIn;
    sim->planar_slot[sim->nplanar_local] = slot[k];
    PetscCall(PetscArraycpy(&sim->planar_normal[3 * sim->nplanar_local++], n, 3));
  }
  PetscFunctionReturn(0);
}
