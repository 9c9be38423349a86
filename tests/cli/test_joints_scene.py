#!/usr/bin/python3
"""Joints and drives in scenes: joints:, forces:, springs:, a body's motion: and surface_velocity:,
their errors, runs on several ranks, checkpoints and restarts.

Usage: test_joints_scene.py TALUS SOURCE_ROOT WORK_DIR

- inputs/seed002/double-pendulum.yaml runs; stats.csv counts its 2 joints; the same run on 2 ranks
  ends where the one-rank run ends (to 1e-8 m);
- a checkpoint stores the joints and their impulses (format 2; `talus info` names them), and a run
  restarted from it reaches the next checkpoint bitwise equal to the run that went on, on 1 and on
  2 ranks;
- the same for inputs/seed002/conveyor-spring.yaml: prescribed body, surface velocity, springs (and
  joints.csv's rows continue across the restart);
- tests/scenes/limits.yaml: a pendulum stops on a rigid angle limit at its upper end (0.6 rad, to 1e-9)
  and a slider settles m g / K into a compliant linear limit (to 1e-9 m); checkpoints store the
  limits (format 5) and restart bitwise;
- each module's checkpoint section (joints, drives, tables, planar bodies) refuses a crafted file (a
  negative stiffness, a body id out of range, a negative count, a table's shape, a handle to no table,
  a normal that is not a unit vector) naming the fault and the file, on 1 and 2 ranks;
- every mistake in a joint, a force, a spring, a motion or a surface velocity is refused before the
  run with FILE:LINE and what is wrong.
(The physics against closed forms: tests/mpi/test_joints.c, tests/mpi/test_drives.c.)
"""
import csv
import os
import shutil
import sys

import h5py
import numpy as np

from clitest import Checks, run_all, set_values
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "joints-scene")
shutil.rmtree(WORK, ignore_errors=True)  # a fresh run refuses a directory holding earlier checkpoints
os.makedirs(WORK)
check = Checks("talus_joints_scene")
PENDULUM = os.path.join(ROOT, "inputs", "seed002", "double-pendulum.yaml")
CONVEYOR = os.path.join(ROOT, "inputs", "seed002", "conveyor-spring.yaml")
TABLES = os.path.join(ROOT, "tests", "scenes", "tables.yaml")
LIMITS = os.path.join(ROOT, "tests", "scenes", "limits.yaml")


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
        extra = {"conveyor": ("springs/stiffness", "prescribed/body"), "tables": ("tables", "table_values"),
                 "pendulum": ("planar/normal",), "limits": ("joints/limits",)}
        for key in ("joints/type", "joint_impulses") + next((v for k, v in extra.items() if k in a), ()):
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
for scene, tag, joints in ((PENDULUM, "pendulum", 2), (CONVEYOR, "conveyor", 1), (TABLES, "tables", 2),
                           (LIMITS, "limits", 4)):
    for ranks in (1, 2):
        out = os.path.join(WORK, "%s-ckpt-np%d" % (tag, ranks))
        r = run_talus(TALUS, [scene, "-t_final", "0.4", "-checkpoint_every", "200", "-o", out], ranks=ranks)
        check(r.returncode == 0, "%s with checkpoints on %d ranks: %s" % (tag, ranks, r.stderr[-400:]))
        ckpt = os.path.join(out, "checkpoints")
        info = run_talus(TALUS, ["info", os.path.join(ckpt, "last.h5")])
        check("joints: %d" % joints in info.stdout and "format version 11" in info.stdout, "talus info: %s" % info.stdout[:400])
        again = os.path.join(WORK, "%s-restart-np%d" % (tag, ranks))
        r = run_talus(TALUS, ["-restart", os.path.join(ckpt, "ckpt-00000200.h5"), "-o", again], ranks=ranks)
        check(r.returncode == 0, "%s restart on %d ranks: %s" % (tag, ranks, r.stderr[-400:]))
        if r.returncode == 0:
            differ = same_checkpoints(os.path.join(ckpt, "ckpt-00000400.h5"),
                                      os.path.join(again, "checkpoints", "ckpt-00000400.h5"))
            check(not differ, "%s restart on %d ranks: step 400 differs in %s" % (tag, ranks, differ))
        if tag == "conveyor" and ranks == 1:  # joints.csv continues across a restart in the run's directory
            r = run_talus(TALUS, ["-restart", os.path.join(ckpt, "ckpt-00000200.h5")])
            with open(os.path.join(out, "joints.csv")) as f:
                times = [float(line.split(",")[0]) for line in f.read().splitlines()[1:]]
            check(r.returncode == 0 and len(times) == 400 and all(b > a for a, b in zip(times, times[1:])),
                  "joints.csv after a restart in place: %d rows" % len(times))

