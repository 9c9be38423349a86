/*
 * B = D^T (seed 000 eq. 7) applied matrix-free from a compact record per contact instead of an
 * assembled MPIAIJ matrix. The body-space vectors hold, per body, the velocity and the angular
 * velocity both in the world frame. Contact c between bodies a and b has the frame rows
 * d_r = (n, t, n x t) and the lever arms S_a, S_b from each centre to the contact point, in the
 * world frame (S = A s of seed 000 eq. 7, whose rotational block (s x A^T d)^T omega_body equals
 * d . (omega_world x S)), so
 *
 *   (B v)_c    = F (v_b + omega_b x S_b - v_a - omega_a x S_a),   F = [n; t; n x t],
 *   (B^T g)_b += (f, S_b x f),   (B^T g)_a -= (f, S_a x f),     f = F^T g,
 *
 * and a contact is 12 doubles (n, t, S_a, S_b) and two body slots: 104 B, where the assembled row
 * block is 36 values and 36 column indices (432 B). When both lever arms lie along the normal
 * (spheres against spheres and planes: the granular bed's contacts), S = lambda n and the record
 * is "axial", 8 doubles (n, t, lambda_a, lambda_b): 72 B; then omega x S = lambda (omega x n) and
 * S x f = lambda (n x f). Records follow each other in contact order, their kinds (lengths) in a
 * byte per contact.
 * The price of world-frame angular velocities is a mass matrix that is no longer diagonal: M^-1 per
 * body is 1/m and the world-frame inverse inertia A J^-1 A^T (6 numbers), applied by
 * TalusJacobianApplyInverseMass().
 *
 * After the contacts' rows come free rows (joints): a row is its row of B for each of its two
 * bodies, linear and angular parts in the world frame, 12 doubles and two slots, so that
 * (B v)_r = G_a . x_a + G_b . x_b and (B^T g)_a += g_r G_a (TALUS_JACOBIAN_ROW).
 *
 * The body-space vectors are ghosted (VecCreateGhostBlock, block 6): slots [0, nd) are this
 * rank's dynamic bodies, the following ones the other ranks' bodies that its contacts touch. B v
 * refreshes the ghosts first (VecGhostUpdate forward); B^T g accumulates into owned slots, and the
 * bodies with contacts on other ranks are summed again in the contacts' order from every rank's terms
 * (jacobian_faces.c: the same bits on any number of ranks); the free rows' parts for ghosts are then
 * added to their owners (VecGhostUpdate reverse, where a row reaches a ghost).
 */
#include "sim_impl.h"
#include "jacobian_wide.h"
#include "jacobian_record.h"
#include "jacobian_faces.h"
#include <petscbt.h>

/* Software prefetch of the records 32 contacts (2-3 KB) ahead: without it the two products wait on
   memory (docs/notes/2026-11-performance-records.md). Prefetching past the end of the array is harmless. */
#define JACOBIAN_AHEAD 32
static inline void PrefetchRecord(const PetscReal *R)
{
  __builtin_prefetch(R + TALUS_JACOBIAN_AXIAL * JACOBIAN_AHEAD);
  __builtin_prefetch(R + TALUS_JACOBIAN_AXIAL * JACOBIAN_AHEAD + 8); /* a record may span two cache lines */
}

typedef struct {
  PetscInt         n;        /* contacts */
  PetscInt         ndynamic; /* owned dynamic bodies */
  const PetscInt  *slot;     /* 2 per contact: the body's slot in the ghosted local vector, -1 if fixed */
  const PetscReal *J;        /* the records, one after the other: n, t, then lambda_a, lambda_b or S_a, S_b */
  PetscReal       *wide;     /* the axial records transposed for jacobian_wide.c, or NULL */
  const char      *kind;     /* per contact: TALUS_JACOBIAN_AXIAL or TALUS_JACOBIAN_GENERAL, the record's length */
  const PetscReal *minv;     /* TALUS_INVERSE_MASS per slot (owned dynamic bodies, then ghosts): 1/m, then A J^-1 A^T as
                            xx yy zz xy xz yz */
  /* B^T g assigns a body's entries at its first contact instead of zeroing the whole body vector
     first, which would be a pass of its own: */
  unsigned char   *first;              /* per contact: FIRST_A, FIRST_B if it is the first contact of its body a, b */
  PetscInt        *untouched;          /* the slots below nslots no contact touches (zeroed by each B^T g) */
  PetscInt         nuntouched, nslots; /* slots the contacts and rows touch: [0, nslots) */
  PetscInt         nrows;              /* free rows after the contacts' */
  const PetscInt  *row_slot;           /* 2 per row, as slot */
  const PetscReal *row_J;              /* TALUS_JACOBIAN_ROW per row */
  PetscInt        *offset;             /* per contact, where its record starts (made for TalusMatGetBlockRows) */
  PetscInt         nplanar;            /* owned slots of bodies that move in a plane (planar.c) */
  const PetscInt  *planar_slot;
  const PetscReal *planar_normal; /* 3 per planar slot */
  /* on more than one rank, the bodies whose contacts lie on several ranks (jacobian_faces.c), and whether a free
     row touches a ghost on any rank (else B^T g's reverse scatter has nothing to add) */
  TalusJacobianFaces faces;
  PetscBool          rows_reach_ghosts;
} JacobianShell;

