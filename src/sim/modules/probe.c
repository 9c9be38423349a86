/*
 * The force and torque that contacts and joints exert on a watched body, or on a group of bodies,
 * over a step (what a force plate, a wheel's hub, a wall or a rigid cluster measures): the sum over
 * their contacts of their side of gamma / h (the frame's rows turned into the world) and over their
 * joints of the joints' wrenches on them. Contacts and joints between two bodies of one group act
 * and react inside it and are left out. Torques are about the body's centre (one body) or the
 * group's centre of mass. It works the same for moving, fixed and prescribed bodies, and whatever
 * form B takes.
 */
#include "../modules.h"

/* one watch: its ids (sorted) and what the last step measured */
typedef struct {
  PetscInt          n, *ids;
  TalusWatchMeasure measure;
} TalusWatchGroup;

/* The module's state: the watches (TalusSimAddWatch), measured after each step's solve */
typedef struct {
  PetscInt         n;
  TalusWatchGroup *watches;
} Watches;

static PetscErrorCode WatchesDestroy(TalusSim sim, void *state)
{
  Watches *ws = (Watches *)state;

  PetscFunctionBegin;
  (void)sim;
  for (PetscInt i = 0; i < ws->n; i++) PetscCall(PetscFree(ws->watches[i].ids));
  PetscCall(PetscFree(ws->watches));
  ws->n = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode WatchesMeasure(TalusSim, void *);

const TalusSimModuleOps TalusWatchesModule = {.name       = "watches",
                                              .state_size = sizeof(Watches),
                                              .destroy    = WatchesDestroy,
                                              .hook       = {[TALUS_HOOK_AFTER_SOLVE] = WatchesMeasure}};

PetscErrorCode TalusSimAddWatch(TalusSim sim, PetscInt n, const PetscInt ids[], PetscInt *index)
{
  TalusWatchGroup *w;
  Watches         *ws;
  MPI_Comm         comm;
  PetscInt         m = n;

  PetscFunctionBegin;
  PetscCall(TalusSimGetComm(sim, &comm));
  PetscCall(TalusSimGetModuleState(sim, &TalusWatchesModule, (void **)&ws));
  PetscCheck(n >= 1, comm, PETSC_ERR_USER_INPUT, "a watched group needs at least one body");
  PetscCall(PetscRealloc(sizeof(TalusWatchGroup) * (ws->n + 1), &ws->watches));
  w = &ws->watches[ws->n];
  PetscCall(PetscMemzero(w, sizeof(*w)));
  PetscCall(PetscMalloc1(n, &w->ids));
  PetscCall(PetscArraycpy(w->ids, ids, n));
  PetscCall(PetscSortRemoveDupsInt(&m, w->ids));
  PetscCheck(m == n, comm, PETSC_ERR_USER_INPUT, "a watched group names a body twice");
  PetscCheck(w->ids[0] >= 0, comm, PETSC_ERR_USER_INPUT, "a watched group names body %" PetscInt_FMT, w->ids[0]);
  w->n = n;
  if (index) *index = ws->n;
  ws->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetWatch(TalusSim sim, PetscInt index, TalusWatchMeasure *measure)
{
  Watches *ws;

  PetscFunctionBegin;
  PetscCall(TalusSimGetModuleState(sim, &TalusWatchesModule, (void **)&ws));
  PetscCheck(index >= 0 && index < ws->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "no watch %" PetscInt_FMT " (%" PetscInt_FMT " are set)", index, ws->n);
  *measure = ws->watches[index].measure;
  PetscFunctionReturn(0);
}

static PetscBool InGroup(const TalusWatchGroup *w, PetscInt id)
{
  PetscInt where;

  if (w->n == 1) return (PetscBool)(id == w->ids[0]);
  (void)PetscFindInt(id, w->n, w->ids, &where);
  return (PetscBool)(where >= 0);
}

/* body k's world-frame lever arm of a point given in its frame */
static void Arm(const TalusBodies *b, PetscInt k, const PetscReal s[3], PetscReal S[3])
{
  PetscReal A[9];

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, s, S);
}

/* The group's bodies, mass, centre of mass and its velocity (the plain mean of the centres when no
   body has mass: fixed or prescribed ones), summed over the ranks that own them. */
static PetscErrorCode Centre(const TalusBodies *b, MPI_Comm comm, TalusWatchGroup *w)
{
  PetscReal          s[11] = {0}; /* mass, m x (3), m v (3), count, x (3) */
  TalusWatchMeasure *m     = &w->measure;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < b->nowned; k++) {
    if (!InGroup(w, b->id[k])) continue;
    s[0] += b->mass[k], s[7] += 1.0;
    for (int d = 0; d < 3; d++)
      s[1 + d] += b->mass[k] * b->position[3 * k + d], s[4 + d] += b->mass[k] * b->velocity[3 * k + d],
        s[8 + d] += b->position[3 * k + d];
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s, 11, MPIU_REAL, MPIU_SUM, comm));
  m->bodies = (PetscInt)s[7], m->mass = s[0];
  for (int d = 0; d < 3; d++) {
    m->centre[d]   = s[0] > 0.0 ? s[1 + d] / s[0] : (s[7] > 0.0 ? s[8 + d] / s[7] : 0.0);
    m->velocity[d] = s[0] > 0.0 ? s[4 + d] / s[0] : 0.0;
  }
  PetscFunctionReturn(0);
}

