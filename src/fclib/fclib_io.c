/*
 * FCLib frictional contact problems (Acary et al., INRIA RT-0444, 2014) read and written with
 * parallel HDF5 (the file layer is fclib_file.c). The local form, as libfclib writes it:
 *   /fclib_local/W/{m,n,nz,nzmax,p,i,x}   nz = -1 compressed columns, -2 compressed rows,
 *                                         >= 0 triplets (i rows, p columns, nz entries)
 *   /fclib_local/vectors/{q,mu}           q has 3 entries per contact, mu one
 *   /fclib_local/spacedim                 3
 * W is distributed over the ranks by whole contacts (3 rows each) and assembled with COO
 * assembly, which routes entries read on one rank to the rank that owns their row. The global
 * form (/fclib_global: M, H, f, w, mu) is read by fclib_global.c and reduced to the local one.
 */
#include "fclib_file.h"

const char *const TalusFCLibForms[] = {"any", "local", "global", "TalusFCLibForm", "TALUS_FCLIB_", NULL};

/* W = H^T M^-1 H is positive semi-definite, so no diagonal entry is negative: one that is (a sign flipped
   in a writer) makes the problem unbounded below, and the solver's iterates overflow. Named before. */
static PetscErrorCode CheckDiagonal(const char filename[], Mat W)
{
  Vec       d;
  PetscInt  row   = -1, size;
  PetscReal least = 0.0;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(W, &d, NULL));
  PetscCall(MatGetDiagonal(W, d));
  PetscCall(VecGetSize(d, &size));
  if (size > 0) PetscCall(VecMin(d, &row, &least)); /* the most negative entry and its row, over the ranks */
  PetscCall(VecDestroy(&d));
  PetscCheck(!(least < 0.0), PetscObjectComm((PetscObject)W), PETSC_ERR_FILE_UNEXPECTED,
             "%s: W's diagonal entry %" PetscInt_FMT " (contact %" PetscInt_FMT
             ", %s row) is negative, %g: a Delassus operator "
             "W = H^T M^-1 H is positive semi-definite, this one is not (the problem is unbounded below)",
             filename, row, row / 3, row % 3 ? "a tangential" : "its normal", (double)least);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadLocal(FCLibFile *fp, TalusFCLibProblem *prob)
{
  FCLibFile    f        = *fp;
  MPI_Comm     comm     = f.comm;
  const char  *filename = f.filename;
  PetscInt     spacedim, m, n, nz, nc, nc_local, c_start, slice_start, slice_end, ncoo = 0;
  PetscInt    *coo_i, *coo_j;
  PetscScalar *coo_v;

  PetscFunctionBegin;
  PetscCall(FCLibReadScalarInt(&f, "/fclib_local/spacedim", &spacedim));
  FCLibCheck(comm, spacedim == 3,
             "%s: spacedim is %" PetscInt_FMT "; talus solves 3D contact problems (spacedim 3) only", filename,
             spacedim);
  PetscCall(FCLibReadMatrixShape(&f, "/fclib_local/W", &m, &n, &nz));
  FCLibCheck(comm, m == n, "%s: W is %" PetscInt_FMT " x %" PetscInt_FMT "; the Delassus operator must be square",
             filename, m, n);
  PetscCall(FCLibLength(&f, "/fclib_local/vectors/mu", &nc));
  FCLibCheck(comm, m == 3 * nc,
             "%s: W is %" PetscInt_FMT " x %" PetscInt_FMT " but mu has %" PetscInt_FMT
             " contacts, which need a %" PetscInt_FMT " x %" PetscInt_FMT " W",
             filename, m, n, nc, 3 * nc, 3 * nc);

  nc_local = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(comm, &nc_local, &nc));
  PetscCallMPI(MPI_Scan(&nc_local, &c_start, 1, MPIU_INT, MPI_SUM, comm));
  c_start -= nc_local;

  PetscCall(FCLibReadVec(&f, "/fclib_local/vectors/q", 3 * nc_local, 3 * nc, "3 per contact", &prob->q));
  PetscCall(FCLibReadVec(&f, "/fclib_local/vectors/mu", nc_local, nc, "1 per contact", &prob->mu));
  FCLibCheck(comm, FCLibAllFinite(prob->q), "%s: q holds NaN or Inf", filename);
  FCLibCheck(comm, FCLibAllFinite(prob->mu), "%s: mu holds NaN or Inf", filename);
  FCLibCheck(comm, FCLibAllModest(prob->q) && FCLibAllModest(prob->mu),
             "%s: q or mu holds a value beyond %g, where the solver's products overflow", filename, FCLIB_LARGEST);

  if (nz < 0) { /* compressed rows or columns: slice the compressed dimension like the contacts */
    slice_start = 3 * c_start;
    slice_end   = 3 * (c_start + nc_local);
  } else { /* triplets: an even split of the list */
    PetscInt local = PETSC_DECIDE, total = nz;
    PetscCall(PetscSplitOwnership(comm, &local, &total));
    PetscCallMPI(MPI_Scan(&local, &slice_end, 1, MPIU_INT, MPI_SUM, comm));
    slice_start = slice_end - local;
  }
  PetscCall(
    FCLibReadMatrixEntries(&f, "/fclib_local/W", nz, m, n, slice_start, slice_end, &ncoo, &coo_i, &coo_j, &coo_v));
  PetscCall(TalusMatCreateCOO(comm, 3 * nc_local, 3 * nc_local, m, n, ncoo, coo_i, coo_j, coo_v, ADD_VALUES, &prob->W));
  PetscCall(PetscFree3(coo_i, coo_j, coo_v));
  PetscCall(CheckDiagonal(filename, prob->W));
  prob->ncontacts = nc;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibReadForm(MPI_Comm comm, const char filename[], TalusFCLibForm form, TalusFCLibProblem *prob)
{
  FCLibFile f;
  PetscBool local, global;
  PetscReal mu_min;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(prob, sizeof(*prob)));
  PetscCall(PetscLogEventBegin(TALUS_EventRead, 0, 0, 0, 0));
  PetscCall(FCLibOpen(comm, filename, FCLIB_READ, &f));
  local  = FCLibExists(&f, "/fclib_local");
  global = FCLibExists(&f, "/fclib_global");
  if (!local && !global) {
    PetscCall(FCLibClose(&f));
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s: not an FCLib problem (no /fclib_local or /fclib_global group)",
            filename);
  }
  if ((form == TALUS_FCLIB_LOCAL && !local) || (form == TALUS_FCLIB_GLOBAL && !global)) {
    PetscCall(FCLibClose(&f));
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s: holds no FCLib %s problem (no /fclib_%s group)", filename,
            TalusFCLibForms[form], TalusFCLibForms[form]);
  }
  if (form == TALUS_FCLIB_GLOBAL || (form == TALUS_FCLIB_ANY && !local)) PetscCall(FCLibReadGlobal(&f, prob));
  else PetscCall(ReadLocal(&f, prob));
  PetscCall(FCLibClose(&f));
  if (prob->ncontacts > 0) {
    PetscCall(VecMin(prob->mu, NULL, &mu_min));
    PetscCheck(mu_min >= 0.0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: negative friction coefficient mu = %g", filename,
               (double)mu_min);
  }
  PetscCall(PetscLogEventEnd(TALUS_EventRead, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibRead(MPI_Comm comm, const char filename[], TalusFCLibProblem *prob)
{
  PetscFunctionBegin;
  PetscCall(TalusFCLibReadForm(comm, filename, TALUS_FCLIB_ANY, prob));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibProblemDestroy(TalusFCLibProblem *prob)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&prob->W));
  PetscCall(VecDestroy(&prob->q));
  PetscCall(VecDestroy(&prob->mu));
  prob->ncontacts = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFCLibWrite(const char filename[], const TalusFCLibProblem *prob, TalusFCLibStorage storage)
{
  FCLibFile f;
  MPI_Comm  comm = PetscObjectComm((PetscObject)prob->W);

  PetscFunctionBegin;
  PetscCall(FCLibOpen(comm, filename, FCLIB_CREATE, &f));
  PetscCall(FCLibCreateGroup(&f, "/fclib_local"));
  PetscCall(FCLibCreateGroup(&f, "/fclib_local/vectors"));
  PetscCall(FCLibWriteScalarInt(&f, "/fclib_local/spacedim", 3));
  PetscCall(FCLibWriteMatrix(&f, "/fclib_local/W", prob->W, storage));
  PetscCall(FCLibWriteVec(&f, "/fclib_local/vectors/q", prob->q));
  PetscCall(FCLibWriteVec(&f, "/fclib_local/vectors/mu", prob->mu));
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}

/* The layout of libfclib's fclib_write_solution for a local problem: /solution/r and /solution/u. */
PetscErrorCode TalusFCLibWriteSolution(const char filename[], Vec r, Vec u)
{
  FCLibFile f;

  PetscFunctionBegin;
  PetscCall(FCLibOpen(PetscObjectComm((PetscObject)r), filename, FCLIB_CREATE, &f));
  PetscCall(FCLibCreateGroup(&f, "/solution"));
  PetscCall(FCLibWriteVec(&f, "/solution/r", r));
  PetscCall(FCLibWriteVec(&f, "/solution/u", u));
  PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}

/* FCLib's first guess (/guesses/1/r: the warm start a dump records) into r, whose layout it takes;
   found is PETSC_FALSE (r unchanged) when the file has none. */
PetscErrorCode TalusFCLibReadGuess(const char filename[], Vec r, PetscBool *found)
{
  FCLibFile f;
  PetscInt  local, global;
  Vec       guess;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(r, &local));
  PetscCall(VecGetSize(r, &global));
  PetscCall(FCLibOpen(PetscObjectComm((PetscObject)r), filename, FCLIB_READ, &f));
  *found = FCLibExists(&f, "/guesses/1/r");
  if (*found) {
    PetscCall(FCLibReadVec(&f, "/guesses/1/r", local, global, "3 per contact, as q", &guess));
    PetscCall(FCLibClose(&f));
    PetscCheck(FCLibAllFinite(guess), PetscObjectComm((PetscObject)r), PETSC_ERR_FILE_UNEXPECTED,
               "%s: /guesses/1/r holds NaN or Inf", filename);
    PetscCall(VecCopy(guess, r));
    PetscCall(VecDestroy(&guess));
  } else PetscCall(FCLibClose(&f));
  PetscFunctionReturn(0);
}
