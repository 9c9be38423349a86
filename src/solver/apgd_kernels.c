/*
 * The vector passes of one apgd iteration (seed 001 section 2.3), fused so that an iteration
 * streams its vectors three times instead of about forty:
 *
 *   APGDExtrapolate  lines 33-37 then 18 then 9-10: the linear-term update of the previous
 *                    iterate, y = x + beta (x - x_prev) and g(y) by linearity, the trial step
 *                    Pi(y - t g(y)) written over x_prev (and the best iterate saved on the way);
 *   (the product with N, the caller's callback)
 *   APGDTest         lines 11, 19 and 27: the upper-bound test's two inner products, the residual
 *                    of eq. 39 with its projection, the restart test, in one reduction.
 *
 * f is quadratic, so the objective and the restart test need no pass of their own: the two passes
 * also sum what f(y) = f(x_k) + beta g(x_k).e + beta^2/2 e^T N e and f(x) = f(y) + g(y).d +
 * 1/2 d^T N d need (e = x_k - x_{k-1}, d = x - y, N e and N d being differences of gradients), and
 * g(y).(x - x_k) = g(y).d + beta g(y).e (see APGDTestSums).
 *
 * The projection and the linear-term update work on blocks of local rows (TaoAPGDProjectionFn), so
 * each pass hands them a chunk that is still in cache. A chunk is a whole number of blocks of about
 * 384 rows: 3 KB per vector, so the eight streams of a pass stay in the first-level cache
 * (docs/notes/2026-11-performance-records.md, "Measurements behind the code's choices").
 */
#include "apgd_impl.h"
#include "stream_store.h"
#include "apgd_wide.h"

#define APGD_CHUNK 384

/* Software prefetch, one cache line per stream every 8 entries, 1 KB ahead: with five or six streams
   per pass the hardware prefetchers alone leave the memory latency exposed (docs/notes/2026-11-performance-records.md).
   Prefetching past the end of an array is harmless. */
#define APGD_AHEAD          128
#define APGD_PREFETCH(v, i) __builtin_prefetch(&(v)[(i) + APGD_AHEAD])

static PetscInt ChunkLength(const TAO_APGD *apgd)
{
  return apgd->block_size * PetscMax(1, APGD_CHUNK / apgd->block_size);
}

static PetscErrorCode Project(Tao tao, PetscInt start, PetscInt n, const PetscScalar in[], PetscScalar out[])
{
  TAO_APGD *apgd = (TAO_APGD *)tao->data;

  PetscFunctionBegin;
  if (apgd->project) PetscCall((*apgd->project)(tao, start, n, in, out, apgd->project_ctx));
  else if (out != in) PetscCall(PetscArraycpy(out, in, n));
  PetscFunctionReturn(0);
}

/* The box of TaoSetVariableBounds() as a local projection: the median of lower, in and upper. */
PetscErrorCode APGDProjectBounds(Tao tao, PetscInt start, PetscInt n, const PetscScalar in[], PetscScalar out[],
                                 void *ctx)
{
  const TAO_APGD *apgd = (const TAO_APGD *)ctx;

  PetscFunctionBegin;
  (void)tao;
  for (PetscInt i = 0; i < n; i++) out[i] = PetscMax(apgd->lower[start + i], PetscMin(in[i], apgd->upper[start + i]));
  PetscFunctionReturn(0);
}

PetscErrorCode APGDProjectInPlace(Tao tao, Vec x)
{
  const PetscInt chunk = ChunkLength((TAO_APGD *)tao->data);
  PetscScalar   *xv;
  PetscInt       n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArray(x, &xv));
  for (PetscInt s = 0; s < n; s += chunk) PetscCall(Project(tao, s, PetscMin(chunk, n - s), &xv[s], &xv[s]));
  PetscCall(VecRestoreArray(x, &xv));
  PetscFunctionReturn(0);
}

/*
 * One chunk of APGDExtrapolate (below); the sums are accumulated in 8 lanes (apgd_wide.h) and added to sums[]
 * once per chunk (through memory every entry, they made the pass latency-bound).
 */
