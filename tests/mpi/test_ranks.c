/*
 * The same random problem distributed over all ranks and solved serially on each rank: the
 * solutions agree to 1e-8 relative, for the relaxed and the Coulomb problem. Run under
 * mpirun -n 1..4; since the serial copy is solved in the same run, the check needs no stored data.
 */
#include "../common/check.h"
#include "../common/random_problem.h"

static PetscErrorCode Solve(MPI_Comm comm, const RandomProblemSpec *spec, TalusCCPType type, Vec *r, PetscInt *its)
{
  RandomProblem prob;
  TalusCCP      ccp;

  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(comm, spec, &prob));
  PetscCall(TestCCPCreate(comm, prob.N, prob.q, prob.mu, type, 1e-10, 20000, &ccp));
  PetscCall(VecDuplicate(prob.q, r));
  PetscCall(TestCCPSolveCold(ccp, *r, its));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(TalusCCPType type, unsigned long seed)
{
  RandomProblemSpec spec = {
    .ncontacts = 200, .nbodies = 200, .mu_max = 0.5, .ground = 0.05, .velocity = 1.0, .gap = 0.1, .seed = seed};
  Vec         r_dist, r_serial, r_gathered;
  VecScatter  gather;
  PetscInt    its_dist, its_serial;
  PetscReal   rel, worst;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Solve(PETSC_COMM_WORLD, &spec, type, &r_dist, &its_dist));
  PetscCall(Solve(PETSC_COMM_SELF, &spec, type, &r_serial, &its_serial));
  PetscCall(VecScatterCreateToAll(r_dist, &gather, &r_gathered));
  PetscCall(VecScatterBegin(gather, r_dist, r_gathered, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(gather, r_dist, r_gathered, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecRelativeDifference(r_gathered, r_serial, &rel));
  PetscCall(MPIU_Allreduce(&rel, &worst, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %s on %d ranks: %" PetscInt_FMT " iterations (serial %" PetscInt_FMT
                        "), relative difference %.2e\n",
                        type, size, its_dist, its_serial, (double)worst));
  CHECK(worst <= 1e-8, "%s: %d-rank and serial solutions differ by %g relative", type, size, (double)worst);
  PetscCall(VecScatterDestroy(&gather));
  PetscCall(VecDestroy(&r_gathered));
  PetscCall(VecDestroy(&r_dist));
  PetscCall(VecDestroy(&r_serial));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Compare(TALUSCCPRELAXED, 41));
  PetscCall(Compare(TALUSCCPCOULOMB, 42));
  int status = TestSummary("test_ranks");
  PetscCall(TalusFinalize());
  return status;
}
