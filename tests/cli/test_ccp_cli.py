#!/usr/bin/python3
"""The `talus ccp` command end to end.

Usage: test_ccp_cli.py TALUS SOURCE_ROOT WORK_DIR

- problems written here in the FCLib local layout (W by rows, by columns, as triplets) solve to the
  closed-form rolling-ball answer of seed 001 section 3.1, and -ccp_solution writes /solution/{r,u};
- the two real local problems shipped in inputs/fclib converge, and the written
  solution satisfies u = W r + q, r in K, u + mu||u_t|| e_n in K*;
- the three real global problems (M, H, f, w) are reduced on reading: their solution, on 1 and 3
  ranks, satisfies the same checks against W = H^T M^-1 H and q = w + H^T M^-1 f computed here
  with scipy, and a global problem built here from a ball on a plane gives the closed-form answer;
- every bad input gives one error line naming the problem and a non-zero exit, never a crash;
- -help lists the solver's options.
"""
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp

from clitest import Checks, fclib_matrix, run_all
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks("talus_ccp_cli")


def run(args, ranks=None):
    p = run_talus(TALUS, args, ranks, timeout=120)
    return p.returncode, p.stdout, p.stderr


def path(name):
    return os.path.join(WORK, "cli-" + name)


# ---------------------------------------------------------------- writing FCLib files
def csr(W):
    p, i, x = [0], [], []
    for row in W:
        for j, v in enumerate(row):
            if v != 0.0:
                i.append(j)
                x.append(v)
        p.append(len(i))
    return np.array(p, np.int32), np.array(i, np.int32), np.array(x, float)


def write_fclib(name, W, q, mu, storage="csr", spacedim=3, skip=(), override=None):
    override = override or {}
    m, n = W.shape
    if storage == "csr":
        p, i, x = csr(W)
        nz = -2
    elif storage == "csc":
        p, i, x = csr(W.T)
        nz = -1
    else:  # triplets: i rows, p columns
        rows, cols = np.nonzero(W)
        i, p, x = rows.astype(np.int32), cols.astype(np.int32), W[rows, cols]
        nz = len(x)
    data = {
        "/fclib_local/W/m": np.array([m], np.int32),
        "/fclib_local/W/n": np.array([n], np.int32),
        "/fclib_local/W/nz": np.array([nz], np.int32),
        "/fclib_local/W/nzmax": np.array([len(x)], np.int32),
        "/fclib_local/W/p": p,
        "/fclib_local/W/i": i,
        "/fclib_local/W/x": x,
        "/fclib_local/vectors/q": np.asarray(q, float),
        "/fclib_local/vectors/mu": np.asarray(mu, float),
        "/fclib_local/spacedim": np.array([spacedim], np.int32),
    }
    data.update(override)
    fn = path(name)
    with h5py.File(fn, "w") as f:
        for key, value in data.items():
            if key not in skip:
                f[key] = value
    return fn


def write_global(name, M, H, f, w, mu, G=None):
    """FCLib's global form, M and H as triplets (i rows, p columns), optionally a bilateral G."""
    data = {"/fclib_global/spacedim": np.array([3], np.int32),
            "/fclib_global/vectors/f": np.asarray(f, float),
            "/fclib_global/vectors/w": np.asarray(w, float),
            "/fclib_global/vectors/mu": np.asarray(mu, float)}
    for key, A in (("M", M), ("H", H), ("G", G)):
        if A is None:
            continue
        A = np.asarray(A, float)
        rows, cols = np.nonzero(A)
        g = "/fclib_global/" + key + "/"
        data.update({g + "m": np.array([A.shape[0]], np.int32), g + "n": np.array([A.shape[1]], np.int32),
                     g + "nz": np.array([len(rows)], np.int32), g + "nzmax": np.array([len(rows)], np.int32),
                     g + "i": rows.astype(np.int32), g + "p": cols.astype(np.int32), g + "x": A[rows, cols]})
    fn = path(name)
    with h5py.File(fn, "w") as h:
        for key, value in data.items():
            h[key] = value
    return fn


BALL_W = np.diag([1.0, 3.5, 3.5])
BALL_Q = [-0.0981, 2.0, 0.0]
BALL_MU = [0.2]

