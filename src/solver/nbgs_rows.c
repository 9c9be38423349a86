/*
 * nbgs's sweep on the rows of an assembled W (MPIAIJ or SeqAIJ): talus ccp's problems. Row i's
 * velocity is q_i + sum_j W_ij r_j, with W's diagonal part on this rank's r as the sweep leaves it
 * (Gauss-Seidel) and its off-diagonal part on the other ranks' r of the sweep's start (Jacobi, one
 * exchange per sweep). Rows coupled to other ranks' are the interface rows.
 */
#include "nbgs_impl.h"

typedef struct {
  Mat        Wd, Wo;  /* W's diagonal and off-diagonal parts on this rank (Wo NULL on one rank) */
  Vec        ghost;   /* other ranks' impulses that this rank's rows touch */
  VecScatter scatter; /* r -> ghost */
} NBGSRowsData;

static PetscErrorCode RowsRelease(void *data)
{
  NBGSRowsData *d = (NBGSRowsData *)data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&d->ghost));
  PetscCall(VecScatterDestroy(&d->scatter));
  PetscFunctionReturn(0);
}

/* W's local parts, the ghost exchange, the interface rows and the cones' diagonal blocks */
static PetscErrorCode RowsSetUp(Tao tao, PetscReal *max_diagonal)
{
  TAO_NBGS       *nb = (TAO_NBGS *)tao->data;
  NBGSRowsData   *d;
  PetscBool       mpi;
  const PetscInt *garray;
  PetscInt        nc, n, nghost = 0;
  Vec             diag;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  nb->data = d;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)nb->W, MATMPIAIJ, &mpi));
  if (mpi) {
    IS from;
    PetscCall(MatMPIAIJGetSeqAIJ(nb->W, &d->Wd, &d->Wo, &garray));
    PetscCall(MatGetSize(d->Wo, NULL, &nghost));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_USE_POINTER, &from));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, nghost, &d->ghost));
    PetscCall(VecScatterCreate(tao->solution, from, d->ghost, NULL, &d->scatter));
    PetscCall(ISDestroy(&from));
  } else d->Wd = nb->W;
  PetscCall(VecGetLocalSize(nb->q, &n));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  for (PetscInt i = 0; i < n && d->Wo; i++) {
    PetscInt ncols;
    PetscCall(MatGetRow(d->Wo, i, &ncols, NULL, NULL));
    nb->interface[i] = (PetscBool)(ncols > 0);
    PetscCall(MatRestoreRow(d->Wo, i, &ncols, NULL, NULL));
  }
  for (PetscInt c = 0; c < nc; c++) { /* a cone is one block: coupled if any of its rows is */
    const PetscBool any  = (PetscBool)(nb->interface[3 * c] || nb->interface[3 * c + 1] || nb->interface[3 * c + 2]);
    nb->interface[3 * c] = nb->interface[3 * c + 1] = nb->interface[3 * c + 2] = any;
  }
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt i = 0; i < 3; i++) {
      PetscInt           ncols;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(d->Wd, 3 * c + i, &ncols, &cols, &vals));
      for (PetscInt k = 0; k < ncols; k++)
        if (cols[k] >= 3 * c && cols[k] < 3 * c + 3)
          nb->blocks[9 * c + 3 * i + cols[k] - 3 * c] = PetscRealPart(vals[k]);
      PetscCall(MatRestoreRow(d->Wd, 3 * c + i, &ncols, &cols, &vals));
    }
  PetscCall(VecDuplicate(nb->q, &diag));
  PetscCall(MatGetDiagonal(nb->W, diag));
  PetscCall(VecMax(diag, NULL, max_diagonal));
  PetscCall(VecDestroy(&diag));
  PetscFunctionReturn(0);
}

/* A local part of W in compressed rows, for the sweep's row loops (MatGetRow per row cost a quarter
   of a sweep). */
typedef struct {
  Mat                A;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
} CSR;

static PetscErrorCode CSRGet(Mat A, CSR *csr)
{
  PetscInt  nrows;
  PetscBool done;

  PetscFunctionBegin;
  csr->A = A;
  if (!A) PetscFunctionReturn(0);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &csr->ia, &csr->ja, &done));
  PetscCheck(done, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "nbgs cannot read the rows of W");
  PetscCall(MatSeqAIJGetArrayRead(A, &csr->aa));
  PetscFunctionReturn(0);
}

