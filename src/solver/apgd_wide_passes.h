/*
 * apgd's wide passes written once for one vector width (apgd_wide.c includes this file for AVX-512 and for AVX2).
 * The includer defines: APGD_VEC (the register type), APGD_LANES, APGD_TARGET (the function attribute), APGD_NAME(f)
 * (f's name at this width), and APGD_LOAD, APGD_STORE, APGD_ADD, APGD_SUB, APGD_MUL, APGD_SET1, APGD_ZERO (the
 * intrinsics). Each function does rows [0, APGD_LANES k) of m and returns APGD_LANES k; apgd_kernels.c documents
 * the arguments and does the rest. Row i's terms go to lane i mod 8 of each sum (apgd_wide.h), as in the scalar loop.
 */

/* The parts of a sum's 8 lanes (APGD_SUM_LANES) that one register holds: 1 with AVX-512, 2 with AVX2 */
#define APGD_PARTS (APGD_SUM_LANES / APGD_LANES)

/* One register's rows [i, i + APGD_LANES) of ExtrapolateRows; acc: that part's 4 lane sums */
APGD_TARGET static inline void APGD_NAME(ExtrapolateBlock)(PetscInt i, APGD_VEC a, APGD_VEC b, APGD_VEC t,
                                                           PetscBool trial, const PetscScalar *dr,
                                                           const PetscScalar *xv, PetscScalar *xpv, PetscScalar *gxv,
                                                           const PetscScalar *gpv, PetscScalar *yv, PetscScalar *gyv,
                                                           PetscScalar *bv, APGD_VEC acc[4])
{
  const APGD_VEC shift = dr ? APGD_LOAD(&dr[i]) : APGD_ZERO();
  const APGD_VEC x = APGD_LOAD(&xv[i]), xp = APGD_LOAD(&xpv[i]);
  const APGD_VEC gx = APGD_ADD(APGD_LOAD(&gxv[i]), shift), gp = APGD_ADD(APGD_LOAD(&gpv[i]), shift);
  const APGD_VEC gy = APGD_ADD(APGD_MUL(a, gx), APGD_MUL(b, gp));
  const APGD_VEC y  = APGD_ADD(APGD_MUL(a, x), APGD_MUL(b, xp));
  const APGD_VEC e  = APGD_SUB(x, xp);

  acc[0] = APGD_ADD(acc[0], APGD_MUL(shift, x));
  acc[1] = APGD_ADD(acc[1], APGD_MUL(gx, e));
  acc[2] = APGD_ADD(acc[2], APGD_MUL(APGD_SUB(gx, gp), e));
  acc[3] = APGD_ADD(acc[3], APGD_MUL(gy, e));
  if (dr) APGD_STORE(&gxv[i], gx);
  APGD_STORE(&gyv[i], gy);
  APGD_STORE(&yv[i], y);
  if (bv) APGD_STORE(&bv[i], x);
  if (trial) APGD_STORE(&xpv[i], APGD_SUB(y, APGD_MUL(t, gy)));
}

APGD_TARGET static PetscInt APGD_NAME(ExtrapolateRows)(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                                       const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv,
                                                       PetscScalar *gxv, const PetscScalar *gpv, PetscScalar *yv,
                                                       PetscScalar *gyv, PetscScalar *bv,
                                                       PetscReal s[4][APGD_SUM_LANES])
{
  const APGD_VEC a = APGD_SET1(1.0 + beta), b = APGD_SET1(-beta), t = APGD_SET1(step);
  APGD_VEC       acc[APGD_PARTS][4];
  PetscInt       i = 0;

  for (int p = 0; p < APGD_PARTS; p++)
    for (int k = 0; k < 4; k++) acc[p][k] = APGD_LOAD(&s[k][p * APGD_LANES]);
  for (; i + APGD_SUM_LANES <= m; i += APGD_SUM_LANES)
    _Pragma("GCC unroll 2") for (int p = 0; p < APGD_PARTS; p++)
      APGD_NAME(ExtrapolateBlock)(i + p * APGD_LANES, a, b, t, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, acc[p]);
  for (int p = 0; i + APGD_LANES <= m; i += APGD_LANES, p++) /* lanes [0, APGD_LANES) of the next 8 */
    APGD_NAME(ExtrapolateBlock)(i, a, b, t, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, acc[p]);
  for (int p = 0; p < APGD_PARTS; p++)
    for (int k = 0; k < 4; k++) APGD_STORE(&s[k][p * APGD_LANES], acc[p][k]);
  return i;
}

