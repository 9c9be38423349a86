/*
 * Private to the faceted LCP (lcp_contacts.c, lcp_free_rows.c): a gathered problem's rows put in the
 * order [contacts' cones | one-sided rows | free rows], and its free rows (joints) eliminated.
 */
#ifndef TALUS_LCP_IMPL_H
#define TALUS_LCP_IMPL_H
#include <talus/lcp.h>

/*
 * The problem (W, m x m row-major, and q, in the gathered order) with its free rows eliminated: with
 * `order` listing the u = 3 nc + nl rows that stay (cones, then one-sided) and after them the f free
 * rows, the free impulses solve W_FF r_F = -(q_F + W_FU r_U) whatever r_U is, so
 *
 *     W' = W_UU - W_UF W_FF^-1 W_FU,   q' = q_U - W_UF W_FF^-1 q_F      (u x u, u)
 *
 * is the problem of the rows that stay (seed 002's MLCP with its bilateral rows solved for: the
 * formulations note, sec. 2.4). X = W_FF^-1 [W_FU | q_F] (f x (u + 1), column-major) is kept to
 * recover r_F. W_FF is factorised by Cholesky: *definite is PETSC_FALSE when it is not positive
 * definite (redundant joint rows), and then nothing is allocated.
 */
PETSC_INTERN PetscErrorCode TalusLCPEliminateFreeRows(PetscInt m, const PetscReal W[], const PetscReal q[],
                                                      const PetscInt order[], PetscInt u, PetscInt f, PetscReal **Wu,
                                                      PetscReal **qu, PetscReal **X, PetscBool *definite);
/* r_F = -(X_q + X_U r_U): the free rows' impulses from those of the rows that stayed */
PETSC_INTERN void TalusLCPRecoverFreeRows(PetscInt u, PetscInt f, const PetscReal X[], const PetscReal rU[],
                                          PetscReal rF[]);

#endif
