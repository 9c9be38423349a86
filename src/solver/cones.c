/*
 * Euclidean projection onto the feasible set of a contact problem: products of friction cones
 * (seed 000 eq. 10a), K_i = { (n, u, w) : n >= 0, ||(u, w)|| <= mu_i n }, then non-negative rows,
 * then free rows. Each block's rows live on one rank, so the projection is purely local.
 */
#include <talus.h>
#include "cones_wide.h"

/*
 * Closed-form projection of one triplet. With t = ||(u, w)||:
 *   t <= mu n                 the point is in K: it stays;
 *   mu t <= -n                the point is in the polar cone K° (seed 000 eq. 10b): it goes to 0;
 *   otherwise                 it goes to the nearest point of the cone's surface, found by projecting
 *                             (n, t) onto the generator (1, mu)/sqrt(1 + mu^2) in the (n, t) plane.
 * mu = 0 degenerates to the half-line n >= 0 with zero tangential part.
 * The surface point is (p, mu p (u, w) / t) / (1 + mu^2) with p = n + mu t: both parts come from the
 * one division 1 / ((1 + mu^2) t) (the solver projects twice per iteration, so divisions count).
 * It cannot overflow: t is 0 (then
 * it is replaced by 1 and the case is another one) or at least the square root of the smallest
 * subnormal number, 2.2e-162, since u^2 + w^2 underflows to 0 below that.
 */
static inline void ProjectTriplet(PetscReal mu, const PetscReal *in, PetscReal *out)
{
  const PetscReal n = in[0], u = in[1], w = in[2];
  const PetscReal t         = PetscSqrtReal(u * u + w * w);
  const PetscReal p         = n + mu * t;
  const PetscReal inv       = 1.0 / ((1.0 + mu * mu) * (t > 0.0 ? t : 1.0)); /* no 0/0 even unused (-fp_trap) */
  const PetscReal n_surface = p * t * inv, s_surface = mu * p * inv;
  PetscReal       n_out, scale;

  /* the surface point is computed whatever the case and the case then selects: the solver's
     iterates switch between cases from contact to contact, which a branch predicts badly */
  if (mu <= 0.0) n_out = n > 0.0 ? n : 0.0, scale = 0.0;
  else if (t <= mu * n) n_out = n, scale = 1.0;
  else if (mu * t <= -n) n_out = 0.0, scale = 0.0;
  else n_out = n_surface, scale = s_surface;
  out[0] = n_out;
  out[1] = u * scale;
  out[2] = w * scale;
}

void TalusProjectTriplet(PetscReal mu, const PetscReal in[3], PetscReal out[3])
{
  ProjectTriplet(mu, in, out);
}

/* Local rows [start, start + n) of the feasible set's layout: triplets up to 3 nc, then rows >= 0 up to
   3 nc + nnonneg, then free rows, whose cone is R and projection the identity (seed 000 eq. 12).
   start is a multiple of 3, so a range never splits a triplet. out may be in. */
static void ProjectRows(const PetscScalar *mu, PetscInt nc, PetscInt nnonneg, PetscInt start, PetscInt n,
                        const PetscScalar *in, PetscScalar *out)
{
  PetscInt j = 0, c = start / 3;

  if (start < 3 * nc) { /* whole groups of 8 contacts with SIMD where the processor has it (cones_wide.c) */
    const PetscInt wide = TalusProjectTripletsWide(PetscMin(n, 3 * nc - start) / 3, &mu[c], in, out);
    j += 3 * wide, c += wide;
  }
  for (; j < n && start + j < 3 * nc; j += 3, c++) ProjectTriplet(PetscRealPart(mu[c]), &in[j], &out[j]);
  for (; j < n && start + j < 3 * nc + nnonneg; j++) out[j] = PetscRealPart(in[j]) > 0.0 ? in[j] : 0.0;
  for (; j < n; j++) out[j] = in[j];
}

PetscErrorCode TalusFeasibleSetGetLocalSize(const TalusFeasibleSet *set, PetscInt *n)
{
  PetscInt nc;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(set->mu, &nc));
  *n = 3 * nc + set->nnonneg_local + set->nfree_local;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFeasibleSetProject(const TalusFeasibleSet *set, Vec in, Vec out)
{
  PetscInt           nlocal, ncontacts, nset;
  const PetscScalar *x, *m;
  PetscScalar       *y;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(TALUS_EventProject, in, out, 0, 0));
  PetscCall(VecGetLocalSize(in, &nlocal));
  PetscCall(VecGetLocalSize(set->mu, &ncontacts));
  PetscCall(TalusFeasibleSetGetLocalSize(set, &nset));
  PetscCheck(nlocal == nset, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Impulse vector has %" PetscInt_FMT " local rows but %" PetscInt_FMT " cones, %" PetscInt_FMT
             " non-negative and %" PetscInt_FMT " free rows need %" PetscInt_FMT,
             nlocal, ncontacts, set->nnonneg_local, set->nfree_local, nset);
  PetscCall(VecGetArrayRead(in, &x));
  PetscCall(VecGetArrayRead(set->mu, &m));
  PetscCall(VecGetArray(out, &y));
  ProjectRows(m, ncontacts, set->nnonneg_local, 0, nlocal, x, y);
  PetscCall(VecRestoreArray(out, &y));
  PetscCall(VecRestoreArrayRead(set->mu, &m));
  PetscCall(VecRestoreArrayRead(in, &x));
  PetscCall(PetscLogFlops(12.0 * ncontacts));
  PetscCall(PetscLogEventEnd(TALUS_EventProject, in, out, 0, 0));
  PetscFunctionReturn(0);
}