# ---- limits: the pendulum (id 0) stops on the upper end of its rigid angle limit, 0.6 rad below the
# horizontal; the 2 kg slider (id 1) rests m g / K into its compliant lower end (K = 1e5 N/m)
out = os.path.join(WORK, "limits-ckpt-np1")
if os.path.exists(os.path.join(out, "frames.h5")):
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        frame = f[sorted(k for k in f if k.startswith("frame"))[-1]]
        p = frame["position"][()][np.argsort(frame["id"][()])]
    angle = np.arctan2(-(p[0][2] - 2), p[0][0])
    check(abs(angle - 0.6) < 1e-9, "limits: the pendulum rests at %.12f rad (the upper end 0.6)" % angle)
    check(abs(p[1][2] - (2 - 0.3 - 2 * 9.81 / 1e5)) < 1e-9, "limits: the slider at z = %.10f m" % p[1][2])
# a checkpoint whose limit is upside down (its checksum kept valid), or a limit in a format-4 file, is refused
for name, edit, fault in (
        ("upside-down", lambda f: set_values(f, "joints/limits", lambda v: v.__setitem__((1, 0), 2.0)),
         "a limit's range that is not valid"),
        ("format4", lambda f: f.attrs.modify("version", np.int64(4)), "a limit's type, which format 5 added")):
    path = os.path.join(WORK, "limits-%s.h5" % name)
    shutil.copy(os.path.join(out, "checkpoints", "ckpt-00000200.h5"), path)
    with h5py.File(path, "r+") as f:
        edit(f)
    r = run_talus(TALUS, ["-restart", path, "-o", os.path.join(WORK, "limits-bad-out")])
    check(r.returncode == 1 and fault in r.stderr and path in r.stderr, "limits checkpoint %s: %s" % (name, r.stderr[-300:]))

# ---- each module's checkpoint section (the joints', drives', tables' and planar bodies', include/talus/module.h)
# is checked as strictly as a scene: a crafted file (checksums kept valid) is refused naming the fault and the file
SECTION_FAULTS = (
    ("conveyor", "spring", lambda f: set_values(f, "springs/stiffness", lambda v: v.__setitem__(0, -1.0)),
     "a spring with a body id or a value that is not valid"),
    ("conveyor", "prescribed", lambda f: set_values(f, "prescribed/body", lambda v: v.__setitem__(0, 10 ** 6)),
     "a prescribed motion with a body id or a value that is not valid"),
    ("conveyor", "count", lambda f: f.attrs.modify("loads", np.int64(-1)), "the count of loads is not valid"),
    ("tables", "shape", lambda f: set_values(f, "tables", lambda v: v.__setitem__((0, 0), 0)),
     "a table's columns or points are not valid"),
    ("tables", "handle", lambda f: set_values(f, "joints/motion_table", lambda v: v.__setitem__(0, 9)),
     "a link names a table that is not stored, or one of the wrong width"),
    ("tables", "load-table", lambda f: set_values(f, "loads/force_table", lambda v: v.__setitem__(0, 9)),
     "a link names a table that is not stored, or one of the wrong width"),
    ("pendulum", "planar", lambda f: set_values(f, "planar/normal", lambda v: v.__setitem__((0, 2), 2.0)),
     "a planar body with a body id or a normal that is not valid"),
)
for tag, name, edit, fault in SECTION_FAULTS:
    path = os.path.join(WORK, "section-%s-%s.h5" % (tag, name))
    shutil.copy(os.path.join(WORK, "%s-ckpt-np1" % tag, "checkpoints", "ckpt-00000200.h5"), path)
    with h5py.File(path, "r+") as f:
        edit(f)
    for ranks in (1, 2):
        r = run_talus(TALUS, ["-restart", path, "-o", os.path.join(WORK, "section-bad-out")], ranks=ranks)
        check(r.returncode == 1 and fault in r.stderr and path in r.stderr,
              "%s checkpoint, %s edited, on %d ranks: %s" % (tag, name, ranks, r.stderr[-300:]))

