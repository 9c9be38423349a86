#!/usr/bin/python3
"""talus ccp -ccp_problem lcp: seed 002's faceted LCP by Lemke's method end to end (docs/lcp.md).

Usage: test_lcp_cli.py TALUS SOURCE_ROOT WORK_DIR

- the real Box_Stacks problem (82 contacts) solves with 4 and 8 facets: the LCP's min(w, z) below
  1e-12, its impulses inside Coulomb's cone (the pyramid is inscribed), u = W r + q written with
  -ccp_solution; the same r, bit for bit, on 1 and 2 ranks (the problem is gathered to rank 0);
- PETSc's ssfls solves the same LCP (-lcp_solver ssfls) to its own tolerance (min(w, z) below 1e-8) with
  the same velocities u within 1e-8 (the impulses are not unique: a box face's four corner contacts are
  redundant, and the two differ by 7.5e-6 of 1.4e-3);
- a problem Lemke cannot solve ends with its reason and a non-zero exit (LMGC's periodic box: a
  secondary ray), and bad settings are refused with a message: -lcp_facets 1, -lcp_max_size below the
  problem's size (the message gives both numbers), an unknown -lcp_ option;
- -help lists the -lcp_ options;
- a scene stepped with -ccp_problem lcp: 18 frictionless spheres dropped into a corner follow apgd's
  Coulomb run to 1e-10 m (without friction the facets change nothing), on 1 and 2 ranks (1e-12 m
  apart: the gathered problem's order follows the ranks);
- joints in the LCP: a pendulum on a pin with an angle limit pushing a ball, frictionless, follows apgd's
  run to 1e-8 m on 1 and 2 ranks; redundant joints are refused with the reason;
- in a scene the faceted LCP is the Tao type faceted_lcp, which -ccp_problem lcp chooses: another Tao type for
  it, faceted_lcp for the relaxed problem and -ccp_scale are refused with the reason; -help lists its options.
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
WORK = os.path.join(WORK, "lcp-cli")  # its own scratch directory, emptied: a rerun starts afresh
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_lcp_cli")
BOXES = os.path.join(ROOT, "inputs", "fclib", "Box_Stacks-i0122-82-5.hdf5")
PERIODIC = os.path.join(ROOT, "inputs", "fclib", "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5")


def run(args, ranks=None):
    p = run_talus(TALUS, ["ccp"] + args, ranks, timeout=300)
    return p.returncode, p.stdout, p.stderr


def solution(name):
    with h5py.File(name, "r") as f:
        return f["solution/r"][()], f["solution/u"][()]


mu = h5py.File(BOXES, "r")["fclib_global/vectors/mu"][()]
answers, velocities = {}, {}
for facets in (4, 8):
    for ranks in (1, 2):
        out = os.path.join(WORK, "lcp-boxes-%d-np%d.h5" % (facets, ranks))
        rc, so, se = run([BOXES, "-ccp_problem", "lcp", "-lcp_facets", str(facets), "-ccp_solution", out], ranks)
        check(rc == 0 and "solved (complementary basis)" in so, "Box_Stacks, %d facets, %d ranks: %s%s" % (facets, ranks, so, se[-500:]))
        if rc:
            continue
        comp = float(so.split("max |min(w, z)|")[1].split()[0])
        check(comp < 1e-12, "Box_Stacks %d facets: min(w, z) %g" % (facets, comp))
        r, u = solution(out)
        rn, rt = r[0::3], np.hypot(r[1::3], r[2::3])
        check(np.all(rn >= 0) and np.all(rt <= mu * rn + 1e-14), "Box_Stacks %d facets: r outside Coulomb's cone" % facets)
        answers[(facets, ranks)], velocities[(facets, ranks)] = r, u
    if (facets, 1) in answers and (facets, 2) in answers:
        check(np.array_equal(answers[(facets, 1)], answers[(facets, 2)]), "Box_Stacks %d facets: 1 and 2 ranks differ" % facets)

out = os.path.join(WORK, "lcp-boxes-ssfls.h5")
rc, so, se = run([BOXES, "-ccp_problem", "lcp", "-lcp_facets", "4", "-lcp_solver", "ssfls", "-ccp_solution", out])
check(rc == 0 and "ssfls CONVERGED" in so, "ssfls on Box_Stacks: %s%s" % (so, se[-400:]))
if rc == 0 and (4, 1) in answers:
    comp = float(so.split("max |min(w, z)|")[1].split()[0])
    gap = np.max(np.abs(solution(out)[1] - velocities[(4, 1)]))
    check(comp < 1e-8 and gap <= 1e-8, "ssfls and Lemke on Box_Stacks: ssfls min(w, z) %g, velocities %g apart" % (comp, gap))

rc, so, se = run([PERIODIC, "-ccp_problem", "lcp", "-lcp_facets", "4"])
check(rc != 0 and "secondary ray" in se and "lemke did not solve the faceted LCP" in se,
      "LMGC periodic box: expected a secondary ray and an error, got %d: %s" % (rc, se[-400:]))
for args, expected in ((["-lcp_facets", "1"], "at least 2 friction directions"),
                       (["-lcp_max_size", "100"], "has 820 unknowns, more than -lcp_max_size 100"),
                       (["-lcp_max_pivots", "-3"], "-lcp_max_pivots must be >= 0"),
                       (["-lcp_facet", "4"], "lcp_facet")):
    rc, so, se = run([BOXES, "-ccp_problem", "lcp"] + args)
    check(rc != 0 and expected in se and "Traceback" not in se, "%s: expected '%s', got %d: %s" % (args, expected, rc, se[-400:]))

DROP = """gravity: [0, 0, -9.81]
time_step: 0.01
end_time: 0.5
envelope: 0.1
materials:
  - {name: m, mu: 0.0}