# ---------------------------------------------------------------- good problems
for storage in ("csr", "csc", "triplet"):
    fn = write_fclib("ball-%s.h5" % storage, BALL_W, BALL_Q, BALL_MU, storage)
    out = path("ball-%s-solution.h5" % storage)
    rc, so, se = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_gatol", "1e-10", "-ccp_solution", out])
    check(rc == 0, "ball (%s): exit %d, stderr %s" % (storage, rc, se))
    check("CONVERGED_GATOL" in so, "ball (%s): not converged:\n%s" % (storage, so))
    if rc == 0:
        with h5py.File(out, "r") as f:
            r, u = f["/solution/r"][()], f["/solution/u"][()]
        check(np.allclose(r, [0.0981, -0.01962, 0.0], atol=1e-6), "ball (%s): r = %s" % (storage, r))
        check(np.allclose(u, BALL_W @ r + BALL_Q, atol=1e-12), "ball (%s): u != W r + q" % storage)

# the same on 3 ranks with a problem of several contacts (one rank may own none)
W5 = np.kron(np.eye(5), BALL_W) + 0.01 * np.ones((15, 15))
fn = write_fclib("five.h5", W5, BALL_Q * 5, BALL_MU * 5, "csc")
rc1, so1, _ = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_gatol", "1e-10", "-ccp_solution", path("five-1.h5")])
rc3, so3, se3 = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_gatol", "1e-10", "-ccp_solution", path("five-3.h5")], ranks=3)
check(rc1 == 0 and rc3 == 0, "five contacts: exits %d, %d (%s)" % (rc1, rc3, se3))
if rc1 == 0 and rc3 == 0:
    with h5py.File(path("five-1.h5"), "r") as a, h5py.File(path("five-3.h5"), "r") as b:
        diff = np.max(np.abs(a["/solution/r"][()] - b["/solution/r"][()]))
    check(diff < 1e-8, "five contacts: 1 and 3 ranks differ by %g" % diff)


def fclib_dir():
    d = os.path.join(ROOT, "inputs", "fclib")
    return d if os.path.exists(os.path.join(d, "Capsules-i125-1213.hdf5")) else None


def read_csr_problem(fn):
    with h5py.File(fn, "r") as f:
        g = f["/fclib_local"]
        m = int(g["W/m"][()].ravel()[0])
        p, i, x = g["W/p"][()], g["W/i"][()], g["W/x"][()]
        W = np.zeros((m, m))
        for row in range(m):
            W[row, i[p[row]:p[row + 1]]] += x[p[row]:p[row + 1]]
        return W, g["vectors/q"][()], g["vectors/mu"][()]


