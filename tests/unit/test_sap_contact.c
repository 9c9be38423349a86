/*
 * One regularised contact of newton_ccp (src/solver/sap_contact.c), on 20,000 random contacts (mu in
 * [0, 1.5], Rn and Rt over six decades, vc over four):
 *   - gamma is the projection of y = -R^-1 vc onto the friction cone F in the R-norm: gamma in F,
 *     gamma.R (y - gamma) = 0, and R (y - gamma) . z <= 0 for every generator z of F (Moreau's
 *     characterisation of a projection onto a cone);
 *   - d l / d vc = -gamma and G = -d gamma / d vc, against central differences away from the regions'
 *     boundaries; G symmetric and positive semi-definite;
 *   - a closed-form slide, a stick and a separation; mu = 0 and the 1-D rows.
 */
#include "../common/check.h"
#include "../../src/solver/sap_contact.h"

static PetscReal Uniform(unsigned *state, PetscReal lo, PetscReal hi)
{
  *state = *state * 1103515245u + 12345u;
  return lo + (hi - lo) * (PetscReal)((*state >> 8) & 0xffffff) / (PetscReal)0x1000000;
}

/* Moreau's conditions of the R-projection, relative to |y|_R |gamma|_R scale */
static PetscReal ProjectionError(PetscReal mu, PetscReal Rn, PetscReal Rt, const PetscReal vc[3], const PetscReal g[3])
{
  const PetscReal R[3] = {Rn, Rt, Rt}, y[3] = {-vc[0] / Rn, -vc[1] / Rt, -vc[2] / Rt};
  PetscReal       scale = 0.0, err, inside, dot = 0.0, r[3];

  for (int k = 0; k < 3; k++) scale += R[k] * y[k] * y[k];
  scale  = PetscMax(scale, 1e-300);
  inside = PetscSqrtReal(g[1] * g[1] + g[2] * g[2]) - mu * g[0];
  err    = PetscMax(0.0, -g[0]) + PetscMax(0.0, inside) / PetscSqrtReal(scale / PetscMin(Rn, Rt) + 1e-300);
  for (int k = 0; k < 3; k++) r[k] = R[k] * (y[k] - g[k]), dot += g[k] * r[k];
  err = PetscMax(err, PetscAbsReal(dot) / scale);
  for (int a = 0; a < 64; a++) { /* generators (1, mu cos, mu sin) of F */
    const PetscReal th = 2.0 * PETSC_PI * a / 64.0, z[3] = {1.0, mu * PetscCosReal(th), mu * PetscSinReal(th)};
    const PetscReal zn = PetscSqrtReal(z[0] * z[0] * Rn + (z[1] * z[1] + z[2] * z[2]) * Rt);
    err                = PetscMax(err, (r[0] * z[0] + r[1] * z[1] + r[2] * z[2]) / (zn * PetscSqrtReal(scale)));
  }
  return err;
}