# ---- a checkpoint of format 2 (tests/fixtures/ckpt-format2-links-step100.h5, written by commit 9c35400 from
# tests/scenes/links.yaml with -checkpoint_every 100: joints, a driver, a prescribed body, a load and a spring)
# still restarts, with seed 000's joint and contact rows as its run had (-joint_lookahead 0, which a file before
# format 6 implies, -contact_near_rigid 0 -contact_friction_sigma 0, before format 7, and -ccp_scale_residual 0
# -tao_apgd_confirm 0, before format 8, and -contact_screen 0, before format 9, and -tao_residual_norm 2, before format 10, and -tao_apgd_reproducible_lipschitz 0 -contact_rank_order 0, before 11; links.yaml asks for -ccp_scale
# itself), and reaches step 200 bit for bit as
# the run that never stopped
LINKS = os.path.join(ROOT, "tests", "scenes", "links.yaml")
FORMAT2 = os.path.join(ROOT, "tests", "fixtures", "ckpt-format2-links-step100.h5")
whole, again = os.path.join(WORK, "links-whole"), os.path.join(WORK, "links-format2")
r = run_talus(TALUS, [LINKS, "-checkpoint_every", "100", "-joint_lookahead", "0", "-contact_near_rigid", "0",
                      "-contact_friction_sigma", "0", "-ccp_scale_residual", "0", "-tao_apgd_confirm", "0",
                      "-contact_screen", "0", "-tao_residual_norm", "2", "-tao_apgd_reproducible_lipschitz", "0",
                      "-contact_rank_order", "0", "-o", whole])
check(r.returncode == 0, "links.yaml: %s" % r.stderr[-400:])
r2 = run_talus(TALUS, ["-restart", FORMAT2, "-o", again])
check(r2.returncode == 0, "restart from the format-2 fixture: %s" % r2.stderr[-400:])
if r.returncode == 0 and r2.returncode == 0:
    differ = same_checkpoints(os.path.join(whole, "checkpoints", "ckpt-00000200.h5"),
                              os.path.join(again, "checkpoints", "ckpt-00000200.h5"))
    check(not differ, "the format-2 fixture restarted: step 200 differs in %s" % differ)

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
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], motion: {table: [[0, 1]]}}",
     "at least two points"),
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], "
     "motion: {table: [[0, 1, 2], [1, 1, 2]]}}", "must have 2 numbers"),
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], "
     "motion: {table: [[0, 1], [1, 2], [1, 3]]}}", "must increase"),
    ("- {type: angle_driver, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], motion: {table: 3}}",
     "at least two points"),
    ("- {type: spherical, bodies: [world, A], point: [0, 0, 0], relaxation: {delta: 1.0e-5, zeta: 0.5}}", "is unstable"),
    ("- {type: spherical, bodies: [world, A], point: [0, 0, 0], relaxation: {zeta: 0.5}}", "delta"),
    ("- {type: angle_limit, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], lower: -1}", "needs lower and upper"),
    ("- {type: revolute, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], upper: 1}", "upper is for limits"),
    ("- {type: angle_limit, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], lower: 0, upper: 4}",
     "-pi <= lower <= upper <= pi"),
    ("- {type: linear_limit, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], lower: 1, upper: 0}",
     "finite lower <= upper"),
    ("- {type: linear_limit, bodies: [world, A], point: [0, 0, 0], axis: [0, 1, 0], lower: -.inf, upper: 0}",
     "lower must be a finite number"),
]
def refused_all(paths):
    """Each scene of paths run (four at a time, each its own output directory): their processes, in order."""
    return run_all(TALUS, [([path, "-o", os.path.join(WORK, "bad-out-%02d" % k)], None) for k, path in enumerate(paths)])


paths = [os.path.join(WORK, "bad-%02d.yaml" % k) for k in range(len(BAD))]
for (entry, expected), path in zip(BAD, paths):
    with open(path, "w") as f:
        f.write(HEAD + "  " + entry + "\n")
