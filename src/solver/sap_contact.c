/*
 * The analytic projection of one contact's regularised impulse (sap_contact.h). In the variables
 * z = R^1/2 gamma the R-norm projection onto F is the Euclidean one onto the cone of coefficient
 * mu~ = mu sqrt(Rt / Rn); mapped back, with mu^ = mu Rt / Rn (so mu~^2 = mu mu^) and y_r = ||y_t||:
 *   stick     y_r <= mu y_n            gamma = y
 *   separate  mu^ y_r <= -y_n          gamma = 0
 *   slide     otherwise                gamma_n = (y_n + mu^ y_r) / (1 + mu mu^), gamma_t = mu gamma_n y_t / y_r
 * (the three cases of Castro et al., "An unconstrained convex formulation of compliant contact",
 * IEEE T-RO 2022, section V). G = (d gamma / d y) R^-1, differentiated from the same formulas.
 */
#include "sap_contact.h"

TalusSAPRegion TalusSAPCone(PetscReal mu, PetscReal Rn, PetscReal Rt, const PetscReal vc[3], PetscReal gamma[3],
                            PetscReal *energy, PetscReal G[9])
{
  const PetscReal yn = -vc[0] / Rn;
  PetscReal       yt[2], yr, mu_hat, den, t[2];

  if (G)
    for (int k = 0; k < 9; k++) G[k] = 0.0;
  gamma[1] = gamma[2] = 0.0;
  if (mu <= 0.0) { /* a ray: the normal row alone */
    gamma[0] = PetscMax(0.0, yn);
    *energy  = 0.5 * Rn * gamma[0] * gamma[0];
    if (G && yn > 0.0) G[0] = 1.0 / Rn;
    return yn > 0.0 ? TALUS_SAP_STICK : TALUS_SAP_SEPARATE;
  }
  yt[0]  = -vc[1] / Rt;
  yt[1]  = -vc[2] / Rt;
  yr     = PetscSqrtReal(yt[0] * yt[0] + yt[1] * yt[1]);
  mu_hat = mu * Rt / Rn;
  if (yr <= mu * yn) {
    gamma[0] = yn, gamma[1] = yt[0], gamma[2] = yt[1];
    *energy = 0.5 * (Rn * yn * yn + Rt * yr * yr);
    if (G) G[0] = 1.0 / Rn, G[4] = G[8] = 1.0 / Rt;
    return TALUS_SAP_STICK;
  }
  if (mu_hat * yr <= -yn) {
    gamma[0] = 0.0;
    *energy  = 0.0;
    return TALUS_SAP_SEPARATE;
  }
  /* sliding: yr > 0 here (yr <= mu yn failed with yn >= 0, or mu^ yr > -yn > 0) */
  den      = 1.0 + mu * mu_hat;
  t[0]     = yt[0] / yr;
  t[1]     = yt[1] / yr;
  gamma[0] = (yn + mu_hat * yr) / den;
  gamma[1] = mu * gamma[0] * t[0];
  gamma[2] = mu * gamma[0] * t[1];
  *energy  = 0.5 * (Rn + Rt * mu * mu) * gamma[0] * gamma[0];
  if (G) {
    /* d gamma_n / d y = (1, mu^ t) / den; d gamma_t / d y_n = mu t / den;
       d gamma_t / d y_t = mu mu^ t t^T / den + mu gamma_n (I - t t^T) / y_r; column j scaled by 1 / R_j */
    G[0] = 1.0 / (den * Rn);
    for (int i = 0; i < 2; i++) {
      G[1 + i]       = mu_hat * t[i] / (den * Rt);
      G[3 * (1 + i)] = mu * t[i] / (den * Rn);
      for (int j = 0; j < 2; j++)
        G[3 * (1 + i) + 1 + j] = (mu * mu_hat * t[i] * t[j] / den +
                                  mu * gamma[0] * ((i == j ? 1.0 : 0.0) - t[i] * t[j]) / yr) /
                                 Rt;
    }
  }
  return TALUS_SAP_SLIDE;
}

void TalusSAPRow(PetscBool nonnegative, PetscReal R, PetscReal vc, PetscReal *gamma, PetscReal *energy, PetscReal *G)
{
  const PetscReal y      = -vc / R;
  const PetscBool active = (PetscBool)(!nonnegative || y > 0.0);

  *gamma  = active ? y : 0.0;
  *energy = 0.5 * R * (*gamma) * (*gamma);
  if (G) *G = active ? 1.0 / R : 0.0;
}
