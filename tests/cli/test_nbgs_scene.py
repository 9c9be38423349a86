#!/usr/bin/python3
"""nbgs in a scene: Gauss-Seidel on body velocities through the matrix-free B.

Usage: test_nbgs_scene.py TALUS SOURCE_ROOT WORK_DIR

- tests/scenes/filling-125.yaml to t = 0.59 s with -tao_type nbgs: every step converges to the
  scene's tolerance (1e-6), and step 59's problem, dumped in the FCLib local form (W assembled by
  the other builder) and solved by `talus ccp -tao_type nbgs` from the same warm start, takes the
  same number of sweeps to a residual equal to 1e-6 relative: the two forms of the sweep (body
  velocities, rows of W) visit the same contacts in the same order;
- step 60 from the checkpoint at step 59, solved to 1e-11 by nbgs on 1, 2, 3 and 4 ranks (Jacobi
  across ranks), with -tao_nbgs_nncg on 3, and by apgd on one: every body's velocity and angular
  velocity agree to 1e-9;
- nbgs with the relaxed problem, with an assembled B and with -ccp_scale is refused with a message,
  and so is talus ccp -ccp_warm_start on a file with no guess.
"""
import csv
import os
import shutil
import sys

import h5py
import numpy as np

from clitest import Checks
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks("talus_nbgs_scene")
SCENE = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
base = os.path.join(WORK, "nbgs-scene")
shutil.rmtree(base, ignore_errors=True)


def run(args, ranks=None):
    return run_talus(TALUS, args, ranks, timeout=300)


def ok(p, what):
    check(p.returncode == 0, "%s: exit %d\n%s%s" % (what, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.returncode == 0


# ---------------------------------------------------------------- a run, and one step against the rows form
first = os.path.join(base, "first")
for extra in ([], ["-tao_nbgs_nncg"]):
    out = first if not extra else os.path.join(base, "nncg")
    if not ok(run([SCENE, "-tao_type", "nbgs", "-t_final", "0.59", "-checkpoint_every", "59", "-ccp_dump_step", "59",
                   "-o", out] + extra), "nbgs run %s" % extra):
        continue
    with open(os.path.join(out, "stats.csv")) as f:
        rows = list(csv.DictReader(f))
    unconverged = [r["step"] for r in rows if r["converged"] != "1"]
    check(len(rows) == 59 and not unconverged, "nbgs run %s: %d steps, unconverged %s" % (extra, len(rows), unconverged))
    dump = os.path.join(out, "ccp", "step-0000059.h5")
    with h5py.File(dump, "r") as f:
        sweeps = int(f["/talus/iterations"][()].ravel()[0])
        residual = float(f["/talus/time_and_residual"][()].ravel()[1])
    p = run(["ccp", dump, "-ccp_problem", "coulomb", "-tao_type", "nbgs", "-tao_gatol", "1e-6", "-tao_max_it", "20000",
             "-ccp_warm_start"] + extra)
    if ok(p, "talus ccp nbgs %s on the dump" % extra):
        words = p.stdout.split()
        got_sweeps = int(words[words.index("after") + 1])
        got_residual = float(words[words.index("residual") + 1])
        check(got_sweeps == sweeps and abs(got_residual - residual) <= 1e-3 * residual,  # printed to 4 digits
              "%s rows form: %d sweeps to %.6e; body form in the run: %d to %.6e" % (extra, got_sweeps, got_residual,
                                                                                     sweeps, residual))
        check(sweeps > 10, "step 59 took %d sweeps: too few to compare the two forms" % sweeps)
        if extra:
            nncg_sweeps = sweeps
        else:
            plain_sweeps = sweeps
if "plain_sweeps" in dir() and "nncg_sweeps" in dir():
    print("step 59 of the filling: %d sweeps, %d with -tao_nbgs_nncg" % (plain_sweeps, nncg_sweeps))


# ---------------------------------------------------------------- one step to 1e-11 on 1-4 ranks
def state(out):
    with h5py.File(os.path.join(out, "checkpoints", "last.h5"), "r") as f:
        order = np.argsort(f["/bodies/id"][()])
        return np.hstack([f["/bodies/velocity"][()][order], f["/bodies/omega"][()][order]])


ckpt = os.path.join(first, "checkpoints", "ckpt-00000059.h5")
states = {}
for solver, ranks in (("nbgs", 1), ("nbgs", 2), ("nbgs", 3), ("nbgs", 4), ("apgd", 1), ("nbgs -tao_nbgs_nncg", 3)):
    out = os.path.join(base, "%s-%d" % (solver.replace(" ", ""), ranks))
    p = run(["-restart", ckpt, "-o", out, "-t_final", "0.6", "-tao_type"] + solver.split() +
            ["-tao_gatol", "1e-11", "-tao_max_it", "100000", "-checkpoint_every", "1"], ranks)
    if ok(p, "step 60 by %s on %d ranks" % (solver, ranks)):
        with open(os.path.join(out, "stats.csv")) as f:
            last = list(csv.DictReader(f))[-1]
        check(last["step"] == "60" and last["converged"] == "1", "step 60 by %s on %d ranks: %s" % (solver, ranks, last))
        states[(solver, ranks)] = state(out)
if ("nbgs", 1) in states:
    ref = states[("nbgs", 1)]
    for key, v in states.items():
        diff = float(np.abs(v - ref).max())
        check(diff <= 1e-9, "step 60: %s on %d ranks differs from nbgs on 1 by %.3e m/s" % (key[0], key[1], diff))

# ---------------------------------------------------------------- refused
# The options' refusals come before the first step; the one of the operator's form with the first problem (to
# 0.35 s: the first spheres land then, the pairs apart before being screened out of the problem)
for k, (extra, words, at_start) in enumerate(((["-ccp_problem", "relaxed"], "solves the Coulomb problem", True),
                                              (["-ccp_matrix_free", "false"], "row blocks of a matrix-free B", False),
                                              (["-ccp_scale"], "drop -ccp_scale", True))):
    out = os.path.join(base, "refused-%d" % k)
    p = run([SCENE, "-tao_type", "nbgs", "-t_final", "0.35", "-o", out] + extra)
    check(p.returncode != 0 and words in p.stdout + p.stderr,
          "nbgs with %s: exit %d, expected a message with %r\n%s%s" % (extra, p.returncode, words, p.stdout, p.stderr))
    if at_start:
        check(not os.path.exists(os.path.join(out, "stats.csv")),
              "nbgs with %s: refused only after the run had begun (%s exists)" % (extra, os.path.join(out, "stats.csv")))

p = run(["ccp", os.path.join(ROOT, "inputs", "fclib", "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"), "-ccp_warm_start"])
check(p.returncode != 0 and "has no first guess" in p.stdout + p.stderr,
      "-ccp_warm_start on a file without guesses: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

sys.exit(check.finish())
