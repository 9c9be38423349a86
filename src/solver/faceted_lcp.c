/*
 * Seed 002's faceted-cone LCP (eq. 34-35; include/talus/lcp.h): Coulomb's cone replaced by a pyramid
 * of nd friction directions per contact, with maximum dissipation (eq. 22-23) through one sliding
 * speed sigma per contact. The body velocities are eliminated (W = B M^-1 B^T, q = B v_free + b, as
 * talus's CCP holds them), which leaves the LCP in (p_n, p_f, sigma):
 *
 *     rho_n = W_nn p_n + W_nD p_f + q_n                      >= 0  _|_  p_n   >= 0   (eq. 31: no mu sigma
 *     rho_f = W_Dn p_n + W_DD p_f + E sigma + D^T q_t        >= 0  _|_  p_f   >= 0    term: unrelaxed)
 *     s     = U p_n - E^T p_f                                >= 0  _|_  sigma >= 0
 *
 * with D the directions in each contact's (t1, t2) plane. In 2D (nd = 2, directions +-t1, and nothing
 * coupling t2) the pyramid is Coulomb's cone itself, so the answer is the anti-relaxed CCP's whenever
 * that is unique (the formulations note, S2-3).
 */
#include <talus/lcp.h>

/* The 3 nc x ((nd + 1) nc) map T from (p_n, p_f) to the CCP's impulses (n, t1, t2): column c of p_n is
   e_n of contact c; column (c, j) of p_f is its direction d_j. Entry (row, col) without storing T. */
static PetscReal Map(PetscInt nc, PetscInt nd, PetscInt row, PetscInt col)
{
  const PetscInt c = row / 3, k = row % 3;
  if (col < nc) return col == c && k == 0 ? 1.0 : 0.0;
  col -= nc;
  if (col / nd != c || k == 0) return 0.0;
  {
    const PetscReal angle = 2.0 * PETSC_PI * (PetscReal)(col % nd) / (PetscReal)nd;
    return k == 1 ? PetscCosReal(angle) : PetscSinReal(angle);
  }
}

PetscErrorCode TalusFacetedLCPBuild(PetscInt nc, PetscInt nd, const PetscReal W[], const PetscReal q[],
                                    const PetscReal mu[], PetscInt *n_out, PetscReal **M_out, PetscReal **b_out)
{
  const PetscInt m = 3 * nc, nt = (nd + 1) * nc, n = (nd + 2) * nc;
  PetscReal     *T, *WT, *M, *b;

  PetscFunctionBegin;
  PetscCheck(nd >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "a faceted cone needs at least 2 friction directions per contact, got %" PetscInt_FMT, nd);
  PetscCall(PetscMalloc2(m * nt, &T, m * nt, &WT));
  PetscCall(PetscCalloc2(n * n, &M, n, &b));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < nt; j++) T[i * nt + j] = Map(nc, nd, i, j);
  for (PetscInt i = 0; i < m; i++) /* W T, then T^T (W T): only T's nonzeros (3 per row) matter */
    for (PetscInt j = 0; j < nt; j++) {
      PetscReal s = 0.0;
      for (PetscInt k = 3 * (j < nc ? j : (j - nc) / nd), e = 0; e < 3; e++)
        s += W[i * m + k + e] * T[(k + e) * nt + j];
      WT[i * nt + j] = s;
    }
  for (PetscInt i = 0; i < nt; i++) {
    const PetscInt c = i < nc ? i : (i - nc) / nd;
    for (PetscInt j = 0; j < nt; j++) {
      PetscReal s = 0.0;
      for (PetscInt e = 0; e < 3; e++) s += T[(3 * c + e) * nt + i] * WT[(3 * c + e) * nt + j];
      M[i * n + j] = s;
    }
    for (PetscInt e = 0; e < 3; e++) b[i] += T[(3 * c + e) * nt + i] * q[3 * c + e];
  }
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt sigma = nt + c;
    for (PetscInt j = 0; j < nd; j++) {
      const PetscInt f = nc + c * nd + j;
      M[f * n + sigma] = 1.0;  /* E sigma in the direction rows */
      M[sigma * n + f] = -1.0; /* -E^T p_f in the slack row */
    }
    M[sigma * n + c] = mu[c]; /* U p_n */
  }
  PetscCall(PetscFree2(T, WT));
  *n_out = n, *M_out = M, *b_out = b;
  PetscFunctionReturn(0);
}

void TalusFacetedLCPImpulses(PetscInt nc, PetscInt nd, const PetscReal z[], PetscReal r[])
{
  for (PetscInt i = 0; i < 3 * nc; i++) {
    const PetscInt c = i / 3;
    r[i]             = Map(nc, nd, i, c) * z[c];
    for (PetscInt j = 0; j < nd; j++) r[i] += Map(nc, nd, i, nc + c * nd + j) * z[nc + c * nd + j];
  }
}
