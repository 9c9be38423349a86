#!/usr/bin/python3
"""A run's contact problems leave talus: -ccp_dump_step, -ccp_dump_unconverged, -ccp_dump_dir.

Usage: test_ccp_dump.py TALUS SOURCE_ROOT WORK_DIR

- the first step of inputs/rolling-ball.yaml, written on 1 and 2 ranks, is the closed-form problem
  of a ball (m = 1, I = 0.4, R = 1) touching a plane: W = diag(1, 3.5, 3.5), q = (-g h, |2| slip, 0),
  M = diag(1, 1, 1, 0.4, 0.4, 0.4), f = M v_free, w = 0; `talus ccp` solves it, from either form, to
  the sliding answer r = (g h, mu g h against the slip, 0);
- a step of the filling (125 spheres on 2 ranks): the two forms in the file are the same problem
  (W = H^T M^-1 H and q = w + H^T M^-1 f, reduced here with scipy), M holds the spheres' mass 1 and
  inertia 0.1, and `talus ccp` gives the same solution from both;
- -ccp_dump_unconverged K writes exactly the first K unconverged steps, with their outcome;
- bad values are refused before the run starts.
"""
import csv
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp

from clitest import Checks, fclib_matrix
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks("talus_ccp_dump")


def run(args, ranks=None):
    return run_talus(TALUS, args, ranks, timeout=300)


def read_dump(fn):
    with h5py.File(fn, "r") as f:
        loc = f["/fclib_local"]
        d = dict(W=fclib_matrix(loc["W"]).toarray(), q=loc["vectors/q"][()], mu=loc["vectors/mu"][()],
                 guess=f["/guesses/1/r"][()], global_form="/fclib_global" in f,
                 step=int(f["/talus/step"][()].ravel()[0]), iterations=int(f["/talus/iterations"][()].ravel()[0]),
                 reason=f["/talus"].attrs["reason"])
        if d["global_form"]:
            glo = f["/fclib_global"]
            d.update(M=fclib_matrix(glo["M"]), H=fclib_matrix(glo["H"]), f=glo["vectors/f"][()], w=glo["vectors/w"][()],
                     mu_global=glo["vectors/mu"][()])
    if isinstance(d["reason"], bytes):
        d["reason"] = d["reason"].decode()
    return d


def solve(fn, form, out, ranks=None, extra=()):
    p = run(["ccp", fn, "-fclib_form", form, "-ccp_problem", "coulomb", "-tao_gatol", "1e-12", "-tao_max_it", "20000",
             "-ccp_solution", out] + list(extra), ranks)
    check(p.returncode == 0 and "CONVERGED_GATOL" in p.stdout, "talus ccp %s -fclib_form %s: exit %d\n%s%s" % (fn, form, p.returncode, p.stdout, p.stderr))
    if p.returncode != 0:
        return None
    with h5py.File(out, "r") as f:
        return f["/solution/r"][()]


# ---------------------------------------------------------------- the ball's first step: closed form
g, h, mu = 9.81, 0.01, 0.2
for ranks in (None, 2):
    out = os.path.join(WORK, "dump-ball-%s" % ranks)
    p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", out, "-t_final", "0.03", "-ccp_dump_step", "1,3"], ranks)
    check(p.returncode == 0, "ball with -ccp_dump_step 1,3 on %s ranks: exit %d\n%s" % (ranks or 1, p.returncode, p.stderr))
    files = sorted(os.listdir(os.path.join(out, "ccp"))) if os.path.isdir(os.path.join(out, "ccp")) else []
    check(files == ["step-0000001.h5", "step-0000003.h5"], "ball: dumped files %s" % files)
    check("step 1: its contact problem (1 contacts" in p.stdout, "ball: no progress line for the dump:\n%s" % p.stdout)
    if "step-0000001.h5" not in files:
        continue
    fn = os.path.join(out, "ccp", "step-0000001.h5")
    d = read_dump(fn)
    check(d["step"] == 1 and d["reason"].startswith("CONVERGED"), "ball: /talus says step %d, %s" % (d["step"], d["reason"]))
    check(np.allclose(d["W"], np.diag([1.0, 3.5, 3.5]), atol=1e-14), "ball: W =\n%s" % d["W"])
    check(abs(d["q"][0] + g * h) < 1e-14 and abs(np.hypot(d["q"][1], d["q"][2]) - 2.0) < 1e-14, "ball: q = %s" % d["q"])
    check(np.allclose(d["M"].toarray(), np.diag([1, 1, 1, 0.4, 0.4, 0.4]), atol=1e-14), "ball: M =\n%s" % d["M"].toarray())
    check(np.allclose(d["f"], [2.0, 0.0, -g * h, 0, 0, 0], atol=1e-14), "ball: f = %s" % d["f"])
    check(np.allclose(d["w"], 0.0, atol=1e-14) and np.allclose(d["mu"], mu) and np.allclose(d["mu_global"], mu), "ball: w = %s, mu = %s" % (d["w"], d["mu"]))
    answers = {}
    for form in ("local", "global"):
        r = solve(fn, form, os.path.join(out, "ball-%s.h5" % form))
        if r is None:
            continue
        answers[form] = r
        slip = d["q"][1:] / np.hypot(*d["q"][1:])
        expected = np.concatenate([[g * h], -mu * g * h * slip])
        check(np.allclose(r, expected, atol=1e-10), "ball from the %s form: r = %s, expected %s" % (form, r, expected))

