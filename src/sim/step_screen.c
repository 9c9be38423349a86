/*
 * Screening separated pairs out of a step's problem, exactly.
 *
 * The envelope keeps every pair that could close within the step at the fastest body's speed
 * (seed 000 sec. 1), so on a bed at rest a third of the contacts are pairs that stay apart: their
 * linear term q_n = Phi / h + u_n(v_free) is large and positive, their impulse zero, yet apgd pays for
 * their rows in every product and pass (docs/notes/2026-11-solver-measurements.md, "Where the filling's time goes").
 *
 * Before the assembly a pair leaves the problem when it is apart (Phi > 0) and its estimated q_n,
 * from the velocities at the step's start and gravity's change over the step, exceeds the margin
 *     tau = -contact_screen x (s_a + s_b + |g| h),
 * s the two bodies' fastest speeds at their surfaces (|v| + |omega| r): closing it would take a change
 * of their relative velocity within the step larger than both their speeds and a step of free fall.
 * The margin is a guess, not a bound (a blow can reach a pair through its neighbours within the step);
 * the check below makes the answer exact whatever it is, and the margin only decides how often a
 * step is solved twice (never in the 500 steps of inputs/filling-1k.yaml at the default 2, once at 1; 27 times
 * in the compaction's 4,000 at 2, 66 at 1: docs/solver.md). The screened
 * contacts stay in the list, after the problem's (contacts_active), with zero impulse; the problem's stay in the
 * contacts' order (id_a, id_b, feature), the joining ones merged into it.
 *
 * After the solve each screened pair is checked against v+: zero impulse is its exact solution of
 * the full problem when its velocity u = b + B v+ is in the dual cone of its friction cone, that is
 * u_n >= 0 for the Coulomb problem (De Saxce's u_n + mu |u_t| >= mu |u_t|, seed 001 eq. 28) and
 * u_n >= mu |u_t| for the relaxed one. A pair that fails joins the problem, which is solved again from
 * the impulses found (every rank, when any rank has one). So the step's answer is a solution of the
 * problem with every contact, to the solver's tolerance: the screened rows' residual is zero.
 */
#include "jacobian_builder.h"

/* Body k's velocity at the world-frame offset S from its centre at the step's start, plus gravity's change
   over the step for a dynamic body */
static void StartVelocity(TalusSim sim, PetscInt k, const PetscReal S[3], PetscReal v[3])
{
  TalusBodyPointVelocity(sim->bodies, k, S, v);
  for (int d = 0; d < 3; d++) v[d] += sim->dt * sim->gravity[d];
}

/* The contact's rows of u = b + B v: b its stabilisation (which holds the fixed sides' velocities), the dynamic
   sides' velocities at the contact point those of the step's start (v_local NULL) or of v+ (its local form) */
static void ContactVelocity(TalusSim sim, const TalusContact *ct, const PetscScalar *v_local,
                            const TalusJacobianBuilderOps *builder, PetscScalar u[3])
{
  const TalusBodies *b       = sim->bodies;
  const PetscInt     body[2] = {ct->a, ct->b};
  const PetscReal   *arm[2]  = {ct->sa, ct->sb};

  TalusContactKind.stabilisation(b, ct, sim->dt, u);
  for (int side = 0; side < 2; side++) {
    const PetscInt k = body[side];
    PetscReal      A[9], S[3], V[3];
    if (b->dof[k] < 0) continue; /* fixed: in b */
    TalusQuatToMatrix(&b->quaternion[4 * k], A);
    TalusRotate(A, arm[side], S);
    if (v_local) builder->point_velocity(sim, v_local, k, S, V);
    else StartVelocity(sim, k, S, V);
    for (int r = 0; r < 3; r++) u[r] += (side ? 1.0 : -1.0) * TalusDot3(&ct->frame[3 * r], V);
  }
}

/* The run's builder of B when screening is on (an option, and a form of B whose body vector holds every contact's
   bodies), else NULL */
static const TalusJacobianBuilderOps *ScreeningBuilder(TalusSim sim)
{
  const TalusJacobianBuilderOps *builder = sim->builder;
  return sim->screen > 0.0 && builder->point_velocity ? builder : NULL;
}

PetscErrorCode TalusSimGetContactScreen(TalusSim sim, PetscReal *factor)
{
  PetscFunctionBegin;
  *factor = ScreeningBuilder(sim) ? sim->screen : 0.0;
  PetscFunctionReturn(0);
}

/* x before y in the contacts' order */
static PetscBool ContactBefore(const TalusContact *x, const TalusContact *y)
{
  return (PetscBool)(TalusContactKeyCompare(x->id_a, x->id_b, x->feature, y->id_a, y->id_b, y->feature) < 0);
}

/* Moves the contacts flagged in move[] (indices from first on) into the problem, merged into its order (the
   contacts' order, so that a body's terms of B^T g are added in the same order on any number of ranks:
   jacobian_faces.c) with merge, else after it; the others after them in their order; the problem grows by their
   number. scratch has room for those not flagged, and with merge for all from first on. */
