/*
 * The Tao type "nbgs": nonsmooth block Gauss-Seidel for the Coulomb problem u = W r + q (De Saxce's
 * form, FCLib's Coulomb problem) with W assembled, the family Acary, Bremond and Huber (2018) found
 * the most robust on rigid piles. A sweep visits this rank's contacts in order and solves each one's
 * Coulomb problem exactly (TalusCoulombLocalSolve) with the others' impulses as they are: those of
 * this rank already updated in the sweep (Gauss-Seidel), those of other ranks as they were at its
 * start (Jacobi across ranks, one exchange per sweep, as Preclik and Ruede do). Undamped, that Jacobi
 * part oscillates on stacks (LMGC90's box and Siconos's box stacks on 3 ranks did not converge in
 * 5,000 sweeps): the blocks coupled to other ranks take half steps by default. Non-negative rows and
 * free rows are solved the same way, one at a time.
 *
 * The residual it reports and stops on (-tao_gatol) is that of seed 001 eq. 39 with the De Saxce
 * velocity, ||r - Pi_K(r - g_d (u + mu ||u_t|| e_n))|| / g_d, g_d = 1e-3 / max_i W_ii, after each
 * sweep (one product with W).
 *
 * W must be an AIJ matrix (talus ccp's problems, FCLib files, dumps); the simulator's matrix-free N
 * has no rows to visit (a Gauss-Seidel on body velocities is the form it needs).
 */
#include <talus.h>
#include "residual_tolerances.h"

typedef struct {
  Mat                     W;
  Vec                     q;
  const TalusFeasibleSet *set;
  PetscReal               omega;           /* relaxation of each block's update */
  PetscReal               interface_omega; /* that of blocks coupled to other ranks' (Jacobi) */
  PetscReal               residual_scale;  /* g_d = residual_scale / max_i W_ii */
  /* per solve */
  Mat         Wd, Wo;        /* W's diagonal and off-diagonal parts on this rank (Wo NULL on one rank) */
  Vec         ghost, u;      /* other ranks' impulses that this rank's rows touch; u = W r + q */
  VecScatter  scatter;       /* r -> ghost */
  PetscReal  *blocks;        /* each cone's 3 x 3 block of W */
  PetscBool  *interface;     /* per local row: coupled to other ranks' rows */
  PetscReal   residual_step; /* g_d */
  PetscInt    states[3];     /* separating, sticking, sliding contacts after the last sweep */
  PetscMPIInt size;
} TAO_NBGS;

static PetscErrorCode NBGSRelease(TAO_NBGS *nb)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&nb->ghost));
  PetscCall(VecDestroy(&nb->u));
  PetscCall(VecScatterDestroy(&nb->scatter));
  PetscCall(PetscFree(nb->blocks));
  PetscCall(PetscFree(nb->interface));
  nb->Wd = nb->Wo = NULL;
  PetscFunctionReturn(0);
}