static void ExtrapolateChunk(PetscInt m, PetscInt start, PetscReal beta, PetscReal step, PetscBool trial,
                             PetscBool stream, const PetscScalar *restrict dr, const PetscScalar *restrict xv,
                             PetscScalar *restrict xpv, PetscScalar *restrict gxv, const PetscScalar *restrict gpv,
                             PetscScalar *restrict yv, PetscScalar *restrict gyv, PetscScalar *restrict bv,
                             PetscReal sums[4])
{
  const PetscReal a = 1.0 + beta, b = -beta;
  PetscReal       s[4][APGD_SUM_LANES] = {{0.0}};
  /* 8 or 4 rows at a time where the processor can (apgd_wide.c: the same bits); the stream stores stay here */
  const PetscInt wide = stream ? 0
                               : APGDExtrapolateRowsWide(m, beta, step, trial, dr, xv, xpv, gxv, gpv, yv, gyv, bv, s);

  for (PetscInt i = wide; i < m; i++) {
    const PetscScalar shift = dr ? dr[i] : 0.0;
    const PetscScalar gx = gxv[i] + shift, gp = gpv[i] + shift, gy = a * gx + b * gp, y = a * xv[i] + b * xpv[i];
    const PetscReal   e = PetscRealPart(xv[i] - xpv[i]);
    const PetscInt    l = i & (APGD_SUM_LANES - 1);
    if (!((start + i) & 7)) APGD_PREFETCH(xv, i), APGD_PREFETCH(xpv, i), APGD_PREFETCH(gxv, i), APGD_PREFETCH(gpv, i);
    s[0][l] += PetscRealPart(shift * xv[i]);
    s[1][l] += PetscRealPart(gx) * e;
    s[2][l] += PetscRealPart(gx - gp) * e;
    s[3][l] += PetscRealPart(gy) * e;
    if (dr) gxv[i] = gx; /* stored shifted; unchanged otherwise: no write-back */
    if (stream) {        /* write-only streams, read again only after the product with N */
      TalusStreamStore(&gyv[i], gy);
      TalusStreamStore(&yv[i], y);
    } else gyv[i] = gy, yv[i] = y;
    if (bv) bv[i] = xv[i];
    if (trial) xpv[i] = y - step * gy; /* x_prev[i] was read above */
  }
  for (int k = 0; k < 4; k++) sums[k] += APGDLaneTotal(s[k]);
}

/*
 * Lines 33-37, 18 and 9-10 in one pass. First the caller's linear-term update (anti-relaxation)
 * at the accepted iterate x: the linear term moves by dr, so both gradients move by dr (g_x is
 * stored shifted; g_prev is needed only here). Then y = (1 + beta) x - beta x_prev and, g being
 * affine, g(y) = (1 + beta) g(x) - beta g(x_prev). With trial, the trial step Pi(y - t g(y)) is
 * written over x_prev, which is read before it is overwritten. best (if not NULL) receives x.
 * The sums for f(y) and the restart test (APGDTestSums) go to apgd->extrapolation_sums.
 */