static void JoinProblem(TalusContactList *list, PetscInt first, const PetscBool move[], PetscBool merge,
                        TalusContact scratch[], PetscInt *active)
{
  const PetscInt rest  = list->n - first;
  PetscInt       moved = 0, kept = 0, c = first;

  if (!merge) { /* the first screening (the kept ones move forward in order; a packed bed: none), or, before
                   checkpoint format 11, the joining ones after the problem */
    while (c < list->n && move[c - first]) c++, moved++;
    for (; c < list->n; c++)
      if (move[c - first]) list->c[first + moved++] = list->c[c];
      else scratch[kept++] = list->c[c];
    for (PetscInt k = 0; k < kept; k++) list->c[first + moved + k] = scratch[k];
    *active = first + moved;
    return;
  }
  for (; c < list->n; c++) /* the joining ones at the front of scratch, the others at its back */
    if (move[c - first]) scratch[moved++] = list->c[c];
    else scratch[rest - 1 - kept++] = list->c[c];
  for (PetscInt i = first - 1, j = moved - 1, k = first + moved - 1; j >= 0; k--) /* merged from the back */
    list->c[k] = i >= 0 && ContactBefore(&scratch[j], &list->c[i]) ? list->c[i--] : scratch[j--];
  for (PetscInt k = 0; k < kept; k++) list->c[first + moved + k] = scratch[rest - 1 - k];
  *active = first + moved;
}

PetscErrorCode TalusSimScreenContacts(TalusSim sim)
{
  TalusContactList *list = &sim->contacts;
  TalusBodies      *b    = sim->bodies;
  const PetscReal   fall = sim->gravity_norm * sim->dt;
  PetscBool        *keep;
  TalusContact     *scratch;
  PetscInt          nscreened = 0;

  PetscFunctionBegin;
  sim->contacts_active = list->n;
  if (!ScreeningBuilder(sim)) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(list->n, &keep));
  for (PetscInt c = 0; c < list->n; c++) {
    TalusContact *ct = &list->c[c];
    PetscScalar   u[3];
    keep[c] = PETSC_TRUE;
    if (!(ct->phi > 0.0)) continue; /* touching: in the problem, no estimate needed */
    ContactVelocity(sim, ct, NULL, NULL, u);
    keep[c] = (PetscBool) !(PetscRealPart(u[0]) > sim->screen * (TalusBodiesSurfaceSpeed(b, ct->a) +
                                                                 TalusBodiesSurfaceSpeed(b, ct->b) + fall));
    if (!keep[c]) ct->impulse[0] = ct->impulse[1] = ct->impulse[2] = 0.0, nscreened++;
  }
  if (nscreened) { /* room for the screened only: the list is not copied whole every step */
    PetscCall(PetscMalloc1(nscreened, &scratch));
    JoinProblem(list, 0, keep, PETSC_FALSE, scratch, &sim->contacts_active);
    PetscCall(PetscFree(scratch));
  }
  PetscCall(PetscFree(keep));
  PetscCall(PetscInfo(NULL,
                      "step %" PetscInt_FMT ": %" PetscInt_FMT " of %" PetscInt_FMT " contacts screened on this rank\n",
                      sim->step + 1, nscreened, list->n));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimCheckScreened(TalusSim sim, TalusStepCCP *ccp, PetscInt *joined)
{
  TalusContactList              *list    = &sim->contacts;
  const TalusJacobianBuilderOps *builder = ScreeningBuilder(sim);
  const PetscInt                 first = sim->contacts_active, nscreened = list->n - first;
  PetscBool                     *join;
  TalusContact                  *scratch;
  const PetscScalar             *vl;
  Vec                            local;
  PetscInt                       njoin = 0;

  PetscFunctionBegin;
  *joined = 0;
  if (!builder) PetscFunctionReturn(0);
  PetscCall(VecGhostUpdateBegin(ccp->v_plus, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostUpdateEnd(ccp->v_plus, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostGetLocalForm(ccp->v_plus, &local));
  PetscCall(VecGetArrayRead(local, &vl));
  PetscCall(PetscMalloc2(nscreened, &join, nscreened, &scratch)); /* JoinProblem's room for them all */
  for (PetscInt c = first; c < list->n; c++) {
    const TalusContact *ct = &list->c[c];
    PetscScalar         u[3];
    ContactVelocity(sim, ct, vl, builder, u);
    const PetscReal slip = PetscSqrtReal(PetscRealPart(u[1] * u[1] + u[2] * u[2]));
    join[c - first]      = (PetscBool)(PetscRealPart(u[0]) < (sim->anti_relax ? 0.0 : ct->mu * slip));
    njoin += join[c - first];
  }
  PetscCall(VecRestoreArrayRead(local, &vl));
  PetscCall(VecGhostRestoreLocalForm(ccp->v_plus, &local));
  PetscCall(MPIU_Allreduce(&njoin, joined, 1, MPIU_INT, MPI_SUM, sim->comm));
  if (*joined) {
    PetscCall(TalusSimSetImpulses(sim, ccp)); /* the problem's impulses: the next solve's warm start */
    JoinProblem(list, first, join, sim->rank_order, scratch, &sim->contacts_active);
  }
  PetscCall(PetscFree2(join, scratch));
  PetscFunctionReturn(0);
}