/* W's local parts, the ghost exchange, the cones' diagonal blocks and g_d */
static PetscErrorCode NBGSSetUpProblem(Tao tao)
{
  TAO_NBGS       *nb = (TAO_NBGS *)tao->data;
  PetscBool       mpi;
  const PetscInt *garray;
  PetscInt        nc, rstart, nghost = 0;
  PetscReal       dmax = 0.0;
  Vec             d;

  PetscFunctionBegin;
  PetscCheck(nb->W && nb->q && nb->set, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER,
             "nbgs needs its problem (TaoNBGSSetProblem) before it solves");
  PetscCall(NBGSRelease(nb));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)nb->W, MATMPIAIJ, &mpi));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)tao), &nb->size));
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(nb->W, &nb->Wd, &nb->Wo, &garray));
    PetscCall(MatGetSize(nb->Wo, NULL, &nghost));
    IS from;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_USE_POINTER, &from));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, nghost, &nb->ghost));
    PetscCall(VecScatterCreate(tao->solution, from, nb->ghost, NULL, &nb->scatter));
    PetscCall(ISDestroy(&from));
  } else nb->Wd = nb->W;
  PetscCall(VecDuplicate(nb->q, &nb->u));
  PetscCall(MatGetOwnershipRange(nb->W, &rstart, NULL));
  {
    PetscInt n;
    PetscCall(VecGetLocalSize(nb->q, &n));
    PetscCall(PetscCalloc1(n, &nb->interface));
    for (PetscInt i = 0; i < n && nb->Wo; i++) {
      PetscInt ncols;
      PetscCall(MatGetRow(nb->Wo, i, &ncols, NULL, NULL));
      nb->interface[i] = (PetscBool)(ncols > 0);
      PetscCall(MatRestoreRow(nb->Wo, i, &ncols, NULL, NULL));
    }
  }
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCall(PetscCalloc1(9 * nc, &nb->blocks));
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt i = 0; i < 3; i++) {
      PetscInt           ncols;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(nb->Wd, 3 * c + i, &ncols, &cols, &vals));
      for (PetscInt k = 0; k < ncols; k++)
        if (cols[k] >= 3 * c && cols[k] < 3 * c + 3)
          nb->blocks[9 * c + 3 * i + cols[k] - 3 * c] = PetscRealPart(vals[k]);
      PetscCall(MatRestoreRow(nb->Wd, 3 * c + i, &ncols, &cols, &vals));
    }
  PetscCall(VecDuplicate(nb->q, &d));
  PetscCall(MatGetDiagonal(nb->W, d));
  PetscCall(VecMax(d, NULL, &dmax));
  PetscCall(VecDestroy(&d));
  nb->residual_step = nb->residual_scale / (dmax > 0.0 ? dmax : 1.0);
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

