/*
 * B = D^T (seed 000 eq. 7) applied matrix-free from a compact record per contact instead of an
 * assembled MPIAIJ matrix. The body-space vectors hold, per body, the velocity and the angular
 * velocity both in the world frame. Contact c between bodies a and b has the frame rows
 * d_r = (n, t, n x t) and the lever arms S_a, S_b from each centre to the contact point, in the
 * world frame (S = A s of seed 000 eq. 7, whose rotational block (s x A^T d)^T omega_body equals
 * d . (omega_world x S)), so
 *
 *   (B v)_c    = F (v_b + omega_b x S_b - v_a - omega_a x S_a),   F = [n; t; n x t],
 *   (B^T g)_b += (f, S_b x f),   (B^T g)_a -= (f, S_a x f),     f = F^T g,
 *
 * and a contact is 12 doubles (n, t, S_a, S_b) and two body slots: 104 B, where the assembled row
 * block is 36 values and 36 column indices (432 B). The price is a mass matrix that is no longer
 * diagonal: M^-1 per body is 1/m and the world-frame inverse inertia A J^-1 A^T (6 numbers),
 * applied by TalusJacobianApplyInverseMass().
 *
 * The body-space vectors are ghosted (VecCreateGhostBlock, block 6): slots [0, nd) are this
 * rank's dynamic bodies, the following ones the other ranks' bodies that its contacts touch. B v
 * refreshes the ghosts first (VecGhostUpdate forward); B^T g accumulates into owned and ghost
 * slots, then adds the ghosts' sums to their owners (VecGhostUpdate reverse): the same messages
 * as the assembled matrix's scatters.
 */
#include "sim_impl.h"

/* Software prefetch of the records 32 contacts (3 KB) ahead: without it the two products wait on
   memory for a third of their time on this machine (docs/performance.md). Prefetching past the
   end of the array is harmless. */
#define JACOBIAN_AHEAD 32
static inline void PrefetchRecord(const PetscReal *R)
{
  __builtin_prefetch(R + TALUS_JACOBIAN_RECORD * JACOBIAN_AHEAD);
  __builtin_prefetch(R + TALUS_JACOBIAN_RECORD * JACOBIAN_AHEAD + 8); /* a record spans two cache lines */
}

typedef struct {
  PetscInt         n;        /* contacts */
  PetscInt         ndynamic; /* owned dynamic bodies */
  const PetscInt  *slot;     /* 2 per contact: the body's slot in the ghosted local vector, -1 if fixed */
  const PetscReal *J;        /* TALUS_JACOBIAN_RECORD per contact: n, t, S_a, S_b */
  const PetscReal *minv;     /* TALUS_INVERSE_MASS per owned dynamic body: 1/m, then A J^-1 A^T as xx yy zz xy xz yz */
} JacobianShell;

void TalusJacobianRecord(const PetscReal frame[9], const PetscReal arm_a[3], const PetscReal arm_b[3], PetscReal J[TALUS_JACOBIAN_RECORD])
{
  for (int k = 0; k < 6; k++) J[k] = frame[k]; /* n and t; the third row n x t is recomputed */
  for (int k = 0; k < 3; k++) J[6 + k] = arm_a[k], J[9 + k] = arm_b[k];
}

void TalusInverseMassRecord(PetscReal mass, const PetscReal inertia[3], const PetscReal A[9], PetscReal minv[TALUS_INVERSE_MASS])
{
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};

  minv[0] = 1.0 / mass;
  for (int e = 0; e < 6; e++) { /* (A J^-1 A^T)_{ij} = sum_k A_ik A_jk / J_k */
    PetscReal s = 0.0;
    for (int k = 0; k < 3; k++) s += A[3 * row[e] + k] * A[3 * col[e] + k] / inertia[k];
    minv[1 + e] = s;
  }
}

static inline void ThirdRow(const PetscReal *R, PetscReal w[3])
{
  TalusCross3(&R[0], &R[3], w);
}

/* v + omega x S for a body's 6-vector v */
static inline void PointVelocity(const PetscScalar *v, const PetscReal S[3], PetscReal p[3])
{
  p[0] = v[0] + v[4] * S[2] - v[5] * S[1];
  p[1] = v[1] + v[5] * S[0] - v[3] * S[2];
  p[2] = v[2] + v[3] * S[1] - v[4] * S[0];
}

static PetscErrorCode LocalForm(Vec v, Vec *local)
{
  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(v, local));
  PetscCheck(*local, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG, "the matrix-free B needs body-space vectors made by VecCreateGhostBlock (see TalusSimAssembleCCP)");
  PetscFunctionReturn(0);
}