shipped = fclib_dir()
check(shipped is not None, "the real FCLib problems are missing")
for name in ("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "Capsules-i125-1213.hdf5"):
    if shipped is None:
        break
    fn = os.path.join(shipped, name)
    W, q, mu = read_csr_problem(fn)
    for problem in ("relaxed", "coulomb"):
        out = path("%s-%s.h5" % (name, problem))
        rc, so, se = run(["ccp", fn, "-ccp_problem", problem, "-tao_max_it", "20000", "-ccp_solution", out], ranks=2)
        check(rc == 0 and "CONVERGED_GATOL" in so, "%s %s: exit %d\n%s%s" % (name, problem, rc, so, se))
        if rc != 0:
            continue
        with h5py.File(out, "r") as f:
            r, u = f["/solution/r"][()], f["/solution/u"][()]
        scale = max(1.0, np.abs(r).max())
        check(np.allclose(u, W @ r + q, rtol=1e-12, atol=1e-12 * np.abs(q).max()), "%s: u != W r + q" % name)
        rn, rt = r[0::3], np.hypot(r[1::3], r[2::3])
        un, ut = u[0::3], np.hypot(u[1::3], u[2::3])
        if problem == "coulomb":
            un = un + mu * ut
        check(np.all(rt <= mu * rn + 1e-12 * scale) and np.all(rn >= -1e-12 * scale), "%s %s: r outside K" % (name, problem))
        check(np.all(mu * ut <= un + 1e-6), "%s %s: u outside K* by %g" % (name, problem, np.max(mu * ut - un)))
        compl = np.abs(rn * un + r[1::3] * u[1::3] + r[2::3] * u[2::3]).max()
        check(compl <= 1e-6 * scale, "%s %s: max |r.u| = %g" % (name, problem, compl))

def read_global_problem(fn):
    """W = H^T M^-1 H and q = w + H^T M^-1 f, reduced here with scipy (M diagonal)."""
    with h5py.File(fn, "r") as f:
        g = f["/fclib_global"]
        M, H = fclib_matrix(g["M"]), fclib_matrix(g["H"])
        fv, w, mu = g["vectors/f"][()], g["vectors/w"][()], g["vectors/mu"][()]
    minv = sp.diags(1.0 / M.diagonal())
    return (H.T @ minv @ H).toarray(), w + H.T @ (minv @ fv), mu


def check_solution(label, W, q, mu, problem, out, tol):
    """u = W r + q, r in K, u (Coulomb: u + mu ||u_t|| e_n) in K*, r . u = 0, to tol relative."""
    with h5py.File(out, "r") as f:
        r, u = f["/solution/r"][()], f["/solution/u"][()]
    scale = max(1e-300, np.abs(r).max())
    uscale = max(1e-300, np.abs(q).max())
    d = np.abs(u - (W @ r + q)).max() / uscale
    check(d < 1e-10, "%s: u != W r + q with W, q reduced independently (%.2e relative)" % (label, d))
    rn, rt = r[0::3], np.hypot(r[1::3], r[2::3])
    un, ut = u[0::3], np.hypot(u[1::3], u[2::3])
    if problem == "coulomb":
        un = un + mu * ut
    check(np.all(rt <= mu * rn + 1e-12 * scale) and np.all(rn >= -1e-12 * scale), "%s: r outside K" % label)
    check(np.all(mu * ut <= un + tol * uscale), "%s: u outside K* by %g" % (label, np.max(mu * ut - un)))
    compl = np.abs(rn * un + r[1::3] * u[1::3] + r[2::3] * u[2::3]).max()
    check(compl <= tol * scale * uscale, "%s: max |r.u| = %g" % (label, compl))
    return r


# the real global problems, on 1 and 3 ranks (tolerances: what apgd reaches in 20,000 iterations;
# spheres-in-a-box, whose W has a diagonal from 7e3 to 7e5, only 1e-6 in the eq. 39 residual, which
# leaves u outside K* by 4e-5 of |q|)
for name, problem, gatol, tol in (("Box_Stacks-i0122-82-5.hdf5", "coulomb", 1e-8, 1e-5),
                                  ("Spheres-i099-356-679.hdf5", "coulomb", 1e-8, 1e-5),
                                  ("spheres-in-a-box-98-i10000-256-10.hdf5", "relaxed", 1e-6, 1e-4)):
    if shipped is None:
        break
    fn = os.path.join(shipped, name)
    W, q, mu = read_global_problem(fn)
    answers = []
    for ranks in (1, 3):
        out = path("%s-%d.h5" % (name, ranks))
        rc, so, se = run(["ccp", fn, "-ccp_problem", problem, "-tao_gatol", str(gatol), "-tao_max_it", "20000", "-ccp_solution", out], ranks=ranks)
        check(rc == 0 and "CONVERGED_GATOL" in so and "reduced from the global form" in so, "%s on %d ranks: exit %d\n%s%s" % (name, ranks, rc, so, se))
        if rc == 0:
            answers.append(check_solution("%s (%s, %d ranks)" % (name, problem, ranks), W, q, mu, problem, out, tol))
    if len(answers) == 2:
        d = np.abs(answers[0] - answers[1]).max() / max(np.abs(answers[0]).max(), 1e-300)
        check(d < 1e-4, "%s: r on 1 and 3 ranks differ by %g relative" % (name, d))
        print("%s (%d contacts, global form): solved on 1 and 3 ranks, r within %.1e" % (name, len(mu), d))

# -ccp_scale (the problem scaled per contact by the diagonal of W) is a change of variables: the same
# solution, checked independently; on spheres in a box (W's diagonal spans 7e3 to 7e5), where the
# unscaled solve does not reach 1e-6 in 20,000 iterations above, the scaled one reaches 1e-8 in about
# 7,600 (its residual weighted back to the problem's units, as the unscaled one's)
for name, problem in (("Box_Stacks-i0122-82-5.hdf5", "coulomb"), ("Spheres-i099-356-679.hdf5", "coulomb"),
                      ("spheres-in-a-box-98-i10000-256-10.hdf5", "relaxed"), ("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "coulomb")):
    if shipped is None:
        break
    fn = os.path.join(shipped, name)
    W, q, mu = read_global_problem(fn) if "LMGC" not in name else read_csr_problem(fn)
    out = path("%s-scaled.h5" % name)
    rc, so, se = run(["ccp", fn, "-ccp_problem", problem, "-ccp_scale", "-tao_max_it", "20000", "-ccp_solution", out,
                      "-ccp_view"], ranks=2)
    check(rc == 0 and "CONVERGED_GATOL" in so and "scaled per contact" in so, "%s -ccp_scale: exit %d\n%s%s" % (name, rc, so, se))
    if rc == 0:
        check_solution("%s (%s, -ccp_scale)" % (name, problem), W, q, mu, problem, out, 1e-4)

# -tao_type nbgs (Gauss-Seidel with an exact Coulomb solve per contact, Jacobi across ranks): the
# Coulomb problems of the collection, on 1 and 3 ranks, checked independently
for name in ("Box_Stacks-i0122-82-5.hdf5", "Spheres-i099-356-679.hdf5", "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"):
    if shipped is None:
        break
    fn = os.path.join(shipped, name)
    W, q, mu = read_global_problem(fn) if "LMGC" not in name else read_csr_problem(fn)
    for ranks in (1, 3):
        out = path("%s-nbgs-%d.h5" % (name, ranks))
        rc, so, se = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_type", "nbgs", "-tao_max_it", "5000", "-ccp_solution", out], ranks=ranks)
        check(rc == 0 and "CONVERGED_GATOL" in so and "sticking" in so, "%s by nbgs on %d ranks: exit %d\n%s%s" % (name, ranks, rc, so, se))
        if rc == 0:
            check_solution("%s (coulomb, nbgs, %d ranks)" % (name, ranks), W, q, mu, "coulomb", out, 1e-5)

# -tao_type ipm (interior point, a Cholesky factorisation of W plus a block per cone each Newton step):
# the relaxed problem of the sliding ball against its closed form (seed 001 section 3.1: r on the
# cone's surface, u_n = mu u_t, so r_n (1 + 3.5 mu^2) = 0.0981 + 2 mu: r_n = 0.43693, u_n = 0.33883 m/s,
# the lift of the relaxed problem), then the relaxed problems of the collection on 1 and 2 ranks
# (MUMPS), each in a few dozen Newton steps, checked independently
fn = write_fclib("ball-ipm.h5", BALL_W, BALL_Q, BALL_MU)
out = path("ball-ipm-solution.h5")
rc, so, se = run(["ccp", fn, "-ccp_problem", "relaxed", "-tao_type", "ipm", "-tao_gatol", "1e-10", "-ccp_solution", out])
check(rc == 0 and "CONVERGED_GATOL" in so, "ball by ipm: exit %d\n%s%s" % (rc, so, se))
if rc == 0:
    with h5py.File(out, "r") as f:
        r, u = f["/solution/r"][()], f["/solution/u"][()]
    rn = (0.0981 + 2 * 0.2) / (1 + 3.5 * 0.2 ** 2)
    check(np.allclose(r, [rn, -0.2 * rn, 0.0], atol=1e-8), "ball by ipm: r = %s, expected (%.6f, %.6f, 0)" % (r, rn, -0.2 * rn))
    check(abs(u[0] - 0.2 * u[1]) < 1e-8 and abs(u[0] - 0.33883) < 1e-5, "ball by ipm: u = %s, expected u_n = mu u_t = 0.33883" % u)
# and its Coulomb problem, by the fixed point on De Saxce's shift: it slides on the plane (seed 001
# section 3.1: r = (m g h, -mu m g h, 0) = (0.0981, -0.01962, 0))
rc, so, se = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_type", "ipm", "-tao_gatol", "1e-10", "-ccp_solution", out, "-tao_view"])
check(rc == 0 and "CONVERGED_GATOL" in so and "relaxed solves (De Saxce shifts)" in so, "ball (Coulomb) by ipm: exit %d\n%s%s" % (rc, so, se))
if rc == 0:
    with h5py.File(out, "r") as f:
        r = f["/solution/r"][()]
    check(np.allclose(r, [0.0981, -0.01962, 0.0], atol=1e-8), "ball (Coulomb) by ipm: r = %s, expected (0.0981, -0.01962, 0)" % r)
for name, gatol, tol in (("Box_Stacks-i0122-82-5.hdf5", 1e-8, 1e-5), ("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 1e-8, 1e-5),
                         ("Spheres-i099-356-679.hdf5", 1e-6, 1e-4), ("spheres-in-a-box-98-i10000-256-10.hdf5", 1e-6, 1e-4)):
    if shipped is None:
        break
    fn = os.path.join(shipped, name)
    W, q, mu = read_global_problem(fn) if "LMGC" not in name else read_csr_problem(fn)
    for ranks in (1, 2):
        out = path("%s-ipm-%d.h5" % (name, ranks))
        rc, so, se = run(["ccp", fn, "-ccp_problem", "relaxed", "-tao_type", "ipm", "-tao_gatol", str(gatol), "-tao_max_it", "40", "-ccp_solution", out], ranks=ranks)
        check(rc == 0 and "CONVERGED_GATOL" in so, "%s by ipm on %d ranks: exit %d\n%s%s" % (name, ranks, rc, so, se))
        if rc == 0:
            check_solution("%s (relaxed, ipm, %d ranks)" % (name, ranks), W, q, mu, "relaxed", out, tol)

# scripts/solver-table: one row per solver, each converged on the box stacks
if shipped is not None:
    import subprocess
    p = subprocess.run([os.path.join(ROOT, "scripts", "solver-table"), os.path.join(shipped, "Box_Stacks-i0122-82-5.hdf5")],
                       capture_output=True, text=True, env=dict(os.environ, TALUS=os.path.abspath(TALUS)), timeout=120)
    rows = [l for l in p.stdout.splitlines() if l.startswith("| Box_Stacks")]
    check(p.returncode == 0 and len(rows) == 3 and all("CONVERGED_GATOL" in r for r in rows),
          "scripts/solver-table: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

# a ball of mass 2 (inertia 0.4 about each axis) on a plane, sliding at 2 m/s, h = 0.01, mu = 0.2,
# in the global form with the contact at -0.5 e_z from the centre: H^T v = (v_z, v_x - 0.5 w_y,
# v_y + 0.5 w_x), f = M v_free. It slides (|u_t| > 0) and the normal impulse stops the fall:
# r_n = m g h = 0.1962, r_t = -mu r_n along the slip (the closed form of seed 001 section 3.1).
Mball = np.diag([2.0, 2.0, 2.0, 0.4, 0.4, 0.4])
Hball = np.zeros((6, 3))
Hball[2, 0] = 1.0
Hball[0, 1], Hball[4, 1] = 1.0, -0.5
Hball[1, 2], Hball[3, 2] = 1.0, 0.5
vfree = np.array([2.0, 0.0, -0.0981, 0.0, 0.0, 0.0])
fn = write_global("ball-global.h5", Mball, Hball, Mball @ vfree, np.zeros(3), [0.2])
out = path("ball-global-solution.h5")
rc, so, se = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_gatol", "1e-12", "-ccp_solution", out])
check(rc == 0 and "M 6 x 6 diagonal" in so, "ball in the global form: exit %d\n%s%s" % (rc, so, se))
if rc == 0:
    with h5py.File(out, "r") as f:
        r = f["/solution/r"][()]
    check(np.allclose(r, [0.1962, -0.2 * 0.1962, 0.0], atol=1e-9), "ball in the global form: r = %s, expected (0.1962, -0.03924, 0)" % r)

# a frictionless real problem (LMGC90's, mu set to 0) by another Tao type: the same answer as apgd's,
# and a report with what every type has and apgd's own statistics only for apgd
if shipped is not None:
    W, q, mu = read_csr_problem(os.path.join(shipped, "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"))
    fn = write_fclib("lmgc-frictionless.h5", W, q, 0.0 * mu)
    answers = {}
    for tao_type in ("apgd", "blmvm", "bncg"):
        out = path("lmgc-frictionless-%s.h5" % tao_type)
        rc, so, se = run(["ccp", fn, "-tao_type", tao_type, "-tao_gatol", "1e-9", "-tao_max_it", "20000", "-ccp_solution", out, "-ccp_view"], ranks=2)
        check("TalusCCP: relaxed problem, 180 rows (60 friction cones" in so and ("type: " + tao_type) in so, "frictionless LMGC90 by %s: -ccp_view does not show the problem and the type:\n%s" % (tao_type, so))
        check(rc == 0, "frictionless LMGC90 by %s: exit %d\n%s%s" % (tao_type, rc, so, se))
        check(("solver      %s: " % tao_type) in so, "frictionless LMGC90 by %s: the report does not name the type:\n%s" % (tao_type, so))
        check(("restarts" in so) == (tao_type == "apgd"), "frictionless LMGC90 by %s: apgd's statistics %s:\n%s" % (tao_type, "missing" if tao_type == "apgd" else "printed", so))
        if rc == 0:
            with h5py.File(out, "r") as f:
                answers[tao_type] = f["/solution/u"][()]
    for tao_type in answers:
        if tao_type != "apgd" and "apgd" in answers:
            d = np.max(np.abs(answers[tao_type] - answers["apgd"])) / max(np.abs(answers["apgd"]).max(), 1e-300)
            check(d < 1e-5, "frictionless LMGC90: u by %s and by apgd differ by %g relative" % (tao_type, d))
            print("frictionless LMGC90 (%d contacts): u by %s within %.1e of apgd's" % (len(q) // 3, tao_type, d))

# ---------------------------------------------------------------- bad input
bad = []
bad.append(([path("does-not-exist.h5")], "cannot open"))
with open(path("text.h5"), "w") as f:
    f.write("this is not HDF5\n")
bad.append(([path("text.h5")], "not an HDF5 file"))
with h5py.File(path("empty.h5"), "w") as f:
    f["/something"] = np.zeros(3)
bad.append(([path("empty.h5")], "not an FCLib problem"))
bad.append(([write_global("g-nondiag.h5", Mball + 0.1, Hball, Mball @ vfree, np.zeros(3), [0.2])], "M is not diagonal"))
bad.append(([write_global("g-negmass.h5", -Mball, Hball, Mball @ vfree, np.zeros(3), [0.2])], "a mass matrix must be positive definite"))
bad.append(([write_global("g-bilateral.h5", Mball, Hball, Mball @ vfree, np.zeros(3), [0.2], G=np.eye(6)[:, :2])], "2 bilateral rows"))
bad.append(([write_global("g-shape.h5", Mball, np.zeros((6, 6)), Mball @ vfree, np.zeros(6), [0.2])], "which need a 6 x 3 H"))
bad.append(([write_global("g-shortf.h5", Mball, Hball, [1.0, 2.0], np.zeros(3), [0.2])], "expected 6"))
bad.append(([write_global("g-nanw.h5", Mball, Hball, Mball @ vfree, [0.0, float("nan"), 0.0], [0.2])], "f, w or mu holds NaN"))
bad.append(([write_fclib("no-q.h5", BALL_W, BALL_Q, BALL_MU, skip=("/fclib_local/vectors/q",))], "missing dataset /fclib_local/vectors/q"))
bad.append(([write_fclib("no-W.h5", BALL_W, BALL_Q, BALL_MU, skip=("/fclib_local/W/x",))], "missing dataset /fclib_local/W/x"))
bad.append(([write_fclib("2d.h5", BALL_W, BALL_Q, BALL_MU, spacedim=2)], "spacedim is 2"))
bad.append(([write_fclib("rect.h5", np.ones((3, 6)), BALL_Q, BALL_MU)], "must be square"))
bad.append(([write_fclib("wrongsize.h5", np.eye(6), BALL_Q * 2, BALL_MU)], "mu has 1 contacts"))
bad.append(([write_fclib("negmu.h5", BALL_W, BALL_Q, [-0.1])], "negative friction coefficient"))
bad.append(([write_fclib("nanmu.h5", BALL_W, BALL_Q, [float("nan")])], "mu holds NaN"))
bad.append(([write_fclib("nanq.h5", BALL_W, [0.0, float("nan"), 0.0], BALL_MU)], "q holds NaN"))
bad.append(([write_fclib("nanW.h5", np.diag([1.0, float("nan"), 1.0]), BALL_Q, BALL_MU)], "NaN/Inf value"))
bad.append(([write_fclib("badindex.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/i": np.array([0, 7, 2], np.int32)})], "index outside"))
bad.append(([write_fclib("badptr.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/p": np.array([0, 2, 1, 3], np.int32)})], "not a valid list"))
bad.append(([write_fclib("badnz.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/nz": np.array([-3], np.int32)})], "not a known storage"))
bad.append(([write_fclib("shortq.h5", BALL_W, [1.0, 2.0], BALL_MU)], "expected 3"))
# integer fields: their type and shape checked (HDF5 would convert 2.5 to 2, or read a 2-D array's first row), and a
# size beyond 32 bits named as stored (before: clamped to 2147483647)
bad.append(([write_fclib("float-nz.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/nz": np.array([-2.0])})],
            "/fclib_local/W/nz is stored as floating point, not as integers"))
bad.append(([write_fclib("float-i.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/i": np.array([0.0, 1.0, 2.0])})],
            "/fclib_local/W/i is stored as floating point"))
bad.append(([write_fclib("2d-m.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/m": np.array([[3]], np.int32)})],
            "/fclib_local/W/m is a 2-dimensional array; FCLib stores it as a 1-D integer array"))
bad.append(([write_fclib("2d-i.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/i": np.array([[0, 1, 2]], np.int32)})],
            "/fclib_local/W/i is a 2-dimensional array"))
