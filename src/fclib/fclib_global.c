/*
 * FCLib's global form (Acary et al., INRIA RT-0444, 2014, and libfclib's fclib.h):
 *   M v = H r + f,   u = H^T v + w,   per contact (u, r) a Coulomb pair with mu,
 * stored as /fclib_global/{M,H} (sparse, the layout of fclib_file.h), /fclib_global/vectors/{f,w,mu}
 * and /fclib_global/spacedim. talus solves the local form, so a global problem is reduced on
 * reading by eliminating v = M^-1 (H r + f):
 *   W = H^T M^-1 H,   q = w + H^T M^-1 f.
 * M must be diagonal (the problems of FCLib's collection and talus's own dumps are): a general M
 * would need a factorisation and W would fill in. Bilateral rows (G, b) are refused.
 */
#include "fclib_file.h"

/* diag(M)^-1, checking that M is diagonal with positive entries. */
static PetscErrorCode InverseDiagonal(FCLibFile *f, Mat M, Vec *minv)
{
  PetscInt  rstart, rend;
  PetscBool diagonal = PETSC_TRUE;
  PetscReal dmin     = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(M, row, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++)
      if (cols[k] != row && vals[k] != 0.0) diagonal = PETSC_FALSE;
    PetscCall(MatRestoreRow(M, row, &ncols, &cols, &vals));
  }
  FCLibCheck(f->comm, diagonal,
             "%s: M is not diagonal; talus reduces global problems (W = H^T M^-1 H) with a diagonal M only",
             f->filename);
  PetscCall(MatCreateVecs(M, NULL, minv));
  PetscCall(MatGetDiagonal(M, *minv));
  PetscCall(VecMin(*minv, NULL, &dmin));
  PetscCheck(dmin > 0.0, f->comm, PETSC_ERR_FILE_UNEXPECTED,
             "%s: M has a diagonal entry %g <= 0; a mass matrix must be positive definite", f->filename, (double)dmin);
  PetscCall(VecReciprocal(*minv));
  PetscFunctionReturn(0);
}