/* One register's rows of TestRows */
APGD_TARGET static inline void APGD_NAME(TestBlock)(PetscInt i, const PetscScalar *xv, const PetscScalar *gv,
                                                    const PetscScalar *yv, const PetscScalar *gyv, const PetscScalar *w,
                                                    APGD_VEC acc[4])
{
  const APGD_VEC x = APGD_LOAD(&xv[i]), gy = APGD_LOAD(&gyv[i]);
  const APGD_VEC d = APGD_SUB(x, APGD_LOAD(&yv[i])), r = APGD_SUB(x, APGD_LOAD(&w[i]));

  acc[0] = APGD_ADD(acc[0], APGD_MUL(d, APGD_SUB(APGD_LOAD(&gv[i]), gy)));
  acc[1] = APGD_ADD(acc[1], APGD_MUL(d, d));
  acc[2] = APGD_ADD(acc[2], APGD_MUL(r, r));
  acc[3] = APGD_ADD(acc[3], APGD_MUL(d, gy));
}

APGD_TARGET static PetscInt APGD_NAME(TestRows)(PetscInt m, const PetscScalar *xv, const PetscScalar *gv,
                                                const PetscScalar *yv, const PetscScalar *gyv, const PetscScalar *w,
                                                PetscReal s[4][APGD_SUM_LANES])
{
  APGD_VEC acc[APGD_PARTS][4];
  PetscInt i = 0;

  for (int p = 0; p < APGD_PARTS; p++)
    for (int k = 0; k < 4; k++) acc[p][k] = APGD_LOAD(&s[k][p * APGD_LANES]);
  for (; i + APGD_SUM_LANES <= m; i += APGD_SUM_LANES)
    _Pragma("GCC unroll 2") for (int p = 0; p < APGD_PARTS; p++)
      APGD_NAME(TestBlock)(i + p * APGD_LANES, xv, gv, yv, gyv, w, acc[p]);
  for (int p = 0; i + APGD_LANES <= m; i += APGD_LANES, p++) APGD_NAME(TestBlock)(i, xv, gv, yv, gyv, w, acc[p]);
  for (int p = 0; p < APGD_PARTS; p++)
    for (int k = 0; k < 4; k++) APGD_STORE(&s[k][p * APGD_LANES], acc[p][k]);
  return i;
}

/* w = x - g_d g */
APGD_TARGET static PetscInt APGD_NAME(ResidualPoints)(PetscInt m, PetscReal g_d, const PetscScalar *xv,
                                                      const PetscScalar *gv, PetscScalar *w)
{
  const APGD_VEC step = APGD_SET1(g_d);
  PetscInt       i    = 0;

  for (; i + APGD_LANES <= m; i += APGD_LANES)
    APGD_STORE(&w[i], APGD_SUB(APGD_LOAD(&xv[i]), APGD_MUL(step, APGD_LOAD(&gv[i]))));
  return i;
}

/* w = x - wt (x - w) */
APGD_TARGET static PetscInt APGD_NAME(WeightResiduals)(PetscInt m, const PetscScalar *xv, const PetscScalar *wt,
                                                       PetscScalar *w)
{
  PetscInt i = 0;

  for (; i + APGD_LANES <= m; i += APGD_LANES) {
    const APGD_VEC x = APGD_LOAD(&xv[i]);
    APGD_STORE(&w[i], APGD_SUB(x, APGD_MUL(APGD_LOAD(&wt[i]), APGD_SUB(x, APGD_LOAD(&w[i])))));
  }
  return i;
}

#undef APGD_PARTS