/* One sweep over this rank's row blocks, with the other ranks' impulses of the sweep's start. */
static PetscErrorCode NBGSSweep(Tao tao, Vec r)
{
  TAO_NBGS          *nb = (TAO_NBGS *)tao->data;
  PetscScalar       *x;
  const PetscScalar *q, *mu, *ghost = NULL;
  PetscInt           nc, n;
  CSR                d, o;

  PetscFunctionBegin;
  if (nb->scatter) {
    PetscCall(VecScatterBegin(nb->scatter, r, nb->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(nb->scatter, r, nb->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(nb->ghost, &ghost));
  }
  PetscCall(CSRGet(nb->Wd, &d));
  PetscCall(CSRGet(nb->Wo, &o));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCall(VecGetArray(r, &x));
  PetscCall(VecGetArrayRead(nb->q, &q));
  PetscCall(VecGetArrayRead(nb->set->mu, &mu));
  nb->states[0] = nb->states[1] = nb->states[2] = 0;
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal       qt[3], rc[3];
    const PetscReal omega = (nb->interface[3 * c] || nb->interface[3 * c + 1] || nb->interface[3 * c + 2])
                            ? nb->interface_omega
                            : nb->omega;
    for (PetscInt i = 0; i < 3; i++) qt[i] = RowRest(&d, &o, 3 * c + i, 3 * c, 3 * c + 3, q, x, ghost, NULL);
    nb->states[TalusCoulombLocalSolve(&nb->blocks[9 * c], qt, PetscRealPart(mu[c]), rc)]++;
    for (PetscInt i = 0; i < 3; i++) x[3 * c + i] = (1.0 - omega) * x[3 * c + i] + omega * rc[i];
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
  if (ghost) PetscCall(VecRestoreArrayRead(nb->ghost, &ghost));
  PetscFunctionReturn(0);
}

/* Seed 001 eq. 39 with the De Saxce velocity on the cones (u itself on the other rows). */
static PetscErrorCode NBGSResidual(Tao tao, Vec r, PetscReal *residual)
{
  TAO_NBGS          *nb = (TAO_NBGS *)tao->data;
  const PetscScalar *x, *u, *mu;
  PetscInt           nc, n;
  const PetscReal    gd  = nb->residual_step;
  PetscReal          sum = 0.0;

  PetscFunctionBegin;
  PetscCall(MatMultAdd(nb->W, r, nb->q, nb->u));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetLocalSize(nb->set->mu, &nc));
  PetscCall(VecGetArrayRead(r, &x));
  PetscCall(VecGetArrayRead(nb->u, &u));
  PetscCall(VecGetArrayRead(nb->set->mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscReal m  = PetscRealPart(mu[c]);
    const PetscReal v0 = PetscRealPart(u[3 * c]) +
                         m * PetscSqrtReal(PetscRealPart(u[3 * c + 1] * u[3 * c + 1] + u[3 * c + 2] * u[3 * c + 2]));
    PetscReal y[3] = {PetscRealPart(x[3 * c]) - gd * v0, PetscRealPart(x[3 * c + 1] - gd * u[3 * c + 1]),
                      PetscRealPart(x[3 * c + 2] - gd * u[3 * c + 2])},
              p[3];
    TalusProjectTriplet(m, y, p);
    for (int k = 0; k < 3; k++) sum += PetscSqr(PetscRealPart(x[3 * c + k]) - p[k]);
  }
  for (PetscInt i = 3 * nc; i < n; i++) {
    PetscReal y = PetscRealPart(x[i] - gd * u[i]);
    if (i < 3 * nc + nb->set->nnonneg_local) y = PetscMax(y, 0.0);
    sum += PetscSqr(PetscRealPart(x[i]) - y);
  }
  PetscCall(VecRestoreArrayRead(nb->set->mu, &mu));
  PetscCall(VecRestoreArrayRead(nb->u, &u));
  PetscCall(VecRestoreArrayRead(r, &x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)tao)));
  *residual = PetscSqrtReal(sum) / gd;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSolve_NBGS(Tao tao)
{
  PetscReal residual;
  PetscInt  n;

  PetscFunctionBegin;
  tao->reason = TAO_CONTINUE_ITERATING;
  tao->niter  = 0;
  PetscCall(VecGetSize(tao->solution, &n));
  if (n == 0) {
    tao->reason = TAO_CONVERGED_GATOL;
    PetscCall(TaoMonitor(tao, 0, 0.0, 0.0, 0.0, 0.0));
    PetscFunctionReturn(0);
  }
  PetscCall(NBGSSetUpProblem(tao));
  PetscCall(NBGSResidual(tao, tao->solution, &residual));
  PetscCall(TaoLogConvergenceHistory(tao, 0.0, residual, 0.0, tao->ksp_its));
  PetscCall(TaoMonitor(tao, tao->niter, 0.0, residual, 0.0, 1.0));
  PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  while (tao->reason == TAO_CONTINUE_ITERATING) {
    PetscCall(NBGSSweep(tao, tao->solution));
    PetscCall(NBGSResidual(tao, tao->solution, &residual));
    tao->niter++;
    PetscCall(TaoLogConvergenceHistory(tao, 0.0, residual, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, 0.0, residual, 0.0, 1.0));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
  }
  tao->residual = residual;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_NBGS(Tao tao)
{
  PetscFunctionBegin;
  (void)tao;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_NBGS(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Nonsmooth block Gauss-Seidel (nbgs) options");
  PetscCall(PetscOptionsReal("-tao_nbgs_omega", "Relaxation of each block's update (1: plain Gauss-Seidel)", "",
                             nb->omega, &nb->omega, NULL));
  PetscCall(PetscOptionsReal("-tao_nbgs_interface_omega",
                             "Relaxation of the blocks coupled to other ranks' blocks, which are updated once a sweep "
                             "(Jacobi across ranks: undamped it can oscillate)",
                             "", nb->interface_omega, &nb->interface_omega, NULL));
  PetscCall(PetscOptionsReal("-tao_nbgs_residual_scale",
                             "g_d of the residual (seed 001 eq. 39) as a fraction of 1 / max_i W_ii", "",
                             nb->residual_scale, &nb->residual_scale, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(nb->omega > 0.0 && nb->omega < 2.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_nbgs_omega must be in (0, 2), got %g", (double)nb->omega);
  PetscCheck(nb->interface_omega > 0.0 && nb->interface_omega < 2.0, PetscObjectComm((PetscObject)tao),
             PETSC_ERR_ARG_OUTOFRANGE, "-tao_nbgs_interface_omega must be in (0, 2), got %g",
             (double)nb->interface_omega);
  PetscCheck(nb->residual_scale > 0.0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE,
             "-tao_nbgs_residual_scale must be positive, got %g", (double)nb->residual_scale);
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_NBGS(Tao tao, PetscViewer viewer)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "relaxation %g (blocks coupled to other ranks: %g); residual step g_d (eq. 39) %g / "
                                   "max W_ii (last: %g)\n",
                                   (double)nb->omega, (double)nb->interface_omega, (double)nb->residual_scale,
                                   (double)nb->residual_step));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "last sweep on rank 0: %" PetscInt_FMT " contacts separating, %" PetscInt_FMT
                                   " sticking, %" PetscInt_FMT " sliding\n",
                                   nb->states[0], nb->states[1], nb->states[2]));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_NBGS(Tao tao)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(NBGSRelease(nb));
  PetscCall(MatDestroy(&nb->W));
  PetscCall(VecDestroy(&nb->q));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSSetProblem_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSGetStates_C", NULL));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoNBGSSetProblem_NBGS(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  if (W) { /* the sweep reads W's rows: only an assembled W has them */
    PetscBool mpi, seq;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATMPIAIJ, &mpi));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)W, MATSEQAIJ, &seq));
    PetscCheck(mpi || seq, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP,
               "nbgs visits the rows of an assembled N (an AIJ matrix, as talus ccp reads); this N is not one: use "
               "-tao_type apgd");
  }
  PetscCall(NBGSRelease(nb));
  if (W) PetscCall(PetscObjectReference((PetscObject)W));
  if (q) PetscCall(PetscObjectReference((PetscObject)q));
  PetscCall(MatDestroy(&nb->W));
  PetscCall(VecDestroy(&nb->q));
  nb->W = W, nb->q = q, nb->set = set;
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoNBGSGetStates_NBGS(Tao tao, PetscInt states[3])
{
  TAO_NBGS *nb = (TAO_NBGS *)tao->data;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(nb->states, states, 3, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)tao)));
  PetscFunctionReturn(0);
}

