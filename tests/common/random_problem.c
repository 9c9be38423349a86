#include "random_problem.h"

void TestRngSeed(TestRng *rng, unsigned long long seed)
{
  rng->state = seed;
}

PetscReal TestRngUniform(TestRng *rng)
{
  unsigned long long z = (rng->state += 0x9e3779b97f4a7c15ULL);
  z                    = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z                    = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z                    = z ^ (z >> 31);
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

static void RandomUnit(TestRng *rng, PetscReal v[3])
{
  PetscReal norm;
  do {
    for (int k = 0; k < 3; k++) v[k] = 2.0 * TestRngUniform(rng) - 1.0;
    norm = PetscSqrtReal(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } while (norm < 0.1 || norm > 1.0);
  for (int k = 0; k < 3; k++) v[k] /= norm;
}

static void Cross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* An orthonormal frame {n, u, w} around a random normal n. */
static void RandomFrame(TestRng *rng, PetscReal frame[3][3])
{
  PetscReal t[3], norm;
  RandomUnit(rng, frame[0]);
  do {
    RandomUnit(rng, t);
    Cross(frame[0], t, frame[1]);
    norm = PetscSqrtReal(frame[1][0] * frame[1][0] + frame[1][1] * frame[1][1] + frame[1][2] * frame[1][2]);
  } while (norm < 0.2);
  for (int k = 0; k < 3; k++) frame[1][k] /= norm;
  Cross(frame[0], frame[1], frame[2]);
}

PetscErrorCode RandomProblemCreate(MPI_Comm comm, const RandomProblemSpec *spec, RandomProblem *prob)
{
  TestRng      rng;
  PetscInt     nc = spec->ncontacts, nb = spec->nbodies, c_start, c_end, b_start, b_end, ncoo = 0;
  PetscInt    *coo_i, *coo_j;
  PetscScalar *coo_v, *qv, *muv, *minv, *vv;
  PetscReal   *radius, *mass, *velocity;
  Vec          v;

  PetscFunctionBegin;
  PetscCall(VecCreateMPI(comm, PETSC_DECIDE, nc, &prob->mu));
  PetscCall(VecGetOwnershipRange(prob->mu, &c_start, &c_end));
  PetscCall(VecCreateMPI(comm, 3 * (c_end - c_start), 3 * nc, &prob->q));
  PetscCall(VecCreateMPI(comm, PETSC_DECIDE, nb, &prob->inverse_mass)); /* temporary, for the body split */
  PetscCall(VecGetOwnershipRange(prob->inverse_mass, &b_start, &b_end));
  PetscCall(VecDestroy(&prob->inverse_mass));
  PetscCall(VecCreateMPI(comm, 6 * (b_end - b_start), 6 * nb, &prob->inverse_mass));

  TestRngSeed(&rng, spec->seed);
  PetscCall(PetscMalloc3(nb, &radius, nb, &mass, 6 * nb, &velocity));
  for (PetscInt b = 0; b < nb; b++) {
    radius[b] = 0.5 + TestRngUniform(&rng);
    mass[b]   = 0.5 + 2.0 * TestRngUniform(&rng);
    for (int k = 0; k < 6; k++) velocity[6 * b + k] = spec->velocity * (2.0 * TestRngUniform(&rng) - 1.0);
  }
  PetscCall(VecGetArray(prob->inverse_mass, &minv));
  for (PetscInt b = b_start; b < b_end; b++) {
    const PetscReal inertia = 0.4 * mass[b] * radius[b] * radius[b]; /* solid sphere */
    for (int k = 0; k < 3; k++) {
      minv[6 * (b - b_start) + k]     = 1.0 / mass[b];
      minv[6 * (b - b_start) + 3 + k] = 1.0 / inertia;
    }
  }
  PetscCall(VecRestoreArray(prob->inverse_mass, &minv));

  PetscCall(
    PetscMalloc3(36 * (c_end - c_start), &coo_i, 36 * (c_end - c_start), &coo_j, 36 * (c_end - c_start), &coo_v));
  PetscCall(VecGetArray(prob->q, &qv));
  PetscCall(VecGetArray(prob->mu, &muv));
  for (PetscInt c = 0; c < nc; c++) {
    /* draw everything for every contact so that all ranks follow the same random sequence */
    PetscReal frame[3][3], sA[3], sB[3], gap, mu;
    PetscInt  A, Bb;
    PetscBool with_ground = (PetscBool)(TestRngUniform(&rng) < spec->ground);
    A                     = (PetscInt)(TestRngUniform(&rng) * nb);
    if (spec->neighbourhood > 0) {
      const PetscInt offset = 1 + (PetscInt)(TestRngUniform(&rng) * spec->neighbourhood);
      Bb                    = (A + offset) % nb;
      if (Bb == A) Bb = (A + 1) % nb;
    } else {
      Bb = (PetscInt)(TestRngUniform(&rng) * (nb - 1));
      if (Bb >= A) Bb++;
    }
    RandomFrame(&rng, frame);
    mu  = spec->mu_max * TestRngUniform(&rng);
    gap = spec->gap * PetscMax(2.0 * TestRngUniform(&rng) - 1.0, 0.0);
    if (c < c_start || c >= c_end) continue;
    /* contact point on A's surface along -n, on B's along +n: n points from A to B (seed 000 sec. 1) */
    for (int k = 0; k < 3; k++) {
      sA[k] = -radius[A] * frame[0][k];
      sB[k] = radius[Bb] * frame[0][k];
    }
    for (int d = 0; d < 3; d++) {
      PetscReal arm[3];
      PetscInt  row = 3 * c + d;
      /* relative velocity along d (seed 000 eq. 7): d.(v_B + w_B x s_B) - d.(v_A + w_A x s_A);
         d.(w x s) = (s x d).w */
      if (!with_ground) {
        Cross(sA, frame[d], arm);
        for (int k = 0; k < 3; k++) {
          coo_i[ncoo] = row, coo_j[ncoo] = 6 * A + k, coo_v[ncoo++] = -frame[d][k];
          coo_i[ncoo] = row, coo_j[ncoo] = 6 * A + 3 + k, coo_v[ncoo++] = -arm[k];
        }
      }
      Cross(sB, frame[d], arm);
      for (int k = 0; k < 3; k++) {
        coo_i[ncoo] = row, coo_j[ncoo] = 6 * Bb + k, coo_v[ncoo++] = frame[d][k];
        coo_i[ncoo] = row, coo_j[ncoo] = 6 * Bb + 3 + k, coo_v[ncoo++] = arm[k];
      }
    }
    qv[3 * (c - c_start)]     = gap;
    qv[3 * (c - c_start) + 1] = 0.0;
    qv[3 * (c - c_start) + 2] = 0.0;
    muv[c - c_start]          = mu;
  }
  PetscCall(VecRestoreArray(prob->q, &qv));
  PetscCall(VecRestoreArray(prob->mu, &muv));
  PetscCall(TalusMatCreateCOO(comm, 3 * (c_end - c_start), 6 * (b_end - b_start), 3 * nc, 6 * nb, ncoo, coo_i, coo_j,
                              coo_v, INSERT_VALUES, &prob->B));
  PetscCall(PetscFree3(coo_i, coo_j, coo_v));
  /* q = b + B v */
  PetscCall(VecDuplicate(prob->inverse_mass, &v));
  PetscCall(VecGetArray(v, &vv));
  for (PetscInt k = 6 * b_start; k < 6 * b_end; k++) vv[k - 6 * b_start] = velocity[k];
  PetscCall(VecRestoreArray(v, &vv));
  PetscCall(MatMultAdd(prob->B, v, prob->q, prob->q));
  PetscCall(VecDestroy(&v));
  PetscCall(PetscFree3(radius, mass, velocity));
  PetscCall(TalusDelassusCreateShell(prob->B, prob->inverse_mass, &prob->N));
  PetscFunctionReturn(0);
}

PetscErrorCode RandomProblemDestroy(RandomProblem *prob)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&prob->B));
  PetscCall(MatDestroy(&prob->N));
  PetscCall(VecDestroy(&prob->inverse_mass));
  PetscCall(VecDestroy(&prob->q));
  PetscCall(VecDestroy(&prob->mu));
  PetscFunctionReturn(0);
}