bad.append(([write_fclib("wide-m.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/W/m": np.array([3000000000], np.int64)})],
            "/fclib_local/W/m = 3000000000 is beyond this build's 32-bit indices"))
# W not positive semi-definite: a negative diagonal entry is named as W is read; an indefinite coupling that makes the
# objective unbounded on the cones is named when the iterates overflow (before: "compute function generated Inf or NaN")
bad.append(([write_fclib("negative-diagonal.h5", np.diag([-1.0, 3.5, 3.5]), BALL_Q, BALL_MU)],
            "W's diagonal entry 0 (contact 0, its normal row) is negative"))
UNBOUNDED_W = np.eye(6)
UNBOUNDED_W[0, 3] = UNBOUNDED_W[3, 0] = -2.0  # r_n = (t, t) lowers the objective by t^2 without bound
bad.append(([write_fclib("unbounded.h5", UNBOUNDED_W, [-1.0, 0, 0, -1.0, 0, 0], [0.3, 0.3])],
            "apgd's iterates grew without bound"))
bad.append(([write_fclib("text-spacedim.h5", BALL_W, BALL_Q, BALL_MU, override={"/fclib_local/spacedim": np.array([b"3"])})],
            "/fclib_local/spacedim is stored as a type that is not a number"))
good = write_fclib("good.h5", W5, BALL_Q * 5, BALL_MU * 5)
with open(good, "rb") as f:
    blob = f.read()
