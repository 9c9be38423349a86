#!/usr/bin/python3
"""newton_ccp in a scene: the compliant relaxed problem solved by Newton on the bodies' velocities.

Usage: test_newton_scene.py TALUS SOURCE_ROOT WORK_DIR

- tests/scenes/filling-125.yaml to t = 0.6 s with the relaxed problem, the near-rigid floor and
  -contact_friction_sigma 1e-3, every step solved to 1e-9 m/s: apgd and newton_ccp (1 rank; 2 ranks with
  its default PC and with MUMPS's Cholesky) solve the same problem, so every body's velocity agrees to 1e-6
  m/s at the end; every newton step converges in at most 60 Newton steps, and stats.csv counts their
  Krylov iterations (linear_iterations > 0 where there are contacts);
- a newton run stopped at step 40 and restarted from its checkpoint ends bit for bit where the run that
  never stopped ends;
- refused with a message that names the option: the Coulomb problem, rigid friction rows (sigma 0), rigid
  normal rows (-contact_near_rigid 0), -ccp_scale, an unknown -tao_newton_pc_type or -tao_newton_ksp_type, a
  line-search tolerance out of range, on 1 and 2 ranks; and `talus ccp` on an FCLib problem (W alone: no
  bodies to take velocities of).
"""
import csv
import os
import shutil
import sys

import h5py
import numpy as np

from clitest import Checks, restart_differs, run_all
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks("talus_newton_scene")
SCENE = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
base = os.path.join(WORK, "newton-scene")
shutil.rmtree(base, ignore_errors=True)
COMPLIANT = ["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-t_final", "0.6", "-tao_gatol", "1e-9",
             "-output_every", "0"]
NEWTON = ["-tao_type", "newton_ccp"]


def ok(p, what):
    check(p.returncode == 0, "%s: exit %d\n%s%s" % (what, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.returncode == 0


def velocities(out):
    with h5py.File(os.path.join(out, "checkpoints", "last.h5"), "r") as f:
        order = np.argsort(f["/bodies/id"][()])
        return np.hstack([f["/bodies/velocity"][()][order], f["/bodies/omega"][()][order]])


def stats(out):
    with open(os.path.join(out, "stats.csv")) as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- the same problem by apgd and by Newton
runs = {"apgd": (["-checkpoint_every", "60"], None), "newton": (NEWTON + ["-checkpoint_every", "20"], None),
        "newton-np2": (NEWTON + ["-checkpoint_every", "60"], 2),
        "newton-mumps-np2": (NEWTON + ["-checkpoint_every", "60", "-tao_newton_pc_type", "cholesky",
                                       "-tao_newton_pc_factor_mat_solver_type", "mumps"], 2)}
procs = run_all(TALUS, [([SCENE, "-o", os.path.join(base, name), "-tao_max_it", "100000"] + COMPLIANT + extra, ranks)
                        for name, (extra, ranks) in runs.items()], workers=2, timeout=300)
state = {}
for (name, (extra, ranks)), p in zip(runs.items(), procs):
    if not ok(p, "%s run" % name):
        continue
    rows = stats(os.path.join(base, name))
    unconverged = [r["step"] for r in rows if r["converged"] != "1"]
    check(len(rows) == 60 and not unconverged, "%s: %d steps, unconverged %s" % (name, len(rows), unconverged))
    if name.startswith("newton"):
        most = max(int(r["iterations"]) for r in rows)
        check(most <= 60, "%s: a step took %d Newton steps" % (name, most))
        lacking = [r["step"] for r in rows if int(r["contacts"]) > 0 and int(r["iterations"]) > 0
                   and int(r["linear_iterations"]) <= 0]
        check(not lacking, "%s: steps with Newton steps but no linear iterations counted: %s" % (name, lacking))
    else:
        check(all(r["linear_iterations"] == "0" for r in rows), "apgd counts linear iterations")
    state[name] = velocities(os.path.join(base, name))
if "apgd" in state:
    for name, v in state.items():
        diff = float(np.abs(v - state["apgd"]).max())
        check(diff <= 1e-6, "t = 0.6 s: %s differs from apgd by %.3e m/s" % (name, diff))

# ---------------------------------------------------------------- restart
newton = os.path.join(base, "newton")
if os.path.exists(os.path.join(newton, "checkpoints", "ckpt-00000040.h5")):
    p, differ = restart_differs(TALUS, newton, os.path.join(base, "newton-again"), 40, 60,
                                ["/bodies/position", "/bodies/velocity", "/bodies/omega", "/bodies/quaternion"])
    if ok(p, "newton restart at step 40"):
        check(differ == [], "the restarted newton run differs at step 60 in %s" % differ)

# ---------------------------------------------------------------- refused
refusals = [(["-ccp_problem", "coulomb", "-contact_friction_sigma", "1e-3"], "use -ccp_problem relaxed"),
            (["-ccp_problem", "relaxed"], "-contact_friction_sigma > 0"),
            (["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-contact_near_rigid", "0"],
             "-contact_near_rigid > 0"),
            (["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-ccp_scale"], "drop -ccp_scale"),
            (["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-tao_newton_pc_type", "nonsense"],
             "-tao_newton_pc_type nonsense is not known"),
            (["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-tao_newton_ksp_type", "nonsense"],
             "-tao_newton_ksp_type nonsense is not known"),
            (["-ccp_problem", "relaxed", "-contact_friction_sigma", "1e-3", "-tao_newton_ls_rtol", "2"],
             "-tao_newton_ls_rtol must be in (0, 1)")]
jobs = [([SCENE, "-o", os.path.join(base, "refused-%d-%d" % (i, ranks or 1)), "-t_final", "0.35"] + NEWTON + extra,
         ranks) for i, (extra, _) in enumerate(refusals) for ranks in (None, 2)]
for (args, ranks), p, (extra, words) in zip(jobs, run_all(TALUS, jobs, timeout=120),
                                            [r for r in refusals for _ in (None, 2)]):
    check(p.returncode != 0 and words in p.stdout + p.stderr,
          "newton_ccp with %s on %s ranks: exit %d, expected a message with %r\n%s%s" % (
              extra, ranks or 1, p.returncode, words, p.stdout[-1500:], p.stderr[-1500:]))
p = run_talus(TALUS, ["ccp", os.path.join(ROOT, "inputs", "fclib", "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"),
                      "-tao_type", "newton_ccp"])
check(p.returncode != 0 and "needs N's factors" in p.stdout + p.stderr,
      "talus ccp -tao_type newton_ccp: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

sys.exit(check.finish())
