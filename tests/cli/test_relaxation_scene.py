"""Seed 003's relaxed contacts through scenes (docs/relaxation.md):
- inputs/seed003/impact.yaml: a ball meeting a plane with restitution 0.5 asked for leaves at 0.5 V
  to the discrete scheme's 3e-3 (delta = 100 h), on 1 and 2 ranks alike;
- a checkpoint in the middle of the impact restarts bitwise (the materials' relaxation is stored);
- mistakes at their FILE:LINE: an unstable (zeta, delta) at the scene's time step, zeta with
  restitution, a restitution outside (0, 1], no delta, an unknown key; -dt making it unstable is
  refused at the first step.
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
WORK = os.path.join(WORK, "relaxation-scene")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_relaxation_scene")
IMPACT = os.path.join(ROOT, "inputs", "seed003", "impact.yaml")

ends = {}
for ranks in (1, 2):
    out = os.path.join(WORK, "impact-np%d" % ranks)
    r = run_talus(TALUS, [IMPACT, "-o", out, "-probe", "1", "-checkpoint_every", "100", "-checkpoint_keep", "10"], ranks=ranks)
    check(r.returncode == 0, "impact on %d ranks: %s" % (ranks, r.stderr[-400:]))
    if r.returncode == 0:
        with open(os.path.join(out, "probe-1.csv")) as f:
            rows = list(csv.DictReader(f))
        ends[ranks] = float(rows[-1]["vz"])
        check(abs(ends[ranks] - 0.5) < 3e-3, "impact on %d ranks: the ball leaves at %g m/s, 0.5 asked" % (ranks, ends[ranks]))
if len(ends) == 2:
    check(abs(ends[1] - ends[2]) < 1e-10, "impact: 1 and 2 ranks end at %r and %r m/s" % (ends[1], ends[2]))

# restart from step 100 (in contact) reaches step 600 bitwise
ckpt = os.path.join(WORK, "impact-np1", "checkpoints")
again = os.path.join(WORK, "impact-restart")
r = run_talus(TALUS, ["-restart", os.path.join(ckpt, "ckpt-00000100.h5"), "-o", again])
check(r.returncode == 0, "impact restart: %s" % r.stderr[-400:])
if r.returncode == 0:
    with h5py.File(os.path.join(ckpt, "ckpt-00000600.h5"), "r") as a, \
            h5py.File(os.path.join(again, "checkpoints", "ckpt-00000600.h5"), "r") as b:
        same = all(np.array_equal(a[k][()], b[k][()]) for k in ("bodies/position", "bodies/velocity", "materials/relaxation"))
        check(same and a["materials/relaxation"][0][1] == 0.1, "impact restart: step 600 differs, or the relaxation is lost")

HEAD = "time_step: 0.01\nmaterials:\n  - {name: m, mu: 0, relaxation: %s}\nbodies:\n" \
       "  - {shape: sphere, radius: 0.1, mass: 1, position: [0, 0, 0]}\n"
BAD = [
    ("{delta: 0.005, zeta: 0.5}", "is unstable at time_step 0.01 s"),
    ("{delta: 0.1, zeta: 0.5, restitution: 0.5}", "zeta or restitution, not both"),
    ("{delta: 0.1, restitution: 1.5}", "restitution must be in (0, 1]"),
    ("{zeta: 0.5}", "delta"),
    ("{delta: 0.1, stiffness: 3}", "stiffness"),
    ("{delta: -1}", "delta must be a positive time"),
    ("[0.1, 0.5]", "relaxation must be a mapping"),
]
for k, (value, expected) in enumerate(BAD):
    path = os.path.join(WORK, "bad-%02d.yaml" % k)
    with open(path, "w") as f:
        f.write(HEAD % value)
    r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "bad-out")])
    check(r.returncode != 0 and ("%s:3:" % path) in r.stderr and expected in r.stderr,
          "relaxation %s: expected %s:3: ... %s, got: %s" % (value, path, expected, r.stderr.strip()[-300:]))
r = run_talus(TALUS, [IMPACT, "-o", os.path.join(WORK, "bad-dt"), "-dt", "0.2"])
check(r.returncode != 0 and "material soft: the contact relaxation" in r.stderr and "is unstable" in r.stderr,
      "-dt 0.2 with delta 0.1: %s" % r.stderr.strip()[-300:])

sys.exit(check.finish())