/* Adds force F acting at lever arm S from body k's centre: the torque about the body's centre (one
   body: exactly S x F) or about the group's centre c, (x_k - c + S) x F. */
static void Add(const TalusBodies *b, const TalusWatchGroup *w, PetscInt k, const PetscReal S[3], const PetscReal F[3],
                const PetscReal T[3], PetscReal wrench[6])
{
  PetscReal r[3], rxF[3];

  for (int d = 0; d < 3; d++) r[d] = w->n == 1 ? S[d] : (b->position[3 * k + d] - w->measure.centre[d]) + S[d];
  TalusCross3(r, F, rxF);
  for (int d = 0; d < 3; d++) wrench[d] += F[d], wrench[3 + d] += rxF[d] + T[d];
}

/* What a step's measures read of the simulation, once for all the watches */
typedef struct {
  MPI_Comm                comm;
  PetscMPIInt             rank;
  TalusBodies            *b;
  const TalusContactList *contacts;
  const TalusJoint       *joints;
  const PetscReal        *joint_wrench;
  PetscInt                njoints;
  PetscReal               dt;
} StepView;

static PetscErrorCode Measure(TalusSim sim, const StepView *sv, TalusWatchGroup *w)
{
  TalusBodies            *b            = sv->b;
  const TalusContactList *contacts     = sv->contacts;
  const TalusJoint       *joints       = sv->joints;
  const PetscReal        *joint_wrench = sv->joint_wrench;
  const PetscInt          njoints      = sv->njoints;
  const PetscReal         dt = sv->dt, zero[3] = {0, 0, 0};
  const MPI_Comm          comm      = sv->comm;
  const PetscMPIInt       rank      = sv->rank;
  PetscReal               wrench[6] = {0, 0, 0, 0, 0, 0};

  PetscFunctionBegin;
  if (w->n > 1) PetscCall(Centre(b, comm, w)); /* one body's torque is about its own centre: no pass, no reduction */
  for (PetscInt c = 0; c < contacts->n; c++) {
    const TalusContact *ct   = &contacts->c[c];
    const PetscBool     in_a = InGroup(w, ct->id_a), in_b = InGroup(w, ct->id_b);
    PetscReal           F[3], S[3];
    int                 side;
    if (in_a == in_b) continue; /* outside the group, or inside it (action and reaction) */
    side = in_b;                /* gamma acts on b as +F, on a as -F */
    for (int d = 0; d < 3; d++)
      F[d] = (side ? 1.0 : -1.0) *
             (ct->impulse[0] * ct->frame[d] + ct->impulse[1] * ct->frame[3 + d] + ct->impulse[2] * ct->frame[6 + d]) /
             dt;
    Arm(b, side ? ct->b : ct->a, side ? ct->sb : ct->sa, S);
    Add(b, w, side ? ct->b : ct->a, S, F, zero, wrench);
  }
  /* joints: their wrenches (force, torque about the body's centre) are the same on every rank; the
     rank that owns the group's body counts them (one body: rank 0, about its centre) */
  if (joint_wrench)
    for (PetscInt j = 0; j < njoints; j++) {
      const TalusJoint *joint = &joints[j];
      for (int side = 0; side < 2; side++) {
        const PetscReal *jw = &joint_wrench[12 * j + 6 * (1 - side)];
        PetscInt         k;
        if (!InGroup(w, joint->body[side]) || InGroup(w, joint->body[1 - side])) continue;
        if (w->n == 1) {
          if (rank == 0) Add(b, w, -1, zero, jw, &jw[3], wrench);
          continue;
        }
        k = TalusSimLinkedIndex(sim, joint->body[side]);
        if (k >= 0 && k < b->nowned) Add(b, w, k, zero, jw, &jw[3], wrench);
      }
    }
  /* each contact is kept by one rank */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, wrench, 6, MPIU_REAL, MPIU_SUM, comm));
  for (int d = 0; d < 3; d++) w->measure.force[d] = wrench[d], w->measure.torque[d] = wrench[3 + d];
  PetscFunctionReturn(0);
}

/* The hook after the solve: every watch's measure of the step */
static PetscErrorCode WatchesMeasure(TalusSim sim, void *state)
{
  Watches *ws = (Watches *)state;
  StepView sv;

  PetscFunctionBegin;
  if (!ws->n) PetscFunctionReturn(0);
  PetscCall(TalusSimGetComm(sim, &sv.comm));
  PetscCallMPI(MPI_Comm_rank(sv.comm, &sv.rank));
  PetscCall(TalusSimGetBodies(sim, &sv.b));
  PetscCall(TalusSimGetContacts(sim, &sv.contacts));
  PetscCall(TalusSimGetTime(sim, NULL, NULL, &sv.dt));
  PetscCall(TalusSimGetJoints(sim, &sv.njoints, &sv.joints, NULL, NULL));
  PetscCall(TalusSimGetJointWrenches(sim, &sv.joint_wrench));
  for (PetscInt i = 0; i < ws->n; i++) PetscCall(Measure(sim, &sv, &ws->watches[i]));
  PetscFunctionReturn(0);
}
