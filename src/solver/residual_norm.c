/*
 * Which norm of seed 001 eq. 39's residual talus's Tao types stop on (issue 54). The paper's is the
 * 2-norm over every row: for N contacts it asks each contact to be about sqrt(N) times tighter than one
 * contact alone, so a bed of 10^5 contacts stalls at a tolerance a bed of 10^3 meets. The default is
 * therefore the largest block's 2-norm (a contact's triplet; a joint's or a limit's row), which bounds
 * every contact's velocity error by the tolerance whatever their number, and with -ccp_force_rtol every
 * contact's force error by a fraction of the weight it carries (docs/solver.md, "The stopping test").
 */
#include "residual_norm.h"

const char *const TaoResidualNorms[] = {"max", "2", "TaoResidualNorm", "TAO_RESIDUAL_NORM_", NULL};

static PetscErrorCode SetResidualNorm(Tao tao, TaoResidualNorm norm)
{
  PetscFunctionBegin;
  ((TalusResidualNormSetting *)tao->data)->norm = norm;
  PetscFunctionReturn(0);
}

static PetscErrorCode GetResidualNorm(Tao tao, TaoResidualNorm *norm)
{
  PetscFunctionBegin;
  *norm = TalusResidualNormOf(tao);
  PetscFunctionReturn(0);
}

PetscErrorCode TalusResidualNormCompose(Tao tao)
{
  PetscFunctionBegin;
  ((TalusResidualNormSetting *)tao->data)->norm = TAO_RESIDUAL_NORM_MAX;
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoSetResidualNorm_C", SetResidualNorm));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoGetResidualNorm_C", GetResidualNorm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusResidualNormDecompose(Tao tao)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoSetResidualNorm_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)tao, "TalusTaoGetResidualNorm_C", NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusResidualNormSetFromOptions(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TalusResidualNormSetting *s = (TalusResidualNormSetting *)tao->data;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-tao_residual_norm",
                             "Norm of the residual (seed 001 eq. 39) that -tao_gatol bounds: max, the largest "
                             "contact's (a row block's 2-norm), or 2, over all rows",
                             "TalusTaoSetResidualNorm", TaoResidualNorms, (PetscEnum)s->norm, (PetscEnum *)&s->norm,
                             NULL));
  PetscFunctionReturn(0);
}

/* The user operation of TalusAllreduceSumsThenMax: one element is a whole vector (a contiguous type), so
   MPI never splits it and the last entry is always the one maximised. */
static void SumsThenMax(void *in, void *inout, int *len, MPI_Datatype *type)
{
  const PetscReal *a = (const PetscReal *)in;
  PetscReal       *b = (PetscReal *)inout;
  int              size;

  if (MPI_Type_size(*type, &size)) return;
  for (int e = 0; e < *len; e++, a += size / (int)sizeof(PetscReal), b += size / (int)sizeof(PetscReal)) {
    const int n = size / (int)sizeof(PetscReal);
    for (int k = 0; k < n - 1; k++) b[k] += a[k];
    b[n - 1] = PetscMax(a[n - 1], b[n - 1]);
  }
}

#define SUMS_THEN_MAX_LEN 16
static MPI_Datatype sums_types[SUMS_THEN_MAX_LEN + 1];
static MPI_Op       sums_then_max = MPI_OP_NULL;

static PetscErrorCode SumsThenMaxFinalize(void)
{
  PetscFunctionBegin;
  for (int n = 0; n <= SUMS_THEN_MAX_LEN; n++)
    if (sums_types[n]) PetscCallMPI(MPI_Type_free(&sums_types[n]));
  PetscCall(PetscArrayzero(sums_types, SUMS_THEN_MAX_LEN + 1));
  if (sums_then_max != MPI_OP_NULL) PetscCallMPI(MPI_Op_free(&sums_then_max));
  sums_then_max = MPI_OP_NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusAllreduceSumsThenMax(MPI_Comm comm, PetscInt n, PetscReal v[])
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(n >= 1 && n <= SUMS_THEN_MAX_LEN, comm, PETSC_ERR_ARG_OUTOFRANGE, "at most %d entries, got %" PetscInt_FMT,
             SUMS_THEN_MAX_LEN, n);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  if (sums_then_max == MPI_OP_NULL) {
    PetscCallMPI(MPI_Op_create(SumsThenMax, 1, &sums_then_max));
    PetscCall(PetscRegisterFinalize(SumsThenMaxFinalize));
  }
  if (!sums_types[n]) {
    PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)n, MPIU_REAL, &sums_types[n]));
    PetscCallMPI(MPI_Type_commit(&sums_types[n]));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 1, sums_types[n], sums_then_max, comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusTaoSetResidualNorm(Tao tao, TaoResidualNorm norm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscTryMethod(tao, "TalusTaoSetResidualNorm_C", (Tao, TaoResidualNorm), (tao, norm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusTaoGetResidualNorm(Tao tao, TaoResidualNorm *norm)
{
  PetscErrorCode (*get)(Tao, TaoResidualNorm *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tao, TAO_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)tao, "TalusTaoGetResidualNorm_C", &get));
  if (get) PetscCall((*get)(tao, norm));
  else *norm = TAO_RESIDUAL_NORM_2; /* TAO's own types stop on their gradient's 2-norm */
  PetscFunctionReturn(0);
}
