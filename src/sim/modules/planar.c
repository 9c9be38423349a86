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
 * A module (include/talus/module.h): each step (matrix-free B only) the owned planar bodies' free
 * velocities and inverse-mass records are made planar in its body_space op, and jacobian_shell.c
 * removes the normal part of M^-1's linear rows (TalusJacobianSetPlanar).
 */
#include "../modules.h"
#include "../../io/h5section.h"
#include <stddef.h>

/* The module's state: the planar bodies (the same on every rank), and this step's owned ones: their
   slots in the matrix-free body vector and their normals */
typedef struct {
  PetscInt     n, nlocal;
  TalusPlanar *planar;
  PetscInt    *slot;
  PetscReal   *normal;
} Planar;

static PetscErrorCode GetPlanar(TalusSim sim, Planar **pl)
{
  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleState(sim, &TalusPlanarModule, (void **)pl));
  PetscFunctionReturn(0);
}

static PetscBool IsPlanar(const Planar *pl, PetscInt id)
{
  for (PetscInt p = 0; p < pl->n; p++)
    if (pl->planar[p].body == id) return PETSC_TRUE;
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
  const PetscInt  k      = TalusSimFindBody(sim, id);
  const PetscReal length = TalusNorm3(normal);
  TalusPlanar     p      = {.body = id};
  TalusBodies    *b;
  Planar         *pl;
  MPI_Comm        comm;
  PetscReal       A[9], w[3];

  PetscFunctionBegin;
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(GetPlanar(sim, &pl));
  PetscCall(TalusSimCheckBeforeStart(sim, "a planar body"));
  PetscCheck(k >= 0 && TalusBodiesIsFinite(b, k) && !b->fixed[k], comm, PETSC_ERR_USER_INPUT,
             "planar motion is for a moving body of finite shape (not fixed, not prescribed), and %" PetscInt_FMT
             " is not one",
             id);
  PetscCheck(!IsPlanar(pl, id), comm, PETSC_ERR_USER_INPUT, "body %" PetscInt_FMT " is made planar twice", id);
  PetscCheck(length > 0.0 && length < PETSC_INFINITY, comm, PETSC_ERR_USER_INPUT,
             "body %" PetscInt_FMT "'s plane needs a normal of finite, non-zero length", id);
  for (int d = 0; d < 3; d++) p.normal[d] = normal[d] / length;
  /* from now on it moves in the plane: its velocity loses the normal part, its spin all but it */
  Project(p.normal, PETSC_FALSE, &b->velocity[3 * k]);
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, &b->omega[3 * k], w);
  Project(p.normal, PETSC_TRUE, w);
  TalusRotateBack(A, w, &b->omega[3 * k]);
  PetscCall(PetscRealloc(sizeof(p) * (pl->n + 1), &pl->planar));
  pl->planar[pl->n++] = p;
  PetscCall(TalusSimLinkBodies(sim, 1, &id));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetPlanar(TalusSim sim, PetscInt *n, const TalusPlanar **planar)
{
  Planar *pl;

  PetscFunctionBegin;
  PetscCall(GetPlanar(sim, &pl));
  if (n) *n = pl->n;
  if (planar) *planar = pl->planar;
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarDestroy(TalusSim sim, void *state)
{
  Planar *pl = (Planar *)state;

  PetscFunctionBegin;
  (void)sim;
  PetscCall(PetscFree(pl->planar));
  PetscCall(PetscFree2(pl->slot, pl->normal));
  PetscFunctionReturn(0);
}

static PetscErrorCode PlanarDescribe(TalusSim sim, void *state, PetscInt id, char what[], size_t size)
{
  PetscFunctionBegin;
  (void)sim;
  if (IsPlanar((const Planar *)state, id)) PetscCall(PetscSNPrintf(what, size, "a plane (planar)"));
  PetscFunctionReturn(0);
}

/*
 * v_free = v + h M^-1 F with the planar M^-1 (seed 000 eq. 9b's free velocity): the in-plane part
 * of v + h (g + F / m), and the spin n ((n . w) + h (n . T) / (n . I n)); the record's angular part
 * n n^T / (n . I n). Once B is made, its M^-1 learns the planar slots. An assembled B cannot hold them.
 */
static PetscErrorCode PlanarBodySpace(TalusSim sim, void *state, const TalusSimBodySpace *space)
{
  Planar      *pl = (Planar *)state;
  TalusBodies *b;
  PetscReal    gravity[3], dt;

  PetscFunctionBegin;
  if (!pl->n) PetscFunctionReturn(0);
  if (space->assembled) {
    MPI_Comm comm;
    PetscCall(TalusSimGetComm(sim, &comm));
    SETERRQ(comm, PETSC_ERR_SUP,
            "%s cannot hold bodies in a plane (%" PetscInt_FMT
            " are planar): they need the matrix-free B (-ccp_matrix_free true, the default) and a solver that "
            "applies it, such as apgd",
            space->assembled, pl->n);
  }
  if (space->B) {
    PetscCall(TalusJacobianSetPlanar(space->B, pl->nlocal, pl->slot, pl->normal));
    PetscFunctionReturn(0);
  }
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusSimGetGravity(sim, gravity));
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &dt));
  if (!pl->slot) PetscCall(PetscMalloc2(pl->n, &pl->slot, 3 * pl->n, &pl->normal));
  pl->nlocal = 0;
  for (PetscInt p = 0; p < pl->n; p++) {
    const PetscInt   k = TalusSimLinkedIndex(sim, pl->planar[p].body);
    const PetscReal *n = pl->planar[p].normal, *F = space->wrench ? &space->wrench[6 * k] : NULL;
    PetscReal        A[9], nb[3], w[3], nIn = 0.0, *minv;
    PetscScalar     *v;
    if (k < 0 || k >= b->nowned || space->slot[k] < 0) continue;
    v = &space->v_free[6 * space->slot[k]], minv = &space->inverse_mass[TALUS_INVERSE_MASS * space->slot[k]];
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotateBack(A, n, nb);
    for (int d = 0; d < 3; d++) nIn += b->inertia[3 * k + d] * nb[d] * nb[d];
    for (int d = 0; d < 3; d++) v[d] = b->velocity[3 * k + d] + dt * (gravity[d] + (F ? F[d] / b->mass[k] : 0.0));
    Project(n, PETSC_FALSE, v);
    TalusRotate(A, &b->omega[3 * k], w);
    {
      const PetscReal spin = TalusDot3(n, w) + (F ? dt * TalusDot3(n, &F[3]) / nIn : 0.0);
      for (int d = 0; d < 3; d++) v[3 + d] = spin * n[d];
    }
    /* A J^-1 A^T as xx yy zz xy xz yz (TalusInverseMassRecord) becomes n n^T / (n . I n) */
    minv[1] = n[0] * n[0] / nIn, minv[2] = n[1] * n[1] / nIn, minv[3] = n[2] * n[2] / nIn;
    minv[4] = n[0] * n[1] / nIn, minv[5] = n[0] * n[2] / nIn, minv[6] = n[1] * n[2] / nIn;
    pl->slot[pl->nlocal] = space->slot[k];
    PetscCall(PetscArraycpy(&pl->normal[3 * pl->nlocal++], n, 3));
  }
  PetscFunctionReturn(0);
}

