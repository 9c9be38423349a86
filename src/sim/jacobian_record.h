/*
 * Private to jacobian_shell.c and jacobian_faces.c (the core's B, hence jacobian_shell.h's record lengths): a contact's
 * record of the matrix-free B (jacobian_record.c makes it) unpacked, and its part of B^T g for one of its bodies,
 * in the operations of the products (the same bits wherever it is computed).
 */
#ifndef TALUS_JACOBIAN_RECORD_H
#define TALUS_JACOBIAN_RECORD_H
#include "jacobian_shell.h"

/* One contact's record unpacked into scalars (kept in registers: writing small arrays on the stack
   and reading them back as vectors stalls store forwarding). */
typedef struct {
  PetscReal n0, n1, n2, t0, t1, t2, w0, w1, w2; /* frame rows n, t, w = n x t */
  PetscReal a0, a1, a2, b0, b1, b2;             /* world-frame lever arms S_a, S_b */
} Contact;

static inline Contact Unpack(const PetscReal *restrict R, char kind)
{
  Contact c;

  c.n0 = R[0], c.n1 = R[1], c.n2 = R[2], c.t0 = R[3], c.t1 = R[4], c.t2 = R[5];
  c.w0 = c.n1 * c.t2 - c.n2 * c.t1, c.w1 = c.n2 * c.t0 - c.n0 * c.t2, c.w2 = c.n0 * c.t1 - c.n1 * c.t0;
  if (kind == TALUS_JACOBIAN_AXIAL) {
    const PetscReal la = R[6], lb = R[7];
    c.a0 = la * c.n0, c.a1 = la * c.n1, c.a2 = la * c.n2;
    c.b0 = lb * c.n0, c.b1 = lb * c.n1, c.b2 = lb * c.n2;
  } else c.a0 = R[6], c.a1 = R[7], c.a2 = R[8], c.b0 = R[9], c.b1 = R[10], c.b2 = R[11];
  return c;
}

/* f = F^T g of a contact (the force in the world frame) */
static inline void ContactForce(const Contact *restrict k, PetscScalar g0, PetscScalar g1, PetscScalar g2,
                                PetscReal f[3])
{
  f[0] = k->n0 * g0 + k->t0 * g1 + k->w0 * g2, f[1] = k->n1 * g0 + k->t1 * g1 + k->w1 * g2,
  f[2] = k->n2 * g0 + k->t2 * g1 + k->w2 * g2;
}

/* (f, S x f) for the lever arm S of side b (b_side) or a: what B^T g adds to body b and takes from body a */
static inline void SideWrench(const Contact *restrict k, PetscBool b_side, const PetscReal f[3], PetscReal w[6])
{
  const PetscReal s0 = b_side ? k->b0 : k->a0, s1 = b_side ? k->b1 : k->a1, s2 = b_side ? k->b2 : k->a2;

  w[0] = f[0], w[1] = f[1], w[2] = f[2];
  w[3] = s1 * f[2] - s2 * f[1], w[4] = s2 * f[0] - s0 * f[2], w[5] = s0 * f[1] - s1 * f[0];
}

#endif