static PetscErrorCode CSRRestore(CSR *csr)
{
  PetscInt  nrows;
  PetscBool done;

  PetscFunctionBegin;
  if (!csr->A) PetscFunctionReturn(0);
  PetscCall(MatSeqAIJRestoreArrayRead(csr->A, &csr->aa));
  PetscCall(MatRestoreRowIJ(csr->A, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &csr->ia, &csr->ja, &done));
  PetscFunctionReturn(0);
}

/* Row i's u_i less its own block's part: q_i + sum over the other columns of W_ij r_j; and W_ii */
static inline PetscReal RowRest(const CSR *d, const CSR *o, PetscInt i, PetscInt first, PetscInt last,
                                const PetscScalar *q, const PetscScalar *x, const PetscScalar *ghost, PetscReal *wii)
{
  PetscReal s = PetscRealPart(q[i]);

  for (PetscInt k = d->ia[i]; k < d->ia[i + 1]; k++) {
    const PetscInt j = d->ja[k];
    if (j < first || j >= last) s += PetscRealPart(d->aa[k] * x[j]);
    else if (j == i && wii) *wii = PetscRealPart(d->aa[k]);
  }
  if (o->A)
    for (PetscInt k = o->ia[i]; k < o->ia[i + 1]; k++) s += PetscRealPart(o->aa[k] * ghost[o->ja[k]]);
  return s;
}

static PetscErrorCode RowsSweep(Tao tao, Vec r)
{
  TAO_NBGS          *nb  = (TAO_NBGS *)tao->data;
  NBGSRowsData      *dat = (NBGSRowsData *)nb->data;
  PetscScalar       *x;
  const PetscScalar *q, *mu, *ghost = NULL;
  PetscInt           nc, n;
  CSR                d, o;

  PetscFunctionBegin;
  if (dat->scatter) {
    PetscCall(VecScatterBegin(dat->scatter, r, dat->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(dat->scatter, r, dat->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(dat->ghost, &ghost));
  }
  PetscCall(CSRGet(dat->Wd, &d));
  PetscCall(CSRGet(dat->Wo, &o));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCall(VecGetArray(r, &x));
  PetscCall(VecGetArrayRead(nb->q, &q));
  PetscCall(VecGetArrayRead(nb->set->mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal qt[3];
    for (PetscInt i = 0; i < 3; i++) qt[i] = RowRest(&d, &o, 3 * c + i, 3 * c, 3 * c + 3, q, x, ghost, NULL);
    NBGSUpdateCone(nb, c, qt, PetscRealPart(mu[c]), &x[3 * c]);
  }
  for (PetscInt i = 3 * nc; i < n; i++) { /* non-negative rows, then free rows: one row at a time */
    PetscReal wii = 0.0, ri, omega = nb->interface[i] ? nb->interface_omega : nb->omega;
    PetscReal rest = RowRest(&d, &o, i, i, i + 1, q, x, ghost, &wii);
    ri             = wii > 0.0 ? -rest / wii : 0.0;
    if (i < 3 * nc + nb->set->nnonneg_local) ri = PetscMax(ri, 0.0);
    x[i] = (1.0 - omega) * x[i] + omega * ri;
  }
  PetscCall(VecRestoreArrayRead(nb->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nb->q, &q));
  PetscCall(VecRestoreArray(r, &x));
  PetscCall(CSRRestore(&o));
  PetscCall(CSRRestore(&d));
  if (ghost) PetscCall(VecRestoreArrayRead(dat->ghost, &ghost));
  PetscFunctionReturn(0);
}

static PetscErrorCode RowsVelocity(Tao tao, Vec r)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(MatMultAdd(nb->W, r, nb->q, nb->u));
  PetscFunctionReturn(0);
}

const NBGSForm NBGSRows = {
  .name     = "rows of an assembled W",
  .setup    = RowsSetUp,
  .sweep    = RowsSweep,
  .velocity = RowsVelocity,
  .release  = RowsRelease,
};
