/*
 * Frictionless random contact problems (W = J M^-1 J^T, mu = 0): apgd, both with the friction-cone
 * projection and with plain variable bounds (n >= 0, u = w = 0), against TAO's own bound-constrained
 * solvers tron and blmvm. Those get the same QP reduced to the normal impulses (W_nn, q_n, r_n >= 0).
 * (bqpip is not used: its interior point cannot start from variables fixed by equal bounds, and on the
 * reduced singular problems below it diverges.) A convex QP has a unique optimal value and a unique W r (hence u = W r + q) even when W is
 * singular and r is not unique; r itself is compared only when W is positive definite. And the residual
 * weights of TaoAPGDSetResidualWeights scale the residual and nothing else.
 */
#include "../common/check.h"
#include "../common/random_problem.h"

typedef struct {
  Mat W;
  Vec q;
} QP;

static PetscErrorCode QPObjGrad(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  QP         *qp = (QP *)ctx;
  PetscScalar xg, xq;

  PetscFunctionBegin;
  PetscCall(MatMult(qp->W, x, g));
  PetscCall(VecDot(x, g, &xg));
  PetscCall(VecDot(x, qp->q, &xq));
  *f = 0.5 * PetscRealPart(xg) + PetscRealPart(xq);
  PetscCall(VecAXPY(g, 1.0, qp->q));
  PetscFunctionReturn(0);
}

static PetscErrorCode QPHessian(Tao tao, Vec x, Mat H, Mat P, void *ctx)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}

/* Frictionless bounds: n >= 0, u = w = 0 (stride 3), or n >= 0 only (stride 1, the reduced QP). */
static PetscErrorCode MakeBounds(Vec q, PetscInt stride, Vec *lo, Vec *hi)
{
  PetscScalar *l, *h;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(q, lo));
  PetscCall(VecDuplicate(q, hi));
  PetscCall(VecGetLocalSize(q, &n));
  PetscCall(VecGetArray(*lo, &l));
  PetscCall(VecGetArray(*hi, &h));
  for (PetscInt k = 0; k < n; k++) {
    l[k] = 0.0;
    h[k] = (k % stride == 0) ? PETSC_INFINITY : 0.0;
  }
  PetscCall(VecRestoreArray(*lo, &l));
  PetscCall(VecRestoreArray(*hi, &h));
  PetscFunctionReturn(0);
}

/* Solves with a TAO type on the assembled W; bounds given, or the cone projection when cones != NULL. */
static PetscErrorCode SolveWith(const char type[], QP *qp, PetscInt stride, TalusFeasibleSet *cones, PetscReal gatol,
                                Vec x, PetscReal *f, PetscInt *its)
{
  Tao                tao;
  Vec                lo, hi;
  TaoConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, type));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, QPObjGrad, qp));
  PetscCall(TaoSetHessian(tao, qp->W, qp->W, QPHessian, NULL));
  if (cones) PetscCall(TaoAPGDSetProjection(tao, 3, TalusFeasibleSetProjectTao, cones));
  else {
    PetscCall(MakeBounds(qp->q, stride, &lo, &hi));
    PetscCall(TaoSetVariableBounds(tao, lo, hi));
    PetscCall(VecDestroy(&lo));
    PetscCall(VecDestroy(&hi));
  }
  PetscCall(TaoSetTolerances(tao, gatol, 0.0, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, 20000));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 1000000));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(VecSet(x, 0.0));
  PetscCall(TaoSetSolution(tao, x));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetSolutionStatus(tao, its, f, NULL, NULL, NULL, &reason));
  CHECK(reason > 0, "%s did not converge: %s", type, TaoConvergedReasons[reason]);
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(0);
}

