/*
 * FCLib round trip on P ranks: a random problem written with W in compressed rows, compressed
 * columns and triplets reads back identical, and solving the read problem gives the solution of
 * the original. Usage: test_fclib_roundtrip DIRECTORY (where the files go).
 */
#include "../common/check.h"
#include "../common/random_problem.h"

static PetscErrorCode SolveRelaxed(Mat N, Vec q, Vec mu, Vec r)
{
  TalusCCP ccp;

  PetscFunctionBegin;
  PetscCall(TestCCPCreate(PETSC_COMM_WORLD, N, q, mu, TALUSCCPRELAXED, 1e-10, 20000, &ccp));
  PetscCall(TestCCPSolveCold(ccp, r, NULL));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  RandomProblemSpec spec = {
    .ncontacts = 101, .nbodies = 80, .mu_max = 0.5, .ground = 0.3, .velocity = 1.0, .gap = 0.1, .seed = 51};
  RandomProblem     prob;
  TalusFCLibProblem out, in;
  const char       *names[] = {"csr", "csc", "triplet"};
  Vec               r_orig, r_read;
  PetscMPIInt       size;
  char              path[PETSC_MAX_PATH_LEN];

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCheck(argc >= 2, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "usage: test_fclib_roundtrip DIRECTORY");
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, &spec, &prob));
  PetscCall(TalusDelassusAssemble(prob.B, prob.inverse_mass, &out.W));
  out.q         = prob.q;
  out.mu        = prob.mu;
  out.ncontacts = spec.ncontacts;
  PetscCall(VecDuplicate(prob.q, &r_orig));
  PetscCall(VecDuplicate(prob.q, &r_read));
  PetscCall(SolveRelaxed(prob.N, prob.q, prob.mu, r_orig));

  for (int s = 0; s < 3; s++) {
    PetscReal diff, rel;
    Mat       D;
    PetscBool same;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/roundtrip-np%d-%s.h5", argv[1], size, names[s]));
    PetscCall(TalusFCLibWrite(path, &out, (TalusFCLibStorage)s));
    PetscCall(TalusFCLibRead(PETSC_COMM_WORLD, path, &in));
    CHECK(in.ncontacts == spec.ncontacts, "%s: %" PetscInt_FMT " contacts read", names[s], in.ncontacts);
    PetscCall(MatDuplicate(in.W, MAT_COPY_VALUES, &D));
    PetscCall(MatAXPY(D, -1.0, out.W, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(D, NORM_FROBENIUS, &diff));
    PetscCall(MatDestroy(&D));
    CHECK(diff == 0.0, "%s: W read back differs by %g", names[s], (double)diff);
    PetscCall(VecEqual(in.q, out.q, &same));
    CHECK(same, "%s: q read back differs", names[s]);
    PetscCall(VecEqual(in.mu, out.mu, &same));
    CHECK(same, "%s: mu read back differs", names[s]);
    PetscCall(SolveRelaxed(in.W, in.q, in.mu, r_read));
    PetscCall(VecRelativeDifference(r_orig, r_read, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s on %d ranks: W difference %g, solution difference %.2e\n", names[s],
                          size, (double)diff, (double)rel));
    CHECK(rel <= 1e-8, "%s: solution of the read problem differs by %g", names[s], (double)rel);
    PetscCall(TalusFCLibProblemDestroy(&in));
  }
  PetscCall(VecDestroy(&r_orig));
  PetscCall(VecDestroy(&r_read));
  PetscCall(MatDestroy(&out.W));
  PetscCall(RandomProblemDestroy(&prob));
  int status = TestSummary("test_fclib_roundtrip");
  PetscCall(TalusFinalize());
  return status;
}
