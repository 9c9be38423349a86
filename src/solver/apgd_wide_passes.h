/*
 * apgd's wide passes written once for one vector width (apgd_wide.c includes this file for AVX-512 and for AVX2).
 * The includer defines: APGD_VEC (the register type), APGD_LANES, APGD_TARGET (the function attribute), APGD_NAME(f)
 * (f's name at this width), and APGD_LOAD, APGD_STORE, APGD_ADD, APGD_SUB, APGD_MUL, APGD_SET1, APGD_ZERO (the
 * intrinsics). Each function does rows [0, APGD_LANES k) of m and returns APGD_LANES k; apgd_kernels.c documents
 * the arguments and does the rest.
 */

/* s += t[0], s += t[1], ...: the scalar loop's order */
APGD_TARGET static inline PetscReal APGD_NAME(AddInOrder)(PetscReal s, APGD_VEC t)
{
  PetscReal lane[APGD_LANES];

  APGD_STORE(lane, t);
  _Pragma("GCC unroll 8") for (int i = 0; i < APGD_LANES; i++) s += lane[i];
  return s;
}

APGD_TARGET static PetscInt APGD_NAME(ExtrapolateRows)(PetscInt m, PetscReal beta, PetscReal step, PetscBool trial,
                                                       const PetscScalar *dr, const PetscScalar *xv, PetscScalar *xpv,
                                                       PetscScalar *gxv, const PetscScalar *gpv, PetscScalar *yv,
                                                       PetscScalar *gyv, PetscScalar *bv, PetscReal s[4])
{
  const APGD_VEC a = APGD_SET1(1.0 + beta), b = APGD_SET1(-beta), t = APGD_SET1(step);
  PetscInt       i = 0;

  for (; i + APGD_LANES <= m; i += APGD_LANES) {
    const APGD_VEC shift = dr ? APGD_LOAD(&dr[i]) : APGD_ZERO();
    const APGD_VEC x = APGD_LOAD(&xv[i]), xp = APGD_LOAD(&xpv[i]);
    const APGD_VEC gx = APGD_ADD(APGD_LOAD(&gxv[i]), shift), gp = APGD_ADD(APGD_LOAD(&gpv[i]), shift);
    const APGD_VEC gy = APGD_ADD(APGD_MUL(a, gx), APGD_MUL(b, gp));
    const APGD_VEC y  = APGD_ADD(APGD_MUL(a, x), APGD_MUL(b, xp));
    const APGD_VEC e  = APGD_SUB(x, xp);
    s[0]              = APGD_NAME(AddInOrder)(s[0], APGD_MUL(shift, x));
    s[1]              = APGD_NAME(AddInOrder)(s[1], APGD_MUL(gx, e));
    s[2]              = APGD_NAME(AddInOrder)(s[2], APGD_MUL(APGD_SUB(gx, gp), e));
    s[3]              = APGD_NAME(AddInOrder)(s[3], APGD_MUL(gy, e));
    if (dr) APGD_STORE(&gxv[i], gx);
    APGD_STORE(&gyv[i], gy);
    APGD_STORE(&yv[i], y);
    if (bv) APGD_STORE(&bv[i], x);
    if (trial) APGD_STORE(&xpv[i], APGD_SUB(y, APGD_MUL(t, gy)));
  }
  return i;
}

APGD_TARGET static PetscInt APGD_NAME(TestRows)(PetscInt m, const PetscScalar *xv, const PetscScalar *gv,
                                                const PetscScalar *yv, const PetscScalar *gyv, const PetscScalar *w,
                                                PetscReal s[4])
{
  PetscInt i = 0;

  for (; i + APGD_LANES <= m; i += APGD_LANES) {
    const APGD_VEC x = APGD_LOAD(&xv[i]), gy = APGD_LOAD(&gyv[i]);
    const APGD_VEC d = APGD_SUB(x, APGD_LOAD(&yv[i])), r = APGD_SUB(x, APGD_LOAD(&w[i]));
    s[0] = APGD_NAME(AddInOrder)(s[0], APGD_MUL(d, APGD_SUB(APGD_LOAD(&gv[i]), gy)));
    s[1] = APGD_NAME(AddInOrder)(s[1], APGD_MUL(d, d));
    s[2] = APGD_NAME(AddInOrder)(s[2], APGD_MUL(r, r));
    s[3] = APGD_NAME(AddInOrder)(s[3], APGD_MUL(d, gy));
  }
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
