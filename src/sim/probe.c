/*
 * The force and torque that contacts and joints exert on one watched body over a step (what a
 * force plate, a wheel's hub or a wall measures): the sum over the body's contacts of its side of
 * gamma / h (the frame's rows turned into the world) and over its joints of their wrench on it,
 * torques about the body's centre. It works the same for a moving, a fixed or a prescribed body,
 * and whatever form B takes.
 */
#include "sim_impl.h"

PetscErrorCode TalusSimWatchBody(TalusSim sim, PetscInt id)
{
  PetscFunctionBegin;
  sim->watched = id;
  PetscCall(PetscArrayzero(sim->watched_wrench, 6));
  PetscFunctionReturn(0);
}

/* body k's world-frame lever arm of a point given in its frame */
static void Arm(const TalusBodies *b, PetscInt k, const PetscReal s[3], PetscReal S[3])
{
  PetscReal A[9];

  TalusQuatToMatrix(&b->quaternion[4 * k], A);
  TalusRotate(A, s, S);
}

PetscErrorCode TalusSimComputeWatchedWrench(TalusSim sim)
{
  TalusBodies *b = sim->bodies;
  PetscReal   *w = sim->watched_wrench;

  PetscFunctionBegin;
  if (sim->watched < 0) PetscFunctionReturn(0);
  PetscCall(PetscArrayzero(w, 6));
  for (PetscInt c = 0; c < sim->contacts.n; c++) {
    const TalusContact *ct = &sim->contacts.c[c];
    PetscReal           F[3], S[3], SxF[3];
    int                 side;
    if (ct->id_a != sim->watched && ct->id_b != sim->watched) continue;
    side = ct->id_b == sim->watched; /* gamma acts on b as +F, on a as -F */
    for (int d = 0; d < 3; d++)
      F[d] = (side ? 1.0 : -1.0) *
             (ct->impulse[0] * ct->frame[d] + ct->impulse[1] * ct->frame[3 + d] + ct->impulse[2] * ct->frame[6 + d]) /
             sim->dt;
    Arm(b, side ? ct->b : ct->a, side ? ct->sb : ct->sa, S);
    TalusCross3(S, F, SxF);
    for (int d = 0; d < 3; d++) w[d] += F[d], w[3 + d] += SxF[d];
  }
  /* joints: their wrenches are the same on every rank, so rank 0 counts them */
  if (sim->rank == 0 && sim->joint_wrench)
    for (PetscInt j = 0; j < sim->njoints; j++)
      for (int side = 0; side < 2; side++)
        if (sim->joints[j].body[side] == sim->watched)
          for (int e = 0; e < 6; e++) w[e] += sim->joint_wrench[12 * j + 6 * (1 - side) + e];
  /* each contact is kept by one rank */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, w, 6, MPIU_REAL, MPIU_SUM, sim->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusSimGetWatchedWrench(TalusSim sim, PetscReal wrench[6])
{
  PetscFunctionBegin;
  for (int e = 0; e < 6; e++) wrench[e] = sim->watched_wrench[e];
  PetscFunctionReturn(0);
}