for (entry, expected), path, r in zip(BAD, paths, refused_all(paths)):
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


# drives: forces and springs (line 8), a body's motion and surface velocity (line 6 or 4)
DRIVES = HEAD.replace("joints:\n", "")
BAD_DRIVES = [
    ("forces", "- {body: F, force: [1, 0, 0]}", "acts on a body that moves"),
    ("forces", "- {body: world, force: [1, 0, 0]}", "acts on a body that moves"),
    ("forces", "- {body: A}", "needs force:, torque:, force_table: or torque_table:"),
    ("forces", "- {body: A, force_table: [[0, 1], [1, 2]]}", "must have 4 numbers"),
    ("forces", "- {body: A, torque_table: [[0, 1, 0, 0], [0, 2, 0, 0]]}", "must increase"),
    ("forces", "- {body: A, force: [1, 0, 0], frame: local}", "frame must be world or body"),
    ("forces", "- {body: Q, force: [1, 0, 0]}", "no body is named \"Q\""),
    ("springs", "- {bodies: [world, A], points: [[0, 0, 1], [0.5, 0, 0]], stiffness: -1}", "stiffness must be >= 0"),
    ("springs", "- {bodies: [world, A], points: [[0, 0, 1], [0.5, 0, 0]], stiffness: 1e9}", "is unstable"),
    ("springs", "- {bodies: [A, A], points: [[0, 0, 1], [0.5, 0, 0]], stiffness: 1}", "different bodies"),
    ("springs", "- {bodies: [world, F], points: [[0, 0, 1], [3, 0, 0]], stiffness: 1}", "neither end"),
    ("springs", "- {bodies: [world, A], points: [[0, 0, 1]], stiffness: 1}", "a list of two"),
    ("springs", "- {bodies: [world, A], points: [[0, 0, 1], [0.5, 0, 0]], stiffness: 1, damping_mode: radial}",
     "damping_mode"),
    ("springs", "- {bodies: [world, A], points: [[0, 0, 1], [0.5, 0, 0]], stiffness: 1, rest_length: -2}",
     "rest_length must be >= 0"),
]
paths = [os.path.join(WORK, "bad-drive-%02d.yaml" % k) for k in range(len(BAD_DRIVES))]
for (section, entry, expected), path in zip(BAD_DRIVES, paths):
    with open(path, "w") as f:
        f.write(DRIVES + section + ":\n  " + entry + "\n")
for (section, entry, expected), path, r in zip(BAD_DRIVES, paths, refused_all(paths)):
    check(r.returncode != 0 and ("%s:8:" % path) in r.stderr and expected in r.stderr,
          "%s: expected %s:8: ... %s, got: %s" % (entry, path, expected, r.stderr.strip()[-300:]))
BAD_BODIES = [
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], fixed: false, motion: {velocity: [1, 0, 0]}}",
     "it is fixed"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], motion: {speed: 1}}", "speed"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], velocity: [1, 0, 0], motion: {velocity: [1, 0, 0]}}",
     "leave velocity"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], surface_velocity: [1, 0, 0]}", "is for fixed bodies"),
    ("{shape: plane, normal: [0, 0, 1], position: [0, 0, -1], surface_velocity: [0, 0, 1]}", "must lie in the plane"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], motion: {velocity: [1, 0, 0]}, "
     "surface_velocity: [1, 0, 0]}", "not both"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], motion: {table: [[0, 1, 0, 0], [1, 1, 0]]}}",
     "must have 4 numbers"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], fixed: true, planar: {normal: [0, 1, 0]}}",
     "planar is for moving bodies"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], motion: {velocity: [1, 0, 0]}, "
     "planar: {normal: [0, 1, 0]}}", "planar is for moving bodies"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], planar: {normal: [0, 0, 0]}}", "zero length"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], planar: {}}", "needs the plane's normal"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], planar: {axis: [0, 1, 0]}}", "axis"),
    ("{shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0], planar: [0, 1, 0]}", "must be a mapping"),
]
paths = [os.path.join(WORK, "bad-body-%02d.yaml" % k) for k in range(len(BAD_BODIES))]
for (body, expected), path in zip(BAD_BODIES, paths):
    with open(path, "w") as f:
        f.write(DRIVES.replace("  - {shape: sphere, radius: 0.1, mass: 1, position: [5, 0, 0]}", "  - " + body))