enum {
  FIRST_A = 1,
  FIRST_B = 2 /* the values TalusScatterArgs documents */
};

static PetscErrorCode LocalForm(Vec v, Vec *local)
{
  PetscFunctionBegin;
  PetscCall(VecGhostGetLocalForm(v, local));
  PetscCheck(*local, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG,
             "the matrix-free B needs body-space vectors made by VecCreateGhostBlock (see TalusSimAssembleCCP)");
  PetscFunctionReturn(0);
}

/* (B x)_c of one contact: F (v_b + omega_b x S_b - v_a - omega_a x S_a) */
static inline void GatherOne(const Contact *restrict k, PetscInt a, PetscInt b, const PetscScalar *restrict xv,
                             PetscReal *u0, PetscReal *u1, PetscReal *u2)
{
  PetscReal r0 = 0.0, r1 = 0.0, r2 = 0.0;

  if (b >= 0) {
    const PetscScalar *v = &xv[6 * b];
    r0 = v[0] + v[4] * k->b2 - v[5] * k->b1, r1 = v[1] + v[5] * k->b0 - v[3] * k->b2,
    r2 = v[2] + v[3] * k->b1 - v[4] * k->b0;
  }
  if (a >= 0) {
    const PetscScalar *v = &xv[6 * a];
    r0 -= v[0] + v[4] * k->a2 - v[5] * k->a1, r1 -= v[1] + v[5] * k->a0 - v[3] * k->a2,
      r2 -= v[2] + v[3] * k->a1 - v[4] * k->a0;
  }
  *u0 = k->n0 * r0 + k->n1 * r1 + k->n2 * r2, *u1 = k->t0 * r0 + k->t1 * r1 + k->t2 * r2,
  *u2 = k->w0 * r0 + k->w1 * r1 + k->w2 * r2;
}

/* u_c = (B x)_c of contact c; y_c = u, or y_c = z_c + u, or (add) y_c += u; plus sv[c] on the normal row; then,
   with ev, plus E r row by row (seed 004's N + E: the compliance in the same pass, not two more over the rows) */
static inline void GatherContact(PetscInt c, PetscInt offset, const PetscInt *restrict slot, const char *restrict kind,
                                 const PetscReal *restrict J, const PetscScalar *restrict xv,
                                 const PetscScalar *restrict dv, const PetscScalar *restrict zv,
                                 const PetscScalar *restrict sv, const PetscScalar *restrict ev,
                                 const PetscScalar *restrict rv, PetscBool add, PetscScalar *restrict yv)
{
  const Contact k = Unpack(&J[offset], kind[c]);
  PetscReal     u0, u1, u2, e[3] = {0.0, 0.0, 0.0};

  PrefetchRecord(&J[offset]);
  GatherOne(&k, slot[2 * c], slot[2 * c + 1], xv, &u0, &u1, &u2);
  if (dv) { /* D (B x + E D r) + z + shift: the operations of the pointwise products around N (ccp_scaling.c),
               row by row in registers (a loop over the three through memory cost a tenth of the product) */
    const PetscScalar *d = &dv[3 * c];
    if (ev) {
      const PetscScalar *e = &ev[3 * c], *r = &rv[3 * c];
      u0 += e[0] * (d[0] * r[0]), u1 += e[1] * (d[1] * r[1]), u2 += e[2] * (d[2] * r[2]);
    }
    u0 *= d[0], u1 *= d[1], u2 *= d[2];
    if (add) u0 += yv[3 * c], u1 += yv[3 * c + 1], u2 += yv[3 * c + 2];
    else if (zv) u0 += zv[3 * c], u1 += zv[3 * c + 1], u2 += zv[3 * c + 2];
    if (sv) u0 += sv[c];
    yv[3 * c] = u0, yv[3 * c + 1] = u1, yv[3 * c + 2] = u2;
    return;
  }
  if (ev)
    for (int i = 0; i < 3; i++) e[i] = ev[3 * c + i] * rv[3 * c + i];
  if (sv) u0 += sv[c];
  if (add) u0 += yv[3 * c], u1 += yv[3 * c + 1], u2 += yv[3 * c + 2];
  else if (zv) u0 += zv[3 * c], u1 += zv[3 * c + 1], u2 += zv[3 * c + 2];
  if (ev) u0 += e[0], u1 += e[1], u2 += e[2];
  yv[3 * c] = u0, yv[3 * c + 1] = u1, yv[3 * c + 2] = u2;
}