/* Its checkpoint section (format 3 on): the planar bodies, every one on every rank, as the group "planar" and
   their count as the root attribute of that name */
static const TalusH5Field planar_fields[] = {
  {"body",   PETSC_TRUE,  1, offsetof(TalusPlanar, body)  },
  {"normal", PETSC_FALSE, 3, offsetof(TalusPlanar, normal)},
};

static PetscErrorCode PlanarCheckpointWrite(TalusSim sim, void *state, TalusModuleSection *s)
{
  const Planar *pl = (const Planar *)state;

  PetscFunctionBegin;
  (void)sim;
  TalusSectionWriteCount(s, "planar", pl->n);
  PetscCall(TalusSectionWriteRecords(s, "planar", planar_fields, 2, sizeof(TalusPlanar), pl->n, pl->planar));
  PetscFunctionReturn(0);
}

/* ... read back into a simulation without planar bodies (their stored velocities are taken as they are) */
static PetscErrorCode PlanarCheckpointRead(TalusSim sim, void *state, TalusModuleSection *s)
{
  Planar      *pl = (Planar *)state;
  TalusPlanar *planar;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCheck(!pl->n, s->r->comm, PETSC_ERR_ORDER, "planar bodies are restored into a simulation without them");
  TalusSectionReadCount(s, "planar", 3, s->nfinite, &n);
  PetscCall(TalusSectionReadRecords(s, "planar", planar_fields, 2, sizeof(TalusPlanar), n, (void **)&planar));
  for (PetscInt p = 0; p < n && !s->r->bad; p++)
    if (!TalusSectionIdValid(s, planar[p].body, PETSC_FALSE) || !TalusAllFinite(planar[p].normal, 3) ||
        PetscAbsReal(TalusNorm3(planar[p].normal) - 1.0) > 1e-6)
      TalusH5Fault(s->r, "%s", "a planar body with a body id or a normal that is not valid");
  if (n && !s->r->bad) {
    pl->planar = planar, pl->n = n, planar = NULL;
    for (PetscInt p = 0; p < n; p++) PetscCall(TalusSimLinkBodies(sim, 1, &pl->planar[p].body));
  }
  PetscCall(PetscFree(planar));
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusPlanarModule = {.name             = "planar",
                                             .state_size       = sizeof(Planar),
                                             .destroy          = PlanarDestroy,
                                             .describe         = PlanarDescribe,
                                             .body_space       = PlanarBodySpace,
                                             .checkpoint_write = PlanarCheckpointWrite,
                                             .checkpoint_read  = PlanarCheckpointRead};