for (body, expected), path, r in zip(BAD_BODIES, paths, refused_all(paths)):
    check(r.returncode != 0 and ("%s:6:" % path) in r.stderr and expected in r.stderr,
          "%s: expected %s:6: ... %s, got: %s" % (body, path, expected, r.stderr.strip()[-300:]))

# -probe_group: the double pendulum's two rods as a group feel only the world's pin (their own pin acts
# inside the group); their momentum changes by it and gravity each step, to rounding
out = os.path.join(WORK, "group")
r = run_talus(TALUS, [PENDULUM, "-t_final", "0.2", "-probe_group", "0,1", "-o", out])
check(r.returncode == 0, "-probe_group 0,1: %s" % r.stderr[-400:])
if r.returncode == 0:
    with open(os.path.join(out, "probe-group.csv")) as f:
        rows = list(csv.DictReader(f))
    v = np.array([[float(x["v" + c]) for c in "xyz"] for x in rows])
    F = np.array([[float(x["f" + c]) for c in "xyz"] for x in rows])
    M = float(rows[0]["mass"])
    worst = float(np.abs(M * (v[1:] - v[:-1]) / 0.001 - np.array([0, 0, -9.81 * M]) - F[1:]).max())
    check(len(rows) == 200 and rows[0]["bodies"] == "2" and M == 2.0 and worst < 1e-8,
          "probe-group.csv: %d rows, %s bodies, %g kg; momentum balance off by %g N" % (len(rows), rows[0]["bodies"], M, worst))
for ids, expected in (("0,7", "1 of its 2 ids are not spheres or boxes"), ("-1,0", "body ids (0 or more)")):
    r = run_talus(TALUS, [PENDULUM, "-t_final", "0.01", "-probe_group", ids, "-o", os.path.join(WORK, "group-bad")])
    check(r.returncode != 0 and expected in r.stderr, "-probe_group %s: %s" % (ids, r.stderr.strip()[-300:]))

# a body held by a link that leaves the scene's domain stops the run with a message naming it and its link
# (bodies without links are removed there, with a warning), on 1 and 2 ranks
path = os.path.join(WORK, "linked-out.yaml")
with open(path, "w") as f:
    f.write("gravity: [0, 0, -9.81]\ntime_step: 0.01\nend_time: 1\ndomain: {min: [-2, -2, -1], max: [2, 2, 2]}\n"
            "materials:\n  - {name: m, mu: 0}\nbodies:\n"
            "  - {name: A, shape: sphere, radius: 0.1, mass: 1, position: [0, 0, 0.5]}\n"
            "  - {name: B, shape: sphere, radius: 0.1, mass: 1, position: [1, 0, 0.5], velocity: [8, 0, 0]}\n"
            "joints:\n  - {type: spherical, bodies: [world, A], point: [0, 0, 0.5]}\n"
            "springs:\n  - {bodies: [A, B], points: [[0, 0, 0.5], [1, 0, 0.5]], stiffness: 1}\n")
for ranks in (1, 2):
    r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "linked-out-np%d" % ranks)], ranks=ranks)
    check(r.returncode != 0 and "body 1, held by spring 0, left the domain at t = 0.13 s" in r.stderr,
          "a linked body leaving the domain on %d ranks: exit %d: %s" % (ranks, r.returncode, r.stderr.strip()[-300:]))

# planar bodies need M^-1 applied by the matrix-free B: the other forms refuse them with a message
for extra in (["-ccp_matrix_free", "false"], ["-tao_type", "ipm"], ["-tao_type", "nbgs"]):
    r = run_talus(TALUS, [PENDULUM, "-t_final", "0.01", "-o", os.path.join(WORK, "planar-refused")] + extra)
    check(r.returncode != 0 and "cannot hold bodies in a plane" in r.stderr,
          "planar bodies with %s: exit %d: %s" % (" ".join(extra), r.returncode, r.stderr.strip()[-300:]))

sys.exit(check.finish())
