/*
 * The Delassus operator N = B M^-1 B^T of seed 000 eq. 14 (B = D^T: one row per contact
 * direction, six columns per dynamic body), applied without ever being formed: MatMultTranspose
 * scatters impulses to the bodies, M^-1 is applied in place, MatMult gathers velocities (and
 * MatMultAdd adds the linear term in the same pass: the solver's gradient N x + r, and
 * TalusMatMultAddNormalShift the anti-relaxation shift too).
 * On several ranks the two products' scatters are the ghost exchange of the solver.
 */
#include <talus.h>

typedef struct {
  Mat                B;
  TalusInverseMassFn apply_inverse_mass;
  void              *ctx;
  Vec                inverse_mass; /* diag(M^-1) for TalusDelassusCreateShell, else NULL */
  Vec                body_work;    /* impulses, then velocity changes, in body space */
  Vec                diagonal;     /* diag(N) as its creator computed it (TalusDelassusSetDiagonal), or NULL */
  Vec                compliance;   /* E: the shell is N + diag(E) (TalusDelassusSetCompliance), or NULL */
  /* B's y = B w + z + shift + E x in one pass, or with d y = D (B w + E D x) + z + shift (the matrix-free B's
     TalusMatMultAddCompliance_C), or NULL: then E x goes through row_work */
  PetscErrorCode (*add_compliance)(Mat, Vec, Vec, Vec, Vec, Vec, Vec, Vec);
  Vec row_work;
  /* a scaled view (TalusMatCreateScaled_C): the shell is D (N + E) D, with B's y = B^T D g */
  Vec scaling;
  PetscErrorCode (*transpose_scaled)(Mat, Vec, Vec, Vec);
} DelassusShell;

PetscErrorCode TalusMatMultAddNormalShift(Mat A, Vec x, Vec z, Vec shift, Vec y)
{
  PetscErrorCode (*fused)(Mat, Vec, Vec, Vec, Vec) = NULL;
  const PetscScalar *sv;
  PetscScalar       *yv;
  PetscInt           nc, ny;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "TalusMatMultAddNormalShift_C", &fused));
  if (fused) {
    PetscCall((*fused)(A, x, z, shift, y));
    PetscFunctionReturn(0);
  }
  if (z) PetscCall(MatMultAdd(A, x, z, y));
  else PetscCall(MatMult(A, x, y));
  if (!shift) PetscFunctionReturn(0);
  PetscCall(VecGetLocalSize(shift, &nc));
  PetscCall(VecGetLocalSize(y, &ny));
  PetscCheck(3 * nc <= ny, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "a normal shift for %" PetscInt_FMT " contacts needs at least %" PetscInt_FMT
             " local rows, not %" PetscInt_FMT,
             nc, 3 * nc, ny);
  PetscCall(VecGetArrayRead(shift, &sv));
  PetscCall(VecGetArray(y, &yv));
  for (PetscInt c = 0; c < nc; c++) yv[3 * c] += sv[c];
  PetscCall(VecRestoreArray(y, &yv));
  PetscCall(VecRestoreArrayRead(shift, &sv));
  PetscFunctionReturn(0);
}

/* y = B M^-1 B^T x (+ E x), plus z and the normal shift if given: B adds them in its own pass when it can
   (the matrix-free B adds E x too; with an assembled B it takes two more passes) */
