#!/usr/bin/python3
"""Joints in scenes: the joints: list, its errors, runs on several ranks, checkpoints and restarts.

Usage: test_joints_scene.py TALUS SOURCE_ROOT WORK_DIR

- inputs/seed002/double-pendulum.yaml runs; stats.csv counts its 2 joints; the same run on 2 ranks
  ends where the one-rank run ends (to 1e-8 m);
- a checkpoint stores the joints and their impulses (format 2; `talus info` names them), and a run
  restarted from it reaches the next checkpoint bitwise equal to the run that went on, on 1 and on
  2 ranks;
- every mistake in a joint is refused before the run with FILE:LINE and what is wrong.
(The joints' physics against closed forms: tests/mpi/test_joints.c.)
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
WORK = os.path.join(WORK, "joints-scene")
shutil.rmtree(WORK, ignore_errors=True)  # a fresh run refuses a directory holding earlier checkpoints
os.makedirs(WORK)
check = Checks("talus_joints_scene")
PENDULUM = os.path.join(ROOT, "inputs", "seed002", "double-pendulum.yaml")


def last_frame(path):
    with h5py.File(path, "r") as f:
        frame = sorted(k for k in f if k.startswith("frame"))[-1]
        order = np.argsort(f[frame]["id"][()])
        return f[frame]["position"][()][order]


def same_checkpoints(a, b):
    """Every numeric dataset of two checkpoints equal, bit for bit (the options text aside)."""
    differ = []
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "fiu" and name not in ("options", "scene"):
                if name not in fb or not np.array_equal(obj[()], fb[name][()]):
                    differ.append(name)
        fa.visititems(visit)
        for key in ("joints/type", "joint_impulses"):
            if key not in fa:
                differ.append(key + " (missing)")
    return differ


# ---- runs on 1 and 2 ranks
ends = {}
for ranks in (1, 2):
    out = os.path.join(WORK, "pendulum-np%d" % ranks)
    r = run_talus(TALUS, [PENDULUM, "-t_final", "0.5", "-o", out], ranks=ranks)
    check(r.returncode == 0, "double pendulum on %d ranks: exit %d: %s" % (ranks, r.returncode, r.stderr[-400:]))
    if r.returncode == 0:
        with open(os.path.join(out, "stats.csv")) as f:
            rows = list(csv.DictReader(f))
        check(all(row["joints"] == "2" for row in rows), "stats.csv counts 2 joints every step")
        check(all(row["converged"] == "1" for row in rows), "every step converged on %d ranks" % ranks)
        ends[ranks] = last_frame(os.path.join(out, "frames.h5"))
if len(ends) == 2:
    worst = float(np.max(np.abs(ends[1] - ends[2])))
    check(worst < 1e-8, "2 ranks end %g m from 1 rank" % worst)

# ---- checkpoints and restarts, bitwise
for ranks in (1, 2):
    out = os.path.join(WORK, "ckpt-np%d" % ranks)
    r = run_talus(TALUS, [PENDULUM, "-t_final", "0.4", "-checkpoint_every", "200", "-o", out], ranks=ranks)
    check(r.returncode == 0, "run with checkpoints on %d ranks: %s" % (ranks, r.stderr[-400:]))
    ckpt = os.path.join(out, "checkpoints")
    info = run_talus(TALUS, ["info", os.path.join(ckpt, "last.h5")])
    check("joints: 2" in info.stdout and "format version 2" in info.stdout, "talus info: %s" % info.stdout[:400])
    again = os.path.join(WORK, "restart-np%d" % ranks)
    r = run_talus(TALUS, ["-restart", os.path.join(ckpt, "ckpt-00000200.h5"), "-o", again], ranks=ranks)
    check(r.returncode == 0, "restart on %d ranks: %s" % (ranks, r.stderr[-400:]))
    if r.returncode == 0:
        differ = same_checkpoints(os.path.join(ckpt, "ckpt-00000400.h5"),
                                  os.path.join(again, "checkpoints", "ckpt-00000400.h5"))
        check(not differ, "restart on %d ranks: step 400 differs from the run that went on in %s" % (ranks, differ))

# ---- mistakes, each at its line
HEAD = """materials:
  - {name: m, mu: 0}
