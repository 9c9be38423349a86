/* Friction-cone projection (seed 000 eq. 10a): the three cases, mu = 0, free rows, and the
   properties that characterise a Euclidean projection onto a closed convex set. */
#include "../common/check.h"
#include "../common/random_problem.h"
#include <string.h>

static PetscReal Dist(const PetscReal a[3], const PetscReal b[3])
{
  return PetscSqrtReal(PetscSqr(a[0] - b[0]) + PetscSqr(a[1] - b[1]) + PetscSqr(a[2] - b[2]));
}

static PetscErrorCode CheckCases(void)
{
  PetscReal p[3];

  PetscFunctionBegin;
  { /* inside stays */
    const PetscReal x[3] = {1.0, 0.3, -0.2};
    TalusProjectTriplet(0.5, x, p);
    CHECK(Dist(p, x) == 0.0, "interior point moved to (%g %g %g)", p[0], p[1], p[2]);
  }
  { /* polar cone goes to zero: n = -1, t = 0.1 with mu 0.5: mu t = 0.05 <= 1 */
    const PetscReal x[3] = {-1.0, 0.1, 0.0}, zero[3] = {0, 0, 0};
    TalusProjectTriplet(0.5, x, p);
    CHECK(Dist(p, zero) == 0.0, "polar point not sent to 0: (%g %g %g)", p[0], p[1], p[2]);
  }
  { /* onto the boundary, against the closed form: (n, t) = (0, 1), mu = 1 -> n' = t' = 1/2 */
    const PetscReal x[3] = {0.0, 0.6, 0.8};
    TalusProjectTriplet(1.0, x, p);
    CHECK(PetscAbsReal(p[0] - 0.5) < 1e-15 && PetscAbsReal(p[1] - 0.3) < 1e-15 && PetscAbsReal(p[2] - 0.4) < 1e-15,
          "boundary case gave (%g %g %g), expected (0.5 0.3 0.4)", p[0], p[1], p[2]);
  }
  { /* boundary, general mu: the result lies on the surface ||t|| = mu n */
    const PetscReal x[3] = {0.2, 3.0, -1.0}, mu = 0.3;
    TalusProjectTriplet(mu, x, p);
    CHECK(PetscAbsReal(PetscSqrtReal(p[1] * p[1] + p[2] * p[2]) - mu * p[0]) < 1e-14, "not on the cone surface");
    CHECK(PetscAbsReal(p[1] / p[2] - x[1] / x[2]) < 1e-14, "tangential direction changed");
  }
  { /* mu = 0: n >= 0 and no tangential part */
    const PetscReal x[3] = {0.7, 2.0, -3.0}, y[3] = {-0.7, 2.0, -3.0};
    TalusProjectTriplet(0.0, x, p);
    CHECK(p[0] == 0.7 && p[1] == 0.0 && p[2] == 0.0, "mu = 0, n > 0 gave (%g %g %g)", p[0], p[1], p[2]);
    TalusProjectTriplet(0.0, y, p);
    CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0, "mu = 0, n < 0 gave (%g %g %g)", p[0], p[1], p[2]);
  }
  { /* the apex and the cone's axis */
    const PetscReal x[3] = {0, 0, 0}, y[3] = {-2, 0, 0};
    TalusProjectTriplet(0.4, x, p);
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0, "apex moved");
    TalusProjectTriplet(0.4, y, p);
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0, "negative axis not sent to 0");
  }
  PetscFunctionReturn(0);
}

/*
 * Extreme magnitudes: the projection forms 1 / ((1 + mu^2) t) once (src/cones.c) and must neither
 * overflow for tiny tangential parts nor lose the closed form for large or small but normal ones.
 * Tangential parts below 1e-162 square to zero, so they count as zero: the result is off by at
 * most that much.
 */