bodies:
  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}
  - {shape: plane, normal: [1, 0, 0], position: [-1, 0, 0]}
  - {shape: plane, normal: [0, 1, 0], position: [0, -1, 0]}
generators:
  - lattice: {radius: 0.2, mass: 1, origin: [-0.75, -0.75, 0.3], spacing: 0.5, count: [3, 3, 2], jitter: 0.04, seed: 3}
options:
  tao_gatol: 1.0e-12
  tao_max_it: 100000
"""
scene = os.path.join(WORK, "lcp-drop.yaml")
with open(scene, "w") as f:
    f.write(DROP)
positions = {}
for name, extra, ranks in (("apgd", [], 1), ("lcp", ["-ccp_problem", "lcp"], 1), ("lcp-np2", ["-ccp_problem", "lcp"], 2)):
    out = os.path.join(WORK, "lcp-drop-" + name)
    p = run_talus(TALUS, [scene, "-o", out, "-checkpoint_every", "50"] + extra, ranks, timeout=300)
    check(p.returncode == 0, "drop %s: %s" % (name, p.stderr[-400:]))
    if name == "lcp":  # no residual tolerance stops a pivoting method: the banner says so
        check("contact problem lcp by faceted_lcp (pivoting: exact to rounding)" in p.stdout,
              "the run's banner: %s" % p.stdout[:400])
    if p.returncode == 0:
        with h5py.File(os.path.join(out, "checkpoints", "ckpt-00000050.h5"), "r") as f:
            positions[name] = f["bodies/position"][()]
if len(positions) == 3:
    gap, ranks_gap = np.max(np.abs(positions["apgd"] - positions["lcp"])), np.max(np.abs(positions["lcp"] - positions["lcp-np2"]))
    check(gap < 1e-10 and ranks_gap < 1e-12, "frictionless drop: lcp %g m from apgd, 1 and 2 ranks %g m apart" % (gap, ranks_gap))
# joints in the LCP: a pendulum on a revolute pin with an angle limit swings into a ball on the floor,
# frictionless (so the LCP and the Coulomb CCP are one QP): the free rows eliminated, the limit's rows LCP
# unknowns; the same run as apgd's, on 1 and 2 ranks. Redundant joints (a second pin on the same point)
# make the free rows' block singular: the LCP stops with the reason (apgd takes them).
MECHANISM = """gravity: [0, 0, -9.81]
time_step: 0.002
end_time: 0.6
envelope: 0.05
materials:
  - {name: m, mu: 0}
bodies:
  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}
  - {name: bob, shape: sphere, radius: 0.1, mass: 1, position: [1, 0, 1.15]}
  - {name: ball, shape: sphere, radius: 0.1, mass: 0.5, position: [0.5, 0, 0.1]}
joints:
  - {type: revolute, bodies: [world, bob], point: [0, 0, 1.15], axis: [0, 1, 0]}
  - {type: angle_limit, bodies: [world, bob], point: [0, 0, 1.15], axis: [0, 1, 0], lower: -0.2, upper: 1.4}
