/*
 * talus ccp FILE -ccp_problem lcp: the file's contact problem as seed 002's faceted-cone LCP, solved by
 * Lemke's method (or PETSc's ssfls/asfls, -lcp_solver) on rank 0, and its answer measured both as an
 * LCP and against Coulomb's round cone (the facets make a pyramid inside it: r stays in K, and u's
 * distance from K* is the facets' error). docs/lcp.md.
 */
#include <talus.h>
#include <talus/options.h>
#include "commands.h"

PetscErrorCode TalusCommandCCPAsLCP(const char filename[], const TalusFCLibProblem *prob, const char solution[])
{
  TalusFacetedLCPSettings settings;
  TalusFacetedLCPResult   res;
  TalusCCP                coulomb;
  TalusCCPChecks          checks;
  Vec                     r, u;
  PetscLogDouble          t0, t1;
  PetscMPIInt             size;
  PetscBool               help = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(TalusFacetedLCPSettingsFromOptions(PETSC_COMM_WORLD, &settings));
  PetscCall(TalusOptionsCheckUnused(PETSC_COMM_WORLD));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "talus ccp -ccp_problem lcp: -help: the options are listed above; not solving\n"));
    PetscCall(PetscOptionsClearValue(NULL, "-help"));
    PetscFunctionReturn(0);
  }
  PetscCall(VecDuplicate(prob->q, &r));
  PetscCall(PetscBarrier(NULL));
  PetscCall(PetscTime(&t0));
  PetscCall(TalusFacetedLCPSolve(prob->W, prob->q, prob->mu, 0, 0, &settings, r, &res));
  PetscCall(PetscTime(&t1));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(TalusCCPCreate(PETSC_COMM_WORLD, &coulomb)); /* only to measure r against the round cone */
  PetscCall(TalusCCPSetOperator(coulomb, prob->W));
  PetscCall(TalusCCPSetLinearTerm(coulomb, prob->q));
  PetscCall(TalusCCPSetFeasibleSet(coulomb, prob->mu, 0, 0));
  PetscCall(TalusCCPSetType(coulomb, TALUSCCPCOULOMB));
  PetscCall(TalusCCPSetUp(coulomb));
  PetscCall(TalusCCPCheck(coulomb, r, &checks));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "talus ccp: %s\n", filename));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  problem     %" PetscInt_FMT " contacts as seed 002's faceted LCP: %" PetscInt_FMT
                        " friction directions each, %" PetscInt_FMT " unknowns, solved on rank 0 of %d\n",
                        prob->ncontacts, settings.facets, res.n, size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solver      %s: %s after %" PetscInt_FMT " %s\n",
                        TalusLCPSolvers[settings.solver], res.reason, res.lemke.pivots,
                        settings.solver == TALUS_LCP_LEMKE ? "pivots" : "iterations"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  LCP         max |min(w, z)| %.2e\n", (double)res.lemke.complementarity));
  PetscCall(PetscPrintf(
    PETSC_COMM_WORLD,
    "  Coulomb     (the round cone the facets approximate) r in K: %.2e   u in K*: %.2e   max |r.u|: %.2e   "
    "objective %.10g\n",
    (double)checks.primal, (double)checks.dual, (double)checks.complementarity, (double)checks.objective));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time        %.4f s (gather, build, solve, scatter)\n", (double)(t1 - t0)));
  if (res.solved && solution[0]) {
    PetscCall(VecDuplicate(r, &u));
    PetscCall(TalusCCPComputeVelocity(coulomb, r, u));
    PetscCall(TalusFCLibWriteSolution(solution, r, u));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solution    written to %s\n", solution));
    PetscCall(VecDestroy(&u));
  }
  PetscCall(TalusCCPDestroy(&coulomb));
  PetscCall(VecDestroy(&r));
  PetscCheck(res.solved, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not solve the faceted LCP: %s",
             TalusLCPSolvers[settings.solver], res.reason);
  PetscFunctionReturn(0);
}
