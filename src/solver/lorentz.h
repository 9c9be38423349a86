/*
 * The algebra of the second-order (Lorentz) cone L = {(x0, x1, x2) : x0 >= ||(x1, x2)||} that a
 * primal-dual interior-point method needs (lorentz.c): the Jordan product and its inverse, the
 * Nesterov-Todd scaling, and the longest step that stays in the cone. Reference: L. Vandenberghe,
 * "The CVXOPT linear and quadratic cone program solvers" (2010), section on second-order cones.
 * L is self-dual; a friction cone K_mu = {||r_t|| <= mu r_n} maps onto it by x = (mu r_n, r_t) and its
 * dual K*_mu = {mu ||u_t|| <= u_n} by s = (u_n / mu, u_t), with x . s = r . u.
 */
#ifndef TALUS_LORENTZ_H
#define TALUS_LORENTZ_H
#include <petscsys.h>

/* a o b = (a . b, a0 b1 + b0 a1, a0 b2 + b0 a2) */
PETSC_INTERN void TalusLorentzProduct(const PetscReal a[3], const PetscReal b[3], PetscReal out[3]);
/* y with a o y = d (a in the interior of L, so that its arrow matrix is invertible) */
PETSC_INTERN void TalusLorentzDivide(const PetscReal a[3], const PetscReal d[3], PetscReal y[3]);

/*
 * The Nesterov-Todd scaling of x, s in the interior of L: the symmetric positive definite W with
 * W x = W^-1 s (= lambda, the scaled point). W = beta (2 v v^T - J), W^-1 = (2 J v v^T J - J) / beta,
 * J = diag(1, -1, -1), v^T J v = 1, beta = (s^T J s / x^T J x)^(1/4). Row-major 3 x 3 out.
 */
PETSC_INTERN void TalusLorentzScaling(const PetscReal x[3], const PetscReal s[3], PetscReal W[9], PetscReal Winv[9],
                                      PetscReal lambda[3]);

/* The largest alpha (PETSC_INFINITY if none) with x + alpha d in L, for x in the interior of L. */
PETSC_INTERN PetscReal TalusLorentzMaxStep(const PetscReal x[3], const PetscReal d[3]);

#endif