/* y = B x, or y = z + B x when z is given (z may be y): one pass over the contacts */
static PetscErrorCode JacobianApply(Mat B, Vec x, Vec z, Vec y)
{
  JacobianShell     *ctx;
  Vec                xl;
  const PetscScalar *xv, *zv = NULL;
  PetscScalar       *yv;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(VecGhostUpdateBegin(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostUpdateEnd(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(LocalForm(x, &xl));
  PetscCall(VecGetArrayRead(xl, &xv));
  if (z && z != y) PetscCall(VecGetArrayRead(z, &zv));
  PetscCall(VecGetArray(y, &yv));
  if (z == y) zv = yv;
  for (PetscInt c = 0; c < ctx->n; c++) {
    const PetscReal *R = &ctx->J[TALUS_JACOBIAN_RECORD * c];
    const PetscInt   a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
    PetscReal        rel[3] = {0.0, 0.0, 0.0}, w[3];
    PrefetchRecord(R);
    if (b >= 0) PointVelocity(&xv[6 * b], &R[9], rel);
    if (a >= 0) {
      PetscReal pa[3];
      PointVelocity(&xv[6 * a], &R[6], pa);
      for (int k = 0; k < 3; k++) rel[k] -= pa[k];
    }
    ThirdRow(R, w);
    {
      const PetscReal u[3] = {TalusDot3(&R[0], rel), TalusDot3(&R[3], rel), TalusDot3(w, rel)};
      if (zv)
        for (int r = 0; r < 3; r++) yv[3 * c + r] = zv[3 * c + r] + u[r];
      else
        for (int r = 0; r < 3; r++) yv[3 * c + r] = u[r];
    }
  }
  PetscCall(VecRestoreArray(y, &yv));
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, &zv));
  PetscCall(VecRestoreArrayRead(xl, &xv));
  PetscCall(VecGhostRestoreLocalForm(x, &xl));
  PetscCall(PetscLogFlops(48.0 * ctx->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMult(Mat B, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApply(B, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMultAdd(Mat B, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApply(B, x, z, y));
  PetscFunctionReturn(0);
}

/* y = B^T g */
static PetscErrorCode JacobianMultTranspose(Mat B, Vec g, Vec y)
{
  JacobianShell     *ctx;
  Vec                yl;
  const PetscScalar *gv;
  PetscScalar       *yv;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(LocalForm(y, &yl));
  PetscCall(VecSet(yl, 0.0)); /* owned and ghost slots */
  PetscCall(VecGetArrayRead(g, &gv));
  PetscCall(VecGetArray(yl, &yv));
  for (PetscInt c = 0; c < ctx->n; c++) {
    const PetscReal   *R = &ctx->J[TALUS_JACOBIAN_RECORD * c];
    const PetscInt     a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
    const PetscScalar *gc = &gv[3 * c];
    PrefetchRecord(R);
    PetscReal          w[3], f[3], torque[3];
    ThirdRow(R, w);
    for (int k = 0; k < 3; k++) f[k] = R[k] * gc[0] + R[3 + k] * gc[1] + w[k] * gc[2];
    if (b >= 0) {
      TalusCross3(&R[9], f, torque);
      for (int k = 0; k < 3; k++) yv[6 * b + k] += f[k], yv[6 * b + 3 + k] += torque[k];
    }
    if (a >= 0) {
      TalusCross3(&R[6], f, torque);
      for (int k = 0; k < 3; k++) yv[6 * a + k] -= f[k], yv[6 * a + 3 + k] -= torque[k];
    }
  }
  PetscCall(VecRestoreArray(yl, &yv));
  PetscCall(VecRestoreArrayRead(g, &gv));
  PetscCall(VecGhostRestoreLocalForm(y, &yl));
  PetscCall(VecGhostUpdateBegin(y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecGhostUpdateEnd(y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(PetscLogFlops(51.0 * ctx->n));
  PetscFunctionReturn(0);
}

/* v <- M^-1 v on this rank's bodies, M^-1 = diag(1/m, 1/m, 1/m, A J^-1 A^T) per body (world frame). */
PetscErrorCode TalusJacobianApplyInverseMass(Vec v, void *B)
{
  JacobianShell *ctx;
  PetscScalar   *x;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext((Mat)B, &ctx));
  PetscCall(VecGetArray(v, &x));
  for (PetscInt k = 0; k < ctx->ndynamic; k++) {
    const PetscReal *m = &ctx->minv[TALUS_INVERSE_MASS * k];
    PetscScalar     *e = &x[6 * k];
    const PetscReal  w[3] = {e[3], e[4], e[5]};
    for (int j = 0; j < 3; j++) e[j] *= m[0];
    e[3] = m[1] * w[0] + m[4] * w[1] + m[5] * w[2];
    e[4] = m[4] * w[0] + m[2] * w[1] + m[6] * w[2];
    e[5] = m[5] * w[0] + m[6] * w[1] + m[3] * w[2];
  }
  PetscCall(VecRestoreArray(v, &x));
  PetscCall(PetscLogFlops(18.0 * ctx->ndynamic));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianDestroy(Mat B)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(PetscFree(ctx)); /* the records are the caller's (kept from step to step) */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianCreateShell(MPI_Comm comm, PetscInt ncontacts, PetscInt ndynamic, const PetscInt *slot, const PetscReal *J, const PetscReal *minv, Mat *B)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->n = ncontacts, ctx->ndynamic = ndynamic, ctx->slot = slot, ctx->J = J, ctx->minv = minv;
  PetscCall(MatCreateShell(comm, 3 * ncontacts, 6 * ndynamic, PETSC_DETERMINE, PETSC_DETERMINE, ctx, B));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT, (void (*)(void))JacobianMult));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_ADD, (void (*)(void))JacobianMultAdd));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_TRANSPOSE, (void (*)(void))JacobianMultTranspose));
  PetscCall(MatShellSetOperation(*B, MATOP_DESTROY, (void (*)(void))JacobianDestroy));
  PetscFunctionReturn(0);
}