/* GatherContact for each contact; the scaled form (dv) 8 axial contacts at a time where the processor can
   (jacobian_wide.c: the same bits), the rest one at a time */
static void GatherContacts(PetscInt n, const PetscInt *restrict slot, const char *restrict kind,
                           const PetscReal *restrict J, const PetscReal *wide, const PetscScalar *restrict xv,
                           const PetscScalar *restrict dv, const PetscScalar *restrict zv,
                           const PetscScalar *restrict sv, const PetscScalar *restrict ev,
                           const PetscScalar *restrict rv, PetscBool add, PetscScalar *restrict yv)
{
  PetscInt c = 0, offset = 0;

  while (c < n) {
    if (dv && wide) {
      const TalusGatherArgs g = {&slot[2 * c],
                                 &kind[c],
                                 &wide[8 * c],
                                 xv,
                                 &dv[3 * c],
                                 zv ? &zv[3 * c] : NULL,
                                 sv ? &sv[c] : NULL,
                                 ev ? &ev[3 * c] : NULL,
                                 rv ? &rv[3 * c] : NULL,
                                 add,
                                 &yv[3 * c]};
      const PetscInt        m = TalusJacobianGatherWide(n - c, &g);
      c += m, offset += TALUS_JACOBIAN_AXIAL * m;
    }
    /* a group the wide code did not take, or all of them */
    for (const PetscInt end = dv && wide ? PetscMin(c + 8, n) : n; c < end; offset += kind[c++])
      GatherContact(c, offset, slot, kind, J, xv, dv, zv, sv, ev, rv, add, yv);
  }
}

/* a free row's G_a . x_a + G_b . x_b */
static inline PetscReal GatherRow(const PetscReal *restrict G, PetscInt a, PetscInt b, const PetscScalar *restrict xv)
{
  PetscReal u = 0.0;

  for (int side = 0; side < 2; side++) {
    const PetscInt s = side ? b : a;
    if (s < 0) continue;
    for (int e = 0; e < 6; e++) u += G[6 * side + e] * xv[6 * s + e];
  }
  return u;
}

/* the free rows' part of GatherContacts (no shift: that is the contacts' normal rows') */
static void GatherRows(PetscInt n, const PetscInt *restrict slot, const PetscReal *restrict J,
                       const PetscScalar *restrict xv, const PetscScalar *restrict dv, const PetscScalar *restrict zv,
                       const PetscScalar *restrict ev, const PetscScalar *restrict rv, PetscBool add,
                       PetscScalar *restrict yv)
{
  for (PetscInt r = 0; r < n; r++) {
    const PetscReal u = GatherRow(&J[TALUS_JACOBIAN_ROW * r], slot[2 * r], slot[2 * r + 1], xv);
    if (dv) { /* D (B x + E D r) + z, as GatherContacts */
      PetscReal w = ev ? u + ev[r] * (dv[r] * rv[r]) : u;
      w *= dv[r];
      if (add) w += yv[r];
      else if (zv) w += zv[r];
      yv[r] = w;
      continue;
    }
    const PetscReal e = ev ? ev[r] * rv[r] : 0.0;
    yv[r]             = (add ? yv[r] : zv ? zv[r] : 0.0) + u;
    if (ev) yv[r] += e;
  }
}

/* y = B x, or y = z + B x when z is given (z may be y), plus the normal shift if given, plus E r if E is
   given (r not y): one pass over the contacts (TalusMatMultAddNormalShift, TalusMatMultAddCompliance), then
   the free rows. With d, the rows scaled: y = D (B x + E D r) + z + shift (ccp_scaling.c's problem), to the last bit
   what the pointwise products around N give. */