bodies:
  - {name: A, shape: sphere, radius: 0.1, mass: 1, position: [0.5, 0, 0]}
  - {name: F, shape: sphere, radius: 0.1, mass: 1, position: [3, 0, 0], fixed: true}
  - {shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0]}
joints:
"""
BAD = [
    ("- {type: hinge, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0]}", "unknown joint type \"hinge\""),
    ("- {type: revolute, bodies: [world, B], point: [0, 0, 0], axis: [0, 1, 0]}", "no body is named \"B\""),
    ("- {type: revolute, bodies: [world, 7], point: [0, 0, 0], axis: [0, 1, 0]}", "body id 7"),
    ("- {type: revolute, bodies: [A, A], point: [0, 0, 0], axis: [0, 1, 0]}", "two bodies must differ"),
    ("- {type: revolute, bodies: [world], point: [0, 0, 0], axis: [0, 1, 0]}", "a list of two"),
    ("- {type: revolute, bodies: [world, A], point: [0, 0, 0], axis: [0, 0, 0]}", "axis must not be zero"),
    ("- {type: revolute, bodies: [world, A], point: [0, 0, 0]}", "needs an axis"),
    ("- {type: spherical, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0]}", "has no axis"),
    ("- {type: revolute, bodies: [world, A], axis: [0, 1, 0]}", "point"),
    ("- {type: revolute, bodies: [world, F], point: [3, 0, 0], axis: [0, 1, 0]}", "neither side"),
    ("- {type: distance, bodies: [world, A], point: [0, 0, 0]}", "needs a length"),
    ("- {type: distance, bodies: [world, A], point: [0, 0, 0], length: -1}", "length must be positive"),
    ("- {type: spherical, bodies: [world, A], points: [[0, 0, 0], [1, 0, 0]]}", "for distance joints"),
    ("- {type: revolute, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], motion: {rate: 1}}",
     "motion is for drivers"),
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0]}", "needs a motion"),
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], motion: {speed: 1}}",
     "speed"),
    ("- {type: revolute, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], colour: red}", "colour"),
]
for k, (entry, expected) in enumerate(BAD):
    path = os.path.join(WORK, "bad-%02d.yaml" % k)
    with open(path, "w") as f:
        f.write(HEAD + "  " + entry + "\n")
    r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "bad-out")])
    line = "%s:8:" % path
    check(r.returncode != 0 and line in r.stderr and expected in r.stderr,
          "%s: expected %s ... %s, got exit %d: %s" % (entry, line, expected, r.returncode, r.stderr.strip()[-300:]))
for body, expected in (("name: world", "not \"world\""), ("name: 12", "not a number")):
    path = os.path.join(WORK, "bad-name.yaml")
    with open(path, "w") as f:
        f.write("materials:\n  - {name: m, mu: 0}\nbodies:\n  - {%s, shape: sphere, radius: 0.1, mass: 1, "
                "position: [0, 0, 0]}\n" % body)
    r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "bad-out")])
    check(r.returncode != 0 and "%s:4:" % path in r.stderr and expected in r.stderr, "%s: %s" % (body, r.stderr))
path = os.path.join(WORK, "bad-twice.yaml")
with open(path, "w") as f:
    f.write(HEAD.replace("position: [5, 0, 0]", "position: [5, 0, 0], name: A").replace("joints:\n", ""))
r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "bad-out")])
check(r.returncode != 0 and "%s:6:" % path in r.stderr and "two bodies are named \"A\"" in r.stderr,
      "a name twice: %s" % r.stderr)

sys.exit(check.finish())
