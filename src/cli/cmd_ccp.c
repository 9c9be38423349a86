/*
 * talus ccp FILE.hdf5: solve one 3D frictional contact problem stored in FCLib's local form (or its
 * global form, reduced on reading),
 * distributed over the ranks by whole contacts, with the Tao type "apgd" or any other that can
 * handle the problem (-tao_type; TAO's bound-constrained types for frictionless problems), or as
 * seed 002's faceted LCP (-ccp_problem lcp: cmd_ccp_lcp.c).
 */
#include <talus.h>
#include <talus/options.h>
#include "commands.h"

/* What every Tao type reports (iterations, residual, reason), then a type's own statistics where it has them. */
static PetscErrorCode ReportSolver(Tao tao)
{
  TaoType            tao_type;
  TaoConvergedReason reason;
  PetscInt           its, restarts, backtracks, best_it;
  PetscReal          residual, gatol, L;
  PetscErrorCode (*apgd_statistics)(Tao, PetscInt *, PetscInt *, PetscInt *, PetscReal *);
  PetscErrorCode (*nbgs_states)(Tao, PetscInt[3]);

  PetscFunctionBegin;
  PetscCall(TaoGetType(tao, &tao_type));
  PetscCall(TaoGetSolutionStatus(tao, &its, NULL, &residual, NULL, NULL, &reason));
  PetscCall(TaoGetTolerances(tao, &gatol, NULL, NULL));
  PetscCall(PetscObjectQueryFunction((PetscObject)tao, "TaoAPGDGetStatistics_C", &apgd_statistics));
  PetscCall(PetscObjectQueryFunction((PetscObject)tao, "TaoNBGSGetStates_C", &nbgs_states));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solver      %s: %s after %" PetscInt_FMT " iterations", tao_type,
                        TaoConvergedReasons[reason], its));
  if (apgd_statistics) {
    PetscCall((*apgd_statistics)(tao, &restarts, &backtracks, &best_it, &L));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          " (%" PetscInt_FMT " restarts, %" PetscInt_FMT " backtracks, best iterate %" PetscInt_FMT
                          ", final L %.3g)",
                          restarts, backtracks, best_it, (double)L));
  }
  if (nbgs_states) {
    PetscInt states[3];
    PetscCall((*nbgs_states)(tao, states));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          " (sweeps; after the last: %" PetscInt_FMT " contacts separating, %" PetscInt_FMT
                          " sticking, %" PetscInt_FMT " sliding)",
                          states[0], states[1], states[2]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n  residual    %.3e (%s; tolerance -tao_gatol %.1e)\n", (double)residual,
                        apgd_statistics || nbgs_states ? "eq. 39" : "the Tao type's own gradient norm", (double)gatol));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReportSolve(TalusCCP ccp, const char filename[], const TalusFCLibProblem *prob, Vec r,
                                  PetscLogDouble seconds)
{
  Tao            tao;
  PetscInt       nnz_rows;
  TalusCCPChecks checks;
  MatInfo        info;
  PetscMPIInt    size;
  TalusCCPType   type;

  PetscFunctionBegin;
  PetscCall(TalusCCPGetTao(ccp, &tao));
  PetscCall(TalusCCPCheck(ccp, r, &checks));
  PetscCall(MatGetInfo(prob->W, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetSize(prob->W, &nnz_rows, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TalusCCPGetType(ccp, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus ccp: %s\n", filename));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  problem     %" PetscInt_FMT " contacts, W %" PetscInt_FMT " x %" PetscInt_FMT
                        " with %.0f nonzeros, %s problem, on %d rank%s\n",
                        prob->ncontacts, nnz_rows, nnz_rows, info.nz_used, type, size, size > 1 ? "s" : ""));
  if (prob->ndofs > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "              (reduced from the global form: M %" PetscInt_FMT " x %" PetscInt_FMT
                          " diagonal, W = H^T M^-1 H)\n",
                          prob->ndofs, prob->ndofs));
  PetscCall(ReportSolver(tao));
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "  checks      r in K: %.2e   u in K*: %.2e   max |r.u|: %.2e   objective %.10g\n",
                (double)checks.primal, (double)checks.dual, (double)checks.complementarity, (double)checks.objective));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time        %.4f s (solve)\n", (double)seconds));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCommandCCP(int argc, char **argv)
{
  TalusFCLibProblem prob;
  TalusCCP          ccp;
  Vec               r, u;
  char              solution[PETSC_MAX_PATH_LEN] = "";
  PetscBool         write_solution, view = PETSC_FALSE, warm = PETSC_FALSE, found;
  TalusFCLibForm    form = TALUS_FCLIB_ANY;
  PetscLogDouble    t0, t1;

  PetscFunctionBegin;
  PetscCheck(
    argc >= 2 && argv[1][0] != '-', PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
    "usage: talus ccp FILE.hdf5 [-ccp_problem relaxed|coulomb|lcp] [-ccp_solution OUT.h5] [-tao_type apgd|...] "
    "[-tao_* options] [-lcp_* options]");
  PetscCall(TalusOptionsCheckNumbers(PETSC_COMM_WORLD));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "talus ccp: solve one FCLib contact problem (local or global form)",
                    "talus");
  PetscCall(PetscOptionsString("-ccp_solution", "Write the solution to this HDF5 file as /solution/r and /solution/u",
                               "", solution, solution, sizeof(solution), &write_solution));
  PetscCall(PetscOptionsEnum("-fclib_form",
                             "Which form to read from a file holding both (any: the local one when there is one)",
                             "TalusFCLibReadForm", TalusFCLibForms, (PetscEnum)form, (PetscEnum *)&form, NULL));
  PetscCall(PetscOptionsBool("-ccp_view", "Print the problem and its solver after the solve", "TalusCCPView", view,
                             &view, NULL));
  PetscCall(
    PetscOptionsBool("-ccp_warm_start",
                     "Start from the file's first guess (/guesses/1/r, the warm start a dump records) instead of r = 0",
                     "TalusFCLibReadGuess", warm, &warm, NULL));
  PetscOptionsEnd();

  PetscCall(TalusFCLibReadForm(PETSC_COMM_WORLD, argv[1], form, &prob));
  { /* -ccp_problem lcp: seed 002's faceted LCP by complementary pivoting, not a CCP for a Tao type */
    char      problem[16] = "";
    PetscBool lcp         = PETSC_FALSE;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-ccp_problem", problem, sizeof(problem), &lcp));
    if (lcp && !strcmp(problem, "lcp")) {
      PetscCall(TalusCommandCCPAsLCP(argv[1], &prob, write_solution ? solution : ""));
      PetscCall(TalusFCLibProblemDestroy(&prob));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(TalusCCPCreate(PETSC_COMM_WORLD, &ccp));
  PetscCall(TalusCCPSetOperator(ccp, prob.W));
  PetscCall(TalusCCPSetLinearTerm(ccp, prob.q));
  PetscCall(TalusCCPSetFeasibleSet(ccp, prob.mu, 0, 0));
  PetscCall(TalusCCPSetFromOptions(ccp));
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  { /* -help: the options have been read, and so listed; the problem is not solved */
    PetscBool help = PETSC_FALSE;
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus ccp: -help: the options are listed above (PETSc's general ones: "
                                              "-help_petsc); not solving\n"));
      PetscCall(PetscOptionsClearValue(NULL, "-help")); /* PetscFinalize would list -log_view's forms */
      PetscCall(TalusCCPDestroy(&ccp));
      PetscCall(TalusFCLibProblemDestroy(&prob));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(VecDuplicate(prob.q, &r));
  PetscCall(VecSet(r, 0.0)); /* the cold start of seed 001 line 1 */
  if (warm) {
    PetscCall(TalusFCLibReadGuess(argv[1], r, &found));
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED,
               "%s has no first guess (/guesses/1/r) for -ccp_warm_start", argv[1]);
  }

  PetscCall(PetscBarrier(NULL));
  PetscCall(PetscTime(&t0));
  PetscCall(TalusCCPSolve(ccp, r));
  PetscCall(PetscTime(&t1));
  PetscCall(ReportSolve(ccp, argv[1], &prob, r, t1 - t0));

  if (view) PetscCall(TalusCCPView(ccp, PETSC_VIEWER_STDOUT_WORLD));
  if (write_solution) {
    PetscCall(VecDuplicate(r, &u));
    PetscCall(TalusCCPComputeVelocity(ccp, r, u));
    PetscCall(TalusFCLibWriteSolution(solution, r, u));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solution    written to %s\n", solution));
    PetscCall(VecDestroy(&u));
  }
  PetscCall(VecDestroy(&r));
  PetscCall(TalusCCPDestroy(&ccp));
  PetscCall(TalusFCLibProblemDestroy(&prob));
  PetscFunctionReturn(0);
}
