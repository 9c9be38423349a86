/*
 * Bodies that move in a plane (TalusSimAddPlanar; the formulations note sec. 2.4) against closed
 * forms, on any number of ranks:
 *   - a free body whose principal axes are not along the plane's normal n, under a force and a torque
 *     with out-of-plane parts: v = P (v0 + F t / m), w = n ((n . w0) + (n . T) t / (n . I n)), I the
 *     world inertia, P = 1 - n n^T, and it never leaves its plane (to rounding);
 *   - compound pendulums on 2-row planar pins (no redundant rows), their inertia about n not a
 *     principal one: small-oscillation period 2 pi sqrt((n . I n + m d^2) / (m g d)) to 0.1 % at
 *     h = 1e-3, spread along x so that on several ranks each rank holds some of them, and their
 *     energy does not grow.
 */
#include "../common/check.h"
#include <talus/math3.h>

static const PetscReal none[3] = {0, 0, 0};

/* body k's inertia diag(J) in its frame, turned by q: n . A J A^T n */
static PetscReal InertiaAbout(const PetscReal J[3], const PetscReal q[4], const PetscReal n[3])
{
  PetscReal A[9], nb[3], s = 0.0;

  TalusQuatToMatrix(q, A);
  TalusRotateBack(A, n, nb);
  for (int d = 0; d < 3; d++) s += J[d] * nb[d] * nb[d];
  return s;
}

static PetscErrorCode FreeUnderLoads(void)
{
  const PetscReal r[3] = {0.1, 0, 0}, c[3] = {1, 2, 3}, h = 0.01, m = 2.0, J[3] = {0.01, 0.02, 0.05};
  const PetscReal q[4] = {0.8, 0.2, -0.4, 0.4}, v0[3] = {1, 2, 3}, w0[3] = {0.5, -1, 2};
  const PetscReal nn[3] = {1, 1, 1}, n[3] = {1 / PetscSqrtReal(3.0), 1 / PetscSqrtReal(3.0), 1 / PetscSqrtReal(3.0)};
  const PetscInt  steps = 100;
  TalusLoad       load  = {
           .body = 0, .force = {1,   -2,  0.5 },
                .torque = {0.3, 0.1, -0.2}
  };
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  TalusBodyRecord rec;
  PetscReal       A[9], w[3], qn[4], nIn, t = steps * h, spin, err_v = 0.0, err_w = 0.0, off;

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, none, h, 0.02, 0.0, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  PetscCall(TalusBodiesAdd(b, 0, TALUS_SPHERE, r, m, 0, PETSC_FALSE, c, NULL));
  for (int d = 0; d < 4; d++) qn[d] = q[d];
  TalusQuatNormalize(qn);
  for (int d = 0; d < 3; d++) b->inertia[d] = J[d], b->velocity[d] = v0[d];
  for (int d = 0; d < 4; d++) b->quaternion[d] = qn[d];
  TalusQuatToMatrix(qn, A);
  TalusRotateBack(A, w0, b->omega);
  nIn = InertiaAbout(J, qn, n);
  PetscCall(TalusSimAddPlanar(sim, 0, nn));
  PetscCall(TalusSimAddLoad(sim, &load));
  for (PetscInt s = 0; s < steps; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "free planar body: step %" PetscInt_FMT " did not converge", st.step);
  }
  PetscCall(TestGetBody(sim, 0, &rec));
  spin = TalusDot3(n, w0) + TalusDot3(n, load.torque) * t / nIn;
  {
    const PetscReal along_v = TalusDot3(n, v0) + TalusDot3(n, load.force) * t / m;
    for (int d = 0; d < 3; d++)
      err_v = PetscMax(err_v, PetscAbsReal(rec.velocity[d] - (v0[d] + load.force[d] * t / m - along_v * n[d])));
  }
  TalusQuatToMatrix(rec.quaternion, A);
  TalusRotate(A, rec.omega, w);
  for (int d = 0; d < 3; d++) err_w = PetscMax(err_w, PetscAbsReal(w[d] - spin * n[d]));
  off = PetscAbsReal(TalusDot3(n, rec.position) - TalusDot3(n, c));
  CHECK(err_v < 1e-12, "planar body: velocity off P (v0 + F t / m) by %g m/s", (double)err_v);
  CHECK(err_w < 1e-12, "planar body: angular velocity off n (n.w0 + n.T t / n.I n) by %g rad/s", (double)err_w);
  CHECK(off < 1e-12, "planar body: %g m out of its plane", (double)off);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "free planar body, 1 s of out-of-plane loads: velocity error %.2g m/s, spin error %.2g rad/s, "
                        "%.2g m out of the plane\n",
                        (double)err_v, (double)err_w, (double)off));
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