PetscErrorCode VecRelativeDifference(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal na, nb, nd;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(a, NORM_INFINITY, &na));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *rel = nd / PetscMax(PetscMax(na, nb), 1e-300);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCCPCreate(MPI_Comm comm, Mat N, Vec q, Vec mu, TalusCCPType type, PetscReal gatol, PetscInt max_it,
                             TalusCCP *ccp)
{
  Tao tao;

  PetscFunctionBegin;
  PetscCall(TalusCCPCreate(comm, ccp));
  PetscCall(TalusCCPSetOperator(*ccp, N));
  PetscCall(TalusCCPSetLinearTerm(*ccp, q));
  PetscCall(TalusCCPSetFeasibleSet(*ccp, mu, 0, 0));
  PetscCall(TalusCCPSetType(*ccp, type));
  PetscCall(TalusCCPGetTao(*ccp, &tao));
  PetscCall(TaoSetTolerances(tao, gatol, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(TaoSetMaximumIterations(tao, max_it));
  PetscCall(TaoSetConvergenceHistory(tao, NULL, NULL, NULL, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(TalusCCPSetFromOptions(*ccp));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCCPSolveCold(TalusCCP ccp, Vec r, PetscInt *its)
{
  Tao tao;

  PetscFunctionBegin;
  PetscCall(VecSet(r, 0.0));
  PetscCall(TalusCCPSolve(ccp, r));
  PetscCall(TalusCCPGetTao(ccp, &tao));
  if (its) PetscCall(TaoGetSolutionStatus(tao, its, NULL, NULL, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}