/* A random frictionless problem as the QP of W = B M^-1 B^T assembled, with its cones (mu = 0) */
static PetscErrorCode FrictionlessQP(const RandomProblemSpec *spec, RandomProblem *prob, QP *qp,
                                     TalusFeasibleSet *cones)
{
  PetscFunctionBegin;
  PetscCall(RandomProblemCreate(PETSC_COMM_WORLD, spec, prob));
  PetscCall(TalusDelassusAssemble(prob->B, prob->inverse_mass, &qp->W));
  qp->q  = prob->q;
  *cones = (TalusFeasibleSet){.mu = prob->mu, .nnonneg_local = 0, .nfree_local = 0};
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(PetscInt ncontacts, PetscInt nbodies, unsigned long seed)
{
  RandomProblemSpec spec = {.ncontacts = ncontacts,
                            .nbodies   = nbodies,
                            .mu_max    = 0.0,
                            .ground    = 0.2,
                            .velocity  = 1.0,
                            .gap       = 0.1,
                            .seed      = seed};
  RandomProblem     prob;
  QP                qp, reduced;
  IS                normals;
  Vec               x_n;
  PetscInt          nlocal, start;
  TalusFeasibleSet  cones;
  const char       *refs[]      = {TAOTRON, TAOBLMVM};
  const PetscReal   ref_gatol[] = {1e-10, 1e-7}; /* blmvm's quasi-Newton stalls near 1e-8 on singular W */
  Vec               x_cone, x_box, x_ref, u_cone, u_ref;
  PetscReal         f_cone, f_box, f_ref, rel;
  PetscInt          its_cone, its_box, its_ref;
  const PetscBool   definite = (PetscBool)(ncontacts <
                                         2 * nbodies); /* normals only: nc rows against 6 nb dofs, with margin */

  PetscFunctionBegin;
  PetscCall(FrictionlessQP(&spec, &prob, &qp, &cones));
  PetscCall(VecDuplicate(prob.q, &x_cone));
  PetscCall(VecDuplicate(prob.q, &x_box));
  PetscCall(VecDuplicate(prob.q, &x_ref));
  PetscCall(VecDuplicate(prob.q, &u_cone));
  PetscCall(VecDuplicate(prob.q, &u_ref));

  PetscCall(SolveWith(TAOAPGD, &qp, 3, &cones, 1e-10, x_cone, &f_cone, &its_cone));
  PetscCall(SolveWith(TAOAPGD, &qp, 3, NULL, 1e-10, x_box, &f_box, &its_box));
  /* the reduced QP over the normal impulses */
  PetscCall(VecGetOwnershipRange(prob.mu, &start, NULL));
  PetscCall(VecGetLocalSize(prob.mu, &nlocal));
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, nlocal, 3 * start, 3, &normals));
  PetscCall(MatCreateSubMatrix(qp.W, normals, normals, MAT_INITIAL_MATRIX, &reduced.W));
  PetscCall(VecGetSubVector(prob.q, normals, &reduced.q));
  PetscCall(VecDuplicate(reduced.q, &x_n));
  PetscCall(VecRelativeDifference(x_cone, x_box, &rel));
  CHECK(rel < 1e-12, "apgd with cones (mu = 0) and with bounds differ by %g", rel);
  PetscCall(MatMult(qp.W, x_cone, u_cone));
  PetscCall(VecAXPY(u_cone, 1.0, qp.q));

  for (size_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
    Vec x_sub;
    PetscCall(SolveWith(refs[k], &reduced, 1, NULL, ref_gatol[k], x_n, &f_ref, &its_ref));
    PetscCall(VecSet(x_ref, 0.0));
    PetscCall(VecGetSubVector(x_ref, normals, &x_sub));
    PetscCall(VecCopy(x_n, x_sub));
    PetscCall(VecRestoreSubVector(x_ref, normals, &x_sub));
    PetscCall(MatMult(qp.W, x_ref, u_ref));
    PetscCall(VecAXPY(u_ref, 1.0, qp.q));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  %4" PetscInt_FMT " contacts %4" PetscInt_FMT " bodies: apgd f = %.12g (%" PetscInt_FMT
                          " its), %s f = %.12g (%" PetscInt_FMT " its)\n",
                          ncontacts, nbodies, (double)f_cone, its_cone, refs[k], (double)f_ref, its_ref));
    CHECK(PetscAbsReal(f_cone - f_ref) <= 1e-6 * PetscAbsReal(f_ref), "objective: apgd %.12g vs %s %.12g",
          (double)f_cone, refs[k], (double)f_ref);
    PetscCall(VecRelativeDifference(u_cone, u_ref, &rel));
    CHECK(rel <= 1e-6, "u = W r + q: apgd vs %s differ by %g relative", refs[k], rel);
    if (definite) {
      PetscCall(VecRelativeDifference(x_cone, x_ref, &rel));
      CHECK(rel <= 1e-6, "r: apgd vs %s differ by %g relative (W positive definite)", refs[k], rel);
    }
  }
  PetscCall(VecRestoreSubVector(prob.q, normals, &reduced.q));
  PetscCall(MatDestroy(&reduced.W));
  PetscCall(ISDestroy(&normals));
  PetscCall(VecDestroy(&x_n));
  PetscCall(VecDestroy(&x_cone));
  PetscCall(VecDestroy(&x_box));
  PetscCall(VecDestroy(&x_ref));
  PetscCall(VecDestroy(&u_cone));
  PetscCall(VecDestroy(&u_ref));
  PetscCall(MatDestroy(&qp.W));
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

