/*
 * The matrix-free B of src/jacobian_shell.c (compiled into this test: its functions are private to
 * the library) on a few hand-made contacts, general and axial, with a fixed body and an owned body
 * that no contact touches:
 *   - B^T g does not depend on what the body vector held before (a body's first contact assigns
 *     its entries, untouched bodies are zeroed: there is no zeroing pass);
 *   - B and B^T are adjoint: (B^T g).v = g.(B v) for random g, v;
 *   - B v against the formula of seed 000 eq. 7 written out here, contact by contact;
 *   - TalusMatMultAddNormalShift adds z and the shift to the normal rows in B's own pass, as the
 *     product followed by the additions does;
 *   - the products 8 axial contacts at a time with AVX-512 (src/sim/jacobian_wide.c) give the scalar code's bits,
 *     on a larger random shell whose groups of 8 mix axial and general records and fixed bodies on either side.
 */
#include "../common/check.h"
#include "../common/random_problem.h"
#include "../../src/sim/sim_impl.h"

#define NBODIES   4 /* slot 3 is touched by no contact */
#define NCONTACTS 4

static PetscReal Uniform(TestRng *rng)
{
  return 2.0 * TestRngUniform(rng) - 1.0; /* in [-1, 1) */
}

static PetscErrorCode FillUniform(TestRng *rng, Vec v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = Uniform(rng);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

/* u = F (v_b + omega_b x S_b - v_a - omega_a x S_a), straight from the definitions */
static void Relative(const PetscReal frame[9], const PetscReal Sa[3], const PetscReal Sb[3], const PetscScalar *va,
                     const PetscScalar *vb, PetscReal u[3])
{
  PetscReal r[3] = {0, 0, 0}, wa[3], wb[3];

  if (vb) {
    TalusCross3(&vb[3], Sb, wb);
    for (int d = 0; d < 3; d++) r[d] += vb[d] + wb[d];
  }
  if (va) {
    TalusCross3(&va[3], Sa, wa);
    for (int d = 0; d < 3; d++) r[d] -= va[d] + wa[d];
  }
  for (int k = 0; k < 3; k++) u[k] = TalusDot3(&frame[3 * k], r);
}

#define WIDE_BODIES   40
#define WIDE_CONTACTS 203 /* a scalar tail after the groups of 8 */

typedef PetscErrorCode (*TransposeScaledFn)(Mat, Vec, Vec, Vec);
typedef PetscErrorCode (*AddComplianceFn)(Mat, Vec, Vec, Vec, Vec, Vec, Vec, Vec);

/* the scaled products of B as the solver calls them: B^T D g (and B^T g), D (B x + E D r) + z + shift in its forms */
static PetscErrorCode WideProducts(Mat B, Vec d, Vec g, Vec x, Vec z, Vec shift, Vec E, Vec r, Vec out_body[2],
                                   Vec out_rows[4])
{
  TransposeScaledFn transpose_scaled;
  AddComplianceFn   add_compliance;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "TalusMatMultTransposeScaled_C", &transpose_scaled));
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "TalusMatMultAddCompliance_C", &add_compliance));
  for (int k = 0; k < 2; k++) PetscCall(VecSet(out_body[k], 1e300)); /* stale: a body's first contact assigns */
  PetscCall((*transpose_scaled)(B, d, g, out_body[0]));
  PetscCall((*transpose_scaled)(B, NULL, g, out_body[1]));
  PetscCall((*add_compliance)(B, x, d, z, shift, E, r, out_rows[0]));
  PetscCall((*add_compliance)(B, x, d, NULL, NULL, NULL, NULL, out_rows[1]));
  PetscCall((*add_compliance)(B, x, d, z, NULL, E, r, out_rows[2]));
  PetscCall(VecCopy(z, out_rows[3]));
  PetscCall((*add_compliance)(B, x, d, out_rows[3], shift, E, r, out_rows[3])); /* y += ... */
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckWideEqualsScalar(void)
{
  PetscInt    slot[2 * WIDE_CONTACTS], offset = 0, ngeneral = 0, nfixed = 0, differ = 0;
  PetscReal   J[WIDE_CONTACTS * TALUS_JACOBIAN_GENERAL], minv[TALUS_INVERSE_MASS * WIDE_BODIES];
  char        kind[WIDE_CONTACTS];
  TestRng     rng;
  Mat         B[2];
  Vec         d, g, x, z, shift, E, r, body[2][2], rows[2][4];
  PetscLayout row_layout, column_layout;

  PetscFunctionBegin;
  TestRngSeed(&rng, 23);
  for (PetscInt c = 0; c < WIDE_CONTACTS; c++) {
    PetscReal frame[9], Sa[3], Sb[3], n[3], len, lambda_b;
    /* a general record in some groups of 8 (which then go one contact at a time), fixed bodies on either side,
       runs of contacts on one body a (as a sorted contact list has them) */
    const PetscBool general = (PetscBool)(c == 20 || c == 101 || c == 102 || c == 199);
    for (int k = 0; k < 3; k++) n[k] = Uniform(&rng);
    len = TalusNorm3(n);
    for (int k = 0; k < 3; k++) frame[k] = n[k] / len;
    TalusCompleteFrame(frame, &frame[3], &frame[6]);
    lambda_b = 0.25 + 0.5 * TestRngUniform(&rng);
    for (int k = 0; k < 3; k++) {
      Sa[k] = general ? Uniform(&rng) : -0.5 * frame[k];
      Sb[k] = general ? Uniform(&rng) : lambda_b * frame[k];
    }
    kind[c] = TalusJacobianRecord(frame, Sa, Sb, &J[offset]);
    offset += kind[c];
    ngeneral += kind[c] == TALUS_JACOBIAN_GENERAL;
    slot[2 * c]     = c % 11 == 3 ? -1 : (c / 3 * 7) % WIDE_BODIES;
    slot[2 * c + 1] = c % 13 == 5
                      ? -1
                      : (slot[2 * c] + 1 + (PetscInt)(TestRngUniform(&rng) * (WIDE_BODIES - 1))) % WIDE_BODIES;
    nfixed += (slot[2 * c] < 0) + (slot[2 * c + 1] < 0);
  }
  for (PetscInt k = 0; k < TALUS_INVERSE_MASS * WIDE_BODIES; k++) minv[k] = 1.0;
  PetscCall(PetscLayoutCreateFromSizes(PETSC_COMM_SELF, 3 * WIDE_CONTACTS, 3 * WIDE_CONTACTS, 1, &row_layout));
  PetscCall(PetscLayoutCreateFromSizes(PETSC_COMM_SELF, 6 * WIDE_BODIES, 6 * WIDE_BODIES, 1, &column_layout));
  for (int wide = 0; wide < 2; wide++) { /* the wide records are made (or not) when the shell is */
    TalusSIMDEnable((PetscBool)wide);
    PetscCall(TalusJacobianCreateShell(row_layout, column_layout, WIDE_CONTACTS, 0, WIDE_BODIES, slot, kind, J, NULL,
                                       NULL, minv, &B[wide]));
  }
  TalusSIMDEnable(PETSC_TRUE);
  PetscCall(PetscLayoutDestroy(&row_layout));
  PetscCall(PetscLayoutDestroy(&column_layout));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * WIDE_CONTACTS, &d));
  PetscCall(VecDuplicate(d, &g));
  PetscCall(VecDuplicate(d, &z));
  PetscCall(VecDuplicate(d, &E));
  PetscCall(VecDuplicate(d, &r));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, WIDE_CONTACTS, &shift));
  PetscCall(VecCreateGhostBlock(PETSC_COMM_SELF, 6, 6 * WIDE_BODIES, PETSC_DECIDE, 0, NULL, &x));
  {
    Vec fill[] = {d, g, z, E, r, shift, x};
    for (size_t k = 0; k < sizeof(fill) / sizeof(fill[0]); k++) PetscCall(FillUniform(&rng, fill[k]));
  }
  PetscCall(VecShift(d, 2.0)); /* scalings and compliances are positive */
  PetscCall(VecAbs(E));
  for (int wide = 0; wide < 2; wide++) {
    for (int k = 0; k < 2; k++) PetscCall(VecDuplicate(x, &body[wide][k]));
    for (int k = 0; k < 4; k++) PetscCall(VecDuplicate(d, &rows[wide][k]));
    PetscCall(WideProducts(B[wide], d, g, x, z, shift, E, r, body[wide], rows[wide]));
  }
  for (int k = 0; k < 6; k++) { /* bit for bit: VecEqual compares the arrays' bytes */
    PetscBool same;
    PetscCall(VecEqual(k < 2 ? body[0][k] : rows[0][k - 2], k < 2 ? body[1][k] : rows[1][k - 2], &same));
    CHECK(same, "product %d of the matrix-free B: the wide code's bits differ from the scalar code's", k);
    differ += !same;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  wide products (%s) against scalar: %" PetscInt_FMT " contacts, %" PetscInt_FMT
                        " general, %" PetscInt_FMT " fixed sides, %" PetscInt_FMT " of 6 products differ\n",
                        TalusSIMDWidth() == 8 ? "AVX-512" : "none on this processor: scalar against scalar",
                        (PetscInt)WIDE_CONTACTS, ngeneral, nfixed, differ));
  for (int wide = 0; wide < 2; wide++) {
    for (int k = 0; k < 2; k++) PetscCall(VecDestroy(&body[wide][k]));
    for (int k = 0; k < 4; k++) PetscCall(VecDestroy(&rows[wide][k]));
    PetscCall(MatDestroy(&B[wide]));
  }
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&E));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&shift));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  /* contacts: two general (boxes: arms off the normal), one axial (spheres), one against a fixed body */
  const PetscInt slot[2 * NCONTACTS] = {0, 1, 1, 2, 2, 0, -1, 2};
  PetscReal      frame[NCONTACTS][9], Sa[NCONTACTS][3], Sb[NCONTACTS][3], J[NCONTACTS * TALUS_JACOBIAN_GENERAL],
    minv[TALUS_INVERSE_MASS * NBODIES];
  char         kind[NCONTACTS];
  TestRng      rng;
  Mat          B;
  PetscLayout  rows, columns;
  Vec          g, z, shift, y, y2, v, w0, w1;
  PetscScalar *a;
  PetscReal    dot_v, dot_g, worst = 0.0;
  PetscBool    same;
  PetscInt     offset = 0, naxial = 0;

  PetscCall(TalusInitialize(&argc, &argv, NULL));
  TestRngSeed(&rng, 11);
  for (PetscInt c = 0; c < NCONTACTS; c++) {
    PetscReal n[3], len;
    for (int d = 0; d < 3; d++) n[d] = Uniform(&rng);
    len = TalusNorm3(n);
    for (int d = 0; d < 3; d++) frame[c][d] = n[d] / len;
    TalusCompleteFrame(frame[c], &frame[c][3], &frame[c][6]);
    for (int d = 0; d < 3; d++) {
      Sa[c][d] = c == 2 ? -0.3 * frame[c][d] : Uniform(&rng); /* contact 2: both arms along the normal */
      Sb[c][d] = c == 2 ? 0.7 * frame[c][d] : Uniform(&rng);
    }
    kind[c] = TalusJacobianRecord(frame[c], Sa[c], Sb[c], &J[offset]);
    naxial += kind[c] == TALUS_JACOBIAN_AXIAL;
    offset += kind[c];
  }
  CHECK(naxial == 1, "%" PetscInt_FMT " axial records, expected 1", naxial);
  for (PetscInt k = 0; k < TALUS_INVERSE_MASS * NBODIES; k++) minv[k] = 1.0;
  PetscCall(PetscLayoutCreateFromSizes(PETSC_COMM_SELF, 3 * NCONTACTS, 3 * NCONTACTS, 1, &rows));
  PetscCall(PetscLayoutCreateFromSizes(PETSC_COMM_SELF, 6 * NBODIES, 6 * NBODIES, 1, &columns));
  PetscCall(TalusJacobianCreateShell(rows, columns, NCONTACTS, 0, NBODIES, slot, kind, J, NULL, NULL, minv, &B));
  PetscCall(PetscLayoutDestroy(&rows));
  PetscCall(PetscLayoutDestroy(&columns));
  PetscCall(VecCreateGhostBlock(PETSC_COMM_SELF, 6, 6 * NBODIES, PETSC_DECIDE, 0, NULL, &v));
  PetscCall(VecDuplicate(v, &w0));
  PetscCall(VecDuplicate(v, &w1));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * NCONTACTS, &g));
  PetscCall(VecDuplicate(g, &z));
  PetscCall(VecDuplicate(g, &y));
  PetscCall(VecDuplicate(g, &y2));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, NCONTACTS, &shift));
  PetscCall(FillUniform(&rng, g));
  PetscCall(FillUniform(&rng, z));
  PetscCall(FillUniform(&rng, shift));
  PetscCall(FillUniform(&rng, v));

  /* B^T g into a zeroed vector and into one full of garbage */
  PetscCall(VecSet(w0, 0.0));
  PetscCall(VecSet(w1, 1e300));
  PetscCall(MatMultTranspose(B, g, w0));
  PetscCall(MatMultTranspose(B, g, w1));
  PetscCall(VecEqual(w0, w1, &same));
  CHECK(same, "B^T g depends on what the body vector held before");
  PetscCall(VecGetArray(w1, &a));
  CHECK(a[18] == 0 && a[19] == 0 && a[20] == 0 && a[21] == 0 && a[22] == 0 && a[23] == 0,
        "the untouched body's entries are not zero: %g %g %g", a[18], a[19], a[20]);
  PetscCall(VecRestoreArray(w1, &a));

  /* adjoint */
  PetscCall(MatMult(B, v, y));
  PetscCall(VecDot(w0, v, &dot_v));
  PetscCall(VecDot(g, y, &dot_g));
  CHECK(PetscAbsReal(dot_v - dot_g) <= 1e-14 * PetscAbsReal(dot_g), "(B^T g).v = %.17g but g.(B v) = %.17g",
        (double)dot_v, (double)dot_g);

  /* B v against the formula */
  {
    const PetscScalar *vv, *yv;
    PetscCall(VecGetArrayRead(v, &vv));
    PetscCall(VecGetArrayRead(y, &yv));
    for (PetscInt c = 0; c < NCONTACTS; c++) {
      PetscReal u[3];
      Relative(frame[c], Sa[c], Sb[c], slot[2 * c] >= 0 ? &vv[6 * slot[2 * c]] : NULL,
               slot[2 * c + 1] >= 0 ? &vv[6 * slot[2 * c + 1]] : NULL, u);
      for (int k = 0; k < 3; k++) worst = PetscMax(worst, PetscAbsReal(u[k] - yv[3 * c + k]));
    }
    PetscCall(VecRestoreArrayRead(y, &yv));
    PetscCall(VecRestoreArrayRead(v, &vv));
  }
  CHECK(worst < 1e-14, "B v differs from seed 000 eq. 7 by %g", (double)worst);

  /* the normal shift in B's pass */
  PetscCall(TalusMatMultAddNormalShift(B, v, z, shift, y2));
  PetscCall(VecAXPY(y, 1.0, z));
  {
    const PetscScalar *sv;
    PetscCall(VecGetArrayRead(shift, &sv));
    PetscCall(VecGetArray(y, &a));
    for (PetscInt c = 0; c < NCONTACTS; c++) a[3 * c] += sv[c];
    PetscCall(VecRestoreArray(y, &a));
    PetscCall(VecRestoreArrayRead(shift, &sv));
  }
  PetscCall(VecAXPY(y2, -1.0, y));
  PetscCall(VecNorm(y2, NORM_INFINITY, &worst));
  CHECK(worst < 1e-14, "TalusMatMultAddNormalShift differs from B v + z + shift e_n by %g", (double)worst);

  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %d contacts (%" PetscInt_FMT
                        " axial), B^T g with a stale body vector, adjoint (B^T g).v - g.(B v) = %.1e\n",
                        NCONTACTS, naxial, (double)(dot_v - dot_g)));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&y2));
  PetscCall(VecDestroy(&shift));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w0));
  PetscCall(VecDestroy(&w1));
  PetscCall(MatDestroy(&B));
  PetscCall(CheckWideEqualsScalar());
  int status = TestSummary("test_jacobian_shell");
  PetscCall(TalusFinalize());
  return status;
}