/* npend rods of length L pinned at one end to the world at x = 3 i, started 2 degrees from hanging */
static PetscErrorCode Pendulums(void)
{
  const PetscInt  npend = 4, steps = 6000;
  const PetscReal L = 1.0, m = 1.0, g = 9.81, h = 1e-3, theta0 = 2.0 * PETSC_PI / 180.0, r[3] = {0.05, 0, 0};
  const PetscReal Iperp = m * L * L / 12.0, J[3] = {1e-4, Iperp, 2.0 * Iperp}, ey[3] = {0, 1, 0}, down[3] = {0, 0, -g};
  const PetscReal roll = PETSC_PI / 6.0; /* the rod turned about its own axis: e_y is not a principal axis */
  TalusSim        sim;
  TalusBodies    *b;
  TalusStepStats  st;
  PetscReal       q[4], nIn, period, crossings[4][8], last_vx[4], last_t = 0.0, e0 = 0.0, rise = 0.0;
  PetscInt        ncross[4] = {0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(TestNewSim(PETSC_COMM_WORLD, down, h, 0.02, 0.0, 1e-13, &sim));
  PetscCall(TalusSimGetBodies(sim, &b));
  { /* q = rotation by theta0 about y (the swing), then by roll about the rod's x axis */
    const PetscReal swing[4] = {PetscCosReal(0.5 * theta0), 0, PetscSinReal(0.5 * theta0), 0};
    const PetscReal spin[4]  = {PetscCosReal(0.5 * roll), PetscSinReal(0.5 * roll), 0, 0};
    const PetscReal hang[4]  = {PetscCosReal(0.25 * PETSC_PI), 0, PetscSinReal(0.25 * PETSC_PI), 0}; /* x down */
    PetscReal       t1[4];
    TalusQuatMultiply(hang, spin, t1);
    TalusQuatMultiply(swing, t1, q);
  }
  nIn    = InertiaAbout(J, q, ey);
  period = 2.0 * PETSC_PI * PetscSqrtReal((nIn + m * 0.25 * L * L) / (m * g * 0.5 * L));
  for (PetscInt i = 0; i < npend; i++) {
    const PetscReal c[3] = {3.0 * i + 0.5 * L * PetscSinReal(theta0), 0, -0.5 * L * PetscCosReal(theta0)};
    PetscCall(TalusBodiesAdd(b, i, TALUS_SPHERE, r, m, 0, PETSC_FALSE, c, NULL));
    for (int d = 0; d < 3; d++) b->inertia[3 * i + d] = J[d];
    for (int d = 0; d < 4; d++) b->quaternion[4 * i + d] = q[d];
  }
  for (PetscInt i = 0; i < npend; i++) {
    TalusJointSpec pin = {
      .type = TALUS_JOINT_PLANAR_PIN, .body = {TALUS_WORLD, i},
           .axis = { 0,          1, 0}
    };
    pin.point[0][0] = pin.point[1][0] = 3.0 * i;
    PetscCall(TalusSimAddPlanar(sim, i, ey));
    PetscCall(TalusSimAddJoint(sim, &pin, NULL));
  }
  for (PetscInt i = 0; i < npend; i++) last_vx[i] = 0.0;
  for (PetscInt s = 0; s < steps; s++) {
    PetscCall(TalusSimStep(sim, &st));
    CHECK(st.reason > 0, "pendulums: step %" PetscInt_FMT " did not converge", st.step);
    if (s == 0) e0 = st.kinetic_energy + st.potential_energy;
    rise = PetscMax(rise, st.kinetic_energy + st.potential_energy - e0);
    for (PetscInt i = 0; i < npend; i++) { /* the times the centre's x velocity changes sign: half periods */
      TalusBodyRecord rec;
      PetscCall(TestGetBody(sim, i, &rec));
      if (s > 0 && (rec.velocity[0] > 0) != (last_vx[i] > 0) && ncross[i] < 8) {
        const PetscReal t         = st.t - h * rec.velocity[0] / (rec.velocity[0] - last_vx[i]);
        crossings[i][ncross[i]++] = t;
      }
      last_vx[i] = rec.velocity[0];
      CHECK(rec.velocity[1] == 0.0, "pendulum %" PetscInt_FMT " moves out of its plane (v_y = %g)", i,
            (double)rec.velocity[1]);
    }
    last_t = st.t;
  }
  for (PetscInt i = 0; i < npend; i++) {
    PetscReal measured;
    CHECK(ncross[i] >= 6, "pendulum %" PetscInt_FMT ": %" PetscInt_FMT " swings in %g s", i, ncross[i], (double)last_t);
    if (ncross[i] < 6) continue;
    measured = 2.0 * (crossings[i][ncross[i] - 1] - crossings[i][0]) / (ncross[i] - 1);
    CHECK(PetscAbsReal(measured / period - 1.0) < 1e-3, "pendulum %" PetscInt_FMT ": period %g s, closed form %g s", i,
          (double)measured, (double)period);
    if (i == 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "planar compound pendulum (inertia about n not principal): period %.6f s, closed form "
                            "%.6f s (%.3f %%)\n",
                            (double)measured, (double)period, (double)(100.0 * (measured / period - 1.0))));
  }
  { /* against the swing's energy m g d (1 - cos theta0) per pendulum */
    const PetscReal swing = npend * m * g * 0.5 * L * (1.0 - PetscCosReal(theta0));
    CHECK(rise < 0.01 * swing, "pendulums: energy rises by %g J of a swing's %g J", (double)rise, (double)swing);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pendulums: largest energy rise %.3g J (%.2g of the swing's)\n",
                          (double)rise, (double)(rise / swing)));
  }
  PetscCall(TalusSimDestroy(&sim));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(TalusInitialize(&argc, &argv, NULL));
  PetscCall(FreeUnderLoads());
  PetscCall(Pendulums());
  {
    int status = TestSummary("test_planar");
    PetscCall(TalusFinalize());
    return status;
  }
}
