/*
 * The matrix-free B (compact contact records, world-frame angular velocities, block-diagonal M^-1)
 * against the assembled MPIAIJ B (body-frame angular velocities, diagonal M^-1) on the same
 * scene and the same number of ranks: the two are different discretisations of the same
 * operator N = B M^-1 B^T, so the states must agree to the solver's tolerance, step after step.
 * The scene is built to exercise what the compact record changes: boxes with three different
 * principal moments in random orientations, spinning, colliding with each other, with spheres
 * and with the floor, so that lever arms, world-frame inertia and the gyroscopic free velocity
 * all enter the contacts' impulses. (Box-box contact is not supported: the boxes sit in the bottom
 * layer, every other place in both directions, spaced beyond each other's reach.)
 * Two more runs solve the relaxed problem (convex: its velocities are unique, which the Coulomb
 * problem's need not be), one of them scaled per contact (-ccp_scale, ccp_scaling.c): a change of
 * variables, so their states must agree to the solver's tolerance; and the diagonal
 * of N the blocks give for it (TalusSimGetDelassusDiagonal) must be that of the assembled
 * N = B M^-1 B^T of the step (TalusSimGetStepProblem), step after step.
 */
#include "../common/check.h"

static PetscReal Uniform(unsigned *state, PetscReal lo, PetscReal hi)
{
  *state = *state * 1103515245u + 12345u;
  return lo + (hi - lo) * (PetscReal)((*state >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

/* Body id = 1 + 9 i + 3 j + l of the lattice below (the plane is 0) */
static PetscBool IsBox(PetscInt i, PetscInt j, PetscInt l)
{
  return (PetscBool)(l == 0 && i % 2 == 0 && j % 2 == 0);
}

/* The largest relative difference between the blocks' diagonal of N and the assembled N's. */
static PetscErrorCode CompareDiagonal(TalusSim sim, const TalusStepStats *stats, void *ctx)
{
  PetscReal        *worst = (PetscReal *)ctx, scale, diff;
  TalusFCLibProblem local;
  TalusFCLibGlobal  global;
  Vec               from_blocks, assembled;

  PetscFunctionBegin;
  (void)stats;
  PetscCall(TalusSimGetDelassusDiagonal(sim, &from_blocks));
  PetscCall(TalusSimGetStepProblem(sim, &local, &global, NULL));
  PetscCall(VecDuplicate(from_blocks, &assembled));
  PetscCall(MatGetDiagonal(local.W, assembled));
  PetscCall(VecNorm(assembled, NORM_INFINITY, &scale));
  PetscCall(VecAXPY(assembled, -1.0, from_blocks));
  PetscCall(VecNorm(assembled, NORM_INFINITY, &diff));
  if (scale > 0.0) *worst = PetscMax(*worst, diff / scale);
  PetscCall(VecDestroy(&assembled));
  PetscCall(VecDestroy(&from_blocks));
  PetscCall(TalusFCLibGlobalDestroy(&global));
  PetscCall(TalusFCLibProblemDestroy(&local));
  PetscFunctionReturn(0);
}

static PetscBool IsBoxId(PetscInt id)
{
  return (PetscBool)(id > 0 && IsBox((id - 1) / 9, ((id - 1) / 3) % 3, (id - 1) % 3));
}

static PetscErrorCode BuildPile(MPI_Comm comm, PetscBool matrix_free, TalusSim *sim)
{
  const PetscReal g[3] = {0, 0, -9.81}, up[3] = {0, 0, 1}, origin[3] = {0, 0, 0};
  const PetscReal box[3] = {0.30, 0.20, 0.12}, ball[3] = {0.22, 0, 0};
  TalusBodies    *b;
  unsigned        seed = 2026;
  PetscInt        id   = 1;

  PetscFunctionBegin;
  PetscCall(TalusSimCreate(comm, sim));
  PetscCall(TalusSimSetGravity(*sim, g));
  PetscCall(TalusSimSetTimeStep(*sim, 0.01));
  PetscCall(TalusSimSetEnvelope(*sim, 0.05));
  PetscCall(TalusSimSetMatrixFree(*sim, matrix_free));
  /* rigid rows: CompareDiagonal checks the blocks' diagonal of N against the step problem's W, which is
     N + E with the contacts' floor (E's own path is the compliance tests') */
  PetscCall(TalusSimSetContactFloor(*sim, 0.0, 0.0));
  PetscCall(TalusSimGetBodies(*sim, &b));
  PetscCall(TalusBodiesAddMaterial(b, "m", 0.5, 1000.0, NULL));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_PLANE, up, 0, 0, PETSC_TRUE, origin, NULL));
  for (PetscInt i = 0; i < 4; i++)
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt l = 0; l < 3; l++, id++) {
        const PetscBool is_box = IsBox(i, j, l);
        const PetscReal x[3]   = {0.7 * i, 0.7 * j, 0.35 + 0.6 * l};
        PetscReal       q[4], norm = 0.0;
        PetscInt        k;
        PetscCall(
          TalusBodiesAdd(b, id, is_box ? TALUS_BOX : TALUS_SPHERE, is_box ? box : ball, 0.0, 0, PETSC_FALSE, x, &k));
        for (int e = 0; e < 4; e++) q[e] = Uniform(&seed, -1.0, 1.0), norm += q[e] * q[e];
        for (int e = 0; e < 4; e++) b->quaternion[4 * k + e] = q[e] / PetscSqrtReal(norm);
        for (int d = 0; d < 3; d++) {
          b->omega[3 * k + d]    = Uniform(&seed, -6.0, 6.0);
          b->velocity[3 * k + d] = Uniform(&seed, -0.2, 0.2);
        }
      }
  PetscCall(TalusSimSetFromOptions(*sim));
  PetscFunctionReturn(0);
}

