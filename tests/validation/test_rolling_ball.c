/*
 * Seed 001 section 3.1: the first step of a ball sliding on a plane, as a 3D CCP.
 *
 * Derivation (seed 000 eq. 13-15, seed 001 eq. 12-13). Ball of radius 1, mass 1, inertia 0.4,
 * generalized velocity (v_x, v_y, omega) with y up; contact frame n = y, u = x, w = z.
 * The relative velocity at the contact point (seed 000 eq. 7) is (v_y, v_x + omega, v_z), so
 * D^T rows are n: (0 1 0), u: (1 0 1) (the w row acts on v_z and the spin about x, absent from the
 * 2D model, with the same weights). With M = diag(1, 1, 0.4) (seed 001 eq. 41):
 *     N = D^T M^-1 D = diag(1, 1 + 1/0.4, 1 + 1/0.4) = diag(1, 3.5, 3.5)            (eq. 46)
 *     r = b + D^T (v + h M^-1 f) with v = (2, 0, 0), h f = (0, -0.0981, 0), Phi = 0:
 *       = (-0.0981, 2, 0)                                                              (eq. 47)
 *
 * Coulomb problem (u = N g + r; sliding forward, so friction opposes u_t and is on the cone's
 * surface: g_u = -mu g_n, g_w = 0; the ball stays on the plane: u_n = 0):
 *     u_n = g_n - 0.0981 = 0                      => g_n = 0.0981
 *     g_u = -0.2 * 0.0981                         => g_u = -0.01962
 *     check: u_u = 3.5 g_u + 2 = 1.93133 > 0, so sliding indeed continues (g opposes u_t).
 *   This is seed 001's analytical gamma = [0.0981, -0.01962].
 *
 * Relaxed CCP (seed 000 eq. 15): min 1/2 (g_n^2 + 3.5 g_u^2 + 3.5 g_w^2) - 0.0981 g_n + 2 g_u over
 * the cone. The unconstrained minimiser (0.0981, -0.5714, 0) is outside it, so the solution is on
 * the surface g_u = -mu g_n, g_w = 0; along it the objective is
 *     1/2 (1 + 3.5 mu^2) g_n^2 - (0.0981 + 2 mu) g_n
 *     => g_n = (0.0981 + 0.4) / (1 + 0.14) = 0.4981 / 1.14 = 0.436930,  g_u = -0.087386.
 *   Then u_n = g_n - 0.0981 = 0.338830 > 0: the relaxation lifts the ball at 0.3388 m/s, the
 *   non-physical answer of seed 001 figure 4.
 */
#include "../common/check.h"

static PetscErrorCode SolveBall(TalusCCPType type, Vec g, PetscInt *its)
{
  Mat      N;
  Vec      q, mu;
  TalusCCP ccp;
  Tao      tao;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 3, 3, 1, NULL, &N));
  PetscCall(MatSetValue(N, 0, 0, 1.0, INSERT_VALUES));
  PetscCall(MatSetValue(N, 1, 1, 3.5, INSERT_VALUES));
  PetscCall(MatSetValue(N, 2, 2, 3.5, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(N, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(N, MAT_FINAL_ASSEMBLY));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3, &q));
  PetscCall(VecSetValue(q, 0, -0.0981, INSERT_VALUES));
  PetscCall(VecSetValue(q, 1, 2.0, INSERT_VALUES));
  PetscCall(VecSetValue(q, 2, 0.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(q));
  PetscCall(VecAssemblyEnd(q));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 1, &mu));
  PetscCall(VecSet(mu, 0.2));

  PetscCall(TalusCCPCreate(PETSC_COMM_SELF, &ccp));
  PetscCall(TalusCCPSetOperator(ccp, N));
  PetscCall(TalusCCPSetLinearTerm(ccp, q));
  PetscCall(TalusCCPSetFeasibleSet(ccp, mu, 0, 0));
  PetscCall(TalusCCPSetType(ccp, type));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TaoSetTolerances(tao, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(TalusCCPSetFromOptions(ccp));
  PetscCall(VecSet(g, 0.0));
  PetscCall(TalusCCPSolve(ccp, g));
  PetscCall(TaoGetSolutionStatus(tao, its, NULL, NULL, NULL, NULL, NULL));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(MatDestroy(&N));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&mu));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Vec                g;
  const PetscScalar *a;
  PetscInt           its;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3, &g));

  PetscCall(SolveBall(TALUSCCPCOULOMB, g, &its));
  PetscCall(VecGetArrayRead(g, &a));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "coulomb (anti-relaxed): g = (%.8f, %.8f, %.8f) in %" PetscInt_FMT " iterations\n", a[0], a[1],
                        a[2], its));
  CHECK(PetscAbsReal(a[0] - 0.0981) < 1e-6, "g_n = %.8f, expected 0.0981", a[0]);
  CHECK(PetscAbsReal(a[1] + 0.01962) < 1e-6, "g_u = %.8f, expected -0.01962", a[1]);
  CHECK(PetscAbsReal(a[2]) < 1e-6, "g_w = %.8f, expected 0", a[2]);
  PetscCall(VecRestoreArrayRead(g, &a));

  PetscCall(SolveBall(TALUSCCPRELAXED, g, &its));
  PetscCall(VecGetArrayRead(g, &a));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "relaxed: g = (%.8f, %.8f, %.8f) in %" PetscInt_FMT " iterations, lift-off u_n = %.6f m/s\n",
                        a[0], a[1], a[2], its, a[0] - 0.0981));
  CHECK(PetscAbsReal(a[0] - 0.4981 / 1.14) < 1e-5, "g_n = %.8f, expected 0.436930", a[0]);
  CHECK(PetscAbsReal(a[1] + 0.2 * 0.4981 / 1.14) < 1e-5, "g_u = %.8f, expected -0.087386", a[1]);
  CHECK(PetscAbsReal(a[2]) < 1e-5, "g_w = %.8f, expected 0", a[2]);
  CHECK(PetscAbsReal(a[0] - 0.0981 - 0.3388) < 1e-4, "lift-off speed %.6f, expected 0.3388", a[0] - 0.0981);
  PetscCall(VecRestoreArrayRead(g, &a));

  PetscCall(VecDestroy(&g));
  int status = TestSummary("test_rolling_ball");
  PetscCall(TalusFinalize());
  return status;
}