/*MC
  TAONBGS - "nbgs": nonsmooth block Gauss-Seidel for the Coulomb contact problem with an assembled
  Delassus matrix, an exact Coulomb solve per contact, Jacobi across ranks.

  Options Database Keys:
+ -tao_nbgs_omega <1> - relaxation of each block's update
. -tao_nbgs_interface_omega <0.5> - that of blocks coupled to other ranks' blocks
- -tao_nbgs_residual_scale <1e-3> - g_d of the residual as a fraction of 1 / max_i W_ii

  The reported gradient norm (TaoMonitor, -tao_gatol) is the residual of seed 001 eq. 39 with the De
  Saxce velocity; an iteration is one sweep.
M*/
PETSC_EXTERN PetscErrorCode TaoCreate_NBGS(Tao tao)
{
  TAO_NBGS *nb;

  PetscFunctionBegin;
  tao->ops->setup          = TaoSetUp_NBGS;
  tao->ops->solve          = TaoSolve_NBGS;
  tao->ops->view           = TaoView_NBGS;
  tao->ops->setfromoptions = TaoSetFromOptions_NBGS;
  tao->ops->destroy        = TaoDestroy_NBGS;
  PetscCall(PetscNew(&nb));
  tao->data           = (void *)nb;
  nb->omega           = 1.0;
  nb->interface_omega = 0.5;
  nb->residual_scale  = 1.0e-3;
  TalusTaoSetResidualTolerances(tao);
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSSetProblem_C", TaoNBGSSetProblem_NBGS));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TaoNBGSGetStates_C", TaoNBGSGetStates_NBGS));
  PetscFunctionReturn(0);
}

/*@C
  TaoNBGSSetProblem - the Coulomb problem u = W r + q over the set's cones (and rows) that TAONBGS solves;
  W assembled (AIJ). The set is referenced, not copied: it must outlive the solves.
@*/
PetscErrorCode TaoNBGSSetProblem(Tao tao, Mat W, Vec q, const TalusFeasibleSet *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TaoNBGSSetProblem_C", (Tao, Mat, Vec, const TalusFeasibleSet *), (tao, W, q, set));
  PetscFunctionReturn(0);
}

/*@
  TaoNBGSGetStates - how many contacts separate, stick and slide after the last sweep (all ranks)
@*/
PetscErrorCode TaoNBGSGetStates(Tao tao, PetscInt states[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscUseMethod(tao, "TaoNBGSGetStates_C", (Tao, PetscInt *), (tao, states));
  PetscFunctionReturn(0);
}