static PetscErrorCode DelassusApply(Mat N, Vec x, Vec z, Vec shift, Vec y)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  if (shell->scaling) { /* D (N + E) D x + z + shift in B's two passes (DelassusCreateScaled) */
    PetscCall((*shell->transpose_scaled)(shell->B, shell->scaling, x, shell->body_work));
    PetscCall((*shell->apply_inverse_mass)(shell->body_work, shell->ctx));
    PetscCall((*shell->add_compliance)(shell->B, shell->body_work, shell->scaling, z, shift, shell->compliance, x, y));
    PetscFunctionReturn(0);
  }
  if (shell->row_work) PetscCall(VecPointwiseMult(shell->row_work, shell->compliance, x)); /* before y may be x */
  PetscCall(MatMultTranspose(shell->B, x, shell->body_work));
  PetscCall((*shell->apply_inverse_mass)(shell->body_work, shell->ctx));
  if (shell->add_compliance)
    PetscCall((*shell->add_compliance)(shell->B, shell->body_work, NULL, z, shift, shell->compliance, x, y));
  else PetscCall(TalusMatMultAddNormalShift(shell->B, shell->body_work, z, shift, y));
  if (shell->row_work) PetscCall(VecAXPY(y, 1.0, shell->row_work));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusSetCompliance(Mat N, Vec E)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(PetscObjectReference((PetscObject)E));
  PetscCall(VecDestroy(&shell->compliance));
  PetscCall(VecDestroy(&shell->row_work));
  shell->compliance = E;
  PetscCall(PetscObjectQueryFunction((PetscObject)shell->B, "TalusMatMultAddCompliance_C", &shell->add_compliance));
  if (!shell->add_compliance) PetscCall(VecDuplicate(E, &shell->row_work));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusMult(Mat N, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DelassusApply(N, x, NULL, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusMultAdd(Mat N, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(DelassusApply(N, x, z, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusDestroy(Mat N)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(PetscObjectComposeFunction((PetscObject)N, "TalusMatMultAddNormalShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)N, "TalusMatGetBlockRows_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)N, "TalusMatCreateScaled_C", NULL));
  PetscCall(MatDestroy(&shell->B));
  PetscCall(VecDestroy(&shell->scaling));
  PetscCall(VecDestroy(&shell->inverse_mass));
  PetscCall(VecDestroy(&shell->body_work));
  PetscCall(VecDestroy(&shell->diagonal));
  PetscCall(VecDestroy(&shell->compliance));
  PetscCall(VecDestroy(&shell->row_work));
  PetscCall(PetscFree(shell));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusMatGetBlockRows(Mat A, TalusBlockRows *rows, PetscBool *found)
{
  PetscErrorCode (*get)(Mat, TalusBlockRows *) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "TalusMatGetBlockRows_C", &get));
  *found = (PetscBool)(get != NULL);
  if (get) PetscCall((*get)(A, rows));
  PetscFunctionReturn(0);
}

/* N's row blocks are B's: (N r)_c = B_c (M^-1 B^T r) */
static PetscErrorCode DelassusGetBlockRows(Mat N, TalusBlockRows *rows)
{
  DelassusShell *shell;
  PetscBool      found;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(TalusMatGetBlockRows(shell->B, rows, &found));
  PetscCheck(found, PetscObjectComm((PetscObject)N), PETSC_ERR_SUP,
             "this Delassus operator's B has no row blocks to visit (it is assembled: use -ccp_matrix_free true)");
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusGetCompliance(Mat N, Vec *E)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  *E = shell->compliance;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusGetBodyVector(Mat N, Vec *body)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(VecDuplicate(shell->body_work, body));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusInverseMassDiagonal(Vec v, void *inverse_mass)
{
  PetscFunctionBegin;
  PetscCall(VecPointwiseMult(v, (Vec)inverse_mass, v));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusMatCreateShellOnLayouts(PetscLayout rows, PetscLayout columns, void *ctx, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(rows->comm, A));
  PetscCall(MatSetLayouts(*A, rows, columns));
  PetscCall(MatSetType(*A, MATSHELL));
  PetscCall(MatShellSetContext(*A, ctx));
  PetscCall(MatSetUp(*A));
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusCreateScaled(Mat N, Vec d, Mat *scaled);

PetscErrorCode TalusDelassusCreateShellWithMass(Mat B, Vec body, TalusInverseMassFn fn, void *ctx, Mat *N)
{
  DelassusShell *shell;
  PetscLayout    rows;

  PetscFunctionBegin;
  PetscCall(PetscNew(&shell));
  PetscCall(PetscObjectReference((PetscObject)B));
  shell->B                  = B;
  shell->apply_inverse_mass = fn;
  shell->ctx                = ctx;
  PetscCall(VecDuplicate(body, &shell->body_work));
  PetscCall(MatGetLayouts(B, &rows, NULL));
  PetscCall(TalusMatCreateShellOnLayouts(rows, rows, shell, N)); /* B's rows */
  PetscCall(MatShellSetOperation(*N, MATOP_MULT, (void (*)(void))DelassusMult));
  PetscCall(MatShellSetOperation(*N, MATOP_MULT_ADD, (void (*)(void))DelassusMultAdd));
  PetscCall(MatShellSetOperation(*N, MATOP_DESTROY, (void (*)(void))DelassusDestroy));
  PetscCall(PetscObjectComposeFunction((PetscObject)*N, "TalusMatMultAddNormalShift_C", DelassusApply));
  {
    PetscErrorCode (*get)(Mat, TalusBlockRows *) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "TalusMatGetBlockRows_C", &get));
    if (get) PetscCall(PetscObjectComposeFunction((PetscObject)*N, "TalusMatGetBlockRows_C", DelassusGetBlockRows));
  }
  { /* a B that scales its rows in its own passes gives the scaled problem for free (ccp_scaling.c) */
    PetscErrorCode (*transpose_scaled)(Mat, Vec, Vec, Vec)        = NULL;
    PetscErrorCode (*add)(Mat, Vec, Vec, Vec, Vec, Vec, Vec, Vec) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "TalusMatMultTransposeScaled_C", &transpose_scaled));
    PetscCall(PetscObjectQueryFunction((PetscObject)B, "TalusMatMultAddCompliance_C", &add));
    if (transpose_scaled && add)
      PetscCall(PetscObjectComposeFunction((PetscObject)*N, "TalusMatCreateScaled_C", DelassusCreateScaled));
  }
  PetscCall(MatSetOption(*N, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* D (N + E) D as a shell of its own on the same B, M^-1 and E, D = diag(d): the products scale the rows in
   B's passes (no pass of their own), and N stays as it was for whoever holds it. */
static PetscErrorCode DelassusCreateScaled(Mat N, Vec d, Mat *scaled)
{
  DelassusShell *shell, *view;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(
    TalusDelassusCreateShellWithMass(shell->B, shell->body_work, shell->apply_inverse_mass, shell->ctx, scaled));
  PetscCall(MatShellGetContext(*scaled, &view));
  if (shell->inverse_mass) PetscCall(PetscObjectReference((PetscObject)shell->inverse_mass));
  view->inverse_mass = shell->inverse_mass;
  if (shell->compliance) PetscCall(PetscObjectReference((PetscObject)shell->compliance));
  view->compliance = shell->compliance;
  PetscCall(PetscObjectReference((PetscObject)d));
  view->scaling = d;
  PetscCall(PetscObjectQueryFunction((PetscObject)shell->B, "TalusMatMultTransposeScaled_C", &view->transpose_scaled));
  PetscCall(PetscObjectQueryFunction((PetscObject)shell->B, "TalusMatMultAddCompliance_C", &view->add_compliance));
  /* a view is not scaled again, and its rows are not N's */
  PetscCall(PetscObjectComposeFunction((PetscObject)*scaled, "TalusMatCreateScaled_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)*scaled, "TalusMatGetBlockRows_C", NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusDelassusCreateShell(Mat B, Vec inverse_mass, Mat *N)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(TalusDelassusCreateShellWithMass(B, inverse_mass, TalusInverseMassDiagonal, inverse_mass, N));
  PetscCall(MatShellGetContext(*N, &shell));
  PetscCall(PetscObjectReference((PetscObject)inverse_mass)); /* held for the callback's context */
  shell->inverse_mass = inverse_mass;
  PetscFunctionReturn(0);
}

static PetscErrorCode DelassusGetDiagonal(Mat N, Vec d)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(VecCopy(shell->diagonal, d));
  if (shell->compliance) PetscCall(VecAXPY(d, 1.0, shell->compliance)); /* the shell is N + E */
  PetscFunctionReturn(0);
}

/* The shell never forms N, so its diagonal comes from whoever knows B's rows and M (the simulator
   computes it per block from the bodies); with it, MatGetDiagonal works on the shell. */
PetscErrorCode TalusDelassusSetDiagonal(Mat N, Vec diagonal)
{
  DelassusShell *shell;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(N, &shell));
  PetscCall(PetscObjectReference((PetscObject)diagonal));
  PetscCall(VecDestroy(&shell->diagonal));
  shell->diagonal = diagonal;
  PetscCall(MatShellSetOperation(N, MATOP_GET_DIAGONAL, (void (*)(void))DelassusGetDiagonal));
  PetscFunctionReturn(0);
}

/* The assembled N = B M^-1 B^T, for cross-checking and for solvers that need the Hessian. */
PetscErrorCode TalusDelassusAssemble(Mat B, Vec inverse_mass, Mat *N)
{
  Mat BMinv;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &BMinv));
  PetscCall(MatDiagonalScale(BMinv, NULL, inverse_mass));
  PetscCall(MatMatTransposeMult(BMinv, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, N));
  PetscCall(MatDestroy(&BMinv));
  PetscFunctionReturn(0);
}