options:
  tao_gatol: 1.0e-13
  tao_max_it: 100000
"""
jointed = os.path.join(WORK, "lcp-joint.yaml")
with open(jointed, "w") as f:
    f.write(MECHANISM)
ends, pivots = {}, 0
for name, extra, ranks in (("apgd", [], 1), ("lcp", ["-ccp_problem", "lcp"], 1), ("lcp-np2", ["-ccp_problem", "lcp"], 2)):
    out = os.path.join(WORK, "lcp-joint-" + name)
    p = run_talus(TALUS, [jointed, "-o", out, "-checkpoint_every", "300"] + extra, ranks, timeout=300)
    check(p.returncode == 0, "mechanism %s: %s" % (name, p.stderr[-400:]))
    if p.returncode == 0:
        with h5py.File(os.path.join(out, "checkpoints", "ckpt-00000300.h5"), "r") as f:
            order = np.argsort(f["bodies/id"][()])
            ends[name] = f["bodies/position"][()][order]
        with open(os.path.join(out, "stats.csv")) as f:
            rows = list(csv.DictReader(f))
        if name == "lcp":
            pivots = max(int(r["iterations"]) for r in rows)
            pushed = max(int(r["contacts"]) for r in rows)
if len(ends) == 3:
    gap, ranks_gap = np.max(np.abs(ends["apgd"] - ends["lcp"])), np.max(np.abs(ends["lcp"] - ends["lcp-np2"]))
    moved = np.linalg.norm(ends["lcp"][1] - [0.5, 0, 0.1])
    check(gap < 1e-8 and ranks_gap < 1e-10 and moved > 0.05 and pushed >= 2,
          "mechanism: lcp %g m from apgd, 1 and 2 ranks %g m apart; the ball moved %g m, %d contacts" % (gap, ranks_gap, moved, pushed))
    print("mechanism with a pin, a limit and contacts: lcp %.1e m from apgd (1 and 2 ranks %.1e m), up to %d pivots, "
          "the ball pushed %.3f m" % (gap, ranks_gap, pivots, moved))
redundant = os.path.join(WORK, "lcp-redundant.yaml")
with open(redundant, "w") as f:
    f.write(MECHANISM.replace("joints:\n", "joints:\n  - {type: spherical, bodies: [world, bob], point: [0, 0, 1.15]}\n"))
p = run_talus(TALUS, [redundant, "-o", os.path.join(WORK, "lcp-redundant"), "-ccp_problem", "lcp", "-t_final", "0.01"], timeout=120)
check(p.returncode != 0 and "step 1: lemke did not solve the faceted LCP" in p.stderr and
      "the joints' free rows are redundant" in p.stderr, "redundant joints with -ccp_problem lcp: %s" % p.stderr[-300:])
# the faceted LCP is a solver like the others (the Tao type faceted_lcp, which the variant lcp chooses): another
# Tao type for the variant, faceted_lcp for the relaxed problem, or -ccp_scale are refused with the reason; in a
# scene, -help lists the -lcp_ options with the Tao type's
for args, expected in ((["-ccp_problem", "lcp", "-tao_type", "apgd"], "is solved by the Tao type faceted_lcp"),
                       (["-ccp_problem", "relaxed", "-tao_type", "faceted_lcp"], "solves the Coulomb problem with its cones faceted"),
                       (["-ccp_problem", "lcp", "-ccp_scale"], "drop -ccp_scale")):
    p = run_talus(TALUS, [jointed, "-o", os.path.join(WORK, "lcp-refused"), "-t_final", "0.01"] + args, timeout=120)
    check(p.returncode != 0 and expected in p.stderr and "PETSC ERROR" not in p.stderr,
          "%s: %s" % (" ".join(args), p.stderr[-300:]))
p = run_talus(TALUS, [jointed, "-o", os.path.join(WORK, "lcp-help"), "-ccp_problem", "lcp", "-help"], timeout=120)
check(p.returncode == 0 and "-lcp_facets" in p.stdout, "a scene's -help with -ccp_problem lcp: %s" % p.stderr[-300:])

rc, so, se = run([BOXES, "-ccp_problem", "lcp", "-help"])
for option in ("-lcp_facets", "-lcp_solver", "-lcp_max_pivots", "-lcp_max_size"):
    check(rc == 0 and option in so, "-help does not list %s (exit %d)" % (option, rc))
sys.exit(check.finish())