/* apgd's projection of local rows [start, start + n) (block size 3) */
PetscErrorCode TalusFeasibleSetProjectTao(Tao tao, PetscInt start, PetscInt n, const PetscScalar in[],
                                          PetscScalar out[], void *ctx)
{
  const TalusFeasibleSet *set = (const TalusFeasibleSet *)ctx;
  const PetscScalar      *m;
  PetscInt                nc;

  PetscFunctionBegin;
  (void)tao;
  PetscCall(VecGetLocalSize(set->mu, &nc));
  PetscCall(VecGetArrayRead(set->mu, &m));
  ProjectRows(m, nc, set->nnonneg_local, start, n, in, out);
  PetscCall(VecRestoreArrayRead(set->mu, &m));
  PetscFunctionReturn(0);
}

/*
 * Seed 001 eq. 39: ||r - Pi_K(r - g_d v)|| / g_d over all ranks, with v = u on the non-negative and
 * free rows and, on the cones, v = u (the relaxed problem) or De Saxce's u + mu ||u_t|| e_n (the
 * Coulomb problem). Zero exactly at a solution; in velocity units.
 */
/* this rank's sum of squares and largest block square into sq[0], sq[1]; then the norm over all ranks */
static PetscErrorCode BlockNormReduce(MPI_Comm comm, TaoResidualNorm norm, const PetscReal sq[2], PetscReal *out)
{
  PetscReal v = norm == TAO_RESIDUAL_NORM_MAX ? sq[1] : sq[0];

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &v, 1, MPIU_REAL, norm == TAO_RESIDUAL_NORM_MAX ? MPIU_MAX : MPIU_SUM, comm));
  *out = PetscSqrtReal(v);
  PetscFunctionReturn(0);
}

static inline void AddBlock(PetscReal sq[2], PetscReal block2)
{
  sq[0] += block2;
  sq[1] = PetscMax(sq[1], block2);
}

PetscErrorCode TalusFeasibleSetResidual(const TalusFeasibleSet *set, Vec r, Vec u, PetscReal gd, PetscBool desaxce,
                                        TaoResidualNorm norm, PetscReal *residual)
{
  const PetscScalar *x, *v, *mu;
  PetscInt           nc, n;
  PetscReal          sq[2] = {0.0, 0.0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetLocalSize(set->mu, &nc));
  PetscCall(VecGetArrayRead(r, &x));
  PetscCall(VecGetArrayRead(u, &v));
  PetscCall(VecGetArrayRead(set->mu, &mu));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscReal m  = desaxce ? PetscRealPart(mu[c]) : 0.0;
    const PetscReal v0 = PetscRealPart(v[3 * c]) +
                         m * PetscSqrtReal(PetscRealPart(v[3 * c + 1] * v[3 * c + 1] + v[3 * c + 2] * v[3 * c + 2]));
    PetscReal y[3] = {PetscRealPart(x[3 * c]) - gd * v0, PetscRealPart(x[3 * c + 1] - gd * v[3 * c + 1]),
                      PetscRealPart(x[3 * c + 2] - gd * v[3 * c + 2])},
              p[3], block2 = 0.0;
    ProjectTriplet(PetscRealPart(mu[c]), y, p);
    for (int k = 0; k < 3; k++) block2 += PetscSqr(PetscRealPart(x[3 * c + k]) - p[k]);
    AddBlock(sq, block2);
  }
  for (PetscInt i = 3 * nc; i < n; i++) {
    PetscReal y = PetscRealPart(x[i] - gd * v[i]);
    if (i < 3 * nc + set->nnonneg_local) y = PetscMax(y, 0.0);
    AddBlock(sq, PetscSqr(PetscRealPart(x[i]) - y));
  }
  PetscCall(VecRestoreArrayRead(set->mu, &mu));
  PetscCall(VecRestoreArrayRead(u, &v));
  PetscCall(VecRestoreArrayRead(r, &x));
  PetscCall(BlockNormReduce(PetscObjectComm((PetscObject)r), norm, sq, residual));
  *residual /= gd;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusFeasibleSetNorm(const TalusFeasibleSet *set, Vec v, TaoResidualNorm norm, PetscReal *out)
{
  const PetscScalar *a;
  PetscInt           nc, n;
  PetscReal          sq[2] = {0.0, 0.0};

  PetscFunctionBegin;
  if (norm == TAO_RESIDUAL_NORM_2) {
    PetscCall(VecNorm(v, NORM_2, out));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetLocalSize(set->mu, &nc));
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt c = 0; c < nc; c++)
    AddBlock(sq, PetscRealPart(a[3 * c] * a[3 * c] + a[3 * c + 1] * a[3 * c + 1] + a[3 * c + 2] * a[3 * c + 2]));
  for (PetscInt i = 3 * nc; i < n; i++) AddBlock(sq, PetscRealPart(a[i] * a[i]));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCall(BlockNormReduce(PetscObjectComm((PetscObject)v), norm, sq, out));
  PetscFunctionReturn(0);
}