/* Largest differences of position, orientation, velocity and angular velocity over all bodies. */
static PetscErrorCode Compare(TalusSim s1, TalusSim s2, PetscReal diff[4])
{
  TalusBodyRecord *r1, *r2;
  PetscInt         n1, n2;

  PetscFunctionBegin;
  PetscCall(TalusSimGatherBodies(s1, &n1, &r1));
  PetscCall(TalusSimGatherBodies(s2, &n2, &r2));
  PetscCheck(n1 == n2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " bodies against %" PetscInt_FMT, n1, n2);
  for (int f = 0; f < 4; f++) diff[f] = 0.0;
  for (PetscInt k = 0; k < n1; k++) {
    PetscCheck(r1[k].id == r2[k].id, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bodies gathered in different orders");
    for (int d = 0; d < 3; d++) {
      diff[0] = PetscMax(diff[0], PetscAbsReal(r1[k].position[d] - r2[k].position[d]));
      diff[2] = PetscMax(diff[2], PetscAbsReal(r1[k].velocity[d] - r2[k].velocity[d]));
      diff[3] = PetscMax(diff[3], PetscAbsReal(r1[k].omega[d] - r2[k].omega[d]));
    }
    for (int e = 0; e < 4; e++) diff[1] = PetscMax(diff[1], PetscAbsReal(r1[k].quaternion[e] - r2[k].quaternion[e]));
  }
  PetscCall(PetscFree(r1));
  PetscCall(PetscFree(r2));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  TalusSim       mf, as, rp, sc;
  TalusCCP       scaled_ccp;
  TalusStepStats s1, s2, s3, s4;
  PetscReal      worst[4] = {0, 0, 0, 0}, worst_scaled[4] = {0, 0, 0, 0}, impulse = 0.0, diagonal_diff = 0.0;
  PetscInt       its_plain = 0, its_scaled = 0, steps_compared = 0;
  PetscBool      both_solved = PETSC_TRUE;
  PetscInt       contacts = 0, box_contacts = 0; /* with a box on one side */
  PetscMPIInt    size;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  /* solve each step far below the differences tested, so that they measure the operators */
  PetscCall(PetscOptionsSetValue(NULL, "-tao_gatol", "1e-11"));
  PetscCall(PetscOptionsSetValue(NULL, "-tao_max_it", "20000"));
  PetscCall(BuildPile(PETSC_COMM_WORLD, PETSC_TRUE, &mf));
  PetscCall(BuildPile(PETSC_COMM_WORLD, PETSC_FALSE, &as));
  PetscCall(BuildPile(PETSC_COMM_WORLD, PETSC_TRUE, &rp));
  PetscCall(BuildPile(PETSC_COMM_WORLD, PETSC_TRUE, &sc));
  PetscCall(TalusSimSetAntiRelaxation(rp, PETSC_FALSE));
  PetscCall(TalusSimSetAntiRelaxation(sc, PETSC_FALSE));
  PetscCall(TalusSimGetCCP(sc, &scaled_ccp));
  PetscCall(TalusCCPSetScaling(scaled_ccp, PETSC_TRUE)); /* through the matrix-free B's own passes (delassus.c) */
  for (int k = 0; k < 3; k++) {                          /* the others unscaled, as a scene's apgd is not by default */
    TalusCCP ccp;
    PetscCall(TalusSimGetCCP(k == 0 ? mf : k == 1 ? as : rp, &ccp));
    PetscCall(TalusCCPSetScaling(ccp, PETSC_FALSE));
  }
  PetscCall(TalusSimSetProblemMonitor(sc, CompareDiagonal, &diagonal_diff, NULL));
  for (PetscInt s = 0; s < 40; s++) {
    const TalusContactList *list;
    PetscReal               diff[4];
    PetscCall(TalusSimStep(mf, &s1));
    PetscCall(TalusSimStep(as, &s2));
    PetscCall(TalusSimStep(rp, &s4));
    PetscCall(TalusSimStep(sc, &s3));
    its_plain += s4.iterations, its_scaled += s3.iterations;
    PetscCall(Compare(mf, as, diff));
    for (int f = 0; f < 4; f++) worst[f] = PetscMax(worst[f], diff[f]);
    /* the runs would part once a step is not solved to the tolerance: compare while both solve every step */
    both_solved = (PetscBool)(both_solved && s4.reason > 0 && s3.reason > 0);
    if (both_solved) {
      PetscCall(Compare(rp, sc, diff));
      for (int f = 0; f < 4; f++) worst_scaled[f] = PetscMax(worst_scaled[f], diff[f]);
      steps_compared++;
    }
    contacts += s1.contacts;
    PetscCall(TalusSimGetContacts(mf, &list));
    for (PetscInt c = 0; c < list->n; c++) {
      box_contacts += IsBoxId(list->c[c].id_a) ||
                      IsBoxId(list->c[c].id_b); /* local indices are stale after migration */
      impulse = PetscMax(impulse, PetscAbsReal(list->c[c].impulse[0]));
    }
    CHECK(s1.residual <= 1e-8 && s2.residual <= 1e-8,
          "step %" PetscInt_FMT ": residuals %g and %g: the comparison needs converged solves", s, (double)s1.residual,
          (double)s2.residual);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &box_contacts, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &impulse, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %d ranks, 40 steps, %" PetscInt_FMT " contacts in all (%" PetscInt_FMT
                        " with a box), largest normal impulse %g N s\n",
                        size, contacts, box_contacts, (double)impulse));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  matrix-free vs assembled, largest differences: position %.2e m, quaternion %.2e, velocity "
                        "%.2e m/s, angular velocity %.2e rad/s\n",
                        (double)worst[0], (double)worst[1], (double)worst[2], (double)worst[3]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  relaxed problem, scaled vs unscaled (matrix-free) over the %" PetscInt_FMT
                        " steps both solved, largest differences: position %.2e m, quaternion %.2e, "
                        "velocity %.2e m/s, angular velocity %.2e rad/s; iterations %" PetscInt_FMT
                        " scaled, %" PetscInt_FMT " unscaled; diagonal of N from the blocks within %.1e of the "
                        "assembled one\n",
                        steps_compared, (double)worst_scaled[0], (double)worst_scaled[1], (double)worst_scaled[2],
                        (double)worst_scaled[3], its_scaled, its_plain, (double)diagonal_diff));
  CHECK(contacts > 200 && box_contacts > 10 && impulse > 0.1, "the pile did not collide enough to test anything");
  CHECK(steps_compared >= 15, "only %" PetscInt_FMT " steps were solved by both runs", steps_compared);
  CHECK(diagonal_diff < 1e-13, "the diagonal of N from the blocks differs from the assembled one by %g relative",
        (double)diagonal_diff);
  CHECK(worst_scaled[0] < 1e-9 && worst_scaled[1] < 1e-9 && worst_scaled[2] < 1e-7 && worst_scaled[3] < 1e-7,
        "scaled and unscaled runs differ: position %g m, quaternion %g, velocity %g m/s, angular velocity %g rad/s",
        (double)worst_scaled[0], (double)worst_scaled[1], (double)worst_scaled[2], (double)worst_scaled[3]);
  CHECK(worst[0] < 1e-9 && worst[1] < 1e-9, "positions or orientations differ by %g m, %g", (double)worst[0],
        (double)worst[1]);
  CHECK(worst[2] < 1e-7 && worst[3] < 1e-7, "velocities differ by %g m/s, %g rad/s", (double)worst[2],
        (double)worst[3]);
  PetscCall(TalusSimDestroy(&mf));
  PetscCall(TalusSimDestroy(&as));
  PetscCall(TalusSimDestroy(&rp));
  PetscCall(TalusSimDestroy(&sc));
  int status = TestSummary("test_matrix_free");
  PetscCall(TalusFinalize());
  return status;
}
