/*
 * Prescribed motion, surface velocity, applied loads and springs in the simulator
 * (include/talus/drives.h, docs/mechanisms.md), kept the same on every rank.
 *
 * A prescribed body is fixed in the CCP (no velocity unknowns); at the start of a step its velocity
 * is set to (x(t + h) - x(t)) / h and its angular velocity to the prescribed one, and at the end its
 * pose to x(t + h), q(t + h), never integrated (the formulations note, sec. 2.4). A fixed body's
 * velocity is the velocity of its material: zero, a conveyor's surface velocity, or a prescribed
 * body's; the rows of its contacts and joints take it as a known term (contact_kind.c, joints.c;
 * seed 002 eq. 70, 72). Loads and springs are forces evaluated at the start of the step and applied
 * with gravity, h M^-1 F in the free velocity (seed 000 eq. 9b's f^l).
 */
#include "drives_impl.h"

/* What a function of this file reads of the simulation (its communicator, bodies, clock) and the module's state */
typedef struct {
  TalusSimModuleView v;
  Drives            *dr;
} Context;

static PetscErrorCode GetContext(TalusSim sim, Context *c)
{
  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleView(sim, &TalusDrivesModule, &c->v, (void **)&c->dr));
  PetscFunctionReturn(0);
}

static PetscBool IsPrescribed(const Drives *dr, PetscInt id)
{
  for (PetscInt p = 0; p < dr->nprescribed; p++)
    if (dr->prescribed[p].body == id) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode TalusSimAddPrescribedMotion(TalusSim sim, const TalusPrescribedMotion *motion)
{
  Context               c;
  TalusBodies          *b;
  const PetscInt        k = TalusSimFindBody(sim, motion->body);
  TalusPrescribedMotion m = *motion;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  b = c.v.b;
  PetscCall(TalusSimCheckBeforeStart(sim, "a prescribed motion"));
  PetscCheck(k >= 0 && TalusBodiesIsFinite(b, k), c.v.comm, PETSC_ERR_USER_INPUT,
             "a prescribed motion needs a body of finite shape, and %" PetscInt_FMT " is not one", motion->body);
  PetscCheck(!IsPrescribed(c.dr, motion->body), c.v.comm, PETSC_ERR_USER_INPUT,
             "body %" PetscInt_FMT " is given two motions", motion->body);
  for (int d = 0; d < 3; d++)
    PetscCheck(!PetscIsInfOrNanReal(m.velocity[d]) && !PetscIsInfOrNanReal(m.amplitude[d]) &&
                 !PetscIsInfOrNanReal(m.angular_velocity[d]) && !PetscIsInfOrNanReal(m.frequency) &&
                 !PetscIsInfOrNanReal(m.phase),
               c.v.comm, PETSC_ERR_USER_INPUT,
               "body %" PetscInt_FMT "'s motion has a value that is not a finite number", motion->body);
  {
    const char *why;
    PetscCall(TalusSimTableFault(sim, m.table, 3, &why));
    PetscCheck(!why, c.v.comm, PETSC_ERR_USER_INPUT, "body %" PetscInt_FMT "'s motion: %s", motion->body, why);
  }
  /* fixed: infinite mass, out of the velocity space, as TalusBodiesAdd makes fixed bodies */
  b->fixed[k] = PETSC_TRUE, b->mass[k] = 0.0;
  for (int d = 0; d < 3; d++) b->inertia[3 * k + d] = 0.0;
  m.t0 = c.v.t;
  for (int d = 0; d < 3; d++) m.position0[d] = b->position[3 * k + d];
  for (int d = 0; d < 4; d++) m.quaternion0[d] = b->quaternion[4 * k + d];
  PetscCall(PetscRealloc(sizeof(m) * (c.dr->nprescribed + 1), &c.dr->prescribed));
  c.dr->prescribed[c.dr->nprescribed++] = m;
  PetscCall(TalusSimLinkBodies(sim, 1, &m.body));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimSetSurfaceVelocity(TalusSim sim, PetscInt id, const PetscReal v[3], const PetscReal w[3])
{
  Context        c;
  TalusBodies   *b;
  const PetscInt k = TalusSimFindBody(sim, id);
  PetscReal      A[9];

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  b = c.v.b;
  PetscCall(TalusSimCheckBeforeStart(sim, "a surface velocity"));
  PetscCheck(
    k >= 0 && b->fixed[k] && !IsPrescribed(c.dr, id), c.v.comm, PETSC_ERR_USER_INPUT,
    "a surface velocity is for a fixed body (a plane, a fixed box) whose pose is not prescribed; body %" PetscInt_FMT
    " is not one",
    id);
  if (!TalusBodiesIsFinite(b, k)) { /* a plane's material moves in its plane */
    PetscCheck(PetscAbsReal(TalusDot3(v, &b->size[3 * k])) <= 1e-12 * TalusNorm3(v) && TalusNorm3(w) == 0.0, c.v.comm,
               PETSC_ERR_USER_INPUT,
               "a plane's surface velocity must lie in the plane (normal to (%g, %g, %g)) and it cannot spin",
               (double)b->size[3 * k], (double)b->size[3 * k + 1], (double)b->size[3 * k + 2]);
  }
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  for (int d = 0; d < 3; d++) b->velocity[3 * k + d] = v[d];
  TalusRotateBack(A, w, &b->omega[3 * k]);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAddLoad(TalusSim sim, const TalusLoad *load)
{
  Context        c;
  const PetscInt k = TalusSimFindBody(sim, load->body);

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(TalusSimCheckBeforeStart(sim, "a load"));
  PetscCheck(k >= 0 && !c.v.b->fixed[k], c.v.comm, PETSC_ERR_USER_INPUT,
             "a load acts on a body that moves, and %" PetscInt_FMT " is %s", load->body,
             k < 0 ? "not a body" : "fixed");
  for (int which = 0; which < 2; which++) {
    const char *why;
    PetscCall(TalusSimTableFault(sim, which ? load->torque_table : load->force_table, 3, &why));
    PetscCheck(!why, c.v.comm, PETSC_ERR_USER_INPUT, "the load on body %" PetscInt_FMT ": %s", load->body, why);
  }
  PetscCall(PetscRealloc(sizeof(*load) * (c.dr->nloads + 1), &c.dr->loads));
  c.dr->loads[c.dr->nloads++] = *load;
  PetscCall(TalusSimLinkBodies(sim, 1, &load->body));
  PetscFunctionReturn(0);
}

/* The inverse effective mass of end k of a spring along e: 1/m + (S x e) . J^-1 (S x e); 0 if fixed */
static PetscReal InverseMassAlong(const TalusBodies *b, PetscInt k, const PetscReal S[3], const PetscReal e[3])
{
  PetscReal A[9], c[3], cb[3], inv;

  if (k < 0 || b->fixed[k]) return 0.0;
  TalusCross3(S, e, c);
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotateBack(A, c, cb);
  inv = 1.0 / b->mass[k];
  for (int d = 0; d < 3; d++) inv += cb[d] * cb[d] / b->inertia[3 * k + d];
  return inv;
}

/* A spring's end in the world at the present poses: point, lever arm, velocity */
static void SpringEnd(const TalusBodies *b, PetscInt k, const PetscReal anchor[3], PetscReal p[3], PetscReal S[3],
                      PetscReal v[3])
{
  PetscReal A[9];

  if (k < 0) { /* the world */
    for (int d = 0; d < 3; d++) p[d] = anchor[d], S[d] = v[d] = 0.0;
    return;
  }
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, anchor, S);
  for (int d = 0; d < 3; d++) p[d] = b->position[3 * k + d] + S[d];
  TalusBodyPointVelocity(b, k, S, v);
}

/* The explicit spring-damper's stability number h^2 K / m + 2 h C / m along the spring, m its
   effective mass: symplectic Euler is stable below 4 (which implies the other condition, h C / m < 2;
   the formulations note, sec. 2.4) */
static PetscReal SpringStability(const TalusBodies *b, const TalusSpring *s, const PetscInt k[2], PetscReal h)
{
  PetscReal p[2][3], S[2][3], v[2][3], e[3], L, inv;

  for (int end = 0; end < 2; end++) SpringEnd(b, k[end], s->anchor[end], p[end], S[end], v[end]);
  for (int d = 0; d < 3; d++) e[d] = p[1][d] - p[0][d];
  L = TalusNorm3(e);
  if (L > 0.0)
    for (int d = 0; d < 3; d++) e[d] /= L;
  else e[0] = 1.0, e[1] = e[2] = 0.0;
  inv = InverseMassAlong(b, k[0], S[0], e) + InverseMassAlong(b, k[1], S[1], e);
  return h * h * s->stiffness * inv + 2.0 * h * s->damping * inv;
}

/* The spring of a spec with its ends given as world points now: anchors in the bodies' frames */
static PetscErrorCode SpringFromPoints(TalusSim sim, const TalusSpring *spec, const PetscReal points[2][3],
                                       TalusSpring *s, PetscInt k[2])
{
  Context      c;
  TalusBodies *b;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  b = c.v.b;
  PetscCall(TalusSimCheckBeforeStart(sim, "a spring"));
  *s = *spec;
  PetscCheck(s->stiffness >= 0.0 && s->damping >= 0.0 && s->rest_length >= 0.0 && s->stiffness < PETSC_INFINITY &&
               s->damping < PETSC_INFINITY && s->rest_length < PETSC_INFINITY,
             c.v.comm, PETSC_ERR_USER_INPUT, "a spring's stiffness, damping and rest length must be finite and >= 0");
  for (int end = 0; end < 2; end++) {
    k[end] = spec->body[end] == TALUS_WORLD ? -1 : TalusSimFindBody(sim, spec->body[end]);
    PetscCheck(spec->body[end] == TALUS_WORLD || k[end] >= 0, c.v.comm, PETSC_ERR_USER_INPUT,
               "a spring names body %" PetscInt_FMT ", which does not exist", spec->body[end]);
    if (k[end] < 0) {
      for (int d = 0; d < 3; d++) s->anchor[end][d] = points[end][d];
    } else {
      PetscReal A[9], lever[3];
      TalusQuatToMatrix(&b->quaternion[4 * k[end]], A);
      for (int d = 0; d < 3; d++) lever[d] = points[end][d] - b->position[3 * k[end] + d];
      TalusRotateBack(A, lever, s->anchor[end]);
    }
  }
  PetscCheck(spec->body[0] != spec->body[1], c.v.comm, PETSC_ERR_USER_INPUT, "a spring needs two different bodies");
  PetscCheck((k[0] >= 0 && !b->fixed[k[0]]) || (k[1] >= 0 && !b->fixed[k[1]]), c.v.comm, PETSC_ERR_USER_INPUT,
             "neither end of the spring is on a body that moves");
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimCheckSpring(TalusSim sim, const TalusSpring *spec, const PetscReal points[2][3],
                                   PetscReal *stability)
{
  Context     c;
  TalusSpring s;
  PetscInt    k[2];

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(SpringFromPoints(sim, spec, points, &s, k));
  *stability = SpringStability(c.v.b, &s, k, c.v.dt);
  PetscFunctionReturn(0);
}

static PetscErrorCode RefuseUnstable(TalusSim sim, PetscInt index, const TalusSpring *s, PetscReal stability)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCheck(stability < 4.0, c.v.comm, PETSC_ERR_USER_INPUT,
             "spring %" PetscInt_FMT
             " (K = %g N/m, C = %g N s/m) is unstable at h = %g s: h^2 K / m + 2 h C / m = %g with m "
             "its effective mass must be below 4 (explicit spring-damper: a smaller -dt, or a softer spring)",
             index, (double)s->stiffness, (double)s->damping, (double)c.v.dt, (double)stability);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimAddSpring(TalusSim sim, const TalusSpring *spec, const PetscReal points[2][3],
                                 PetscReal *stability)
{
  Context     c;
  TalusSpring s;
  PetscInt    k[2];

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  PetscCall(SpringFromPoints(sim, spec, points, &s, k));
  *stability = SpringStability(c.v.b, &s, k, c.v.dt);
  PetscCall(RefuseUnstable(sim, c.dr->nsprings, &s, *stability));
  PetscCall(PetscRealloc(sizeof(s) * (c.dr->nsprings + 1), &c.dr->springs));
  c.dr->springs[c.dr->nsprings++] = s;
  PetscCall(TalusSimLinkBodies(sim, 2, s.body));
  PetscFunctionReturn(0);
}

/* Once, at the first step of a run (the time step may have changed since the springs were given,
   by -dt or at a restart): every spring's stability at the step's h, from its ends' owners */
static PetscErrorCode CheckSpringsOnce(TalusSim sim)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  if (c.dr->springs_checked || !c.dr->nsprings) PetscFunctionReturn(0);
  for (PetscInt s = 0; s < c.dr->nsprings; s++) {
    const TalusSpring *spring     = &c.dr->springs[s];
    PetscReal          inverse[2] = {0.0, 0.0}, e[3] = {1, 0, 0}, p[2][3], S[2][3], v[3], L, stability;
    TalusPose          pose[2];
    PetscInt           local_k;
    PetscCall(TalusSimGatherPoses(sim, 2, spring->body, pose));
    for (int end = 0; end < 2; end++) {
      TalusRotate(pose[end].A, spring->anchor[end], S[end]);
      for (int d = 0; d < 3; d++) p[end][d] = pose[end].r[d] + S[end][d];
    }
    for (int d = 0; d < 3; d++) v[d] = p[1][d] - p[0][d];
    L = TalusNorm3(v);
    if (L > 0.0)
      for (int d = 0; d < 3; d++) e[d] = v[d] / L;
    for (int end = 0; end < 2; end++) { /* each end's owner adds its inverse mass along e */
      local_k = TalusSimLinkedIndex(sim, spring->body[end]);
      if (local_k >= 0 && local_k < c.v.b->nowned && TalusBodiesIsFinite(c.v.b, local_k))
        inverse[end] = InverseMassAlong(c.v.b, local_k, S[end], e);
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, inverse, 2, MPIU_REAL, MPIU_SUM, c.v.comm));
    stability = (c.v.dt * c.v.dt * spring->stiffness + 2.0 * c.v.dt * spring->damping) * (inverse[0] + inverse[1]);
    PetscCall(RefuseUnstable(sim, s, spring, stability));
  }
  c.dr->springs_checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetDrives(TalusSim sim, PetscInt *nprescribed, const TalusPrescribedMotion **prescribed,
                                 PetscInt *nloads, const TalusLoad **loads, PetscInt *nsprings,
                                 const TalusSpring **springs)
{
  Context c;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  if (nprescribed) *nprescribed = c.dr->nprescribed;
  if (prescribed) *prescribed = c.dr->prescribed;
  if (nloads) *nloads = c.dr->nloads;
  if (loads) *loads = c.dr->loads;
  if (nsprings) *nsprings = c.dr->nsprings;
  if (springs) *springs = c.dr->springs;
  PetscFunctionReturn(0);
}

/* What a prescribed body's velocity or pose at a step needs: the simulation's view and the tables of time */
typedef PetscErrorCode (*PrescribedFn)(const Context *, const TalusTable tables[], PetscInt k,
                                       const TalusPrescribedMotion *);

/* the owned prescribed bodies: their local indices and motions, the context and tables read once */
static PetscErrorCode EachPrescribed(TalusSim sim, PrescribedFn fn)
{
  Context           c;
  const TalusTable *tables;

  PetscFunctionBegin;
  PetscCall(GetContext(sim, &c));
  if (!c.dr->nprescribed) PetscFunctionReturn(0);
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  for (PetscInt p = 0; p < c.dr->nprescribed; p++) {
    const PetscInt k = TalusSimLinkedIndex(sim, c.dr->prescribed[p].body);
    if (k >= 0 && k < c.v.b->nowned) PetscCall(fn(&c, tables, k, &c.dr->prescribed[p]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SetVelocity(const Context *c, const TalusTable tables[], PetscInt k,
                                  const TalusPrescribedMotion *m)
{
  TalusBodies *b = c->v.b;
  PetscReal    x0[3], x1[3], q[4], A[9];

  PetscFunctionBegin;
  TalusPrescribedPose(m, tables, c->v.t, x0, q);
  TalusPrescribedPose(m, tables, c->v.t + c->v.dt, x1, q);
  for (int d = 0; d < 3; d++) b->velocity[3 * k + d] = (x1[d] - x0[d]) / c->v.dt;
  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotateBack(A, m->angular_velocity, &b->omega[3 * k]);
  PetscFunctionReturn(0);
}

static PetscErrorCode SetPose(const Context *c, const TalusTable tables[], PetscInt k, const TalusPrescribedMotion *m)
{
  TalusBodies *b    = c->v.b;
  PetscReal    rmax = c->v.rmax, x[3], q[4], travel[3], A[9];

  PetscFunctionBegin;
  TalusPrescribedPose(m, tables, c->v.t + c->v.dt, x, q);
  for (int d = 0; d < 3; d++) travel[d] = x[d] - b->position[3 * k + d];
  /* as CheckTravel (step.c) for the bodies that move freely: ghosts reach r_max beyond a step */
  PetscCheck(TalusNorm3(travel) <= rmax || rmax == 0.0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "prescribed body %" PetscInt_FMT
             " moves %g m in one step (t = %g s), more than the largest body radius %g m: "
             "contacts would be missed; use a smaller -dt (now %g s)",
             b->id[k], (double)TalusNorm3(travel), (double)c->v.t, (double)rmax, (double)c->v.dt);
  for (int d = 0; d < 3; d++) b->position[3 * k + d] = x[d];
  for (int d = 0; d < 4; d++) b->quaternion[4 * k + d] = q[d];
  TalusQuatToMatrix(q, A); /* the body-frame angular velocity follows the new orientation */
  TalusRotateBack(A, m->angular_velocity, &b->omega[3 * k]);
  PetscFunctionReturn(0);
}

/* TALUS_HOOK_BEFORE_GHOSTS: the prescribed bodies' velocities for the step to come */
static PetscErrorCode DrivesPrescribeVelocities(TalusSim sim, void *state)
{
  const Drives *dr = (const Drives *)state;

  PetscFunctionBegin;
  if (dr->nprescribed) PetscCall(TalusSimMapLinked(sim, 0)); /* before the ghosts, which map them again */
  PetscCall(EachPrescribed(sim, SetVelocity));
  PetscFunctionReturn(0);
}

/* TALUS_HOOK_AFTER_INTEGRATE: the prescribed bodies' poses at the step's end, set, never integrated */
static PetscErrorCode DrivesMovePrescribed(TalusSim sim, void *state)
{
  PetscFunctionBegin;
  (void)state;
  PetscCall(EachPrescribed(sim, SetPose));
  PetscFunctionReturn(0);
}

/* add force F (world) at lever arm S and torque T (world) to owned body k's wrench */
static void AddWrench(PetscReal *wrench, PetscInt k, const PetscReal F[3], const PetscReal S[3], const PetscReal T[3])
{
  PetscReal SxF[3];

  TalusCross3(S, F, SxF);
  for (int d = 0; d < 3; d++) wrench[6 * k + d] += F[d], wrench[6 * k + 3 + d] += SxF[d] + T[d];
}

/* TALUS_HOOK_AFTER_COLLIDE: the loads' and springs' wrenches of the step (after the ghosts, which the
   springs' far ends may be), taken at its start */
static PetscErrorCode DrivesComputeWrenches(TalusSim sim, void *state)
{
  Context           c;
  const TalusTable *tables;
  TalusBodies      *b;
  PetscReal        *wrench;
  PetscMPIInt       rank;

  PetscFunctionBegin;
  (void)state;
  PetscCall(GetContext(sim, &c));
  PetscCallMPI(MPI_Comm_rank(c.v.comm, &rank));
  b = c.v.b;
  PetscCall(TalusSimGetTables(sim, NULL, &tables));
  if (!c.dr->nloads && !c.dr->nsprings) {
    PetscCall(TalusSimResetWrenches(sim, PETSC_FALSE, &wrench));
    PetscFunctionReturn(0);
  }
  PetscCall(CheckSpringsOnce(sim));
  PetscCall(TalusSimResetWrenches(sim, PETSC_TRUE, &wrench));
  for (PetscInt l = 0; l < c.dr->nloads; l++) {
    const TalusLoad *load = &c.dr->loads[l];
    const PetscInt   k    = TalusSimLinkedIndex(sim, load->body);
    PetscReal        F[3], T[3], S[3], A[9], force[3], torque[3], add[3];
    if (k < 0 || k >= b->nowned) continue;
    for (int d = 0; d < 3; d++) force[d] = load->force[d], torque[d] = load->torque[d];
    if (load->force_table) { /* the tables' values at the step's start, as every load is taken */
      TalusTableEvaluate(&tables[load->force_table - 1], c.v.t, add, NULL);
      for (int d = 0; d < 3; d++) force[d] += add[d];
    }
    if (load->torque_table) {
      TalusTableEvaluate(&tables[load->torque_table - 1], c.v.t, add, NULL);
      for (int d = 0; d < 3; d++) torque[d] += add[d];
    }
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    if (load->body_frame) {
      TalusRotate(A, force, F);
      TalusRotate(A, torque, T);
      TalusRotate(A, load->point, S);
    } else
      for (int d = 0; d < 3; d++) F[d] = force[d], T[d] = torque[d], S[d] = load->point[d];
    AddWrench(wrench, k, F, S, T);
  }
  for (PetscInt s = 0; s < c.dr->nsprings; s++) {
    const TalusSpring *spring = &c.dr->springs[s];
    PetscInt           k[2];
    PetscReal          p[2][3], S[2][3], v[2][3], f[3];
    const PetscReal    none[3] = {0, 0, 0};
    for (int end = 0; end < 2; end++) k[end] = TalusSimLinkedIndex(sim, spring->body[end]);
    if (!((k[0] >= 0 && k[0] < b->nowned) || (k[1] >= 0 && k[1] < b->nowned))) continue; /* no end here */
    for (int end = 0; end < 2; end++) {
      PetscCheck(k[end] >= -1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "spring %" PetscInt_FMT ": body %" PetscInt_FMT " is not on rank %d", s, spring->body[end], rank);
      SpringEnd(b, k[end], spring->anchor[end], p[end], S[end], v[end]);
    }
    TalusSpringForce(spring, p[0], p[1], v[0], v[1], f);
    for (int end = 0; end < 2; end++) {
      PetscReal F[3];
      if (k[end] < 0 || k[end] >= b->nowned || b->fixed[k[end]]) continue;
      for (int d = 0; d < 3; d++) F[d] = end ? f[d] : -f[d];
      AddWrench(wrench, k[end], F, S[end], none);
    }
  }
  PetscFunctionReturn(0);
}

/* The springs' potential energy (the module's energy: collective) */
static PetscErrorCode DrivesSpringEnergy(TalusSim sim, void *state, PetscReal *energy)
{
  Context    c;
  PetscInt  *ids;
  TalusPose *pose;

  PetscFunctionBegin;
  (void)state;
  PetscCall(GetContext(sim, &c));
  *energy = 0.0;
  if (!c.dr->nsprings) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(2 * c.dr->nsprings, &ids, 2 * c.dr->nsprings, &pose));
  for (PetscInt s = 0; s < c.dr->nsprings; s++)
    ids[2 * s] = c.dr->springs[s].body[0], ids[2 * s + 1] = c.dr->springs[s].body[1];
  PetscCall(TalusSimGatherPoses(sim, 2 * c.dr->nsprings, ids, pose)); /* every end from its owner, in one reduction */
  for (PetscInt s = 0; s < c.dr->nsprings; s++) {
    const TalusSpring *spring = &c.dr->springs[s];
    PetscReal          p[2][3], L;
    for (int end = 0; end < 2; end++) {
      TalusRotate(pose[2 * s + end].A, spring->anchor[end], p[end]);
      for (int d = 0; d < 3; d++) p[end][d] += pose[2 * s + end].r[d];
    }
    for (int d = 0; d < 3; d++) p[1][d] -= p[0][d];
    L = TalusNorm3(p[1]);
    *energy += 0.5 * spring->stiffness * (L - spring->rest_length) * (L - spring->rest_length);
  }
  PetscCall(PetscFree2(ids, pose));
  PetscFunctionReturn(0);
}

/* The springs join their two bodies at any distance: each end's rank needs the other end */
static PetscErrorCode DrivesLinks(TalusSim sim, void *state, PetscInt *n, PetscInt (*pairs)[2])
{
  const Drives *dr = (const Drives *)state;

  PetscFunctionBegin;
  (void)sim;
  *n = 2 * dr->nsprings;
  if (!pairs) PetscFunctionReturn(0);
  for (PetscInt s = 0, i = 0; s < dr->nsprings; s++)
    for (int end = 0; end < 2; end++, i++)
      pairs[i][0] = dr->springs[s].body[end], pairs[i][1] = dr->springs[s].body[1 - end];
  PetscFunctionReturn(0);
}

static PetscErrorCode DrivesDescribe(TalusSim sim, void *state, PetscInt id, char what[], size_t size)
{
  const Drives *dr = (const Drives *)state;

  PetscFunctionBegin;
  (void)sim;
  for (PetscInt s = 0; s < dr->nsprings && !what[0]; s++)
    if (dr->springs[s].body[0] == id || dr->springs[s].body[1] == id)
      PetscCall(PetscSNPrintf(what, size, "spring %" PetscInt_FMT, s));
  for (PetscInt l = 0; l < dr->nloads && !what[0]; l++)
    if (dr->loads[l].body == id) PetscCall(PetscSNPrintf(what, size, "load %" PetscInt_FMT, l));
  for (PetscInt p = 0; p < dr->nprescribed && !what[0]; p++)
    if (dr->prescribed[p].body == id) PetscCall(PetscSNPrintf(what, size, "a prescribed motion"));
  PetscFunctionReturn(0);
}

static PetscErrorCode DrivesDestroy(TalusSim sim, void *state)
{
  Drives *dr = (Drives *)state;

  PetscFunctionBegin;
  (void)sim;
  PetscCall(PetscFree(dr->prescribed));
  PetscCall(PetscFree(dr->loads));
  PetscCall(PetscFree(dr->springs));
  PetscFunctionReturn(0);
}

const TalusSimModuleOps TalusDrivesModule = {
  .name             = "drives",
  .state_size       = sizeof(Drives),
  .destroy          = DrivesDestroy,
  .hook             = {[TALUS_HOOK_BEFORE_GHOSTS]   = DrivesPrescribeVelocities,
                       [TALUS_HOOK_AFTER_COLLIDE]   = DrivesComputeWrenches,
                       [TALUS_HOOK_AFTER_INTEGRATE] = DrivesMovePrescribed},
  .energy           = DrivesSpringEnergy,
  .links            = DrivesLinks,
  .describe         = DrivesDescribe,
  .checkpoint_write = TalusDrivesCheckpointWrite,
  .checkpoint_read  = TalusDrivesCheckpointRead,
};