static PetscErrorCode CheckExtremes(void)
{
  const PetscReal mu = 0.5;
  PetscReal       p[3];

  PetscFunctionBegin;
  PetscCall(PetscSetFPTrap(PETSC_FP_TRAP_ON)); /* an overflow or 0 * inf, even in a case not selected, stops the test */
  { /* t = 1e-200 with n = 0: kept (in K to 1e-200), not sent through an infinite reciprocal */
    const PetscReal x[3] = {0.0, 1e-200, 0.0};
    TalusProjectTriplet(mu, x, p);
    CHECK(p[0] == 0.0 && p[1] == 1e-200 && p[2] == 0.0, "t = 1e-200, n = 0 gave (%g %g %g)", p[0], p[1], p[2]);
  }
  { /* the smallest subnormal tangential part, n slightly negative: polar cone to 1e-300, sent to 0 */
    const PetscReal x[3] = {-1e-300, 4.9e-324, 0.0};
    TalusProjectTriplet(mu, x, p);
    CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0, "subnormal t, n = -1e-300 gave (%g %g %g)", p[0], p[1], p[2]);
  }
  for (int e = 0; e < 4;
       e++) { /* onto the surface at t = 1e-140, 1e-20, 1, 1e150: the closed form (n + mu t) / (1 + mu^2) */
    const PetscReal scale = e == 0 ? 1e-140 : e == 1 ? 1e-20 : e == 2 ? 1.0 : 1e150;
    const PetscReal x[3] = {0.1 * scale, 0.6 * scale, -0.8 * scale}, n = (0.1 + mu) / (1.0 + mu * mu);
    TalusProjectTriplet(mu, x, p);
    CHECK(PetscAbsReal(p[0] / scale - n) < 1e-15 && PetscAbsReal(p[1] / scale - 0.6 * mu * n) < 1e-15 &&
            PetscAbsReal(p[2] / scale + 0.8 * mu * n) < 1e-15,
          "scale %g: (%g %g %g) / scale, expected (%g %g %g)", scale, p[0] / scale, p[1] / scale, p[2] / scale, n,
          0.6 * mu * n, -0.8 * mu * n);
  }
  PetscCall(PetscSetFPTrap(PETSC_FP_TRAP_OFF));
  PetscFunctionReturn(0);
}

/* On random points: feasibility, idempotence, non-expansiveness and the variational inequality
   (x - P(x)).(y - P(x)) <= 0 for every y in K, which characterises the Euclidean projection. */
static PetscErrorCode CheckRandom(void)
{
  TestRng   rng;
  PetscReal worst_feas = 0, worst_idem = 0, worst_expand = 0, worst_vi = 0;

  PetscFunctionBegin;
  TestRngSeed(&rng, 12345);
  for (int k = 0; k < 10000; k++) {
    const PetscReal mu = (k % 10 == 0) ? 0.0 : 2.0 * TestRngUniform(&rng);
    PetscReal       x[3], y[3], z[3], px[3], pz[3], ppx[3];
    for (int d = 0; d < 3; d++) {
      x[d] = 4.0 * TestRngUniform(&rng) - 2.0;
      z[d] = 4.0 * TestRngUniform(&rng) - 2.0;
    }
    TalusProjectTriplet(mu, x, px);
    TalusProjectTriplet(mu, z, pz);
    TalusProjectTriplet(mu, px, ppx);
    /* a random point of K: project another random point */
    {
      PetscReal w[3];
      for (int d = 0; d < 3; d++) w[d] = 4.0 * TestRngUniform(&rng) - 2.0;
      TalusProjectTriplet(mu, w, y);
    }
    worst_feas   = PetscMax(worst_feas, PetscMax(-px[0], PetscSqrtReal(px[1] * px[1] + px[2] * px[2]) - mu * px[0]));
    worst_idem   = PetscMax(worst_idem, Dist(px, ppx));
    worst_expand = PetscMax(worst_expand, Dist(px, pz) - Dist(x, z));
    worst_vi     = PetscMax(worst_vi, (x[0] - px[0]) * (y[0] - px[0]) + (x[1] - px[1]) * (y[1] - px[1]) +
                                        (x[2] - px[2]) * (y[2] - px[2]));
  }
  CHECK(worst_feas <= 1e-14, "projection left K by %g", worst_feas);
  CHECK(worst_idem <= 1e-14, "P(P(x)) != P(x) by %g", worst_idem);
  CHECK(worst_expand <= 1e-14, "projection expanded a distance by %g", worst_expand);
  CHECK(worst_vi <= 1e-13, "variational inequality violated by %g", worst_vi);
  PetscFunctionReturn(0);
}

