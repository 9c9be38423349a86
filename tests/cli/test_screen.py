#!/usr/bin/python3
"""-contact_screen: separated pairs left out of a step's problem, and checked after its solve (src/sim/step_screen.c).

Usage: test_screen.py TALUS SOURCE_ROOT WORK_DIR

- exactness: a striker at 10 m/s hits a chain of two touching spheres whose last one is 1 cm from a pair of
  touching ones (no gravity). The pair across the gap is apart and at rest, so it is screened; the blow reaches it
  within the first step, the check finds it closing, and the step is solved again with it: the velocities after
  every step are those of the run without screening (-contact_screen 0) to the solver's tolerance, and stats.csv
  says the first step took two solves and left nothing out; the same on 2 ranks, whose regions split the spheres
  at the gap (3 and 2), so that the check reads a ghost's v+;
- on a settled pile (tests/scenes/filling-125.yaml) pairs are screened on every late step, every step converges,
  and the bed's support force and height are the unscreened run's; the same on 2 ranks;
- the assembled B (-ccp_matrix_free false) has no ghosted body vector to check against: nothing is screened;
- the run's start line says when pairs are screened, and summary.json counts them (screened_mean, solves_repeated);
- unhappy paths: a negative factor, not a number.
"""
import csv
import json
import os
import sys

import h5py
import numpy as np

from clitest import Checks
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "screen")
os.makedirs(WORK, exist_ok=True)
check = Checks("talus_screen")
FILLING = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")

BLOW = """name: blow
gravity: [0, 0, 0]
time_step: 0.01
end_time: 0.05
envelope: 0.2
materials:
  - {name: grain, mu: 0.3}
bodies:
  - {shape: sphere, radius: 0.5, mass: 1, position: [0, 0, 0], velocity: [10, 0, 0]}
  - {shape: sphere, radius: 0.5, mass: 1, position: [1, 0, 0]}
  - {shape: sphere, radius: 0.5, mass: 1, position: [2, 0, 0]}
  - {shape: sphere, radius: 0.5, mass: 1, position: [3.01, 0, 0]}
  - {shape: sphere, radius: 0.5, mass: 1, position: [4.01, 0, 0]}
options:
  tao_gatol: 1e-9
  tao_max_it: 20000
"""


def stats(out):
    with open(os.path.join(out, "stats.csv")) as f:
        return list(csv.DictReader(f))


def velocities(out):
    """every frame's velocities, in id order"""
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        return [f[k]["velocity"][()][np.argsort(f[k]["id"][()])] for k in sorted(f) if k.startswith("frame")]


def go(args, out, ranks=None):
    p = run_talus(TALUS, args + ["-o", out, "-overwrite"], ranks)
    check(p.returncode == 0, "%s ran (%s)" % (" ".join(args), p.stderr[-400:]))
    return p


# exactness: the blow that reaches a screened pair within the step
scene = os.path.join(WORK, "blow.yaml")
with open(scene, "w") as f:
    f.write(BLOW)
runs, said = {}, {}
for factor in ("1", "0"):
    out = os.path.join(WORK, "blow-" + factor)
    said[factor] = go([scene, "-contact_screen", factor, "-output_every", "1"], out).stdout
    runs[factor] = out
s1, s0 = stats(runs["1"]), stats(runs["0"])
check(s1[0]["solves"] == "2" and s1[0]["screened"] == "0",
      "the first step's screened pair joined the problem: solves %s, screened %s" % (s1[0]["solves"], s1[0]["screened"]))
check(all(r["solves"] == "1" and r["screened"] == "0" for r in s0), "-contact_screen 0: one solve a step, none left out")
check(all(r["converged"] == "1" for r in s1 + s0), "every step converged")
v1, v0 = velocities(runs["1"]), velocities(runs["0"])
worst = max(float(np.abs(a - b).max()) for a, b in zip(v1, v0))
check(len(v1) == len(v0) == 6 and worst < 1e-6,
      "the same velocities with and without screening: %d frames, largest difference %.2e m/s" % (len(v1), worst))
check(v1[1][3][0] > 0.5, "the sphere across the gap was hit in the first step: %.3f m/s" % v1[1][3][0])
# the same on 2 ranks: their regions split the spheres at the gap, so the check reads v+ of a ghost
out = os.path.join(WORK, "blow-1-np2")
go([scene, "-contact_screen", "1", "-output_every", "1"], out, 2)
s2 = stats(out)
worst2 = max(float(np.abs(a - b).max()) for a, b in zip(velocities(out), v0))
check(s2[0]["solves"] == "2" and worst2 < 1e-6 and (s2[0]["bodies_min"], s2[0]["bodies_max"]) == ("2", "3"),
      "2 ranks (bodies %s-%s a rank): the first step solved %s times, velocities within %.2e m/s of 1 rank's "
      "without screening" % (s2[0]["bodies_min"], s2[0]["bodies_max"], s2[0]["solves"], worst2))
check("left out of each step's problem" in said["1"] and "left out" not in said["0"],
      "the start line says whether pairs are screened:\n%s\n%s" % (said["1"][:600], said["0"][:600]))
with open(os.path.join(runs["1"], "summary.json")) as f:
    summary = json.load(f)
check(summary.get("solves_repeated") == 1 and summary.get("screened_mean") == 0.0,
      "summary.json: solves_repeated %s, screened_mean %s" % (summary.get("solves_repeated"), summary.get("screened_mean")))

# a settled pile, 1 and 2 ranks
piles = {}
for name, factor, ranks in (("on", "1", None), ("off", "0", None), ("on-2", "1", 2)):
    out = os.path.join(WORK, "pile-" + name)
    go([FILLING, "-contact_screen", factor, "-ccp_force_rtol", "0.002", "-tao_max_it", "1000"], out, ranks)
    piles[name] = stats(out)
with open(os.path.join(WORK, "pile-on", "summary.json")) as f:
    summary = json.load(f)
check(summary.get("screened_mean", 0) > 10, "pile: summary.json screened_mean %s" % summary.get("screened_mean"))
for name in ("on", "on-2"):
    late = [r for r in piles[name] if float(r["t"]) > 0.7]
    check(all(int(r["screened"]) > 0 for r in late),
          "%s: pairs screened on every step after 0.7 s (least %s)" % (name, min(r["screened"] for r in late)))
    check(all(r["converged"] == "1" for r in piles[name]), "%s: every step converged" % name)
    force = [float(r["support_force_over_weight"]) for r in piles[name][-20:]]
    force_off = [float(r["support_force_over_weight"]) for r in piles["off"][-20:]]
    check(abs(np.mean(force) - np.mean(force_off)) < 0.01,
          "%s: the support force over the last 20 steps %.4f, unscreened %.4f" % (name, np.mean(force), np.mean(force_off)))

# the assembled form: nothing screened
out = os.path.join(WORK, "assembled")
p = go([FILLING, "-ccp_matrix_free", "false", "-t_final", "0.8", "-tao_max_it", "500"], out)
check(all(r["screened"] == "0" for r in stats(out)) and "left out" not in p.stdout,
      "-ccp_matrix_free false: nothing screened, and the start line does not say so")

# unhappy paths
for value, words in (("-1", "-contact_screen must be >= 0"), ("many", "many")):
    p = run_talus(TALUS, [FILLING, "-contact_screen", value, "-o", os.path.join(WORK, "bad"), "-overwrite"])
    check(p.returncode != 0 and words in p.stderr, "-contact_screen %s refused naming it (%s)" % (value, p.stderr[-300:]))

sys.exit(check.finish())