# ---------------------------------------------------------------- the ball with the contacts' floor
# (the scene has rigid rows): W = N + E, E = (w_n / (4 pi^2), 0, 0), in the local form only (FCLib's global
# form has no place for E)
out = os.path.join(WORK, "dump-ball-floor")
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", out, "-t_final", "0.01", "-ccp_dump_step", "1",
         "-contact_near_rigid", "1"])
check(p.returncode == 0, "ball with the floor, -ccp_dump_step 1: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    d = read_dump(os.path.join(out, "ccp", "step-0000001.h5"))
    check(np.allclose(d["W"], np.diag([1.0 + 1.0 / (4 * np.pi ** 2), 3.5, 3.5]), atol=1e-14) and not d["global_form"],
          "ball with the floor: W =\n%s, global form %s" % (d["W"], d["global_form"]))
    r = solve(os.path.join(out, "ccp", "step-0000001.h5"), "local", os.path.join(out, "ball-floor.h5"))
    if r is not None:  # the normal row: g h = (1 + E) r_n
        check(abs(r[0] - g * h / (1.0 + 1.0 / (4 * np.pi ** 2))) < 1e-10, "ball with the floor: r = %s" % r)

# ---------------------------------------------------------------- a step of the filling, on 2 ranks
# (rigid rows: the global form is written only for problems without E)
out = os.path.join(WORK, "dump-filling")
scene = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
# (step 36: the bed's first layers have landed, so the problem, without the pairs screened as apart, has 120 contacts)
p = run([scene, "-o", out, "-t_final", "0.4", "-ccp_dump_step", "36", "-contact_near_rigid", "0"], 2)
check(p.returncode == 0, "filling with -ccp_dump_step 36 on 2 ranks: exit %d\n%s" % (p.returncode, p.stderr))
fn = os.path.join(out, "ccp", "step-0000036.h5")
if os.path.exists(fn):
    d = read_dump(fn)
    minv = sp.diags(1.0 / d["M"].diagonal())
    W = (d["H"].T @ minv @ d["H"]).toarray()
    q = d["w"] + d["H"].T @ (minv @ d["f"])
    nc = len(d["mu"])
    check(nc > 100 and d["W"].shape == (3 * nc, 3 * nc), "filling: %d contacts, W %s" % (nc, d["W"].shape))
    check(np.abs(W - d["W"]).max() <= 1e-13 * np.abs(W).max(), "filling: W != H^T M^-1 H by %g" % np.abs(W - d["W"]).max())
    check(np.abs(q - d["q"]).max() <= 1e-13 * np.abs(q).max(), "filling: q != w + H^T M^-1 f by %g" % np.abs(q - d["q"]).max())
    check(set(np.round(d["M"].diagonal(), 12)) == {1.0, 0.1}, "filling: M's diagonal holds %s, not the masses 1 and inertias 0.1" % set(d["M"].diagonal()))
    check((d["M"] - sp.diags(d["M"].diagonal())).count_nonzero() == 0, "filling: M is not diagonal")
    rows = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
    check(d["iterations"] == int(rows[35]["iterations"]), "filling: the dump says %d iterations, stats.csv %s" % (d["iterations"], rows[35]["iterations"]))
    r_local = solve(fn, "local", os.path.join(out, "sol-local.h5"), 2)
    r_global = solve(fn, "global", os.path.join(out, "sol-global.h5"), 3)
    if r_local is not None and r_global is not None:
        dr = np.abs(r_local - r_global).max() / np.abs(r_local).max()
        check(dr < 1e-8, "filling: the local and global forms' solutions differ by %g relative" % dr)
        print("filling step 36 (%d contacts): local form on 2 ranks, global on 3, r within %.1e" % (nc, dr))

# ---------------------------------------------------------------- the first K unconverged steps
out = os.path.join(WORK, "dump-unconverged")
p = run([scene, "-o", out, "-t_final", "0.5", "-tao_max_it", "3", "-ccp_dump_unconverged", "2", "-ccp_dump_dir", os.path.join(out, "hard")])
check(p.returncode == 0, "filling with -ccp_dump_unconverged 2: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    rows = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
    unconverged = [int(r["step"]) for r in rows if r["converged"] == "0"]
    files = sorted(os.listdir(os.path.join(out, "hard")))
    check(len(unconverged) > 2, "filling with -tao_max_it 3: only %d unconverged steps" % len(unconverged))
    check(files == ["step-%07d.h5" % s for s in unconverged[:2]], "unconverged dumps %s, expected the steps %s" % (files, unconverged[:2]))
    for name in files:
        d = read_dump(os.path.join(out, "hard", name))
        check(d["reason"] == "DIVERGED_MAXITS" and d["iterations"] == 3, "%s: /talus says %s after %d iterations" % (name, d["reason"], d["iterations"]))

# ---------------------------------------------------------------- bad values
for args, expected in ((["-ccp_dump_step", "0"], "step numbers start at 1"),
                       (["-ccp_dump_unconverged", "-1"], "a count of problems"),
                       (["-ccp_dump_step", "1", "-ccp_dump_dir", "/proc/no/such"], "cannot create the directory")):
    p = run([scene, "-o", os.path.join(WORK, "dump-bad"), "-t_final", "0.02"] + args)
    check(p.returncode != 0 and expected in p.stderr and "Traceback" not in p.stderr and "PETSC ERROR" not in p.stderr,
          "%s: exit %d, stderr:\n%s" % (" ".join(args), p.returncode, p.stderr))

p = run([scene, "-help"])
for option in ("-ccp_dump_step", "-ccp_dump_unconverged", "-ccp_dump_dir"):
    check(option in p.stdout, "-help does not list %s" % option)
sys.exit(check.finish())