/*
 * The Vec routine projects groups of 8 (AVX-512) or 4 (AVX2) contacts with SIMD where the processor has it
 * (src/cones_wide.c): every result must be bitwise the scalar TalusProjectTriplet's, signed zeros
 * included, in place and not, over every case (inside, polar, surface, mu = 0, the apex, t = 0,
 * points on the boundary, extreme magnitudes), with a contact count that leaves a scalar tail and
 * bilateral rows after the triplets.
 */
static PetscErrorCode CheckWideEqualsScalar(void)
{
  const PetscInt  nc = 1003, nfree = 5, n = 3 * nc + nfree;
  const PetscReal special[][4] = {
    {0.5,    0.0,     0.0,    0.0   },
    {0.5,    -0.0,    0.0,    -0.0  },
    {0.5,    -1.0,    0.0,    0.0   },
    {0.5,    1.0,     0.0,    0.0   },
    {0.5,    2.0,     1.0,    0.0   },
    {0.5,    1.0,     0.5,    0.0   },
    {0.0,    1.0,     0.3,    -0.2  },
    {0.0,    -1.0,    0.3,    -0.2  },
    {0.0,    -0.0,    1.0,    1.0   },
    {0.3,    1e150,   1e150,  1e150 },
    {0.3,    1e-200,  1e-200, 0     },
    {0.3,    -1e-200, 0,      1e-200},
    {2.0,    -1.0,    0.5,    0.0   },
    {0.25,   -0.5,    -2.0,   0.0   },
    {1e-300, 1.0,     1.0,    0.0   },
  };
  const PetscInt     nspecial = (PetscInt)(sizeof(special) / sizeof(special[0]));
  TestRng            rng;
  Vec                x, y, mu;
  TalusFeasibleSet   set;
  PetscScalar       *xa, *ma;
  const PetscScalar *ya;
  PetscInt           differ = 0, cases[4] = {0, 0, 0, 0};

  PetscFunctionBegin;
  TestRngSeed(&rng, 777);
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nc, &mu));
  PetscCall(VecGetArray(x, &xa));
  PetscCall(VecGetArray(mu, &ma));
  for (PetscInt c = 0; c < nc; c++) {
    if (c < nspecial) {
      ma[c] = special[c][0];
      for (int d = 0; d < 3; d++) xa[3 * c + d] = special[c][1 + d];
    } else {
      ma[c] = (c % 9 == 0) ? 0.0 : 2.0 * TestRngUniform(&rng);
      for (int d = 0; d < 3; d++) xa[3 * c + d] = 4.0 * TestRngUniform(&rng) - 2.0;
    }
    if (ma[c] <= 0.0) cases[3]++;
    else {
      const PetscReal t = PetscSqrtReal(xa[3 * c + 1] * xa[3 * c + 1] + xa[3 * c + 2] * xa[3 * c + 2]);
      cases[t <= ma[c] * xa[3 * c] ? 0 : ma[c] * t <= -xa[3 * c] ? 1 : 2]++;
    }
  }
  for (PetscInt i = 3 * nc; i < n; i++) xa[i] = 4.0 * TestRngUniform(&rng) - 2.0;
  PetscCall(VecRestoreArray(mu, &ma));
  PetscCall(VecRestoreArray(x, &xa));
  set = (TalusFeasibleSet){.mu = mu, .nnonneg_local = 0, .nfree_local = nfree};
  for (int in_place = 0; in_place < 2; in_place++) {
    if (in_place) {
      PetscCall(VecCopy(x, y));
      PetscCall(TalusFeasibleSetProject(&set, y, y));
    } else PetscCall(TalusFeasibleSetProject(&set, x, y));
    PetscCall(VecGetArray(x, &xa));
    PetscCall(VecGetArray(mu, &ma));
    PetscCall(VecGetArrayRead(y, &ya));
    for (PetscInt c = 0; c < nc; c++) {
      PetscReal ref[3];
      TalusProjectTriplet(ma[c], &xa[3 * c], ref);
      differ += memcmp(ref, &ya[3 * c], sizeof(ref)) != 0;
    }
    for (PetscInt i = 3 * nc; i < n; i++) differ += memcmp(&xa[i], &ya[i], sizeof(PetscReal)) != 0;
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(VecRestoreArray(mu, &ma));
    PetscCall(VecRestoreArray(x, &xa));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "  Vec projection against the scalar one, bitwise (%s): %" PetscInt_FMT " of %" PetscInt_FMT
                        " differ; inside %" PetscInt_FMT ", polar %" PetscInt_FMT ", surface %" PetscInt_FMT
                        ", mu = 0 %" PetscInt_FMT "\n",
#if defined(__x86_64__) && defined(__GNUC__)
                        __builtin_cpu_supports("avx512f") ? "AVX-512 path"
                        : __builtin_cpu_supports("avx2")  ? "AVX2 path"
                                                          : "neither AVX-512 nor AVX2 here: scalar path only",
#else
                        "scalar path only",
#endif
                        differ, 2 * (nc + nfree), cases[0], cases[1], cases[2], cases[3]));
  CHECK(differ == 0, "%" PetscInt_FMT " projected triplets or free rows differ from the scalar projection", differ);
  CHECK(cases[0] > 50 && cases[1] > 50 && cases[2] > 50 && cases[3] > 50, "the points do not cover every case");
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&mu));
  PetscFunctionReturn(0);
}

