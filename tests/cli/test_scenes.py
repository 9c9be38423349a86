#!/usr/bin/python3
"""Running scenes end to end with the talus command.

Usage: test_scenes.py TALUS SOURCE_ROOT WORK_DIR

- inputs/rolling-ball.yaml: the probe's trajectory against the closed form of seed 001 sec. 3.1;
  the outputs (stats.csv columns, summary.json keys, frames.h5 datasets, frames.xmf) are complete;
- tests/scenes/filling-125.yaml: no body leaves the box, penetration stays below 1e-6 m,
  and the mechanical energy (kinetic + potential) never grows: there is no input of energy;
- every kind of mistake in a scene stops the run before it starts, naming FILE:LINE.
"""
import csv
import json
import os
import sys

import h5py
import numpy as np

from clitest import Checks, run_all
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checks("talus_scenes")


def run(args, ranks=None):
    return run_talus(TALUS, args, ranks)


# ------------------------------------------------------------------ rolling ball
out = os.path.join(WORK, "scene-rolling-ball")
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", out, "-probe", "1", "-output_every", "10"])
check(p.returncode == 0, "rolling-ball: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    rows = list(csv.DictReader(open(os.path.join(out, "probe-1.csv"))))
    check(list(rows[0].keys()) == ["t", "x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "fx", "fy", "fz", "tx", "ty", "tz"],
          "probe header %s" % list(rows[0].keys()))
    v0, mu, g, h = 2.0, 0.2, 9.81, 0.01
    t_trn = 2 * v0 / (7 * mu * g)
    for r in rows:
        t, vx, z, wy = float(r["t"]), float(r["vx"]), float(r["z"]), float(r["wy"])
        check(abs(z - 1.0) < 1e-6, "rolling-ball: height %g at t = %g" % (z, t))
        if t < t_trn - h:
            check(abs(vx - (v0 - mu * g * t)) < 1e-6, "rolling-ball: sliding v = %g at t = %g, closed form %g" % (vx, t, v0 - mu * g * t))
            # the plane's force on the ball while it slides: friction mu m g back, the weight up; its
            # torque about the centre (lever arm -r e_z) turns the ball forward: -r e_z x (-mu m g e_x) = mu m g r e_y
            fx, fz, ty = float(r["fx"]), float(r["fz"]), float(r["ty"])
            check(abs(fx + mu * g) < 1e-6 and abs(fz - g) < 1e-6 and abs(ty - mu * g) < 1e-6,
                  "rolling-ball: the plane's force (%g, ., %g), torque y %g at t = %g; expected (-mu m g, m g), mu m g r" % (fx, fz, ty, t))
        elif t > t_trn + h:
            check(abs(vx - 5 * v0 / 7) < 0.005 * 5 * v0 / 7 and abs(wy - vx) < 0.005 * vx, "rolling-ball: rolling v = %g, omega = %g at t = %g" % (vx, wy, t))
    stats = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
    expected = "step,t,bodies,contacts,joints,iterations,residual,kinetic_energy,max_penetration,complementarity_error,wall_step_s".split(",")
    check(list(stats[0].keys())[: len(expected)] == expected, "stats.csv columns %s" % list(stats[0].keys()))
    check(len(stats) == 100, "stats.csv has %d rows, expected 100 steps" % len(stats))
    summary = json.load(open(os.path.join(out, "summary.json")))
    for key in ("scene", "ranks", "steps", "t_final", "bodies", "contacts_mean", "contacts_max", "iterations_mean", "iterations_max",
                "residual_max", "kinetic_energy_final", "max_penetration_final", "complementarity_error_max",
                "support_force_over_weight", "force_residual_max", "wall_s", "wall_per_step_median_s", "seconds",
                "status", "t_target", "talus_version", "talus_commit"):
        check(key in summary, "summary.json lacks %s" % key)
    check(summary.get("status") == "finished" and summary.get("t_target") == 1.0, "rolling ball: summary.json status %s, t_target %s" % (summary.get("status"), summary.get("t_target")))
    version = run(["-version"])
    check(version.returncode == 0 and version.stdout.startswith("talus %s (commit %s)\n" % (summary.get("talus_version"), summary.get("talus_commit")))
          and "PETSc" in version.stdout.splitlines()[1].replace("Petsc", "PETSc"), "talus -version: %s%s" % (version.stdout, version.stderr))
    check(abs(summary.get("support_force_over_weight", 0) - 1.0) < 1e-6, "rolling ball: the plane carries %g of the weight" % summary.get("support_force_over_weight", 0))
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        frames = sorted(k for k in f if k.startswith("frame"))
        check(len(frames) == 11, "frames.h5 has %d frames, expected 11 (t = 0 and every 10 steps)" % len(frames))
        last = f[frames[-1]]
        for name in ("id", "position", "quaternion", "velocity", "angular_velocity", "size"):
            check(name in last, "frame lacks %s" % name)
        check(abs(last.attrs["time"] - 1.0) < 1e-12, "last frame at t = %g" % last.attrs["time"])
        check(np.allclose(np.linalg.norm(last["quaternion"][()], axis=1), 1.0, atol=1e-12), "quaternions not unit")
    xmf = open(os.path.join(out, "frames.xmf")).read()
    check(xmf.count("<Grid Name=\"frame") == 11 and "frames.h5:/frame000010/position" in xmf, "frames.xmf does not index the 11 frames")

# ------------------------------------------------------------------ short filling
out = os.path.join(WORK, "scene-filling-125")
p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", out, "-output_every", "1"])
check(p.returncode == 0, "filling-125: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    r, g, m = 0.5, 9.81, 1.0
    stats = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
    pen = max(float(s["max_penetration"]) for s in stats)
    # the envelope (0.1 m) exceeds the distance a sphere travels in a step, so contacts are found before bodies
    # meet; the contacts' near-rigid floor (docs/compliance.md) then stops a sphere arriving at v within about
    # v h / (4 pi^2) (2.5 mm at 10 m/s, h = 0.01) and rests it h^2 g / (4 pi^2) (25 um) deeper per weight carried
    h = 0.01
    check(pen < 0.005, "filling-125: penetration reached %g m (bound 5 mm)" % pen)
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        energy, inside = [], True
        for name in sorted(k for k in f if k.startswith("frame")):
            x, v, w = f[name]["position"][()], f[name]["velocity"][()], f[name]["angular_velocity"][()]
            inside &= bool(np.all(np.abs(x[:, :2]) <= 3 - r + pen + 1e-9) and np.all(x[:, 2] >= r - pen - 1e-9))
            energy.append(0.5 * m * np.sum(v * v) + 0.5 * 0.4 * m * r * r * np.sum(w * w) + m * g * np.sum(x[:, 2]))
    check(inside, "filling-125: a sphere left the box")
    growth = max(np.diff(energy))
    # what a step can give back is what the floor's springs (K = 4 pi^2 m / h^2 on a wall) stored: bounded by
    # twice the deepest contact's 1/2 K pen^2
    stored = 2 * 0.5 * 4 * np.pi ** 2 * m / h ** 2 * pen ** 2
    check(growth <= stored, "filling-125: mechanical energy grew by %g J in one step (E0 = %g J; the floor's springs "
          "stored at most %g J)" % (growth, energy[0], stored))
    print("filling-125: max penetration %.2e m, largest one-step energy change %+.3e J, energy %.1f -> %.1f J" % (pen, growth, energy[0], energy[-1]))

# ------------------------------------------------------------------ the force residual of stats.csv
# Converged to the scene's 1e-6 m/s, a contact's force residual is about 1e-6 m/s x 1 kg / 0.01 s =
# 1e-4 N (a sphere weighs 9.81 N); stopped after 3 iterations, it is a sizeable part of the weight.
if p.returncode == 0:
    force = [float(r["force_residual_max"]) for r in stats if int(r["contacts"]) > 0]
    rms = [float(r["force_residual_rms"]) for r in stats if int(r["contacts"]) > 0]
    check(force and max(force) < 1e-3 and all(0 <= x <= y for x, y in zip(rms, force)),
          "filling-125 converged: force residual up to %g N (rms up to %g N)" % (max(force or [0]), max(rms or [0])))
p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", os.path.join(WORK, "filling-3-its"), "-t_final", "0.6", "-tao_max_it", "3"])
if p.returncode == 0:
    loose = [float(r["force_residual_max"]) for r in csv.DictReader(open(os.path.join(WORK, "filling-3-its", "stats.csv")))]
    summary = json.load(open(os.path.join(WORK, "filling-3-its", "summary.json")))
    check(max(loose) > 0.5 and abs(summary.get("force_residual_max", 0) - max(loose)) <= 1e-6 * max(loose),
          "filling-125 after 3 iterations a step: force residual up to %g N, summary %s" % (max(loose), summary.get("force_residual_max")))
else:
    check(False, "filling-125 with -tao_max_it 3: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))

# ------------------------------------------------------------------ another Tao type in a scene
# The contact problem is solver-neutral: a frictionless filling (mu = 0: boxes, not cones) stepped by
# TAO's blmvm and bncg on 2 ranks ends where apgd's does, to the solvers' tolerance; with friction
# blmvm is refused with a message.
frictionless = os.path.join(WORK, "filling-125-frictionless.yaml")
with open(os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")) as f:
    text = f.read()
check("mu: 0.25" in text, "filling-125.yaml no longer has mu: 0.25")
with open(frictionless, "w") as f:
    f.write(text.replace("mu: 0.25", "mu: 0"))


def last_frame(out):
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        g = f[sorted(k for k in f if k.startswith("frame"))[-1]]
        order = np.argsort(g["id"][()])
        return g["position"][()][order], g["velocity"][()][order]


ends = {}
for tao_type in ("apgd", "blmvm", "bncg"):
    out_tao = os.path.join(WORK, "frictionless-" + tao_type)
    p = run([frictionless, "-o", out_tao, "-t_final", "0.4", "-output_every", "40", "-tao_type", tao_type], 2)
    check(p.returncode == 0, "frictionless filling by %s: exit %d\n%s" % (tao_type, p.returncode, p.stderr[-2000:]))
    if p.returncode == 0:
        ends[tao_type] = last_frame(out_tao)
for tao_type in ("blmvm", "bncg"):
    if tao_type in ends and "apgd" in ends:
        dx = np.abs(ends[tao_type][0] - ends["apgd"][0]).max()
        dv = np.abs(ends[tao_type][1] - ends["apgd"][1]).max()
        print("frictionless filling, 40 steps: %s against apgd: positions within %.1e m, velocities within %.1e m/s" % (tao_type, dx, dv))
        check(dx < 1e-6 and dv < 1e-4, "frictionless filling: %s and apgd end %g m, %g m/s apart" % (tao_type, dx, dv))
# ipm in a scene (W = B M^-1 B^T formed from the assembled B, factorised by MUMPS): the frictional
# filling, Coulomb problem, 50 steps, against apgd converged 10^4 times tighter, and on 1 and 2 ranks
ipm_ends = {}
for label, args, ranks in (("apgd-tight", ["-tao_gatol", "1e-10", "-tao_max_it", "20000"], None), ("ipm", ["-tao_type", "ipm"], None),
                           ("ipm-np2", ["-tao_type", "ipm"], 2)):
    out_tao = os.path.join(WORK, "friction-" + label)
    p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", out_tao, "-t_final", "0.5", "-output_every", "50"] + args, ranks)
    check(p.returncode == 0, "filling-125 by %s: exit %d\n%s" % (label, p.returncode, p.stderr[-2000:]))
    if p.returncode == 0:
        ipm_ends[label] = last_frame(out_tao)
        rows = list(csv.DictReader(open(os.path.join(out_tao, "stats.csv"))))
        check(all(r["converged"] == "1" for r in rows), "filling-125 by %s: %d of %d steps not converged" % (label, sum(r["converged"] != "1" for r in rows), len(rows)))
if len(ipm_ends) == 3:
    dx = np.abs(ipm_ends["ipm"][0] - ipm_ends["apgd-tight"][0]).max()
    dv = np.abs(ipm_ends["ipm"][1] - ipm_ends["apgd-tight"][1]).max()
    print("filling-125, 50 steps: ipm against apgd to 1e-10: positions within %.1e m, velocities within %.1e m/s" % (dx, dv))
    check(dx < 1e-6 and dv < 1e-4, "filling-125: ipm and apgd end %g m, %g m/s apart" % (dx, dv))
    dx = np.abs(ipm_ends["ipm"][0] - ipm_ends["ipm-np2"][0]).max()
    dv = np.abs(ipm_ends["ipm"][1] - ipm_ends["ipm-np2"][1]).max()
    check(dx < 1e-9 and dv < 1e-7, "filling-125 by ipm: 1 and 2 ranks end %g m, %g m/s apart" % (dx, dv))
# (to 0.35 s: the first problem with a cone comes when the spheres land; the pairs apart before are screened)
p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", os.path.join(WORK, "friction-blmvm"), "-t_final", "0.35", "-tao_type", "blmvm"])
check(p.returncode == 1 and "handles box constraints only" in p.stderr and "PETSC ERROR" not in p.stderr, "blmvm with friction: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))

# ------------------------------------------------------------------ bad scenes
GOOD = """name: bad
gravity: [0, 0, -9.81]
time_step: 0.01
end_time: 0.1
domain: {min: [-5, -5, -1], max: [5, 5, 10]}
materials:
  - {name: grain, mu: 0.3}
bodies:
  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}
  - {shape: sphere, radius: 0.5, mass: 1, position: [0, 0, 1]}
"""


def generator(text):
    """GOOD with one generator (a lattice or random_fill mapping), at line 12."""
    return GOOD + "generators:\n  - " + text + "\n"


def extra_body(text):
    """GOOD with one more body (a flow mapping), at line 11."""
    return GOOD + "  - " + text + "\n"


cases = [
    ("unknown key", GOOD.replace("time_step", "timestep"), 3, "unknown key \"timestep\""),
    ("wrong type", GOOD.replace("end_time: 0.1", "end_time: soon"), 4, "end_time must be a finite number"),
    ("vector length", GOOD.replace("gravity: [0, 0, -9.81]", "gravity: [0, -9.81]"), 2, "gravity must have 3 numbers"),
    ("negative radius", GOOD.replace("radius: 0.5", "radius: -0.5"), 10, "radius must be positive"),
    ("negative mass", GOOD.replace("mass: 1", "mass: -1"), 10, "mass must be positive"),
    ("negative mu", GOOD.replace("mu: 0.3", "mu: -0.3"), 7, "mu must be >= 0"),
    ("zero time step", GOOD.replace("time_step: 0.01", "time_step: 0"), 3, "time_step must be positive"),
    ("outside domain", GOOD.replace("position: [0, 0, 1]", "position: [0, 0, 11]"), 1, "outside the domain"),
    ("overlap", extra_body("{shape: sphere, radius: 0.5, mass: 1, position: [0.5, 0, 1]}"), 1, "bodies 1 (a sphere) and 2 (a sphere) overlap by 0.5 m, more than the tolerance"),
    ("unknown material", GOOD.replace("mass: 1, position", "mass: 1, material: sand, position"), 10, "material \"sand\" is not defined"),
    ("unknown shape", GOOD.replace("shape: sphere", "shape: cone"), 10, "unknown shape \"cone\""),
    ("missing position", GOOD.replace(", position: [0, 0, 1]", ""), 10, "needs \"position\""),
    ("lattice overlap", generator("lattice: {radius: 1, mass: 1, origin: [0, 0, 3], spacing: 1.5, count: [2, 2, 2]}"), 12, "overlap at spacing"),
    ("random fill too dense", generator("random_fill: {radius: 1, mass: 1, min: [-2, -2, 3], max: [2, 2, 7], count: 500, seed: 1}"), 12, "do not fit in the region: it holds at most 8, one in each cube of one diameter"),
    ("lattice beyond 32-bit indices", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 1, count: [10000, 10000, 100]}"), 12, "more than talus's 32-bit indices can count"),
    ("key twice", GOOD.replace("end_time: 0.1", "end_time: 0.1\nend_time: 0.5"), 5, "key \"end_time\" given twice in one mapping (first at line 4)"),
    ("key twice in a body", GOOD.replace("radius: 0.5, mass: 1", "radius: 0.5, mass: 1, radius: 0.7"), 10, "key \"radius\" given twice"),
    ("nested too deep", GOOD + "extra: " + "[" * 5000 + "]" * 5000 + "\n", 11, "nested deeper than 64 levels"),
    ("huge normal", GOOD.replace("normal: [0, 0, 1]", "normal: [0, 0, 1e50]"), 9, "normal 1e+50 is outside 1e-12 .. 1e12"),
    ("huge radius", GOOD.replace("radius: 0.5", "radius: 1e50"), 10, "radius 1e+50 is outside 1e-12 .. 1e12"),
    ("absurd radius", GOOD.replace("radius: 0.5", "radius: 1e200"), 10, "radius = 1e200 is beyond 1e+100 in magnitude"),
    ("long material name", GOOD.replace("name: grain", "name: " + "g" * 70), 7, "a material's name must have 1 to 63 characters"),
    ("name with a path", GOOD.replace("name: bad", "name: ../elsewhere"), 1, "must be a plain name"),
    ("empty name", GOOD.replace("name: bad", "name: ''"), 1, "must be a plain name"),
    ("not YAML", "name: [unclosed\n", 2, "not valid YAML"),
    ("no bodies", GOOD.split("bodies:")[0], 1, "no bodies"),
    # structure: the wrong kind of node where a list, a mapping or a value belongs
    ("bodies not a list", GOOD.split("bodies:")[0] + "bodies: {shape: sphere}\n", 8, "bodies must be a list, got a mapping"),
    ("body not a mapping", GOOD + "  - 5\n", 11, "a body must be a mapping (key: value), got a scalar"),
    ("materials not a list", GOOD.replace("materials:\n  - {name: grain, mu: 0.3}", "materials: grain"), 6, "materials must be a list of {name, mu, density}, got a scalar"),
    ("generators not a list", GOOD + "generators: {lattice: 1}\n", 11, "generators must be a list, got a mapping"),
    ("options a list", GOOD + "options: [tao_gatol, 1e-6]\n", 11, "options must be a mapping of PETSc option names"),
    ("option value a list", GOOD + "options:\n  tao_gatol: [1, 2]\n", 12, "options must map names to single values"),
    ("top level a list", "- name: bad\n- gravity: [0, 0, -9.81]\n", 1, "the scene must be a mapping (key: value), got a list"),
    ("empty file", "", None, "the scene file is empty"),
    ("tab indentation", GOOD.replace("  - {shape: plane", "\t- {shape: plane"), 9, "not valid YAML: found character that cannot start any token"),
    ("binary garbage", "name: bad\n\x00\x01\x02\n", 1, "not valid YAML: control characters are not allowed"),
    ("name a list", GOOD.replace("name: bad", "name: [a, b]"), 1, "name must be a name, got a list"),
    # required keys
    ("material without name", GOOD.replace("{name: grain, mu: 0.3}", "{mu: 0.3}"), 7, "a material needs \"name\""),
    ("domain without max", GOOD.replace("max: [5, 5, 10]}", "}").replace(", }", "}"), 5, "domain needs \"max\""),
    ("body without shape", GOOD.replace("{shape: sphere, radius: 0.5,", "{radius: 0.5,"), 10, "a body needs \"shape\""),
    ("sphere with half extents", extra_body("{shape: sphere, half_extents: [1, 1, 1], mass: 1, position: [0, 0, 4]}"), 11, "a sphere takes radius, not half_extents"),
    ("sphere without radius", extra_body("{shape: sphere, mass: 1, position: [0, 0, 4]}"), 11, "sphere needs \"radius\""),
    ("lattice without radius", generator("lattice: {mass: 1, origin: [0, 0, 3], spacing: 1, count: [2, 2, 2]}"), 12, "a generator needs \"radius\""),
    ("unknown generator", generator("grid: {radius: 0.2}"), 12, "unknown key \"grid\" in a generator (expected one of: lattice, random_fill)"),
    ("material twice", GOOD.replace("  - {name: grain, mu: 0.3}", "  - {name: grain, mu: 0.3}\n  - {name: grain, mu: 0.5}"), 8, "material \"grain\" is defined twice"),
    # values: not finite, of the wrong sign, the wrong count, the wrong type
    ("mu NaN", GOOD.replace("mu: 0.3", "mu: .nan"), 7, "mu must be a finite number, got \".nan\""),
    ("mu infinite", GOOD.replace("mu: 0.3", "mu: .inf"), 7, "mu must be a finite number, got \".inf\""),
    ("negative density", GOOD.replace("mu: 0.3", "mu: 0.3, density: -5"), 7, "density must be positive"),
    ("gravity a number", GOOD.replace("gravity: [0, 0, -9.81]", "gravity: 9.81"), 2, "gravity must be a list of 3 numbers, got a scalar"),
    ("gravity NaN", GOOD.replace("gravity: [0, 0, -9.81]", "gravity: [0, 0, .nan]"), 2, "gravity must be a finite number"),
    ("time step NaN", GOOD.replace("time_step: 0.01", "time_step: .nan"), 3, "time_step must be a finite number"),
    ("negative end time", GOOD.replace("end_time: 0.1", "end_time: -1"), 4, "end_time must be >= 0"),
    ("negative envelope", GOOD.replace("end_time: 0.1", "end_time: 0.1\nenvelope: -0.1"), 5, "envelope must be >= 0"),
    ("domain inverted", GOOD.replace("min: [-5, -5, -1], max: [5, 5, 10]", "min: [5, -5, -1], max: [-5, 5, 10]"), 5, "domain max must exceed min in every direction"),
    ("zero normal", GOOD.replace("normal: [0, 0, 1]", "normal: [0, 0, 0]"), 9, "a plane's normal must not be zero"),
    ("box with two half extents", extra_body("{shape: box, half_extents: [1, 1], mass: 1, position: [0, 0, 4]}"), 11, "half_extents must have 3 numbers, it has 2"),
    ("box negative half extent", extra_body("{shape: box, half_extents: [1, -1, 1], mass: 1, position: [0, 0, 4]}"), 11, "half_extents must be positive"),
    ("cylinder without half length", extra_body("{shape: cylinder, radius: 0.5, mass: 1, position: [0, 0, 4]}"), 11, "cylinder needs \"half_length\""),
    ("capsule negative radius", extra_body("{shape: capsule, radius: -0.5, half_length: 1, mass: 1, position: [0, 0, 4]}"), 11, "radius and half_length must be positive, got -0.5 and 1"),
    ("cylinder zero half length", extra_body("{shape: cylinder, radius: 0.5, half_length: 0, mass: 1, position: [0, 0, 4]}"), 11, "radius and half_length must be positive, got 0.5 and 0"),
    # hulls and compounds (docs/scene-format.md, "Hulls and compounds"): each refusal names the body and the field
    ("hull of 3 vertices", extra_body("{shape: hull, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], position: [0, 0, 4]}"), 11,
     "body 2 (a hull): vertices: a hull needs 4 to 1024 vertices, got 3"),
    ("hull in a plane", extra_body("{shape: hull, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], position: [0, 0, 4]}"), 11,
     "body 2 (a hull): vertices: its vertices span no volume"),
    ("hull not convex", extra_body("{shape: hull, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.2, 0.2, 0.2]], position: [0, 0, 4]}"), 11,
     "body 2 (a hull): vertices: vertex 4 (0.2, 0.2, 0.2) lies inside the hull of the others"),
    ("hull vertex of 2 numbers", extra_body("{shape: hull, vertices: [[0, 0, 0], [1, 0], [0, 1, 0], [0, 0, 1]], position: [0, 0, 4]}"), 11,
     "a vertex [x, y, z] must have 3 numbers, it has 2"),
    ("hull file missing", extra_body("{shape: hull, vertices: {file: no-such.xyz}, position: [0, 0, 4]}"), 11,
     "no-such.xyz\" cannot be opened"),
    # vertices files that are not files of points, or hold more than points (written below; issue 55)
    ("hull file a directory", extra_body("{shape: hull, vertices: {file: points-dir}, position: [0, 0, 4]}"), 11,
     "points-dir\" is a directory, not a file of points"),
    ("hull file a device", extra_body("{shape: hull, vertices: {file: /dev/zero}, position: [0, 0, 4]}"), 11,
     "\"/dev/zero\" is not a regular file (a device or a pipe)"),
    ("hull file of four columns", extra_body("{shape: hull, vertices: {file: points-4.xyz}, position: [0, 0, 4]}"), 11,
     "points-4.xyz\", line 2: expected three numbers x y z, got more"),
    ("hull file too long", extra_body("{shape: hull, vertices: {file: points-many.xyz}, position: [0, 0, 4]}"), 11,
     "points-many.xyz\": more than 1024 points"),
    ("compound part of no volume", extra_body("{shape: compound, position: [0, 0, 4], parts: [{shape: sphere, radius: 0.5}, {shape: cylinder, radius: 0, half_length: 1}]}"), 11,
     "body 2, part 1: radius and half_length must be positive, got 0"),
    ("compound plane part", extra_body("{shape: compound, position: [0, 0, 4], parts: [{shape: plane, normal: [0, 0, 1]}]}"), 11,
     "body 2: part 0 is a plane: a part is a sphere, box, cylinder or capsule"),
    ("compound without parts", extra_body("{shape: compound, position: [0, 0, 4], parts: []}"), 11,
     "body 2: parts must be a list of {shape, its size, position, rotation}"),
    ("compound part unknown key", extra_body("{shape: compound, position: [0, 0, 4], parts: [{shape: sphere, radius: 0.5, mass: 3}]}"), 11,
     "unknown key \"mass\""),
    ("cylinder half length a list", extra_body("{shape: cylinder, radius: 0.5, half_length: [1, 2], mass: 1, position: [0, 0, 4]}"), 11, "half_length must be a number"),
    ("rotation axis zero", extra_body("{shape: box, half_extents: [1, 1, 1], mass: 1, position: [0, 0, 4], rotation: [0, 0, 0, 30]}"), 11, "rotation axis must not be zero"),
    ("rotation three numbers", extra_body("{shape: box, half_extents: [1, 1, 1], mass: 1, position: [0, 0, 4], rotation: [0, 0, 30]}"), 11, "must have 4 numbers, it has 3"),
    ("fixed not a boolean", GOOD.replace("position: [0, 0, 1]}", "position: [0, 0, 1], fixed: maybe}"), 10, "fixed must be true or false, got \"maybe\""),
    ("negative inertia", GOOD.replace("mass: 1, position", "mass: 1, inertia: [1, -1, 1], position"), 10, "inertia must be three positive principal moments"),
    ("inertia two numbers", GOOD.replace("mass: 1, position", "mass: 1, inertia: [1, 1], position"), 10, "must have 3 numbers, it has 2"),
    ("velocity of words", GOOD.replace("position: [0, 0, 1]}", "position: [0, 0, 1], velocity: [fast, 0, 0]}"), 10, "velocity must be a finite number, got \"fast\""),
    ("position infinite", GOOD.replace("position: [0, 0, 1]", "position: [0, 0, .inf]"), 10, "position must be a finite number"),
    ("zero mass", GOOD.replace("mass: 1", "mass: 0"), 10, "mass must be positive"),
    # generators
    ("lattice negative count", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 1, count: [2, -2, 2]}"), 12, "count must be three integers in 1..10000"),
    ("lattice fractional count", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 1, count: [2, 2.5, 2]}"), 12, "count must be three integers in 1..10000, got 2.5"),
    ("lattice zero spacing", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 0, count: [2, 2, 2]}"), 12, "spacing must be positive"),
    ("lattice negative jitter", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 1, count: [2, 2, 2], jitter: -0.1}"), 12, "jitter must be >= 0"),
    ("random fill inverted box", generator("random_fill: {radius: 0.2, mass: 1, min: [2, 2, 3], max: [-2, -2, 7], count: 5, seed: 1}"), 12, "must be wider than a sphere's diameter in every direction"),
    ("random fill of nothing", generator("random_fill: {radius: 0.2, mass: 1, min: [-2, -2, 3], max: [2, 2, 7], count: 0, seed: 1}"), 12, "count must be >= 1"),
]
# a lattice of twice this machine's memory at 2200 B a body (where that stays within the indices' 2.7e8)
memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
layers = int(2 * memory / 2200 / 1e8) + 1
if layers * 1e8 <= 2.6e8:
    cases.append(("lattice beyond memory", generator("lattice: {radius: 0.4, mass: 1, origin: [0, 0, 3], spacing: 1, count: [10000, 10000, %d]}" % layers), 12, "GB a rank (about 2200 B a body while stepping)"))
else:
    print("lattice beyond memory: skipped (this machine's %.0f GB hold what the indices can count)" % (memory / 1e9))
os.makedirs(os.path.join(WORK, "points-dir"), exist_ok=True)
with open(os.path.join(WORK, "points-4.xyz"), "w") as f:
    f.write("0 0 0\n1 0 0 1\n0 1 0\n0 0 1\n")
with open(os.path.join(WORK, "points-many.xyz"), "w") as f:
    f.write("".join("%d 0 0\n" % k for k in range(2000)))
files = []
for label, text, line, expected in cases:
    files.append(os.path.join(WORK, "bad-scene-%s.yaml" % label.replace(" ", "-")))
    with open(files[-1], "w") as f:
        f.write(text)
procs = run_all(TALUS, [([fn, "-o", os.path.join(WORK, "bad-scene-out-%d" % k)], None) for k, fn in enumerate(files)])
for (label, text, line, expected), fn, p in zip(cases, files, procs):
    where = "%s:%d:" % (fn, line) if line else "%s:" % fn
    check(p.returncode != 0, "%s: exit code 0" % label)
    check(where in p.stderr and expected in p.stderr, "%s: expected '%s ... %s', got:\n%s" % (label, where, expected, p.stderr))
    check(len([l for l in p.stderr.splitlines() if l.startswith("talus: error:")]) == 1 and "PETSC ERROR" not in p.stderr, "%s: not one clean error line:\n%s" % (label, p.stderr))
# a body thrown out of the domain is removed with a warning and counted, never silently
fn = os.path.join(WORK, "thrown.yaml")
with open(fn, "w") as f:
    f.write(GOOD.replace("end_time: 0.1", "end_time: 0.5").replace("position: [0, 0, 1]}", "position: [0, 0, 1], velocity: [20, 0, 0]}"))
p = run([fn, "-o", os.path.join(WORK, "thrown-out")], ranks=2)
check(p.returncode == 0 and "body 1 left the domain" in (p.stdout + p.stderr), "a body leaving the domain: exit %d, no warning:\n%s%s" % (p.returncode, p.stdout, p.stderr))
if p.returncode == 0:
    check(json.load(open(os.path.join(WORK, "thrown-out", "summary.json")))["bodies_lost"] == 1, "bodies_lost is not 1")
# a body moving more than its radius in one step stops the run, naming it and asking for a smaller -dt
fn = os.path.join(WORK, "too-fast.yaml")
with open(fn, "w") as f:
    f.write(GOOD.replace("position: [0, 0, 1]}", "position: [0, 0, 1], velocity: [0, 0, -80]}"))
p = run([fn, "-o", os.path.join(WORK, "too-fast-out")])
check(p.returncode != 0 and "body 1 moved" in p.stderr and "smaller -dt" in p.stderr, "a body too fast for the step: exit %d:\n%s" % (p.returncode, p.stderr))
# finite but absurd magnitudes: refused where they are read, naming the field and the limit (a velocity or gravity
# of 1e300 ended in PETSc's bare "compute function generated Inf or NaN"); a gravity just within the limit that no
# step can follow is named as the cause; on 1 and 2 ranks
extreme = [
    ("gravity 1e300", GOOD.replace("gravity: [0, 0, -9.81]", "gravity: [0, 0, -1e300]"), 2, "gravity = -1e300 is beyond 1e+100 in magnitude"),
    ("velocity 1e300", GOOD.replace("position: [0, 0, 1]}", "position: [0, 0, 1], velocity: [1e300, 0, 0]}"), 10, "velocity = 1e300 is beyond 1e+100"),
    ("mass 1e150", GOOD.replace("mass: 1,", "mass: 1e150,"), 10, "mass = 1e150 is beyond 1e+100"),
    ("gravity 1e99", GOOD.replace("gravity: [0, 0, -9.81]", "gravity: [0, 0, -1e99]"), 0, "the scene's gravity (|g| = 1e+99 m/s^2) moves a body"),
]
for label, text, line, expected in extreme:
    fn = os.path.join(WORK, "extreme-%s.yaml" % label.replace(" ", "-"))
    with open(fn, "w") as f:
        f.write(text)
    for ranks in (None, 2):
        p = run([fn, "-o", os.path.join(WORK, "extreme-out")], ranks=ranks)
        where = "%s:%d:" % (fn, line) if line else ""
        check(p.returncode != 0 and where in p.stderr and expected in p.stderr and "Inf or NaN" not in p.stderr,
              "%s on %s rank(s): expected '%s ... %s', got:\n%s" % (label, ranks or 1, where, expected, p.stderr[-1500:]))
p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", os.path.join(WORK, "extreme-set"), "-set", "gravity=[0,0,-1e300]"])
check(p.returncode != 0 and "-set gravity=[0,0,-1e300]: gravity = -1e300 is beyond 1e+100" in p.stderr, "-set gravity=1e300: %s" % p.stderr[-800:])
# no floating-point exception anywhere in a step (PETSc's -fp_trap turns division by zero, invalid
# operations and overflow into a signal), on 1 and 2 ranks: e.g. the cone projection of a triplet
# with no tangential part must not form 0/0 even in a case it then discards
for ranks in (None, 2):
    p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", os.path.join(WORK, "fp-trap-%s" % ranks), "-t_final", "0.3", "-fp_trap", "-output_every", "0"], ranks=ranks)
    check(p.returncode == 0, "filling-125 under -fp_trap on %s rank(s): exit %d\n%s" % (ranks or 1, p.returncode, p.stderr[-2000:]))
p = run([os.path.join(WORK, "no-such-scene.yaml")])
check(p.returncode != 0 and "cannot open the scene file" in p.stderr, "missing scene file: %s" % p.stderr)
# the same filling on 2 ranks: frames.h5 in global-id order, the same final state as on one rank
out2 = os.path.join(WORK, "scene-filling-125-np2")
p = run([os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", out2, "-output_every", "10"], ranks=2)
check(p.returncode == 0, "filling-125 on 2 ranks: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f1, h5py.File(os.path.join(out2, "frames.h5"), "r") as f2:
        last1, last2 = f1[sorted(f1.keys())[-1]], f2[sorted(f2.keys())[-1]]
        check(list(last2["id"][()]) == list(range(5, 130)), "frames.h5 on 2 ranks is not in id order")
        check(abs(last1.attrs["time"] - last2.attrs["time"]) < 1e-12, "last frames at different times")
        diff = np.max(np.abs(last1["position"][()] - last2["position"][()]))
        check(diff < 1e-6, "filling-125 after 1 s: positions on 1 and 2 ranks differ by %g" % diff)
    summary = json.load(open(os.path.join(out2, "summary.json")))
    check(summary["ranks"] == 2 and summary["bodies"] == 125 and summary["bodies_lost"] == 0, "summary on 2 ranks: %s" % summary)
    check("per_rank" in summary and summary["per_rank"]["bodies_max"] < 125, "summary lacks the per-rank spread: %s" % summary.get("per_rank"))
# one ball on 4 ranks: three ranks own nothing, and the run is the same as on one rank
out4 = os.path.join(WORK, "scene-rolling-ball-np4")
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", out4, "-probe", "1", "-output_every", "0"], ranks=4)
check(p.returncode == 0, "rolling-ball on 4 ranks: exit %d\n%s" % (p.returncode, p.stderr))
if p.returncode == 0:
    last = list(csv.DictReader(open(os.path.join(out4, "probe-1.csv"))))[-1]
    check(abs(float(last["vx"]) - 5 * 2.0 / 7) < 0.005 * 5 * 2.0 / 7 and abs(float(last["z"]) - 1.0) < 1e-6, "rolling-ball on 4 ranks ends at v = %s, z = %s" % (last["vx"], last["z"]))
    summary = json.load(open(os.path.join(out4, "summary.json")))
    check(summary["per_rank"]["bodies_min"] == 0 and summary["per_rank"]["rebalances"] < 10, "ranks without bodies: %s" % summary["per_rank"])
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", os.path.join(WORK, "badprobe"), "-probe", "99"])
check(p.returncode != 0 and "-probe 99" in p.stderr, "a probe of a missing body must be refused: %s" % p.stderr)

# ------------------------------------------------------------------ options nothing reads
# A misspelt option is an error before the run starts, naming it, where it came from and the option
# meant; -options_allow_unknown runs with a warning; options read only after the run (-tao_view) pass.
ball = os.path.join(ROOT, "inputs", "rolling-ball.yaml")
unknown_cases = [
    ([ball, "-checkpoint_evry", "2"], None, ["-checkpoint_evry (from the command line)", "did you mean -checkpoint_every?"]),
    ([ball, "-tfinal", "2"], 2, ["-tfinal (from the command line)", "did you mean -t_final?"]),
    ([ball, "-tao_gatoll", "1e-3", "-probee", "1"], None, ["2 options that nothing reads", "did you mean -tao_gatol?", "did you mean -probe?"]),
    ([ball, "-zzz_nothing_like_it"], None, ["-zzz_nothing_like_it (from the command line)"]),
]
fn = os.path.join(WORK, "misspelt-option.yaml")
with open(fn, "w") as f:
    f.write(GOOD + "options:\n  tao_max_it: 100\n  tao_gatoll: 1e-6\n")
unknown_cases.append(([fn], None, ["-tao_gatoll (from %s:13, options:)" % fn, "did you mean -tao_gatol?"]))
for args, ranks, expected in unknown_cases:
    p = run(args + ["-o", os.path.join(WORK, "unknown-option")], ranks)
    what = " ".join(args[1:]) or args[0]
    check(p.returncode == 1, "%s: exit %d, expected 1" % (what, p.returncode))
    check(all(e in p.stderr for e in expected), "%s: expected %s in:\n%s" % (what, expected, p.stderr))
    check(not os.path.exists(os.path.join(WORK, "unknown-option", "stats.csv")), "%s: the run started" % what)
# values that would make the run meaningless: refused before it starts, naming the option (before:
# -tao_max_it 0 or 4294967296 ran without solving and the ball sank through the plane, exit 0)
meaningless = [
    (["-tao_max_it", "0"], "-tao_max_it must be at least 1"),
    (["-tao_max_it", "-3"], "-tao_max_it must be at least 1"),
    (["-tao_max_it", "4294967296"], "-tao_max_it 4294967296 (from the command line) is out of the range"),
    (["-tao_max_it", "4294967297"], "-tao_max_it 4294967297 (from the command line) is out of the range"),
    (["-checkpoint_every", "3000000000"], "-checkpoint_every 3000000000 (from the command line) is out of the range"),
    (["-tao_gatol", "-1"], "-tao_gatol must be a finite number >= 0"),
    (["-tao_gatol", "nan"], "-tao_gatol nan (from the command line): must be a finite number"),
    (["-t_final", "abc"], "-t_final abc (from the command line): not a number"),
    (["-t_final", "inf"], "-t_final inf (from the command line): must be a finite number"),
    (["-dt", "1e400"], "-dt 1e400 (from the command line) is beyond the range of a double"),
    (["-dt", "-1"], "the time step must be positive"),
    (["-envelope", "-1"], "the contact envelope must be >= 0"),
    (["-tao_max_it", "1e3"], "-tao_max_it 1e3 (from the command line): not an integer"),
    (["-ccp_dump_step", "1,x"], "-ccp_dump_step 1,x (from the command line): not an integer"),
    (["-output_every", "-1"], "-output_every and -progress_every must be >= 0"),
    (["-progress_every", "-3"], "-output_every and -progress_every must be >= 0"),
    (["-checkpoint_every", "-1"], "-checkpoint_every must be >= 0"),
    (["-checkpoint_keep", "0"], "-checkpoint_keep must be >= 1"),
    (["-checkpoint_interval", "-5"], "-checkpoint_interval must be >= 0 s"),
    (["-walltime", "12:99"], "-walltime 12:99: expected HH:MM:SS"),
    (["-walltime", "soon"], "-walltime soon: expected HH:MM:SS"),
    (["-walltime_margin", "-1"], "-walltime_margin must be >= 0 s"),
    (["-decomp_imbalance", "0.5"], "-decomp_imbalance must be >= 1"),
    (["-tao_type", "nosuch"], "-tao_type nosuch is not known: use one of"),
    (["-ccp_problem", "foo"], "-ccp_problem foo is not known: use one of relaxed, coulomb"),
    (["-probe", "99"], "-probe 99: no sphere or box has this id"),
    (["-tao_grtol", "-1"], "-tao_grtol and -tao_gttol must be finite"),
    (["-probe", "-5"], "-probe takes a body's id"),
    (["-t_final", "0.02", "0.5"], "unexpected argument \"0.5\""),
]
jobs = [(args, ranks, expected) for args, expected in meaningless for ranks in (None, 2)]
procs = run_all(TALUS, [([ball, "-o", os.path.join(WORK, "meaningless-%d" % k)] + args, ranks)
                        for k, (args, ranks, expected) in enumerate(jobs)])
for (args, ranks, expected), p in zip(jobs, procs):
    what = "%s%s" % (" ".join(args), " on 2 ranks" if ranks else "")
    check(p.returncode == 1 and expected in p.stderr, "%s: exit %d, expected '%s' in:\n%s" % (what, p.returncode, expected, p.stderr))
    check(len([l for l in p.stderr.splitlines() if l.startswith("talus: error:")]) == 1, "%s: not one error line:\n%s" % (what, p.stderr))
p = run([ball, "-t_final", "0.02", "-o"])
check(p.returncode == 1 and "-o needs a directory" in p.stderr, "-o without a value: %s" % p.stderr)
afile = os.path.join(WORK, "a-regular-file")
open(afile, "w").close()
p = run([ball, "-t_final", "0.02", "-o", os.path.join(WORK, "ckfile"), "-checkpoint_dir", afile])
check(p.returncode == 1 and "is a file, not a directory" in p.stderr, "-checkpoint_dir naming a file: %s" % p.stderr)
p = run([ball, "extra.yaml", "-o", os.path.join(WORK, "meaningless")])
check(p.returncode == 1 and "unexpected argument \"extra.yaml\" (after the command's arguments)" in p.stderr, "an extra file: %s" % p.stderr)
p = run(["ccp", os.path.join(ROOT, "inputs", "fclib", "Capsules-i125-1213.hdf5"), "-tao_max_it", "4294967296"])
check(p.returncode == 1 and "out of the range" in p.stderr, "talus ccp -tao_max_it 4294967296: %s" % p.stderr)
p = run([ball, "-o", os.path.join(WORK, "unknown-allowed"), "-t_final", "0.02", "-tfinal", "2", "-options_allow_unknown", "-tao_view"])
check(p.returncode == 0 and "warning: 1 option that nothing reads: -tfinal" in p.stdout + p.stderr, "-options_allow_unknown: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
p = run(["ccp", os.path.join(ROOT, "inputs", "fclib", "Capsules-i125-1213.hdf5"), "-tao_tyep", "nbgs"])
check(p.returncode == 1 and "did you mean -tao_type?" in p.stderr, "talus ccp -tao_tyep: exit %d\n%s" % (p.returncode, p.stderr))

# summary.json is valid JSON whatever the scene's name holds (it was written with fprintf: a quote broke it)
odd = os.path.join(WORK, "odd-name.yaml")
open(odd, "w").write(open(ball).read().replace("name: rolling-ball", "name: 'say \"hi\" \\ tab\there'"))
p = run([odd, "-o", os.path.join(WORK, "odd-name"), "-t_final", "0.02"])
check(p.returncode == 0, "a scene named with a quote, a backslash and a tab: exit %d %s" % (p.returncode, p.stderr))
if p.returncode == 0:
    check(json.load(open(os.path.join(WORK, "odd-name", "summary.json")))["scene"] == 'say "hi" \\ tab\there', "summary.json's scene name")

# progress lines carry the clock time, and their wall/step is that of the steps since the previous line
p = run([ball, "-o", os.path.join(WORK, "progress"), "-t_final", "0.2", "-progress_every", "5"])
lines = [l for l in p.stdout.splitlines() if " step " in l and "ETA" in l]
import re
check(p.returncode == 0 and len(lines) == 4 and all(re.match(r"^\d\d:\d\d:\d\d step ", l) for l in lines), "progress lines:\n%s" % "\n".join(lines))
# they go to progress.log too, and the run ends with a summary of its steps and where its outputs are
log = open(os.path.join(WORK, "progress", "progress.log")).read().splitlines()
check(lines == [l for l in log if " step " in l and "ETA" in l], "progress.log does not hold the progress lines:\n%s" % "\n".join(log))
check("talus: 20 steps to t = 0.2 s" in p.stdout and "0 not converged to the tolerance" in p.stdout and "outputs in %s" % os.path.join(WORK, "progress") in p.stdout,
      "the closing summary:\n%s" % p.stdout[-600:])
check(any("20 steps to t = 0.2 s" in l for l in log), "progress.log lacks the closing summary")

# a tower of boxes, a cylinder and a capsule (tests/scenes/tower.yaml) stands for 1 s: every body within 1e-5 m of
# where it started across, each settled by at most 4 mm (the 0.5 mm gaps it started with, closed), moving at less
# than 1e-3 m/s, the plane carrying its weight; the same on 2 ranks to 1e-5 m
tower = os.path.join(ROOT, "tests", "scenes", "tower.yaml")
ends = {}
for ranks in (1, 2):
    out = os.path.join(WORK, "tower-np%d" % ranks)
    p = run_talus(TALUS, [tower, "-o", out, "-output_every", "100"], ranks=ranks)
    check(p.returncode == 0, "the tower on %d ranks: %s" % (ranks, p.stderr[-500:]))
    if p.returncode:
        continue
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        frames = sorted(k for k in f if k.startswith("frame"))
        first, last = f[frames[0]], f[frames[-1]]
        order = np.argsort(last["id"][()])
        shift = last["position"][()][order] - first["position"][()][np.argsort(first["id"][()])]
        speed = np.abs(last["velocity"][()]).max()
        ends[ranks] = last["position"][()][order]
    with open(os.path.join(out, "stats.csv")) as f:
        row = list(csv.DictReader(f))[-1]
    check(np.abs(shift[:, :2]).max() < 1e-5 and shift[:, 2].min() > -4e-3 and shift[:, 2].max() <= 0.0 and speed < 1e-3
          and abs(float(row["support_force_over_weight"]) - 1.0) < 0.01,
          "the tower on %d ranks: moved across %g m, settled %g m, speed %g m/s, the plane carries %s of the weight"
          % (ranks, np.abs(shift[:, :2]).max(), shift[:, 2].min(), speed, row["support_force_over_weight"]))
if len(ends) == 2:
    # not bit for bit: a body whose contacts two ranks keep sums their parts in another order (from 1e-12 m at step
    # 14, 1e-6 m at 1 s; boxes-and-spheres.yaml and pendulum-on-block.yaml differ the same way at 11f0dc2)
    check(np.abs(ends[1] - ends[2]).max() < 1e-5, "the tower on 2 ranks ends %g m from 1 rank" % np.abs(ends[1] - ends[2]).max())

# hulls and a compound (tests/scenes/hulls.yaml) come to rest where their shapes put them: the cube hull's centroid
# 0.1 m up, the tetrahedron on a face (its centroid a quarter of 0.3 m up), the wheel on a grouser (0.18 m); the
# plane carries their weight; a restart from the checkpoint at 0.2 s is the run, bit for bit (the descriptions come
# back from the checkpoint); 2 ranks end within 1e-6 m of 1
hulls = os.path.join(ROOT, "tests", "scenes", "hulls.yaml")
ends, ends_parts = {}, {}
for ranks in (1, 2):
    out = os.path.join(WORK, "hulls-np%d" % ranks)
    p = run_talus(TALUS, [hulls, "-o", out, "-output_every", "100", "-checkpoint_every", "200", "-overwrite"], ranks=ranks)
    check(p.returncode == 0, "the hulls on %d ranks: %s" % (ranks, p.stderr[-500:]))
    if p.returncode:
        continue
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        last = f[sorted(k for k in f if k.startswith("frame"))[-1]]
        order = np.argsort(last["id"][()])
        ends[ranks] = last["position"][()][order]
        speed = np.abs(last["velocity"][()]).max()
        first, parts_end = f["frame000000/parts"], {k: last["parts"][k][()] for k in last["parts"]}
        parts_start = {k: first[k][()] for k in first}
        wheel_id = int(f["frame000000/id"][()][np.argmax(f["frame000000/shape"][()] == 6)])
        faces = {k: f["frame000000/faces"][k][()] for k in f["frame000000/faces"]}
        triangles = f["every_frame/face_triangles"][()]
    # frames.h5 draws each hull by its faces: at the start the cube's corners are the scene's, and the triangles
    # (counterclockwise seen from outside) enclose each hull's volume, by the divergence theorem: the cube's 0.008
    # m^3, the tetrahedron's 0.0045 m^3, the rock's a positive one; 28 triangles in all, using every corner
    tri_id = faces["id"][triangles[:, 0]]
    enclosed = {}
    for i in set(tri_id):
        a, b, c = (faces["position"][triangles[tri_id == i, j]] for j in range(3))
        enclosed[int(i)] = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0
    cube = np.array([[-0.5 + x, y, 0.001 + z] for x in (0, 0.2) for y in (0, 0.2) for z in (0, 0.2)])
    cube_rows = faces["position"][faces["id"] == 1]
    same_corners = len(cube_rows) == 8 and all(np.abs(cube_rows - p).sum(axis=1).min() < 1e-12 for p in cube)
    check(len(triangles) == 28 and abs(enclosed.get(1, 0) - 0.008) < 1e-12 and abs(enclosed.get(2, 0) - 0.0045) < 1e-12
          and enclosed.get(3, 0) > 0 and same_corners and set(np.concatenate([triangles.ravel(), [-1]])) - {-1}
          == set(range(len(faces["id"]))),
          "the hulls' faces on %d ranks: %d triangles, volumes %s, the cube's corners %s"
          % (ranks, len(triangles), enclosed, cube_rows))
    # frames.h5 draws the compound wheel by its parts (frameNNNNNN/parts): at the start where the scene put them
    # (turned 90 degrees about x: the part's y is the world's z, its z the world's -y), at the end resting with the
    # wheel on a grouser whose lowest face touches the plane; the same on 1 and 2 ranks
    turn = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    given = [([0, 0, 0], [0.15, 0.15, 0.05]), ([0.16, 0, 0], [0.02, 0.01, 0.05]), ([-0.16, 0, 0], [0.02, 0.01, 0.05]),
             ([0, 0.16, 0], [0.01, 0.02, 0.05]), ([0, -0.16, 0], [0.01, 0.02, 0.05])]
    want_pos = np.array([[0, 0.6, 0.185] + turn @ np.array(p) for p, _ in given])
    want_half = np.array([np.abs(turn) @ np.array(h) for _, h in given])  # half widths along x, y, z
    tensor = parts_start["shape_tensor"].reshape(-1, 3, 3)  # column-major: tensor[k][j] is the glyph's axis j
    half = 0.5 * np.abs(tensor).sum(axis=1)
    check(list(parts_start["shape"]) == [3, 1, 1, 1, 1] and set(parts_start["id"]) == {wheel_id}
          and np.abs(parts_start["position"] - want_pos).max() < 1e-12 and np.abs(half - want_half).max() < 1e-6
          and abs(parts_start["diameter"][0] - 2 * np.hypot(0.15, 0.05)) < 1e-6  # the cylinder's ball: sqrt(r^2 + l^2)
          and np.abs(parts_start["diameter"][1:] - 2 * np.linalg.norm(want_half[1:], axis=1)).max() < 1e-6,
          "the wheel's parts at the start on %d ranks: shapes %s, ids %s (the wheel %d), centres %s, half widths %s"
          % (ranks, parts_start["shape"], parts_start["id"], wheel_id, parts_start["position"], half))
    half_end = 0.5 * np.abs(parts_end["shape_tensor"].reshape(-1, 3, 3)).sum(axis=1)
    lowest = (parts_end["position"][:, 2] - half_end[:, 2])[1:].min()
    check(abs(lowest) < 2e-4 and np.abs(parts_end["velocity"]).max() < 1e-6,
          "the wheel's parts at the end on %d ranks: the lowest grouser's face at z = %g, speeds up to %g"
          % (ranks, lowest, np.abs(parts_end["velocity"]).max()))
    ends_parts[ranks] = dict(parts_end, triangles=triangles)
    with open(os.path.join(out, "stats.csv")) as f:
        row = list(csv.DictReader(f))[-1]
    z = ends[ranks][:, 2]
    check(abs(z[0] - 0.1) < 1e-5 and abs(z[1] - 0.075) < 1e-5 and abs(z[3] - 0.18) < 1e-5 and speed < 1e-6
          and abs(float(row["support_force_over_weight"]) - 1.0) < 1e-3,
          "the hulls on %d ranks: centres at %s, speed %g m/s, the plane carries %s of the weight"
          % (ranks, z, speed, row["support_force_over_weight"]))
    if ranks == 1:
        again = os.path.join(WORK, "hulls-restart")
        p = run_talus(TALUS, ["-restart", os.path.join(out, "checkpoints", "ckpt-00000200.h5"), "-o", again, "-overwrite"])
        check(p.returncode == 0, "the hulls' restart: %s" % p.stderr[-500:])
        if p.returncode == 0:
            with h5py.File(os.path.join(again, "frames.h5"), "r") as f:
                restarted = f[sorted(k for k in f if k.startswith("frame"))[-1]]
                same = np.array_equal(restarted["position"][()][np.argsort(restarted["id"][()])], ends[1])
            check(same, "the hulls restarted at 0.2 s do not end where the run does")
if len(ends) == 2:
    check(np.abs(ends[1] - ends[2]).max() < 1e-6, "the hulls on 2 ranks end %g m from 1 rank" % np.abs(ends[1] - ends[2]).max())
    check(all(np.array_equal(ends_parts[1][k], ends_parts[2][k]) for k in ("id", "shape", "triangles"))
          and np.abs(ends_parts[1]["position"] - ends_parts[2]["position"]).max() < 1e-6,
          "the wheel's parts or the hulls' triangles on 2 ranks are not those of 1 rank")
# a bodies_file reads the hulls and the compound back from the checkpoint (its descriptions with them), on 2 ranks;
# from frames.h5, which holds no descriptions, they are refused
REREAD = """name: reread
gravity: [0, 0, -9.81]
time_step: 0.001
end_time: 0
domain: {min: [-2, -2, -1], max: [2, 2, 3]}
materials:
  - {name: rock, mu: 0.5, density: 2000}
bodies_file: {file: %s}
"""
if 1 in ends:
    reread = os.path.join(WORK, "hulls-reread.yaml")
    with open(reread, "w") as f:
        f.write(REREAD % os.path.join(WORK, "hulls-np1", "checkpoints", "last.h5"))
    p = run_talus(TALUS, [reread, "-o", os.path.join(WORK, "hulls-reread"), "-t_final", "0", "-overwrite"], ranks=2)
    check(p.returncode == 0, "the hulls read from their checkpoint: %s" % p.stderr[-500:])
    if p.returncode == 0:
        with h5py.File(os.path.join(WORK, "hulls-reread", "frames.h5"), "r") as f:
            g = f["frame000000"]
            order = np.argsort(g["id"][()])
            check(list(g["shape"][()][order]) == [5, 5, 5, 6] and np.array_equal(g["position"][()][order], ends[1]),
                  "the hulls read from their checkpoint: shapes %s, positions %s" % (g["shape"][()][order], g["position"][()][order]))
    with open(reread, "w") as f:
        f.write(REREAD % os.path.join(WORK, "hulls-np1", "frames.h5"))
    p = run_talus(TALUS, [reread, "-o", os.path.join(WORK, "hulls-reread2"), "-t_final", "0", "-overwrite"])
    check(p.returncode != 0 and "is a hull whose description the file does not hold" in p.stderr,
          "the hulls read from frames.h5: %s" % p.stderr[-500:])

# -help lists the run's options and exits without running it (before: it ran the whole scene); talus
# -help prints its usage once (before: twice)
helped = os.path.join(WORK, "help-out")
p = run([ball, "-o", helped, "-help"])
check(p.returncode == 0 and "not running it" in p.stdout and "-t_final" in p.stdout and "-checkpoint_every" in p.stdout and "-tao_gatol" in p.stdout,
      "talus SCENE -help: exit %d\n%s" % (p.returncode, p.stdout[-1500:]))
check(not os.path.exists(helped), "talus SCENE -help started the run (its outputs exist)")
# talus's own groups come first, in one place each, and PETSc's general options only with -help_petsc
groups = [l for l in p.stdout.splitlines() if l.endswith(":") and not l.startswith(" ")]
check(groups[1:8] == ["Time stepping (seed 000 eq. 9):", "Domain decomposition (recursive coordinate bisection):", "Running a scene:", "Outputs:",
                     "Writing steps' contact problems as FCLib files:", "Checkpoints and restart (docs/checkpoint-format.md):", "Cone complementarity problem:"]
      and "-malloc_debug" not in p.stdout and "-log_view" not in p.stdout and "-ccp_anti_relax" not in p.stdout
      and "-ccp_problem <now coulomb" in p.stdout, "talus SCENE -help's groups: %s" % groups)
p = run([ball, "-o", helped, "-help_petsc"])
check(p.returncode == 0 and "-malloc_debug" in p.stdout and "not running it" in p.stdout, "talus SCENE -help_petsc: exit %d\n%s" % (p.returncode, p.stdout[-800:]))
p = run(["-help"])
check(p.returncode == 0 and p.stdout.count("Usage:") == 1, "talus -help: exit %d, the usage %d times" % (p.returncode, p.stdout.count("Usage:")))
p = run(["ccp", os.path.join(ROOT, "inputs", "fclib", "Capsules-i125-1213.hdf5"), "-help"])
check(p.returncode == 0 and "not solving" in p.stdout and "solver      " not in p.stdout, "talus ccp FILE -help solved the problem:\n%s" % p.stdout[-800:])

# a hull 1e-14 m across 4 m up runs on 1 and 2 ranks alike: the rank that held it alone once counted its grid's
# cells (its size) from the origin, failed, and left the other waiting forever
tiny = os.path.join(WORK, "tiny-hull.yaml")
with open(tiny, "w") as f:
    f.write(extra_body("{shape: hull, vertices: [[0, 0, 0], [1e-14, 0, 0], [0, 1e-14, 0], [0, 0, 1e-14]], "
                       "mass: 1, position: [0, 0, 4]}"))
for ranks in (1, 2):
    p = run([tiny, "-o", os.path.join(WORK, "tiny-out"), "-overwrite"], ranks)
    check(p.returncode == 0, "a hull 1e-14 m across on %d ranks: exit %d\n%s" % (ranks, p.returncode, p.stderr[-600:]))
# two spheres 1e-12 m across 1 m apart (sizes in other units): refused with why, on 2 ranks too (an error of each
# rank's own ends the job instead of leaving it waiting)
apart = os.path.join(WORK, "tiny-apart.yaml")
with open(apart, "w") as f:
    f.write("name: apart\ngravity: [0, 0, -9.81]\ntime_step: 0.01\nend_time: 0.02\nmaterials:\n  - {name: m, mu: 0.3}\n"
            "bodies:\n  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}\n"
            "  - {shape: sphere, radius: 1e-12, mass: 1, position: [0, 0, 2]}\n"
            "  - {shape: sphere, radius: 1e-12, mass: 1, position: [0, 0, 3]}\n")
for ranks in (1, 2):
    p = run([apart, "-o", os.path.join(WORK, "tiny-out"), "-overwrite", "-envelope", "0"], ranks)
    check(p.returncode == 1 and "too small for how far apart they are" in p.stderr,
          "two spheres 1e-12 m across on %d ranks: exit %d\n%s" % (ranks, p.returncode, p.stderr[-600:]))
# a hull 1e20 m across is beyond the SI sizes talus takes (once it "overlapped" the plane it touched by 24,576 m of
# rounding); a sphere touching a plane 1e11 m from the origin starts where it is (its gap, -3e-6 m, is rounding: the
# coordinates are known to 1.5e-5 m there)
huge = os.path.join(WORK, "huge-hull.yaml")
with open(huge, "w") as f:
    f.write(extra_body("{shape: hull, vertices: [[0, 0, 0], [1e20, 0, 0], [0, 1e20, 0], [0, 0, 1e20]], mass: 1}"))
p = run([huge, "-o", os.path.join(WORK, "huge-out"), "-overwrite"])
check(p.returncode == 1 and "the hull reaches" in p.stderr and "beyond 1e12" in p.stderr and "overlap" not in p.stderr,
      "a hull 1e20 m across: exit %d\n%s" % (p.returncode, p.stderr[-600:]))
far = os.path.join(WORK, "far-sphere.yaml")
with open(far, "w") as f:
    f.write("name: far\ngravity: [0, 0, -9.81]\ntime_step: 0.01\nend_time: 0.02\nmaterials:\n  - {name: m, mu: 0.3}\n"
            "bodies:\n  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 1e11]}\n"
            "  - {shape: sphere, radius: 0.7, mass: 1, position: [0, 0, 100000000000.7]}\n")
p = run([far, "-o", os.path.join(WORK, "far-out"), "-overwrite"])
check(p.returncode == 0, "a sphere on a plane 1e11 m from the origin: exit %d\n%s" % (p.returncode, p.stderr[-600:]))

sys.exit(check.finish())