PetscErrorCode APGDExtrapolate(Tao tao, PetscReal beta, Vec x, Vec g_x, Vec x_prev, Vec g_prev, Vec best,
                               PetscReal step, PetscBool trial)
{
  TAO_APGD          *apgd  = (TAO_APGD *)tao->data;
  const PetscInt     chunk = ChunkLength(apgd);
  const PetscScalar *xv, *gpv;
  PetscScalar       *gxv, *xpv, *yv, *gyv, *bv = NULL, dr[APGD_CHUNK];
  PetscReal         *sums = apgd->extrapolation_sums;
  PetscInt           n;
  PetscBool          stream;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAPGDStep, 0, 0, 0, 0));
  sums[0] = sums[1] = sums[2] = sums[3] = 0.0;
  PetscCall(VecGetLocalSize(x, &n));
  stream = TalusStreamWorthIt(n);
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArray(g_x, &gxv));
  PetscCall(VecGetArrayRead(g_prev, &gpv));
  PetscCall(VecGetArray(x_prev, &xpv)); /* written only with trial */
  PetscCall(VecGetArrayWrite(apgd->y, &yv));
  PetscCall(VecGetArrayWrite(apgd->g_y, &gyv));
  if (best) PetscCall(VecGetArrayWrite(best, &bv));
  for (PetscInt s = 0; s < n; s += chunk) {
    const PetscInt m = PetscMin(chunk, n - s);
    if (apgd->linear_update) PetscCall((*apgd->linear_update)(tao, s, m, &xv[s], &gxv[s], dr, apgd->linear_update_ctx));
    ExtrapolateChunk(m, s, beta, step, trial, stream, apgd->linear_update ? dr : NULL, &xv[s], &xpv[s], &gxv[s],
                     &gpv[s], &yv[s], &gyv[s], bv ? &bv[s] : NULL, sums);
    if (trial) PetscCall(Project(tao, s, m, &xpv[s], &xpv[s]));
  }
  TalusStreamFence();
  if (best) PetscCall(VecRestoreArrayWrite(best, &bv));
  PetscCall(VecRestoreArrayWrite(apgd->g_y, &gyv));
  PetscCall(VecRestoreArrayWrite(apgd->y, &yv));
  PetscCall(VecRestoreArray(x_prev, &xpv));
  PetscCall(VecRestoreArrayRead(g_prev, &gpv));
  PetscCall(VecRestoreArray(g_x, &gxv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(PetscLogFlops(19.0 * n + (trial ? 2.0 * n : 0.0)));
  PetscCall(PetscLogEventEnd(TALUS_EventAPGDStep, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*
 * Lines 33-37 at x now rather than at the next iteration's start: the linear term moves by dr, so
 * g_x and g_prev (if given) move by dr, and f(x) by dr.x (returned, summed over the ranks). The next
 * APGDExtrapolate then finds nothing left to move (the update depends on x only through g's rows
 * it does not change: CoulombAntiRelax reads the tangents and moves the normals).
 */
PetscErrorCode APGDUpdateLinearTerm(Tao tao, Vec x, Vec g_x, Vec g_prev, PetscReal *dr_dot_x)
{
  TAO_APGD          *apgd  = (TAO_APGD *)tao->data;
  const PetscInt     chunk = ChunkLength(apgd);
  const PetscScalar *xv;
  PetscScalar       *gxv, *gpv = NULL, dr[APGD_CHUNK];
  PetscReal          sum = 0.0;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAPGDStep, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArray(g_x, &gxv));
  if (g_prev) PetscCall(VecGetArray(g_prev, &gpv));
  for (PetscInt s = 0; s < n; s += chunk) {
    const PetscInt m = PetscMin(chunk, n - s);
    PetscCall((*apgd->linear_update)(tao, s, m, &xv[s], &gxv[s], dr, apgd->linear_update_ctx));
    for (PetscInt i = 0; i < m; i++) {
      gxv[s + i] += dr[i];
      if (gpv) gpv[s + i] += dr[i];
      sum += PetscRealPart(dr[i] * xv[s + i]);
    }
  }
  if (g_prev) PetscCall(VecRestoreArray(g_prev, &gpv));
  PetscCall(VecRestoreArray(g_x, &gxv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(MPIU_Allreduce(&sum, dr_dot_x, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  PetscCall(PetscLogEventEnd(TALUS_EventAPGDStep, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Lines 9-10 (and the retries of line 14): x_out = Pi(y - t g(y)). */
PetscErrorCode APGDTrial(Tao tao, PetscReal step, Vec x_out)
{
  TAO_APGD          *apgd  = (TAO_APGD *)tao->data;
  const PetscInt     chunk = ChunkLength(apgd);
  const PetscScalar *yv, *gyv;
  PetscScalar       *xv;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAPGDStep, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(x_out, &n));
  PetscCall(VecGetArrayRead(apgd->y, &yv));
  PetscCall(VecGetArrayRead(apgd->g_y, &gyv));
  PetscCall(VecGetArrayWrite(x_out, &xv));
  for (PetscInt s = 0; s < n; s += chunk) {
    const PetscInt m = PetscMin(chunk, n - s);
    for (PetscInt i = s; i < s + m; i++) {
      if (!(i & 7)) APGD_PREFETCH(yv, i), APGD_PREFETCH(gyv, i);
      xv[i] = yv[i] - step * gyv[i];
    }
    PetscCall(Project(tao, s, m, &xv[s], &xv[s]));
  }
  PetscCall(VecRestoreArrayWrite(x_out, &xv));
  PetscCall(VecRestoreArrayRead(apgd->g_y, &gyv));
  PetscCall(VecRestoreArrayRead(apgd->y, &yv));
  PetscCall(PetscLogFlops(2.0 * n));
  PetscCall(PetscLogEventEnd(TALUS_EventAPGDStep, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* One chunk of APGDTest (below), w the chunk's Pi(x - g_d g(x)); sums in 8 lanes, as ExtrapolateChunk's. */
static void TestChunk(PetscInt m, PetscInt start, const PetscScalar *restrict xv, const PetscScalar *restrict gv,
                      const PetscScalar *restrict yv, const PetscScalar *restrict gyv, const PetscScalar *restrict w,
                      PetscReal sums[4])
{
  PetscReal      s[4][APGD_SUM_LANES] = {{0.0}};
  const PetscInt wide = APGDTestRowsWide(m, xv, gv, yv, gyv, w, s); /* 8 or 4 rows at a time where the processor can */

  for (PetscInt i = wide; i < m; i++) {
    const PetscReal d = PetscRealPart(xv[i] - yv[i]), r = PetscRealPart(xv[i] - w[i]);
    const PetscInt  l = i & (APGD_SUM_LANES - 1);
    if (!((start + i) & 7)) APGD_PREFETCH(yv, i), APGD_PREFETCH(gyv, i);
    s[0][l] += d * PetscRealPart(gv[i] - gyv[i]);
    s[1][l] += d * d;
    s[2][l] += r * r;
    s[3][l] += d * PetscRealPart(gyv[i]);
  }
  for (int k = 0; k < 4; k++) sums[k] += APGDLaneTotal(s[k]);
}

/* The largest square of a block's residual in a chunk of the test's pass, x - w the residual's rows
   (blocks of bs rows, the projection's: a contact's triplet), for the max norm (residual_norm.c). */
static PetscReal LargestBlockSquare(PetscInt m, PetscInt bs, const PetscScalar *restrict xv,
                                    const PetscScalar *restrict w)
{
  PetscReal largest = 0.0;

  for (PetscInt b = 0; b < m; b += bs) {
    PetscReal sq = 0.0;
    for (PetscInt i = b; i < PetscMin(b + bs, m); i++) sq += PetscSqr(PetscRealPart(xv[i] - w[i]));
    largest = PetscMax(largest, sq);
  }
  return largest;
}

/*
 * Everything the iteration needs to know about the trial x with gradient g_x, in one pass over
 * x, g_x, y and g(y) and one reduction (which also carries APGDExtrapolate's sums). With d = x - y
 * and N d = g(x) - g(y) (g is affine): the curvature d.(N d) and ||d||^2 of the upper-bound test
 * (tested as d.(N d) <= L ||d||^2, which avoids subtracting nearly equal objective values near
 * convergence), the residual of eq. 39, (x - Pi(x - g_d g(x))) / g_d, in the norm the type stops on (its
 * largest block's, with a ninth entry of the reduction maximised, or the 2-norm), and g(y).d.
 * When the upper bound fails the residual was computed in vain: a few flops, no extra traffic.
 */
PetscErrorCode APGDTest(Tao tao, Vec x, Vec g_x, APGDTestSums *sums)
{
  TAO_APGD          *apgd  = (TAO_APGD *)tao->data;
  const PetscInt     chunk = ChunkLength(apgd);
  const PetscReal    g_d   = apgd->residual_step;
  const PetscScalar *xv, *gv, *yv, *gyv, *wt = NULL;
  PetscScalar        w[APGD_CHUNK];
  const PetscBool    max   = TalusResidualNormOf(tao) == TAO_RESIDUAL_NORM_MAX;
  PetscReal          s8[9] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* [8]: the largest block's square */
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventAPGDTest, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArrayRead(g_x, &gv));
  PetscCall(VecGetArrayRead(apgd->y, &yv));
  PetscCall(VecGetArrayRead(apgd->g_y, &gyv));
  if (apgd->residual_weight) PetscCall(VecGetArrayRead(apgd->residual_weight, &wt));
  for (PetscInt s = 0; s < n; s += chunk) {
    const PetscInt m = PetscMin(chunk, n - s);
    /* by lines of 8 entries, the prefetches between them, instead of testing the index for them at
       every entry: this pass is the one where the test showed (docs/notes/2026-11-performance-records.md) */
    for (PetscInt i0 = APGDResidualPointsWide(m, g_d, &xv[s], &gv[s], w); i0 < m; i0 += 8) {
      const PetscInt end = PetscMin(i0 + 8, m);
      APGD_PREFETCH(xv, s + i0), APGD_PREFETCH(gv, s + i0);
      for (PetscInt i = i0; i < end; i++) w[i] = xv[s + i] - g_d * gv[s + i];
    }
    PetscCall(Project(tao, s, m, w, w));
    if (wt) /* x - w becomes weight .* (x - w) (TaoAPGDSetResidualWeights) */
      for (PetscInt i = APGDWeightResidualsWide(m, &xv[s], &wt[s], w); i < m; i++)
        w[i] = xv[s + i] - wt[s + i] * (xv[s + i] - w[i]);
    TestChunk(m, s, &xv[s], &gv[s], &yv[s], &gyv[s], w, s8);
    if (max) s8[8] = PetscMax(s8[8], LargestBlockSquare(m, apgd->block_size, &xv[s], w));
  }
  if (wt) PetscCall(VecRestoreArrayRead(apgd->residual_weight, &wt));
  PetscCall(VecRestoreArrayRead(apgd->g_y, &gyv));
  PetscCall(VecRestoreArrayRead(apgd->y, &yv));
  PetscCall(VecRestoreArrayRead(g_x, &gv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(PetscLogFlops(14.0 * n));
  for (int k = 0; k < 4; k++) s8[4 + k] = apgd->extrapolation_sums[k];
  if (max) PetscCall(TalusAllreduceSumsThenMax(PetscObjectComm((PetscObject)tao), 9, s8));
  else PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s8, 8, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  sums->curvature = s8[0];
  sums->step2     = s8[1];
  sums->residual  = PetscSqrtReal((max ? s8[8] : s8[2]) / (g_d * g_d));
  sums->gy_dot_d  = s8[3];
  sums->dr_dot_x  = s8[4];
  sums->g_dot_e   = s8[5];
  sums->e_N_e     = s8[6];
  sums->gy_dot_e  = s8[7];
  PetscCall(PetscLogEventEnd(TALUS_EventAPGDTest, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}