static PetscErrorCode JacobianApplyCompliance(Mat B, Vec x, Vec d, Vec z, Vec shift, Vec E, Vec r, Vec y)
{
  JacobianShell     *ctx;
  Vec                xl;
  const PetscScalar *xv, *dv = NULL, *zv = NULL, *sv = NULL, *ev = NULL, *rv = NULL;
  PetscScalar       *yv;
  const PetscBool    add = (PetscBool)(z && z == y);

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  if (shift) {
    PetscInt nc;
    PetscCall(VecGetLocalSize(shift, &nc));
    PetscCheck(nc == ctx->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "the normal shift has %" PetscInt_FMT " local entries for %" PetscInt_FMT " contacts", nc, ctx->n);
  }
  PetscCall(VecGhostUpdateBegin(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGhostUpdateEnd(x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(LocalForm(x, &xl));
  PetscCall(VecGetArrayRead(xl, &xv));
  if (z && !add) PetscCall(VecGetArrayRead(z, &zv));
  if (shift) PetscCall(VecGetArrayRead(shift, &sv));
  PetscCheck(!E || r != y, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "E r added into r itself");
  if (E) PetscCall(VecGetArrayRead(E, &ev));
  if (E) PetscCall(VecGetArrayRead(r, &rv));
  if (d) PetscCall(VecGetArrayRead(d, &dv));
  PetscCall(VecGetArray(y, &yv));
  GatherContacts(ctx->n, ctx->slot, ctx->kind, ctx->J, ctx->wide, xv, dv, zv, sv, ev, rv, add, yv);
  GatherRows(ctx->nrows, ctx->row_slot, ctx->row_J, xv, dv ? dv + 3 * ctx->n : NULL, zv ? zv + 3 * ctx->n : NULL,
             ev ? ev + 3 * ctx->n : NULL, rv ? rv + 3 * ctx->n : NULL, add, yv + 3 * ctx->n);
  PetscCall(VecRestoreArray(y, &yv));
  if (d) PetscCall(VecRestoreArrayRead(d, &dv));
  if (E) PetscCall(VecRestoreArrayRead(r, &rv));
  if (E) PetscCall(VecRestoreArrayRead(E, &ev));
  if (sv) PetscCall(VecRestoreArrayRead(shift, &sv));
  if (zv) PetscCall(VecRestoreArrayRead(z, &zv));
  PetscCall(VecRestoreArrayRead(xl, &xv));
  PetscCall(VecGhostRestoreLocalForm(x, &xl));
  PetscCall(PetscLogFlops(48.0 * ctx->n + 24.0 * ctx->nrows));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianApply(Mat B, Vec x, Vec z, Vec shift, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApplyCompliance(B, x, NULL, z, shift, NULL, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMult(Mat B, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApply(B, x, NULL, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMultAdd(Mat B, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianApply(B, x, z, NULL, y));
  PetscFunctionReturn(0);
}

/* contact c's part of y = B^T D g, into owned and ghost slots: a body's first contact assigns its entries (the
   vector's may be stale), the others add to them */
static inline void ScatterContact(PetscInt c, PetscInt offset, const PetscInt *restrict slot, const char *restrict kind,
                                  const PetscReal *restrict J, const unsigned char *restrict first,
                                  const PetscScalar *restrict dv, const PetscScalar *restrict gv,
                                  PetscScalar *restrict yv)
{
  const PetscInt    a = slot[2 * c], b = slot[2 * c + 1];
  const Contact     k  = Unpack(&J[offset], kind[c]);
  const PetscScalar g0 = dv ? dv[3 * c] * gv[3 * c] : gv[3 * c],
                    g1 = dv ? dv[3 * c + 1] * gv[3 * c + 1] : gv[3 * c + 1],
                    g2 = dv ? dv[3 * c + 2] * gv[3 * c + 2] : gv[3 * c + 2];
  const PetscReal f0 = k.n0 * g0 + k.t0 * g1 + k.w0 * g2, f1 = k.n1 * g0 + k.t1 * g1 + k.w1 * g2,
                  f2 = k.n2 * g0 + k.t2 * g1 + k.w2 * g2;

  PrefetchRecord(&J[offset]);
  if (b >= 0) { /* +f and S_b x f */
    PetscScalar    *y    = &yv[6 * b];
    const PetscBool keep = !(first[c] & FIRST_B);
    y[0] = (keep ? y[0] : 0.0) + f0, y[1] = (keep ? y[1] : 0.0) + f1, y[2] = (keep ? y[2] : 0.0) + f2;
    y[3] = (keep ? y[3] : 0.0) + (k.b1 * f2 - k.b2 * f1), y[4] = (keep ? y[4] : 0.0) + (k.b2 * f0 - k.b0 * f2),
    y[5] = (keep ? y[5] : 0.0) + (k.b0 * f1 - k.b1 * f0);
  }
  if (a >= 0) { /* -f and -(S_a x f) */
    PetscScalar    *y    = &yv[6 * a];
    const PetscBool keep = !(first[c] & FIRST_A);
    y[0] = (keep ? y[0] : 0.0) - f0, y[1] = (keep ? y[1] : 0.0) - f1, y[2] = (keep ? y[2] : 0.0) - f2;
    y[3] = (keep ? y[3] : 0.0) - (k.a1 * f2 - k.a2 * f1), y[4] = (keep ? y[4] : 0.0) - (k.a2 * f0 - k.a0 * f2),
    y[5] = (keep ? y[5] : 0.0) - (k.a0 * f1 - k.a1 * f0);
  }
}

/* y = B^T D g, contact after contact: 8 axial contacts at a time where the processor can (jacobian_wide.c: the
   same bits), the rest one at a time */
static void ScatterContacts(PetscInt n, const PetscInt *restrict slot, const char *restrict kind,
                            const PetscReal *restrict J, const PetscReal *wide, const unsigned char *restrict first,
                            const PetscScalar *restrict dv, const PetscScalar *restrict gv, PetscScalar *restrict yv)
{
  PetscInt c = 0, offset = 0;

  while (c < n) {
    if (wide) {
      const TalusScatterArgs s = {&slot[2 * c], &kind[c], &wide[8 * c], &first[c], dv ? &dv[3 * c] : NULL,
                                  &gv[3 * c],   yv};
      const PetscInt         m = TalusJacobianScatterWide(n - c, &s);
      c += m, offset += TALUS_JACOBIAN_AXIAL * m;
    }
    for (const PetscInt end = wide ? PetscMin(c + 8, n) : n; c < end; offset += kind[c++])
      ScatterContact(c, offset, slot, kind, J, first, dv, gv, yv);
  }
}

/* y += B^T g of the free rows (after the contacts, which assigned what they touch first) */
static void ScatterRows(PetscInt n, const PetscInt *restrict slot, const PetscReal *restrict J,
                        const PetscScalar *restrict dv, const PetscScalar *restrict gv, PetscScalar *restrict yv)
{
  for (PetscInt r = 0; r < n; r++)
    for (int side = 0; side < 2; side++) {
      const PetscInt    s = slot[2 * r + side];
      const PetscScalar g = dv ? dv[r] * gv[r] : gv[r];
      if (s < 0) continue;
      for (int e = 0; e < 6; e++) yv[6 * s + e] += g * J[TALUS_JACOBIAN_ROW * r + 6 * side + e];
    }
}

/* y = B^T D g (D = diag(d); d NULL: the identity) */
static PetscErrorCode JacobianMultTransposeScaled(Mat B, Vec d, Vec g, Vec y)
{
  JacobianShell     *ctx;
  Vec                yl;
  const PetscScalar *gv, *dv = NULL;
  PetscScalar       *yv;
  PetscInt           nlocal;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(LocalForm(y, &yl));
  PetscCall(VecGetLocalSize(yl, &nlocal));
  PetscCall(VecGetArrayRead(g, &gv));
  PetscCall(VecGetArray(yl, &yv));
  /* the slots no contact assigns: untouched owned bodies, and any beyond those the contacts touch */
  for (PetscInt u = 0; u < ctx->nuntouched; u++) PetscCall(PetscArrayzero(&yv[6 * ctx->untouched[u]], 6));
  if (nlocal > 6 * ctx->nslots) PetscCall(PetscArrayzero(&yv[6 * ctx->nslots], nlocal - 6 * ctx->nslots));
  if (d) PetscCall(VecGetArrayRead(d, &dv));
  if (ctx->faces) PetscCall(TalusJacobianFacesBegin(ctx->faces, ctx->J, ctx->kind, dv, gv));
  ScatterContacts(ctx->n, ctx->slot, ctx->kind, ctx->J, ctx->wide, ctx->first, dv, gv, yv);
  if (ctx->faces) { /* the face bodies' sums in one rank's order; the ghosts' contact terms went with them */
    PetscCall(TalusJacobianFacesEnd(ctx->faces, ctx->J, ctx->kind, dv, gv, yv));
    if (ctx->nslots > ctx->ndynamic)
      PetscCall(PetscArrayzero(&yv[6 * ctx->ndynamic], 6 * (ctx->nslots - ctx->ndynamic)));
  }
  ScatterRows(ctx->nrows, ctx->row_slot, ctx->row_J, dv ? dv + 3 * ctx->n : NULL, gv + 3 * ctx->n, yv);
  if (d) PetscCall(VecRestoreArrayRead(d, &dv));
  PetscCall(VecRestoreArray(yl, &yv));
  PetscCall(VecRestoreArrayRead(g, &gv));
  PetscCall(VecGhostRestoreLocalForm(y, &yl));
  if (!ctx->faces || ctx->rows_reach_ghosts) { /* the ghosts' partial sums to their owners */
    PetscCall(VecGhostUpdateBegin(y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecGhostUpdateEnd(y, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscCall(PetscLogFlops(51.0 * ctx->n + 24.0 * ctx->nrows));
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianMultTranspose(Mat B, Vec g, Vec y)
{
  PetscFunctionBegin;
  PetscCall(JacobianMultTransposeScaled(B, NULL, g, y));
  PetscFunctionReturn(0);
}

/* v <- M^-1 v on this rank's bodies, M^-1 = diag(1/m, 1/m, 1/m, A J^-1 A^T) per body (world frame). */
PetscErrorCode TalusJacobianApplyInverseMass(Vec v, void *B)
{
  JacobianShell *ctx;
  PetscScalar   *x;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext((Mat)B, &ctx));
  PetscCall(VecGetArray(v, &x));
  for (PetscInt k = 0; k < ctx->ndynamic; k++) {
    const PetscReal *m    = &ctx->minv[TALUS_INVERSE_MASS * k];
    PetscScalar     *e    = &x[6 * k];
    const PetscReal  w[3] = {e[3], e[4], e[5]};
    for (int j = 0; j < 3; j++) e[j] *= m[0];
    e[3] = m[1] * w[0] + m[4] * w[1] + m[5] * w[2];
    e[4] = m[4] * w[0] + m[2] * w[1] + m[6] * w[2];
    e[5] = m[5] * w[0] + m[6] * w[1] + m[3] * w[2];
  }
  for (PetscInt p = 0; p < ctx->nplanar; p++) { /* (1 - n n^T) / m: their records' angular part is planar */
    const PetscReal *n     = &ctx->planar_normal[3 * p];
    PetscScalar     *e     = &x[6 * ctx->planar_slot[p]];
    const PetscReal  along = n[0] * e[0] + n[1] * e[1] + n[2] * e[2];
    for (int j = 0; j < 3; j++) e[j] -= along * n[j];
  }
  PetscCall(VecRestoreArray(v, &x));
  PetscCall(PetscLogFlops(18.0 * ctx->ndynamic));
  PetscFunctionReturn(0);
}

/* Each body's first contact, and the slots no contact touches: the owned ones, and ghost slots of
   bodies only free rows touch (ghost slots exist only for bodies that contacts or rows touch) */
static PetscErrorCode FirstContacts(JacobianShell *ctx)
{
  PetscBT seen;

  PetscFunctionBegin;
  ctx->nslots = ctx->ndynamic;
  for (PetscInt e = 0; e < 2 * ctx->n; e++) ctx->nslots = PetscMax(ctx->nslots, ctx->slot[e] + 1);
  for (PetscInt e = 0; e < 2 * ctx->nrows; e++) ctx->nslots = PetscMax(ctx->nslots, ctx->row_slot[e] + 1);
  PetscCall(PetscBTCreate(ctx->nslots, &seen));
  PetscCall(PetscMalloc2(ctx->n, &ctx->first, ctx->nslots, &ctx->untouched));
  for (PetscInt c = 0; c < ctx->n; c++) {
    const PetscInt a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
    ctx->first[c] = (unsigned char)((a >= 0 && !PetscBTLookupSet(seen, a) ? FIRST_A : 0) |
                                    (b >= 0 && !PetscBTLookupSet(seen, b) ? FIRST_B : 0));
  }
  ctx->nuntouched = 0;
  for (PetscInt k = 0; k < ctx->nslots; k++)
    if (!PetscBTLookup(seen, k)) ctx->untouched[ctx->nuntouched++] = k;
  PetscCall(PetscBTDestroy(&seen));
  PetscFunctionReturn(0);
}

/* ---- one contact at a time (TalusBlockRows, for Gauss-Seidel on body velocities) */

static void BlockGather(void *vctx, PetscInt c, const PetscScalar *w, PetscScalar u[3])
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  const Contact        k   = Unpack(&ctx->J[ctx->offset[c]], ctx->kind[c]);
  PetscReal            u0, u1, u2;

  GatherOne(&k, ctx->slot[2 * c], ctx->slot[2 * c + 1], w, &u0, &u1, &u2);
  u[0] = u0, u[1] = u1, u[2] = u2;
}

/* y = M_s^-1 x for one body's record m (as TalusJacobianApplyInverseMass) */
static inline void InverseMassTimes(const PetscReal *m, const PetscReal x[6], PetscReal y[6])
{
  for (int j = 0; j < 3; j++) y[j] = m[0] * x[j];
  y[3] = m[1] * x[3] + m[4] * x[4] + m[5] * x[5];
  y[4] = m[4] * x[3] + m[2] * x[4] + m[6] * x[5];
  y[5] = m[5] * x[3] + m[6] * x[4] + m[3] * x[5];
}

/* w_s += sign M_s^-1 (f, S x f) for the body in slot s (M^-1 as in TalusJacobianApplyInverseMass) */
static inline void AddInverseMassWrench(const PetscReal *restrict m, PetscReal sign, const PetscReal f[3],
                                        const PetscReal S[3], PetscScalar *restrict w)
{
  PetscReal x[6] = {f[0], f[1], f[2]}, y[6];

  TalusCross3(S, f, &x[3]);
  InverseMassTimes(m, x, y);
  for (int e = 0; e < 6; e++) w[e] += sign * y[e]; /* sign is +-1: the same numbers as before */
}

static void BlockScatter(void *vctx, PetscInt c, const PetscScalar g[3], PetscScalar *w)
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  const Contact        k   = Unpack(&ctx->J[ctx->offset[c]], ctx->kind[c]);
  const PetscInt       a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
  const PetscReal      f[3]  = {k.n0 * g[0] + k.t0 * g[1] + k.w0 * g[2], k.n1 * g[0] + k.t1 * g[1] + k.w1 * g[2],
                                k.n2 * g[0] + k.t2 * g[1] + k.w2 * g[2]};
  const PetscReal      Sa[3] = {k.a0, k.a1, k.a2}, Sb[3] = {k.b0, k.b1, k.b2};

  if (b >= 0) AddInverseMassWrench(&ctx->minv[TALUS_INVERSE_MASS * b], 1.0, f, Sb, &w[6 * b]);
  if (a >= 0) AddInverseMassWrench(&ctx->minv[TALUS_INVERSE_MASS * a], -1.0, f, Sa, &w[6 * a]);
}

/* W_cc column by column: B_c M^-1 B_c^T e_j, on a local body vector of the contact's two bodies */
static void BlockDiagonal(void *vctx, PetscInt c, PetscReal W[9])
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  const Contact        k   = Unpack(&ctx->J[ctx->offset[c]], ctx->kind[c]);
  const PetscInt       a = ctx->slot[2 * c], b = ctx->slot[2 * c + 1];
  const PetscInt       la = a >= 0 ? 0 : -1, lb = b >= 0 ? 1 : -1; /* their slots in the small vector */

  for (int j = 0; j < 3; j++) {
    PetscScalar     w[12] = {0.0};
    const PetscReal e[3]  = {j == 0, j == 1, j == 2};
    const PetscReal f[3]  = {k.n0 * e[0] + k.t0 * e[1] + k.w0 * e[2], k.n1 * e[0] + k.t1 * e[1] + k.w1 * e[2],
                             k.n2 * e[0] + k.t2 * e[1] + k.w2 * e[2]};
    const PetscReal Sa[3] = {k.a0, k.a1, k.a2}, Sb[3] = {k.b0, k.b1, k.b2};
    PetscReal       u0, u1, u2;
    if (b >= 0) AddInverseMassWrench(&ctx->minv[TALUS_INVERSE_MASS * b], 1.0, f, Sb, &w[6]);
    if (a >= 0) AddInverseMassWrench(&ctx->minv[TALUS_INVERSE_MASS * a], -1.0, f, Sa, &w[0]);
    GatherOne(&k, la, lb, w, &u0, &u1, &u2);
    W[j] = u0, W[3 + j] = u1, W[6 + j] = u2;
  }
}

static void BlockSlots(void *vctx, PetscInt c, PetscInt slot[2])
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  slot[0] = ctx->slot[2 * c], slot[1] = ctx->slot[2 * c + 1];
}

/* ---- one free row at a time (joints) */

static PetscScalar RowGather(void *vctx, PetscInt r, const PetscScalar *w)
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  return GatherRow(&ctx->row_J[TALUS_JACOBIAN_ROW * r], ctx->row_slot[2 * r], ctx->row_slot[2 * r + 1], w);
}

/* w_s += f M_s^-1 G_s for each side's body */
static void RowScatter(void *vctx, PetscInt r, PetscScalar f, PetscScalar *w)
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;

  for (int side = 0; side < 2; side++) {
    const PetscInt s = ctx->row_slot[2 * r + side];
    PetscReal      y[6];
    if (s < 0) continue;
    InverseMassTimes(&ctx->minv[TALUS_INVERSE_MASS * s], &ctx->row_J[TALUS_JACOBIAN_ROW * r + 6 * side], y);
    for (int e = 0; e < 6; e++) w[6 * s + e] += f * y[e];
  }
}

/* W_rr = sum over the sides of G_s . M_s^-1 G_s */
static PetscReal RowDiagonal(void *vctx, PetscInt r)
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  PetscReal            d   = 0.0;

  for (int side = 0; side < 2; side++) {
    const PetscInt   s = ctx->row_slot[2 * r + side];
    const PetscReal *G = &ctx->row_J[TALUS_JACOBIAN_ROW * r + 6 * side];
    PetscReal        y[6];
    if (s < 0) continue;
    InverseMassTimes(&ctx->minv[TALUS_INVERSE_MASS * s], G, y);
    for (int e = 0; e < 6; e++) d += G[e] * y[e];
  }
  return d;
}

static void RowSlots(void *vctx, PetscInt r, PetscInt slot[2])
{
  const JacobianShell *ctx = (const JacobianShell *)vctx;
  slot[0] = ctx->row_slot[2 * r], slot[1] = ctx->row_slot[2 * r + 1];
}

static PetscErrorCode JacobianGetBlockRows(Mat B, TalusBlockRows *rows)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCheck(!ctx->nplanar, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Gauss-Seidel on body velocities (nbgs) cannot hold bodies in a plane (%" PetscInt_FMT
             " planar bodies on this rank): use apgd",
             ctx->nplanar);
  if (!ctx->offset) {
    PetscCall(PetscMalloc1(ctx->n + 1, &ctx->offset));
    ctx->offset[0] = 0;
    for (PetscInt c = 0; c < ctx->n; c++) ctx->offset[c + 1] = ctx->offset[c] + ctx->kind[c];
  }
  rows->nblocks      = ctx->n;
  rows->ctx          = ctx;
  rows->gather       = BlockGather;
  rows->scatter      = BlockScatter;
  rows->block        = BlockDiagonal;
  rows->slots        = BlockSlots;
  rows->nrows        = ctx->nrows;
  rows->row_gather   = RowGather;
  rows->row_scatter  = RowScatter;
  rows->row_diagonal = RowDiagonal;
  rows->row_slots    = RowSlots;
  PetscFunctionReturn(0);
}

static PetscErrorCode JacobianDestroy(Mat B)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "TalusMatMultAddNormalShift_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "TalusMatMultAddCompliance_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "TalusMatMultTransposeScaled_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "TalusMatGetBlockRows_C", NULL));
  PetscCall(PetscFree2(ctx->first, ctx->untouched));
  PetscCall(TalusJacobianFacesDestroy(&ctx->faces));
  PetscCall(PetscFree(ctx->offset));
  PetscCall(PetscFree(ctx->wide));
  PetscCall(PetscFree(ctx)); /* the records are the caller's (kept from step to step) */
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianSetPlanar(Mat B, PetscInt n, const PetscInt slot[], const PetscReal normal[])
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  ctx->nplanar = n, ctx->planar_slot = slot, ctx->planar_normal = normal;
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianSetFaces(Mat B, const TalusContact *contacts, const PetscInt *ghost_block)
{
  JacobianShell *ctx;
  MPI_Comm       comm;
  PetscMPIInt    size;
  PetscLayout    columns;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(B, &ctx));
  PetscCall(PetscObjectGetComm((PetscObject)B, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(TalusJacobianFacesDestroy(&ctx->faces));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(MatGetLayouts(B, NULL, &columns));
  PetscCall(TalusJacobianFacesCreate(comm, columns, ctx->n, ctx->slot, ctx->kind, contacts, ctx->ndynamic, ghost_block,
                                     &ctx->faces));
  ctx->rows_reach_ghosts = PETSC_FALSE;
  for (PetscInt e = 0; e < 2 * ctx->nrows; e++) ctx->rows_reach_ghosts |= ctx->row_slot[e] >= ctx->ndynamic;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ctx->rows_reach_ghosts, 1, MPIU_BOOL, MPI_LOR, comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TalusJacobianCreateShell(PetscLayout rows, PetscLayout columns, PetscInt ncontacts, PetscInt nrows,
                                        PetscInt ndynamic, const PetscInt *slot, const char *kind, const PetscReal *J,
                                        const PetscInt *row_slot, const PetscReal *row_J, const PetscReal *minv, Mat *B)
{
  JacobianShell *ctx;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  ctx->n = ncontacts, ctx->ndynamic = ndynamic, ctx->slot = slot, ctx->kind = kind, ctx->J = J, ctx->minv = minv;
  ctx->nrows = nrows, ctx->row_slot = row_slot, ctx->row_J = row_J;
  PetscCall(FirstContacts(ctx));
  PetscCall(TalusJacobianWideRecords(ncontacts, kind, J, &ctx->wide));
  PetscCheck(rows->n == 3 * ncontacts + nrows && columns->n == 6 * ndynamic, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "B's layouts (%" PetscInt_FMT " rows, %" PetscInt_FMT " columns here) do not fit its blocks", rows->n,
             columns->n);
  PetscCall(TalusMatCreateShellOnLayouts(rows, columns, ctx, B));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT, (void (*)(void))JacobianMult));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_ADD, (void (*)(void))JacobianMultAdd));
  PetscCall(MatShellSetOperation(*B, MATOP_MULT_TRANSPOSE, (void (*)(void))JacobianMultTranspose));
  PetscCall(MatShellSetOperation(*B, MATOP_DESTROY, (void (*)(void))JacobianDestroy));
  PetscCall(PetscObjectComposeFunction((PetscObject)*B, "TalusMatMultAddNormalShift_C", JacobianApply));
  PetscCall(PetscObjectComposeFunction((PetscObject)*B, "TalusMatMultAddCompliance_C", JacobianApplyCompliance));
  PetscCall(PetscObjectComposeFunction((PetscObject)*B, "TalusMatMultTransposeScaled_C", JacobianMultTransposeScaled));
  PetscCall(PetscObjectComposeFunction((PetscObject)*B, "TalusMatGetBlockRows_C", JacobianGetBlockRows));
  PetscFunctionReturn(0);
}
