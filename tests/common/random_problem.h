/*
 * Random contact problems for the tests and benchmarks: spheres with random sizes and masses,
 * contacts between random pairs (and with a fixed ground) with random frames, giving
 * B = D^T with the sparsity of real contacts (3 rows per contact, 12 nonzeros per row between
 * two bodies) and N = B M^-1 B^T. The linear term is physical, q = b + B v with gaps b_n >= 0
 * (seed 000 eq. 13): impulses that cancel on the bodies (B^T d = 0) then never lower the objective,
 * so the relaxed QP is bounded below even when W is singular. The same seed gives the same problem on any communicator:
 * every rank draws the whole problem and keeps its own rows and bodies.
 */
#ifndef TALUS_TEST_RANDOM_PROBLEM_H
#define TALUS_TEST_RANDOM_PROBLEM_H
#include <talus.h>

typedef struct {
  PetscInt      ncontacts, nbodies;
  PetscReal     mu_max;        /* mu uniform in [0, mu_max]; 0 gives a frictionless problem */
  PetscReal     ground;        /* fraction of contacts with the fixed ground */
  PetscReal     velocity;      /* scale of the random free body velocities v */
  PetscReal     gap;           /* normal gap terms b_n = Phi/h drawn in [0, gap], half of them zero */
  PetscInt      neighbourhood; /* > 0: the partner's index is within this distance of the first body's,
                              as in a bed whose bodies are numbered along a space-filling curve;
                              0: any body (the worst case for caches) */
  unsigned long seed;
} RandomProblemSpec;

typedef struct {
  Mat B;            /* 3 ncontacts x 6 nbodies */
  Vec inverse_mass; /* 6 nbodies */
  Mat N;            /* shell B M^-1 B^T */
  Vec q;            /* 3 ncontacts */
  Vec mu;           /* ncontacts */
} RandomProblem;

/* Deterministic generator (splitmix64), identical on every platform and rank. */
typedef struct {
  unsigned long long state;
} TestRng;
void      TestRngSeed(TestRng *, unsigned long long);
PetscReal TestRngUniform(TestRng *); /* in [0, 1) */

PetscErrorCode RandomProblemCreate(MPI_Comm, const RandomProblemSpec *, RandomProblem *);
PetscErrorCode RandomProblemDestroy(RandomProblem *);
/* A TalusCCP for N, q, mu (no free rows) with tolerance and iteration limit set, options applied. */
PetscErrorCode TestCCPCreate(MPI_Comm, Mat N, Vec q, Vec mu, TalusCCPType, PetscReal gatol, PetscInt max_it,
                             TalusCCP *);
/* Solves from r = 0; returns the iteration count if its is not NULL. */
PetscErrorCode TestCCPSolveCold(TalusCCP, Vec r, PetscInt *its);

/* Largest relative difference max|a - b| / max(|a|_inf, |b|_inf, tiny). */
PetscErrorCode VecRelativeDifference(Vec a, Vec b, PetscReal *);

#endif
