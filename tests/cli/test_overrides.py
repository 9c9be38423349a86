#!/usr/bin/python3
"""Scene overrides, talus SCENE -set PATH=VALUE (docs/scene-format.md, "Overrides").

Usage: test_overrides.py TALUS SOURCE_ROOT WORK_DIR

- a scene run with -set for a top-level value, a named material's mu, a generator's count (by index),
  a named body's velocity and a new key (envelope) gives frames bit for bit those of the same scene
  written with those values, on 1 and on 2 ranks; the run prints its overrides and summary.json lists
  them with their YAML values as JSON ("overrides": {"materials.grain.mu": 0.4, ...});
- checkpoints keep them: a restart goes on with the overrides (its summary.json lists them) and ends
  bit for bit where the run that never stopped ends;
- each mistake is refused before anything runs with the override and what is wrong: a path that does
  not exist (a key, a name, an index past the end), a value of another kind (a list or a word for a
  number), an unknown new key, YAML that does not parse, no '=' or no value, -set with no argument,
  -set with -restart, and a value the scene's own checks refuse (time_step=-1).
"""
import json
import os
import shutil
import sys

import h5py
import numpy as np
import yaml

from clitest import Checks, restart_differs
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "overrides")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_overrides")

SCENE = """name: pile
gravity: [0, 0, -9.81]
time_step: 0.01
end_time: 0.3
materials:
  - {name: grain, mu: 0.2}
  - {name: steel, mu: 0.5}
bodies:
  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0], material: steel}
  - {name: striker, shape: sphere, radius: 0.2, mass: 2, position: [-2, 0, 0.2], velocity: [1, 0, 0], material: steel}
generators:
  - lattice: {radius: 0.1, mass: 0.5, origin: [0, 0, 0.15], spacing: 0.25, count: [2, 2, 2], jitter: 0.02, seed: 5, material: grain}
options:
  tao_gatol: 1.0e-10
"""
SETS = ["time_step=0.005", "end_time=0.2", "materials.grain.mu=0.4", "generators.0.lattice.count=[3,3,2]",
        "bodies.striker.velocity=[2,0,0]", "envelope=0.05"]
base = os.path.join(WORK, "pile.yaml")
with open(base, "w") as f:
    f.write(SCENE)
edited = yaml.safe_load(SCENE)  # the same values written into the file
edited.update(time_step=0.005, end_time=0.2, envelope=0.05)
edited["materials"][0]["mu"] = 0.4
edited["generators"][0]["lattice"]["count"] = [3, 3, 2]
edited["bodies"][1]["velocity"] = [2, 0, 0]
written = os.path.join(WORK, "pile-written.yaml")
with open(written, "w") as f:
    yaml.safe_dump(edited, f)


def frames(out):
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        return [np.array(f[k]["position"][()]) for k in sorted(k for k in f if k.startswith("frame"))]


def options(sets):
    return [a for s in sets for a in ("-set", s)]


for ranks in (1, 2):
    a, b = os.path.join(WORK, "set-np%d" % ranks), os.path.join(WORK, "written-np%d" % ranks)
    p = run_talus(TALUS, [base, "-o", a, "-checkpoint_every", "20"] + options(SETS), ranks)
    q = run_talus(TALUS, [written, "-o", b], ranks)
    check(p.returncode == 0 and q.returncode == 0, "np%d: %s %s" % (ranks, p.stderr[-300:], q.stderr[-300:]))
    if p.returncode or q.returncode:
        continue
    fa, fb = frames(a), frames(b)
    check(len(fa) == len(fb) == 5 and all(np.array_equal(x, y) for x, y in zip(fa, fb)),
          "np%d: -set and the written scene differ (%d and %d frames)" % (ranks, len(fa), len(fb)))
    check(len(fa[0]) == 19, "np%d: the generator's count was not overridden: %d bodies" % (ranks, len(fa[0])))
    check("-set materials.grain.mu=0.4" in p.stdout, "np%d: the run does not print its overrides" % ranks)
    summary = json.load(open(os.path.join(a, "summary.json")))
    want = {"time_step": 0.005, "end_time": 0.2, "materials.grain.mu": 0.4, "generators.0.lattice.count": [3, 3, 2],
            "bodies.striker.velocity": [2, 0, 0], "envelope": 0.05}
    check(summary.get("overrides") == want and summary["status"] == "finished",
          "np%d: summary.json overrides %s" % (ranks, summary.get("overrides")))
    check(json.load(open(os.path.join(b, "summary.json"))).get("overrides") == {}, "no -set: overrides {}")

