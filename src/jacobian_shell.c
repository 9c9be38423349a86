/*
 * B = D^T (seed 000 eq. 7) applied matrix-free from a compact record per contact instead of an
 * assembled MPIAIJ matrix. For contact c between bodies a and b, with frame rows d_r (n, u, w)
 * and the rotational rows R_r = sign (s x A^T d_r) of TalusContactJacobian,
 *
 *   (B v)_{c,r}     = -d_r . v_a + R^a_r . omega_a + d_r . v_b + R^b_r . omega_b
 *   (B^T g)_a      += (-sum_r g_r d_r, sum_r g_r R^a_r),   and likewise for b with +d_r,
 *
 * so a contact is 27 doubles (frame, R^a, R^b) and two body slots: 224 B, where the assembled
 * row block is 36 values and 36 column indices (432 B) plus its COO assembly. The body-space
 * vectors are ghosted (VecCreateGhostBlock, block 6): slots [0, nd) are this rank's dynamic
 * bodies, the following ones the other ranks' bodies that its contacts touch. B v refreshes the
 * ghosts first (VecGhostUpdate forward); B^T g accumulates into owned and ghost slots, then adds
 * the ghosts' sums to their owners (VecGhostUpdate reverse): the same messages as the assembled
 * matrix's scatters.
 */
#include "sim_impl.h"

typedef struct {
  PetscInt   n;    /* contacts */
  const PetscInt  *slot; /* 2 per contact: the body's slot in the ghosted local vector (in bodies), -1 if fixed */
  const PetscReal *J;    /* 27 per contact: frame rows (9), R^a (9), R^b (9) */
} JacobianShell;

static PetscErrorCode LocalForm(Vec v, Vec *local)
{
  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(v, local));
  PetscCheck(*local, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG, "the matrix-free B needs body-space vectors made by VecCreateGhostBlock (see TalusSimAssembleCCP)");
  PetscFunctionReturn(0);
}

/* y = B x, or y += B x with add */
static PetscErrorCode JacobianApply(Mat B, Vec x, Vec y, PetscBool add)
{
  JacobianShell     *ctx;
  Vec                xl;
  const PetscScalar *xv;
  PetscScalar       *yv;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(VecGhostUpdateBegin(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostUpdateEnd(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(LocalForm(x, &xl));
  PetscCall(VecGetArrayRead(xl, &xv));
  PetscCall(VecGetArray(y, &yv));
  for (PetscInt c = 0; c < ctx->n; c++) {
    const PetscReal *F = &ctx->J[27 * c], *Ra = F + 9, *Rb = F + 18;
    const PetscInt   a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
    PetscReal        u[3] = {0.0, 0.0, 0.0};
    if (a >= 0) {
      const PetscScalar *va = &xv[6 * a];
      for (int r = 0; r < 3; r++) u[r] -= F[3 * r] * va[0] + F[3 * r + 1] * va[1] + F[3 * r + 2] * va[2] - (Ra[3 * r] * va[3] + Ra[3 * r + 1] * va[4] + Ra[3 * r + 2] * va[5]);
    }
    if (b >= 0) {
      const PetscScalar *vb = &xv[6 * b];
      for (int r = 0; r < 3; r++) u[r] += F[3 * r] * vb[0] + F[3 * r + 1] * vb[1] + F[3 * r + 2] * vb[2] + Rb[3 * r] * vb[3] + Rb[3 * r + 1] * vb[4] + Rb[3 * r + 2] * vb[5];
    }
    for (int r = 0; r < 3; r++) yv[3 * c + r] = add ? yv[3 * c + r] + u[r] : u[r];
  }
  PetscCall(VecRestoreArray(y, &yv));
  PetscCall(VecRestoreArrayRead(xl, &xv));
  PetscCall(VecGhostRestoreLocalForm(x, &xl));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMult(Mat B, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApply(B, x, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMultAdd(Mat B, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(z, y));
  PetscCall(JacobianApply(B, x, y, PETSC_TRUE));
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
    const PetscReal   *F = &ctx->J[27 * c], *Ra = F + 9, *Rb = F + 18;
    const PetscInt     a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
    const PetscScalar *gc = &gv[3 * c];
    PetscReal          f[3], ta[3], tb[3];
    for (int j = 0; j < 3; j++) {
      f[j]  = F[j] * gc[0] + F[3 + j] * gc[1] + F[6 + j] * gc[2];
      ta[j] = Ra[j] * gc[0] + Ra[3 + j] * gc[1] + Ra[6 + j] * gc[2];
      tb[j] = Rb[j] * gc[0] + Rb[3 + j] * gc[1] + Rb[6 + j] * gc[2];
    }
    if (a >= 0)
      for (int j = 0; j < 3; j++) yv[6 * a + j] -= f[j], yv[6 * a + 3 + j] += ta[j];
    if (b >= 0)
      for (int j = 0; j < 3; j++) yv[6 * b + j] += f[j], yv[6 * b + 3 + j] += tb[j];
  }
  PetscCall(VecRestoreArray(yl, &yv));
  PetscCall(VecRestoreArrayRead(g, &gv));
  PetscCall(VecGhostRestoreLocalForm(y, &yl));
  PetscCall(VecGhostUpdateBegin(y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecGhostUpdateEnd(y, ADD_VALUES, SCATTER_REVERSE));
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

PetscErrorCode TalusJacobianCreateShell(MPI_Comm comm, PetscInt ncontacts, PetscInt ndynamic, const PetscInt *slot, const PetscReal *J, Mat *B)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->n = ncontacts, ctx->slot = slot, ctx->J = J;
  PetscCall(MatCreateShell(comm, 3 * ncontacts, 6 * ndynamic, PETSC_DETERMINE, PETSC_DETERMINE, ctx, B));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT, (void (*)(void))JacobianMult));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_ADD, (void (*)(void))JacobianMultAdd));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_TRANSPOSE, (void (*)(void))JacobianMultTranspose));
  PetscCall(MatShellSetOperation(*B, MATOP_DESTROY, (void (*)(void))JacobianDestroy));
  PetscFunctionReturn(0);
}
