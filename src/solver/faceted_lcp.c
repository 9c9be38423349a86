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
 * that is unique (the formulations note, S2-3). One-sided rows after the contacts (joint limits) are
 * unknowns of their own, z_l >= 0 _|_ w_l >= 0, after sigma.
 */
#include <talus/lcp.h>

/* Column j of the (3 nc + nl) x ((nd + 1) nc + nl) map T from (p_n, p_f, z_l) to the CCP's impulses
   (n, t1, t2 of each contact, then the one-sided rows): its first row and its entries there, three for
   a contact's (e_n for a normal impulse, (0, cos, sin) of the direction d_j for a friction one), one for
   a one-sided row's; returns how many. T is never stored. */
static PetscInt Column(PetscInt nc, PetscInt nd, PetscInt j, PetscInt *row, PetscReal t[3])
{
  PetscReal angle;

  if (j < nc) {
    t[0] = 1.0, t[1] = t[2] = 0.0;
    *row = 3 * j;
    return 3;
  }
  if (j >= (nd + 1) * nc) { /* a one-sided row */
    t[0] = 1.0, t[1] = t[2] = 0.0;
    *row = 3 * nc + j - (nd + 1) * nc;
    return 1;
  }
  j -= nc;
  angle = 2.0 * PETSC_PI * (PetscReal)(j % nd) / (PetscReal)nd;
  t[0] = 0.0, t[1] = PetscCosReal(angle), t[2] = PetscSinReal(angle);
  *row = 3 * (j / nd);
  return 3;
}

/* the LCP unknown of T's column j: p_n and p_f come first, then sigma (nc), then the one-sided rows */
static PetscInt Unknown(PetscInt nc, PetscInt nd, PetscInt j)
{
  return j < (nd + 1) * nc ? j : j + nc;
}

PetscErrorCode TalusFacetedLCPBuild(PetscInt nc, PetscInt nd, PetscInt nl, const PetscReal W[], const PetscReal q[],
                                    const PetscReal mu[], PetscInt *n_out, PetscReal **M_out, PetscReal **b_out)
{
  const PetscInt m = 3 * nc + nl, nt = (nd + 1) * nc + nl, n = (nd + 2) * nc + nl;
  PetscReal     *T, *WTj, *M, *b;
  PetscInt      *first, *len;

  PetscFunctionBegin;
  PetscCheck(nd >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "a faceted cone needs at least 2 friction directions per contact, got %" PetscInt_FMT, nd);
  PetscCall(PetscMalloc4(3 * nt, &T, m, &WTj, nt, &first, nt, &len)); /* T's columns, up to 3 entries each */
  PetscCall(PetscCalloc2(n * n, &M, n, &b));
  for (PetscInt j = 0; j < nt; j++) len[j] = Column(nc, nd, j, &first[j], &T[3 * j]);
  for (PetscInt j = 0; j < nt; j++) { /* column j of W T, then of T^T (W T) */
    for (PetscInt i = 0; i < m; i++) {
      PetscReal s = 0.0;
      for (PetscInt e = 0; e < len[j]; e++) s += W[i * m + first[j] + e] * T[3 * j + e];
      WTj[i] = s;
    }
    for (PetscInt i = 0; i < nt; i++) {
      PetscReal s = 0.0;
      for (PetscInt e = 0; e < len[i]; e++) s += T[3 * i + e] * WTj[first[i] + e];
      M[Unknown(nc, nd, i) * n + Unknown(nc, nd, j)] = s;
    }
  }
  for (PetscInt i = 0; i < nt; i++)
    for (PetscInt e = 0; e < len[i]; e++) b[Unknown(nc, nd, i)] += T[3 * i + e] * q[first[i] + e];
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt sigma = (nd + 1) * nc + c;
    for (PetscInt j = 0; j < nd; j++) {
      const PetscInt f = nc + c * nd + j;
      M[f * n + sigma] = 1.0;  /* E sigma in the direction rows */
      M[sigma * n + f] = -1.0; /* -E^T p_f in the slack row */
    }
    M[sigma * n + c] = mu[c]; /* U p_n */
  }
  PetscCall(PetscFree4(T, WTj, first, len));
  *n_out = n, *M_out = M, *b_out = b;
  PetscFunctionReturn(0);
}

void TalusFacetedLCPImpulses(PetscInt nc, PetscInt nd, PetscInt nl, const PetscReal z[], PetscReal r[])
{
  PetscReal t[3];
  PetscInt  row;

  for (PetscInt c = 0; c < nc; c++) {
    (void)Column(nc, nd, c, &row, t); /* the normal impulse, then the directions' in order */
    for (PetscInt e = 0; e < 3; e++) r[3 * c + e] = t[e] * z[c];
    for (PetscInt j = 0; j < nd; j++) {
      (void)Column(nc, nd, nc + c * nd + j, &row, t);
      for (PetscInt e = 0; e < 3; e++) r[3 * c + e] += t[e] * z[nc + c * nd + j];
    }
  }
  for (PetscInt l = 0; l < nl; l++) r[3 * nc + l] = z[(nd + 2) * nc + l];
}