PetscErrorCode FCLibReadGlobal(FCLibFile *f, TalusFCLibProblem *prob)
{
  PetscInt spacedim, mM, nM, nzM, mH, nH, nzH, nc, nc_local = PETSC_DECIDE, ndof_local = PETSC_DECIDE;
  Mat      M, H, HMinv;
  Vec      minv, fv, w, Minv_f;

  PetscFunctionBegin;
  PetscCall(FCLibReadScalarInt(f, "/fclib_global/spacedim", &spacedim));
  FCLibCheck(f->comm, spacedim == 3,
             "%s: spacedim is %" PetscInt_FMT "; talus solves 3D contact problems (spacedim 3) only", f->filename,
             spacedim);
  if (FCLibExists(f, "/fclib_global/G/n")) {
    PetscInt mG, nG, nzG;
    PetscCall(FCLibReadMatrixShape(f, "/fclib_global/G", &mG, &nG, &nzG));
    FCLibCheck(f->comm, nG == 0,
               "%s: the global problem has %" PetscInt_FMT
               " bilateral rows (G, b); talus reads global problems without them",
               f->filename, nG);
  }
  PetscCall(FCLibReadMatrixShape(f, "/fclib_global/M", &mM, &nM, &nzM));
  PetscCall(FCLibReadMatrixShape(f, "/fclib_global/H", &mH, &nH, &nzH));
  PetscCall(FCLibLength(f, "/fclib_global/vectors/mu", &nc));
  FCLibCheck(f->comm, mM == nM, "%s: M is %" PetscInt_FMT " x %" PetscInt_FMT "; a mass matrix must be square",
             f->filename, mM, nM);
  FCLibCheck(f->comm, mH == mM && nH == 3 * nc,
             "%s: H is %" PetscInt_FMT " x %" PetscInt_FMT ", but M is %" PetscInt_FMT " x %" PetscInt_FMT
             " and mu has %" PetscInt_FMT " contacts, which need a %" PetscInt_FMT " x %" PetscInt_FMT " H",
             f->filename, mH, nH, mM, nM, nc, mM, 3 * nc);
  PetscCall(PetscSplitOwnership(f->comm, &nc_local, &nc));
  PetscCall(PetscSplitOwnership(f->comm, &ndof_local, &mM));

  PetscCall(FCLibReadMatrix(f, "/fclib_global/M", ndof_local, ndof_local, &M));
  PetscCall(FCLibReadMatrix(f, "/fclib_global/H", ndof_local, 3 * nc_local, &H));
  PetscCall(FCLibReadVec(f, "/fclib_global/vectors/f", ndof_local, mM, "one per degree of freedom", &fv));
  PetscCall(FCLibReadVec(f, "/fclib_global/vectors/w", 3 * nc_local, 3 * nc, "3 per contact", &w));
  PetscCall(FCLibReadVec(f, "/fclib_global/vectors/mu", nc_local, nc, "1 per contact", &prob->mu));
  FCLibCheck(f->comm, FCLibAllFinite(fv) && FCLibAllFinite(w) && FCLibAllFinite(prob->mu),
             "%s: f, w or mu holds NaN or Inf", f->filename);
  FCLibCheck(f->comm, FCLibAllModest(fv) && FCLibAllModest(w) && FCLibAllModest(prob->mu),
             "%s: f, w or mu holds a value beyond %g, where the solver's products overflow", f->filename,
             FCLIB_LARGEST);
  PetscCall(InverseDiagonal(f, M, &minv));

  /* W = H^T (M^-1 H), q = w + H^T (M^-1 f) */
  PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &HMinv));
  PetscCall(MatDiagonalScale(HMinv, minv, NULL));
  PetscCall(MatTransposeMatMult(H, HMinv, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &prob->W));
  PetscCall(VecDuplicate(fv, &Minv_f));
  PetscCall(VecPointwiseMult(Minv_f, minv, fv));
  PetscCall(VecDuplicate(w, &prob->q));
  PetscCall(MatMultTransposeAdd(H, Minv_f, w, prob->q));
  prob->ncontacts = nc;
  prob->ndofs     = mM;

  PetscCall(VecDestroy(&Minv_f));
  PetscCall(MatDestroy(&HMinv));
  PetscCall(VecDestroy(&minv));
  PetscCall(VecDestroy(&fv));
  PetscCall(VecDestroy(&w));
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibAppendGlobal(const char filename[], const TalusFCLibGlobal *g, TalusFCLibStorage storage)
{
  FCLibFile f;

  PetscFunctionBegin;
  PetscCall(FCLibOpen(PetscObjectComm((PetscObject)g->H), filename, FCLIB_APPEND, &f));
  PetscCall(FCLibCreateGroup(&f, "/fclib_global"));
  PetscCall(FCLibCreateGroup(&f, "/fclib_global/vectors"));
  PetscCall(FCLibWriteScalarInt(&f, "/fclib_global/spacedim", 3));
  PetscCall(FCLibWriteMatrix(&f, "/fclib_global/M", g->M, storage));
  PetscCall(FCLibWriteMatrix(&f, "/fclib_global/H", g->H, storage));
  PetscCall(FCLibWriteVec(&f, "/fclib_global/vectors/f", g->f));
  PetscCall(FCLibWriteVec(&f, "/fclib_global/vectors/w", g->w));
  PetscCall(FCLibWriteVec(&f, "/fclib_global/vectors/mu", g->mu));
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibGlobalDestroy(TalusFCLibGlobal *g)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&g->M));
  PetscCall(MatDestroy(&g->H));
  PetscCall(VecDestroy(&g->f));
  PetscCall(VecDestroy(&g->w));
  PetscCall(VecDestroy(&g->mu));
  PetscFunctionReturn(0);
}