static PetscErrorCode CheckClosedForms(void)
{
  PetscReal g[3], G[9], e;

  PetscFunctionBegin;
  { /* slide: mu 0.5, R = I, y = (1, 2, 0): gamma_n = (1 + 0.5 * 2) / 1.25 = 1.6, gamma_t = 0.8 */
    const PetscReal vc[3] = {-1.0, -2.0, 0.0};
    CHECK(TalusSAPCone(0.5, 1.0, 1.0, vc, g, &e, G) == TALUS_SAP_SLIDE, "(1, 2, 0) with mu 0.5 not sliding");
    CHECK(PetscAbsReal(g[0] - 1.6) < 1e-15 && PetscAbsReal(g[1] - 0.8) < 1e-15 && g[2] == 0.0,
          "slide gave (%g %g %g), expected (1.6 0.8 0)", (double)g[0], (double)g[1], (double)g[2]);
    CHECK(PetscAbsReal(e - 0.5 * (1.6 * 1.6 + 0.8 * 0.8)) < 1e-15, "slide energy %g", (double)e);
  }
  { /* stick: gamma = y = -R^-1 vc, G = R^-1 */
    const PetscReal vc[3] = {-2.0, 0.1, -0.2};
    CHECK(TalusSAPCone(0.5, 2.0, 0.5, vc, g, &e, G) == TALUS_SAP_STICK, "inside the cone not sticking");
    CHECK(g[0] == 1.0 && PetscAbsReal(g[1] + 0.2) < 1e-15 && PetscAbsReal(g[2] - 0.4) < 1e-15, "stick gave (%g %g %g)",
          (double)g[0], (double)g[1], (double)g[2]);
    CHECK(G[0] == 0.5 && G[4] == 2.0 && G[8] == 2.0 && G[1] == 0.0, "stick's G is not R^-1");
  }
  { /* separate: a contact opening faster than friction could hold */
    const PetscReal vc[3] = {1.0, 0.1, 0.0};
    CHECK(TalusSAPCone(0.5, 1.0, 1.0, vc, g, &e, G) == TALUS_SAP_SEPARATE, "an opening contact not separating");
    CHECK(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0 && e == 0.0 && G[0] == 0.0, "separation carries something");
  }
  { /* mu = 0 with Rt = 0: the normal row alone */
    const PetscReal vc[3] = {-3.0, 5.0, 7.0};
    (void)TalusSAPCone(0.0, 2.0, 0.0, vc, g, &e, G);
    CHECK(g[0] == 1.5 && g[1] == 0.0 && g[2] == 0.0 && G[0] == 0.5 && G[4] == 0.0, "mu = 0 gave (%g %g %g)",
          (double)g[0], (double)g[1], (double)g[2]);
  }
  { /* rows: a free row is linear, a non-negative one clips */
    PetscReal gr, er, Gr;
    TalusSAPRow(PETSC_FALSE, 4.0, 2.0, &gr, &er, &Gr);
    CHECK(gr == -0.5 && er == 0.5 && Gr == 0.25, "free row gave %g %g %g", (double)gr, (double)er, (double)Gr);
    TalusSAPRow(PETSC_TRUE, 4.0, 2.0, &gr, &er, &Gr);
    CHECK(gr == 0.0 && er == 0.0 && Gr == 0.0, "a separating non-negative row carries %g", (double)gr);
    TalusSAPRow(PETSC_TRUE, 4.0, -2.0, &gr, &er, &Gr);
    CHECK(gr == 0.5 && Gr == 0.25, "an approaching non-negative row gave %g", (double)gr);
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  unsigned  state      = 11;
  PetscReal worst_proj = 0.0, worst_grad = 0.0, worst_hess = 0.0, worst_sym = 0.0, worst_psd = 0.0;
  PetscInt  counted[3] = {0, 0, 0}, differenced = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckClosedForms());
  for (int k = 0; k < 20000; k++) {
    const PetscReal mu    = k % 10 == 0 ? 0.0 : Uniform(&state, 0.0, 1.5);
    const PetscReal Rn    = PetscPowReal(10.0, Uniform(&state, -4.0, 2.0)),
                    Rt    = PetscPowReal(10.0, Uniform(&state, -4.0, 2.0));
    const PetscReal scale = PetscPowReal(10.0, Uniform(&state, -2.0, 2.0));
    PetscReal       vc[3], g[3], G[9], e;
    TalusSAPRegion  region;
    for (int i = 0; i < 3; i++) vc[i] = scale * Uniform(&state, -1.0, 1.0);
    region = TalusSAPCone(mu, Rn, Rt, vc, g, &e, G);
    counted[region]++;
    worst_proj = PetscMax(worst_proj, ProjectionError(mu, Rn, Rt, vc, g));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        worst_sym = PetscMax(worst_sym, PetscAbsReal(G[3 * i + j] - G[3 * j + i]) / (G[0] + G[4] + G[8] + 1e-300));
    for (int t = 0; t < 4; t++) { /* x.G x >= 0 */
      PetscReal x[3], xGx = 0.0, xx = 0.0;
      for (int i = 0; i < 3; i++) x[i] = Uniform(&state, -1.0, 1.0), xx += x[i] * x[i];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) xGx += x[i] * G[3 * i + j] * x[j];
      worst_psd = PetscMax(worst_psd, -xGx / (xx * (G[0] + G[4] + G[8] + 1e-300)));
    }
    { /* central differences with a step well inside the region (skip points near a boundary) */
      const PetscReal h    = 1e-6 * scale;
      PetscBool       same = PETSC_TRUE;
      PetscReal       gp[3], gm[3], Gp[9], ep, em, dg[9], de[3];
      for (int j = 0; j < 3 && same; j++) {
        PetscReal vp[3] = {vc[0], vc[1], vc[2]}, vm[3] = {vc[0], vc[1], vc[2]};
        vp[j] += h, vm[j] -= h;
        same = (PetscBool)(same && TalusSAPCone(mu, Rn, Rt, vp, gp, &ep, Gp) == region &&
                           TalusSAPCone(mu, Rn, Rt, vm, gm, &em, Gp) == region);
        for (int i = 0; i < 3; i++) dg[3 * i + j] = -(gp[i] - gm[i]) / (2.0 * h);
        de[j] = (ep - em) / (2.0 * h);
      }
      if (same && region != TALUS_SAP_SEPARATE) {
        const PetscReal gs = PetscSqrtReal(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        const PetscReal Gs = PetscSqrtReal(G[0] * G[0] + G[4] * G[4] + G[8] * G[8]);
        differenced++;
        for (int j = 0; j < 3; j++) worst_grad = PetscMax(worst_grad, PetscAbsReal(de[j] + g[j]) / gs);
        for (int i = 0; i < 9; i++) worst_hess = PetscMax(worst_hess, PetscAbsReal(dg[i] - G[i]) / Gs);
      }
    }
  }
  CHECK(counted[0] > 1000 && counted[1] > 1000 && counted[2] > 1000, "regions sampled: %d stick, %d separate, %d slide",
        (int)counted[0], (int)counted[1], (int)counted[2]);
  CHECK(worst_proj < 1e-12, "gamma is the R-projection of y: largest error %g", (double)worst_proj);
  CHECK(differenced > 10000, "only %d contacts differenced", (int)differenced);
  CHECK(worst_grad < 1e-6, "d l / d vc = -gamma: largest relative error %g", (double)worst_grad);
  CHECK(worst_hess < 1e-5, "G = -d gamma / d vc: largest relative error %g", (double)worst_hess);
  CHECK(worst_sym < 1e-14, "G symmetric: largest asymmetry %g", (double)worst_sym);
  CHECK(worst_psd < 1e-14, "G positive semi-definite: most negative x.G x %g", (double)worst_psd);
  {
    const int status = TestSummary("sap_contact");
    PetscCall(PetscFinalize());
    return status;
  }
}