# a restart from step 20 goes on with the overrides and ends where the whole run ends
a, again = os.path.join(WORK, "set-np1"), os.path.join(WORK, "set-restart")
p, differ = restart_differs(TALUS, a, again, 20, 40, ("bodies/position", "bodies/velocity"))
check(differ == [], "restart: %s, step 40 differs in %s" % (p.stderr[-300:], differ))
if differ is not None:
    with h5py.File(os.path.join(a, "checkpoints", "ckpt-00000040.h5"), "r") as x:
        check(bytes(x["overrides"][()]).decode().splitlines() == SETS, "the checkpoint's overrides")
    check(json.load(open(os.path.join(again, "summary.json"))).get("overrides", {}).get("materials.grain.mu") == 0.4,
          "the restart's summary.json lists the overrides")

BAD = [
    (["-set", "materials.sand.mu=0.3"], "-set materials.sand.mu=0.3: the scene has no \"sand\" there"),
    (["-set", "generators.3.lattice.count=[1,1,1]"], "the scene has no \"3\" there"),
    (["-set", "materials.grain.colour.x=1"], "the scene has no \"colour\" there"),
    (["-set", "end_time=[1,2]"], "-set end_time=[1,2]: the scene has a number there, the value is a list"),
    (["-set", "materials.grain.mu=rough"], "the scene has a number there, the value is a word"),
    (["-set", "generators.0.lattice.count=4"], "the scene has a list there, the value is a number"),
    (["-set", "bodies.0.normal.1=up"], "the scene has a number there, the value is a word"),
    (["-set", "time_step.x=1"], "\"x\" is inside a value"),
    (["-set", "colour=red"], "-set colour=red: unknown key \"colour\" in the scene"),
    (["-set", "end_time=[1,"], "-set end_time=[1,: the value is not valid YAML"),
    (["-set", "end_time"], "-set end_time: give PATH=VALUE"),
    (["-set", "end_time="], "-set end_time=: no value after '='"),
    (["-set", "materials..mu=1"], "an empty key in the path"),
    (["-set", "time_step=-1"], "-set time_step=-1: time_step must be positive"),
    (["-set"], "-set needs PATH=VALUE after it"),
    (["-set", "end_time=0.01\nmaterials.grain.mu=0.9"], "a value may not hold a line break"),
    (["-set", "friction_pairs=[{materials: [grain, grain], mu: 0.3}, {materials: [grain, grain], mu: 0.5}]"],
     'the friction pair of materials "grain" and "grain" is given twice'),
    # another shape's size key is a mistake, not a key to ignore (issue 55)
    (["-set", "bodies=[{shape: sphere, radius: 1, half_length: 2, position: [0, 0, 5]}]"],
     "a sphere takes radius, not half_length"),
    (["-set", "bodies=[{shape: compound, position: [0, 0, 5], parts: [{shape: sphere, radius: 0.1, half_extents: [1, 1, 1]}]}]"],
     "body 0, part 0: a sphere takes radius, not half_extents"),
]
for k, (extra, expected) in enumerate(BAD):
    out = os.path.join(WORK, "bad-%02d" % k)
    p = run_talus(TALUS, [base, "-o", out] + extra)
    check(p.returncode == 1 and expected in p.stderr and not os.path.exists(os.path.join(out, "stats.csv")),
          "%s: expected exit 1 and '%s', got %d: %s" % (extra, expected, p.returncode, p.stderr.strip()[-300:]))
p = run_talus(TALUS, ["-restart", os.path.join(a, "checkpoints", "ckpt-00000020.h5"), "-set", "end_time=1"])
check(p.returncode == 1 and "-set changes a scene file before it is read" in p.stderr, "-set with -restart: %s" % p.stderr)
sys.exit(check.finish())