with open(path("truncated.h5"), "wb") as f:
    f.write(blob[: len(blob) // 2])
bad.append(([path("truncated.h5")], ""))
bad.append(([], "usage: talus ccp FILE"))
bad.append(([good, "-ccp_problem", "frictionless"], "-ccp_problem"))
bad.append(([good, "-tao_apgd_step_growth", "3"], "step_growth"))
bad.append(([good, "-tao_type", "blmvm"], "handles box constraints only"))
bad.append(([good, "-tao_type", "nm"], "cannot solve a contact problem"))
bad.append(([good, "-tao_type", "nbgs", "-ccp_problem", "relaxed"], "nbgs solves the Coulomb problem"))
bad.append(([good, "-tao_type", "nbgs", "-ccp_problem", "coulomb", "-tao_nbgs_omega", "2.5"], "-tao_nbgs_omega must be in (0, 2)"))
bad.append(([write_fclib("q2d.h5", np.kron(np.eye(2), BALL_W), BALL_Q * 2, BALL_MU * 2, override={"/fclib_local/vectors/q": np.array(BALL_Q * 2).reshape(2, 3)})], "is a 2-dimensional array with 2 dimensions longer than 1, not a vector"))
bad.append(([write_fclib("hugeW.h5", 1e200 * BALL_W, BALL_Q, BALL_MU)], "W has a value beyond 1e+150"))
bad.append(([write_fclib("hugeq.h5", BALL_W, [1e200, 0.0, 0.0], BALL_MU)], "q or mu holds a value beyond 1e+150"))
bad.append(([good, "-tao_type", "ipm", "-ccp_scale"], "invariant to the per-contact scaling"))
bad.append(([good, "-tao_type", "ipm", "-tao_ipm_step_fraction", "1.5"], "-tao_ipm_step_fraction must be in (0, 1)"))

jobs = [(["ccp"] + args, ranks, expected) for args, expected in bad for ranks in (None, 2) if args or not ranks]
for (args, ranks, expected), p in zip(jobs, run_all(TALUS, [job[:2] for job in jobs], timeout=120)):
    rc, so, se = p.returncode, p.stdout, p.stderr
    what = "talus %s%s" % (" ".join(args), " on %d ranks" % ranks if ranks else "")
    check(rc != 0, "%s: exit code 0" % what)
    check(rc < 128 or ranks, "%s: killed by a signal (%d)" % (what, rc))
    lines = [l for l in se.splitlines() if l.startswith("talus: error:")]
    check(len(lines) == 1, "%s: expected one error line, got:\n%s" % (what, se))
    check(expected in se, "%s: error does not say '%s':\n%s" % (what, expected, se))
    check("PETSC ERROR" not in se and "Traceback" not in se, "%s: raw PETSc trace:\n%s" % (what, se))

# vectors stored as N-D arrays with one long dimension ((n, 1), (1, n): as MATLAB writes them) read as
# vectors (before: "damaged"), and a problem with no contacts converges at once, on 1 and 2 ranks
for label, override in (("q as (3, 1)", {"/fclib_local/vectors/q": np.array(BALL_Q).reshape(3, 1)}),
                        ("mu as (1, 1)", {"/fclib_local/vectors/mu": np.array(BALL_MU).reshape(1, 1)}),
                        ("W/x as (1, 3)", {"/fclib_local/W/x": np.array([1.0, 3.5, 3.5]).reshape(1, 3)})):
    fn = write_fclib("nd-%s.h5" % label.split()[0].replace("/", ""), BALL_W, BALL_Q, BALL_MU, "triplet", override=override)
    for ranks in (None, 2):
        rc, so, se = run(["ccp", fn, "-ccp_problem", "coulomb", "-tao_gatol", "1e-10"], ranks=ranks)
        check(rc == 0 and "CONVERGED_GATOL" in so, "%s on %s ranks: exit %d\n%s%s" % (label, ranks or 1, rc, so, se))
empty = write_fclib("no-contacts.h5", np.zeros((0, 0)), [], [])
for ranks in (None, 2):
    solution = path("no-contacts-solution-%d.h5" % (ranks or 1))
    rc, so, se = run(["ccp", empty, "-ccp_solution", solution], ranks=ranks)
    check(rc == 0 and "0 contacts" in so and "CONVERGED" in so, "no contacts on %s ranks: exit %d\n%s%s" % (ranks or 1, rc, so, se))
    if rc == 0:  # an empty solution, written (before: "cannot write /solution/r (disk full?)")
        with h5py.File(solution, "r") as f:
            check(f["/solution/r"].shape == (0,) and f["/solution/u"].shape == (0,),
                  "no contacts: the solution's shapes %s, %s" % (f["/solution/r"].shape, f["/solution/u"].shape))

# ---------------------------------------------------------------- help
rc, so, se = run(["ccp", good, "-help"])
for option in ("-ccp_scale", "-fclib_form", "-tao_apgd_residual_step", "-tao_apgd_restart", "-tao_apgd_reuse_gradients", "-ccp_problem", "-ccp_solution", "-tao_gatol"):
    check(option in so, "-help does not list %s" % option)
rc, so, se = run(["ccp", good, "-tao_type", "nbgs", "-ccp_problem", "coulomb", "-help"])
for option in ("-tao_nbgs_omega", "-tao_nbgs_interface_omega", "-tao_nbgs_residual_scale"):
    check(option in so, "-help with -tao_type nbgs does not list %s" % option)
rc, so, se = run(["ccp", good, "-tao_type", "ipm", "-help"])
for option in ("-tao_ipm_step_fraction", "-tao_ipm_residual_scale", "-tao_ipm_inner_fraction", "-tao_ipm_pc_type"):
    check(option in so, "-help with -tao_type ipm does not list %s" % option)
rc, so, se = run([])
check(rc == 0 and "talus ccp FILE" in so, "talus without arguments does not print its usage")

sys.exit(check.finish())
