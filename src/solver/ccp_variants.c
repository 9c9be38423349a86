/*
 * The problem variants of TalusCCP, registered by name in TalusSolverRegisterAll (register.c).
 *
 * relaxed: the CCP of seed 000 eq. 14 as it stands; the linear term is q throughout.
 *
 * coulomb: the De Saxce condition u_i + mu_i ||u_i,t|| e_n in K*_i replaces the relaxed dual
 * condition, reached by the anti-relaxation of seed 001 (eq. 28, lines 33-37): after each iterate
 * the normal linear term becomes q_n + mu ||u_t||, with u_t the tangential part of the gradient
 * N g + q (the tangential linear term never changes, so that part is u_t). The shift s = mu ||u_t||
 * is kept per cone and added to the normal rows by the product with N (TalusMatMultAddNormalShift),
 * so that an iteration reads 8 B per contact for it instead of a full linear-term vector.
 *
 * lcp: the Coulomb problem with each cone replaced by a pyramid (seed 002), which only the Tao type
 * faceted_lcp solves: the variant chooses it, and measures its answer as the Coulomb problem's.
 */
#include "ccp_impl.h"
#include "cones_wide.h"

PetscFunctionList TalusCCPList = NULL;

PetscErrorCode TalusCCPRegister(const char name[], PetscErrorCode (*create)(TalusCCP))
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListAdd(&TalusCCPList, name, create));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPCreate_Relaxed(TalusCCP ccp)
{
  PetscFunctionBegin;
  (void)ccp; /* no operation differs from the plain CCP */
  PetscFunctionReturn(0);
}

/* Seed 001 eq. 28, lines 33-37, on local rows [start, start + n), whole triplets:
   r_n = q_n + s with s = mu ||u_t||, u_t = (N x + r)_t the tangential part of the gradient g. */
static PetscErrorCode CoulombAntiRelax(Tao tao, PetscInt start, PetscInt n, const PetscScalar x[],
                                       const PetscScalar g[], PetscScalar dr[], void *ctx)
{
  TalusCCP           ccp = (TalusCCP)ctx;
  const PetscScalar *mu;
  PetscScalar       *sv;
  PetscInt           nc, j = 0, c = start / 3;

  PetscFunctionBegin;
  (void)tao, (void)x;
  PetscCall(VecGetLocalSize(ccp->set.mu, &nc));
  PetscCall(VecGetArrayRead(ccp->set.mu, &mu));
  PetscCall(VecGetArray(ccp->shift, &sv));
  { /* 8 contacts at a time where the processor can (cones_wide.c: the same bits) */
    const PetscInt wide = TalusAntiRelaxWide(PetscMax(0, PetscMin(n, 3 * nc - start) / 3), &mu[c], g, &sv[c], dr);
    j += 3 * wide, c += wide;
  }
  for (; j < n && start + j < 3 * nc; j += 3, c++) {
    /* this is the chunk's first touch (apgd calls the update before its own pass): prefetch
       768 B ahead in g and 256 B ahead in the per-contact arrays */
    __builtin_prefetch(&g[j + 96]), __builtin_prefetch(&mu[c + 32]), __builtin_prefetch(&sv[c + 32]);
    const PetscReal s_next = PetscRealPart(mu[c]) *
                             PetscSqrtReal(PetscRealPart(g[j + 1] * g[j + 1] + g[j + 2] * g[j + 2]));
    dr[j]     = s_next - sv[c];
    dr[j + 1] = dr[j + 2] = 0.0;
    sv[c]                 = s_next;
  }
  for (; j < n; j++) dr[j] = 0.0; /* non-negative and free rows keep their linear term */
  PetscCall(VecRestoreArray(ccp->shift, &sv));
  PetscCall(VecRestoreArrayRead(ccp->set.mu, &mu));
  PetscFunctionReturn(0);
}

/* v = u + mu ||u_t|| e_n: the velocity whose membership of K* is the De Saxce condition */
static void CoulombDualVelocity(PetscReal mu, PetscReal v[3])
{
  v[0] += mu * PetscSqrtReal(v[1] * v[1] + v[2] * v[2]);
}

PetscErrorCode TalusCCPCreate_Coulomb(TalusCCP ccp)
{
  PetscFunctionBegin;
  ccp->ops.update_linear_term = CoulombAntiRelax;
  ccp->ops.dual_velocity      = CoulombDualVelocity;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusCCPCreate_FacetedLCP(TalusCCP ccp)
{
  PetscFunctionBegin;
  ccp->ops.dual_velocity = CoulombDualVelocity;
  ccp->ops.tao_type      = TAOFACETEDLCP;
  PetscFunctionReturn(0);
}