/* TaoAPGDSetResidualWeights: the weights change the measure of the residual, not the iterates. Five iterations
   from zero with all weights 2 (a power of two: no rounding) end at the same objective with exactly twice the
   residual. */
static PetscErrorCode WeightedResidual(void)
{
  RandomProblemSpec spec = {
    .ncontacts = 50, .nbodies = 60, .mu_max = 0.0, .ground = 0.2, .velocity = 1.0, .gap = 0.1, .seed = 5};
  RandomProblem    prob;
  QP               qp;
  TalusFeasibleSet cones;
  Vec              x, two;
  PetscReal        f[2], residual[2];

  PetscFunctionBegin;
  PetscCall(FrictionlessQP(&spec, &prob, &qp, &cones));
  PetscCall(VecDuplicate(prob.q, &x));
  PetscCall(VecDuplicate(prob.q, &two));
  PetscCall(VecSet(two, 2.0));
  for (int k = 0; k < 2; k++) {
    Tao tao;
    PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
    PetscCall(TaoSetType(tao, TAOAPGD));
    PetscCall(TaoSetObjectiveAndGradient(tao, NULL, QPObjGrad, &qp));
    PetscCall(TaoAPGDSetProjection(tao, 3, TalusFeasibleSetProjectTao, &cones));
    PetscCall(TaoAPGDSetResidualWeights(tao, k ? two : NULL));
    PetscCall(TaoSetTolerances(tao, 0.0, 0.0, 0.0));
    PetscCall(TaoSetMaximumIterations(tao, 5));
    PetscCall(VecSet(x, 0.0));
    PetscCall(TaoSetSolution(tao, x));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetSolutionStatus(tao, NULL, &f[k], &residual[k], NULL, NULL, NULL));
    PetscCall(TaoDestroy(&tao));
  }
  CHECK(f[0] == f[1] && residual[1] == 2.0 * residual[0] && residual[0] > 0.0,
        "residual weights 2: objective %g and %g, residual %g and %g (expected the same objective, twice the residual)",
        (double)f[0], (double)f[1], (double)residual[0], (double)residual[1]);
  PetscCall(VecDestroy(&two));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&qp.W));
  PetscCall(RandomProblemDestroy(&prob));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(Compare(50, 60, 1));   /* W positive definite */
  PetscCall(Compare(200, 300, 2)); /* W positive definite */
  PetscCall(Compare(300, 60, 3));  /* more contacts than body dofs / 2: W singular */
  PetscCall(Compare(500, 400, 4));
  PetscCall(WeightedResidual());
  int status = TestSummary("test_apgd_frictionless");
  PetscCall(TalusFinalize());
  return status;
}