/* The Vec routine: triplets projected, then non-negative rows clipped at 0, trailing bilateral rows
   left free; a bad layout refused. */
static PetscErrorCode CheckVec(void)
{
  Vec              x, y, mu, bad;
  TalusFeasibleSet set;
  PetscScalar     *a;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * 3 + 2 + 2, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2, &mu));
  PetscCall(VecSet(mu, 0.5));
  PetscCall(VecGetArray(x, &a));
  a[0] = -1, a[1] = 0.1, a[2] = 0;  /* polar: -> 0 */
  a[3] = 1, a[4] = 0.1, a[5] = 0.1; /* inside */
  a[6] = -3, a[7] = 4;              /* non-negative rows */
  a[8] = -5, a[9] = 7;              /* free rows */
  PetscCall(VecRestoreArray(x, &a));
  set = (TalusFeasibleSet){.mu = mu, .nnonneg_local = 2, .nfree_local = 2};
  PetscCall(TalusFeasibleSetProject(&set, x, y));
  PetscCall(VecGetArray(y, &a));
  CHECK(a[0] == 0 && a[1] == 0 && a[2] == 0, "first triplet not projected to 0");
  CHECK(a[3] == 1 && a[4] == 0.1 && a[5] == 0.1, "interior triplet changed");
  CHECK(a[6] == 0 && a[7] == 4, "non-negative rows projected to %g %g, expected 0 4", a[6], a[7]);
  CHECK(a[8] == -5 && a[9] == 7, "bilateral rows changed: %g %g", a[8], a[9]);
  PetscCall(VecRestoreArray(y, &a));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 7, &bad));
  set = (TalusFeasibleSet){.mu = mu, .nnonneg_local = 0, .nfree_local = 0};
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = TalusFeasibleSetProject(&set, bad, bad);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_SIZ, "a 7-row vector with 2 contacts was not refused (error %d)", (int)ierr);
  PetscCall(VecDestroy(&bad));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&mu));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(CheckCases());
  PetscCall(CheckExtremes());
  PetscCall(CheckRandom());
  PetscCall(CheckVec());
  PetscCall(CheckWideEqualsScalar());
  int status = TestSummary("test_cones");
  PetscCall(TalusFinalize());
  return status;
}
