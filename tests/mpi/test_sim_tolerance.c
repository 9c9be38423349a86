/*
 * The contact solver's tolerance in force units (-ccp_force_rtol, TalusSimSetContactForceTolerance) on any
 * number of ranks: rho |g| h once the solver is made, and again after the time step or gravity changes (a
 * program that changes h between steps must not keep the old step's tolerance); a change that leaves no
 * gravity, where the tolerance relative to the weight means nothing, is refused with its message.
 */
#include "../common/check.h"

static PetscBool Close(PetscReal a, PetscReal b)
{
  return (PetscBool)(PetscAbsReal(a - b) <= 1e-12 * PetscAbsReal(b));
}

int main(int argc, char **argv)
{
  TalusSim        sim;
  PetscReal       gatol;
  const PetscReal g[3] = {0.0, 0.0, -9.81}, moon[3] = {0.0, -1.62, 0.0}, none[3] = {0.0, 0.0, 0.0};
  PetscErrorCode  err;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(TalusSimCreate(PETSC_COMM_WORLD, &sim));
  PetscCall(TalusSimSetGravity(sim, g));
  PetscCall(TalusSimSetTimeStep(sim, 0.01));
  PetscCall(TalusSimSetContactForceTolerance(sim, 0.002));
  PetscCall(TalusSimGetContactTolerance(sim, &gatol, NULL)); /* makes the solver */
  CHECK(Close(gatol, 0.002 * 9.81 * 0.01), "the tolerance is %g, not 0.002 |g| h = %g", (double)gatol,
        0.002 * 9.81 * 0.01);

  PetscCall(TalusSimSetTimeStep(sim, 0.001));
  PetscCall(TalusSimGetContactTolerance(sim, &gatol, NULL));
  CHECK(Close(gatol, 0.002 * 9.81 * 0.001), "after h = 0.001 the tolerance is %g, not %g", (double)gatol,
        0.002 * 9.81 * 0.001);

  PetscCall(TalusSimSetGravity(sim, moon));
  PetscCall(TalusSimGetContactTolerance(sim, &gatol, NULL));
  CHECK(Close(gatol, 0.002 * 1.62 * 0.001), "after g = 1.62 the tolerance is %g, not %g", (double)gatol,
        0.002 * 1.62 * 0.001);

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  err = TalusSimSetGravity(sim, none);
  PetscCall(PetscPopErrorHandler());
  CHECK(err == PETSC_ERR_USER_INPUT, "a gravity-free simulation kept -ccp_force_rtol (error %d)", (int)err);

  PetscCall(TalusSimDestroy(&sim));
  {
    int status = TestSummary("test_sim_tolerance");
    PetscCall(TalusFinalize());
    return status;
  }
}
