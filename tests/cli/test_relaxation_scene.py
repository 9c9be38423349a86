"""Seed 003's relaxed contacts through scenes (docs/relaxation.md):
- inputs/seed003/impact.yaml: a ball meeting a plane with restitution 0.5 asked for leaves at 0.5 V
  to the discrete scheme's 3e-3 (delta = 100 h), on 1 and 2 ranks alike;
- a checkpoint in the middle of the impact restarts bitwise (the materials' relaxation is stored);
- a pendulum on a relaxed string started 1 cm long recovers over delta, and restarts bitwise;
- mistakes at their FILE:LINE: an unstable (zeta, delta) at the scene's time step, zeta with
  restitution, a restitution outside (0, 1], no delta, an unknown key; -dt making it unstable is
  refused at the first step;
- the format-3 and format-4 fixtures (tests/fixtures) restart and reach step 200 bitwise as the run that never
  stopped; seed 004's compliant floor and string settle m g / K, a Hertzian ball (m g / (E* sqrt r))^(2/3),
  and each restarts bitwise; a box in a Hertzian contact stops the run with the reason; Hertz's
  mistakes at their FILE:LINE.
"""
import csv
import os
import shutil
import sys

import h5py
import numpy as np

from clitest import Checks, run_all
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

# a pendulum on a relaxed string (seed 003 for joint rows), started 1 cm longer than it: the drift
# recovers over delta, not in one step; a checkpoint restarts bitwise (joints/relaxation is stored)
path = os.path.join(WORK, "relaxed-pin.yaml")
with open(path, "w") as f:
    f.write("gravity: [0, 0, -9.81]\ntime_step: 0.001\nend_time: 0.3\nmaterials:\n  - {name: m, mu: 0}\nbodies:\n"
            "  - {name: bob, shape: sphere, radius: 0.05, mass: 1, position: [1, 0, 0]}\n"
            "joints:\n  - {type: distance, bodies: [world, bob], points: [[0, 0, 0], [1, 0, 0]], length: 0.99,"
            " relaxation: {delta: 0.02, zeta: 1}}\n")
out = os.path.join(WORK, "relaxed-pin")
r = run_talus(TALUS, [path, "-o", out, "-checkpoint_every", "100", "-checkpoint_keep", "10"])
check(r.returncode == 0, "relaxed pin: %s" % r.stderr[-400:])
if r.returncode == 0:
    with open(os.path.join(out, "stats.csv")) as f:
        drift = [float(x["joint_drift"]) for x in csv.DictReader(f)]
    # the 1 cm recovers over delta (not in one step, as a rigid pin's would); under the swing's load the
    # relaxed pin then stretches by about (g + v^2 / L) delta^2, a few mm
    check(abs(drift[0] - 0.01) < 1e-12 and drift[1] > 0.009 and drift[60] < 0.003 and max(drift) <= 0.01 + 1e-12,
          "relaxed pin's drift: %g, %g, %g, largest %g m" % (drift[0], drift[1], drift[60], max(drift)))
    again = os.path.join(WORK, "relaxed-pin-restart")
    r = run_talus(TALUS, ["-restart", os.path.join(out, "checkpoints", "ckpt-00000100.h5"), "-o", again])
    check(r.returncode == 0, "relaxed pin restart: %s" % r.stderr[-400:])
    if r.returncode == 0:
        with h5py.File(os.path.join(out, "checkpoints", "ckpt-00000300.h5"), "r") as a, \
                h5py.File(os.path.join(again, "checkpoints", "ckpt-00000300.h5"), "r") as b:
            same = all(np.array_equal(a[k][()], b[k][()]) for k in ("bodies/position", "joint_impulses", "joints/relaxation"))
            check(same and list(a["joints/relaxation"][0]) == [1.0, 0.02], "relaxed pin restart: step 300 differs")

def fixture_restarts(scene, fixture, name, keys):
    """A fixture checkpoint of an older format, written at step 100 of `scene` with -checkpoint_every 100,
    restarts and reaches step 200 bit for bit in `keys` as the run that never stopped: the whole run's
    checkpoint (an h5py file), or None when a run failed. The fixtures predate format 6: their runs had seed
    000's joint and contact rows and an unscaled apgd stopping on a stale linear term, which their restarts keep
    (-joint_lookahead 0, -contact_near_rigid 0 -contact_friction_sigma 0, -ccp_scale 0 -ccp_scale_residual 0
    -tao_apgd_confirm 0, -contact_screen 0, -tao_residual_norm 2, -tao_apgd_reproducible_lipschitz 0
    -contact_rank_order 0),
    so the whole run has them too."""
    whole, again = os.path.join(WORK, name + "-whole"), os.path.join(WORK, name + "-fixture")
    r = run_talus(TALUS, [scene, "-checkpoint_every", "100", "-joint_lookahead", "0", "-contact_near_rigid", "0",
                          "-contact_friction_sigma", "0", "-ccp_scale", "0", "-ccp_scale_residual", "0",
                          "-tao_apgd_confirm", "0", "-contact_screen", "0", "-tao_residual_norm", "2",
                          "-tao_apgd_reproducible_lipschitz", "0", "-contact_rank_order", "0", "-o", whole])
    check(r.returncode == 0, "%s: %s" % (scene, r.stderr[-400:]))
    r2 = run_talus(TALUS, ["-restart", fixture, "-o", again])
    check(r2.returncode == 0, "restart from %s: %s" % (fixture, r2.stderr[-400:]))
    if r.returncode or r2.returncode:
        return None, []
    a = h5py.File(os.path.join(whole, "checkpoints", "ckpt-00000200.h5"), "r")
    with h5py.File(os.path.join(again, "checkpoints", "ckpt-00000200.h5"), "r") as b:
        return a, [k for k in keys if not np.array_equal(a[k][()], b[k][()])]


# ---- a checkpoint of format 3 (tests/fixtures/ckpt-format3-relaxed-step100.h5, written by commit 8356b05
# from tests/scenes/relaxed.yaml: relaxed contacts in an impact and a relaxed string) and one of format 4
# (tests/fixtures/ckpt-format4-compliant-step100.h5, written by commit e02432a from tests/scenes/compliant.yaml:
# a compliant ball on a compliant foundation, a box on it, a compliant pin) still restart, and reach step 200
# bit for bit as the runs that never stopped
a, differ = fixture_restarts(os.path.join(ROOT, "tests", "scenes", "relaxed.yaml"),
                             os.path.join(ROOT, "tests", "fixtures", "ckpt-format3-relaxed-step100.h5"), "relaxed",
                             ("bodies/position", "bodies/velocity", "bodies/quaternion", "joint_impulses",
                              "materials/relaxation", "joints/relaxation", "materials/compliance", "joints/compliance"))
if a:
    check(not differ and not a["materials/compliance"][()].any(),
          "the format-3 fixture restarted: step 200 differs in %s" % differ)
    a.close()
a, differ = fixture_restarts(os.path.join(ROOT, "tests", "scenes", "compliant.yaml"),
                             os.path.join(ROOT, "tests", "fixtures", "ckpt-format4-compliant-step100.h5"), "compliant",
                             ("bodies/position", "bodies/velocity", "bodies/quaternion", "joint_impulses",
                              "materials/compliance", "joints/compliance", "joints/limits"))
if a:
    check(not differ and a["materials/compliance"][1][2] == 4 and not a["joints/limits"][()].any(),
          "the format-4 fixture restarted: step 200 differs in %s" % differ)
    a.close()


def settles_and_restarts(name, text, probe, rest_z, depth, moved, keys, stored, stored_value):
    """Scene `text`, 1 s: its 2 kg body (id `probe`) ends rest_z - z = depth below rest_z (1e-6); a restart
    from step 500 reaches step 1000 bit for bit in `keys`, and checkpoints keep `stored` as stored_value."""
    path = os.path.join(WORK, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(WORK, name)
    r = run_talus(TALUS, [path, "-o", out, "-probe", str(probe), "-checkpoint_every", "500", "-checkpoint_keep", "10"])
    check(r.returncode == 0, "%s: %s" % (name, r.stderr[-400:]))
    if r.returncode:
        return path
    with open(os.path.join(out, "probe-%d.csv" % probe)) as f:
        z = float(list(csv.DictReader(f))[-1]["z"])
    check(abs((rest_z - z) / depth - 1) < 1e-6, "%s: %s %g m, closed form %g m" % (name, moved, rest_z - z, depth))
    again = os.path.join(WORK, name + "-restart")
    r = run_talus(TALUS, ["-restart", os.path.join(out, "checkpoints", "ckpt-00000500.h5"), "-o", again])
    check(r.returncode == 0, "%s restart: %s" % (name, r.stderr[-400:]))
    if r.returncode == 0:
        with h5py.File(os.path.join(out, "checkpoints", "ckpt-00001000.h5"), "r") as a, \
                h5py.File(os.path.join(again, "checkpoints", "ckpt-00001000.h5"), "r") as b:
            same = all(np.array_equal(a[k][()], b[k][()]) for k in keys + (stored,))
            check(same and list(np.atleast_1d(a[stored][0])) == stored_value, "%s restart: step 1000 differs" % name)
    return path


# seed 004's compliant contacts through a scene: a compliant ball resting on a rigid floor sinks m g / K, with
# apgd, nbgs and ipm; a restart keeps the compliance
path = settles_and_restarts(
    "compliant", "gravity: [0, 0, -9.81]\ntime_step: 0.001\nend_time: 1\nenvelope: 0.01\n"
    "materials:\n  - {name: rubber, mu: 0.5, compliance: {stiffness: 1.0e+5, damping: 2000}}\n"
    "  - {name: steel, mu: 0.5}\nbodies:\n"
    "  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0], material: steel}\n"
    "  - {shape: sphere, radius: 0.1, mass: 2, position: [0, 0, 0.1], material: rubber}\n",
    1, 0.1, 2 * 9.81 / 1e5, "sinkage", ("bodies/position", "bodies/velocity"), "materials/compliance", [1e5, 2000.0, 0.0])
for solver in ("nbgs", "ipm"):  # they apply N + E too: the same rest
    out = os.path.join(WORK, "compliant-" + solver)
    r = run_talus(TALUS, [path, "-o", out, "-t_final", "0.5", "-probe", "1", "-tao_type", solver])
    check(r.returncode == 0, "compliant with %s: %s" % (solver, r.stderr.strip()[-300:]))
    if r.returncode == 0:
        with open(os.path.join(out, "probe-1.csv")) as f:
            z = float(list(csv.DictReader(f))[-1]["z"])
        check(abs((0.1 - z) / (2 * 9.81 / 1e5) - 1) < 1e-6, "compliant with %s: sinkage %g m, m g / K %g m"
              % (solver, 0.1 - z, 2 * 9.81 / 1e5))

# a compliant joint: a bob hanging on a soft distance row (K = 1e4, B = 200) stretches it m g / K; the
# joints' compliance is kept by a restart
settles_and_restarts(
    "compliant-string", "gravity: [0, 0, -9.81]\ntime_step: 0.001\nend_time: 1\nmaterials:\n  - {name: m, mu: 0}\nbodies:\n"
    "  - {name: bob, shape: sphere, radius: 0.05, mass: 2, position: [0, 0, -1]}\n"
    "joints:\n  - {type: distance, bodies: [world, bob], points: [[0, 0, 0], [0, 0, -1]],"
    " compliance: {stiffness: 1.0e+4, damping: 200}}\n",
    0, -1.0, 2 * 9.81 / 1e4, "stretch", ("bodies/position", "joint_impulses"), "joints/compliance", [1e4, 200.0])

# seed 004's Hertz contact (sec. 6.4): a 2 kg ball (r = 0.1) of modulus E* = 1e9 resting on a rigid floor sinks
# (m g / (E* sqrt r))^(2/3); checkpoints keep the modulus (materials/hertz, format 5)
HERTZ = ("gravity: [0, 0, -9.81]\ntime_step: 0.001\nend_time: 1\nenvelope: 0.01\n"
         "materials:\n  - {name: rubber, mu: 0.5, compliance: {modulus: 1.0e+9, damping: 100}}\n"
         "  - {name: steel, mu: 0.5}\nbodies:\n"
         "  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0], material: steel}\n"
         "  - {shape: sphere, radius: 0.1, mass: 2, position: [0, 0, 0.1], material: rubber}\n")
settles_and_restarts("hertz", HERTZ, 1, 0.1, (2 * 9.81 / (1e9 * 0.1 ** 0.5)) ** (2 / 3), "sinks",
                     ("bodies/position", "bodies/velocity"), "materials/hertz", [1e9])
path = os.path.join(WORK, "hertz-box.yaml")
with open(path, "w") as f:
    f.write(HERTZ + "  - {shape: box, half_extents: [0.1, 0.1, 0.1], mass: 1, position: [3, 0, 0.1], material: rubber}\n")
r = run_talus(TALUS, [path, "-o", os.path.join(WORK, "hertz-box")])
check(r.returncode != 0 and "body 2 is a box in a Hertzian contact" in r.stderr, "a box on Hertz: %s" % r.stderr.strip()[-300:])
def refused_at(tag, what, template, line, cases):
    """Each (value, expected) of cases put into the scene template is refused at FILE:line, saying expected (the
    runs four at a time, each its own output directory)."""
    paths = [os.path.join(WORK, "%s-%02d.yaml" % (tag, k)) for k in range(len(cases))]
    for (value, expected), path in zip(cases, paths):
        with open(path, "w") as f:
            f.write(template % value)
    procs = run_all(TALUS, [([path, "-o", os.path.join(WORK, "bad-out-%s-%02d" % (tag, k))], None)
                            for k, path in enumerate(paths)])
    for (value, expected), path, r in zip(cases, paths, procs):
        check(r.returncode != 0 and ("%s:%d:" % (path, line)) in r.stderr and expected in r.stderr,
              "%s %s: expected %s:%d: ... %s, got: %s" % (what, value, path, line, expected, r.stderr.strip()[-300:]))


MATERIAL = ("time_step: 0.01\nmaterials:\n  - {name: m, mu: 0, compliance: %s}\nbodies:\n"
            "  - {shape: sphere, radius: 0.1, mass: 1, position: [0, 0, 0]}\n")
refused_at("bad-hertz", "material compliance", MATERIAL, 3, [
    ("{modulus: 1.0e+9, stiffness: 1.0e+6}", "give modulus or stiffness"),
    ("{modulus: 1.0e+9, grid: 4}", "give modulus or stiffness"),
    ("{modulus: -1}", "modulus must be positive"),
    ("{damping: 3}", "needs a stiffness (N/m; linear) or a modulus (Pa; Hertz)")])
JOINT = ("time_step: 0.01\nmaterials:\n  - {name: m, mu: 0}\nbodies:\n  - {shape: sphere, radius: 0.1, mass: 1, position: [1, 0, 0]}\n"
         "joints:\n  - {type: distance, bodies: [world, 0], points: [[0, 0, 0], [1, 0, 0]], %s}\n")
refused_at("bad-joint", "joint", JOINT, 7, [
    ("relaxation: {delta: 0.1}, compliance: {stiffness: 1.0e+6}", "relaxed (seed 003) or compliant (seed 004), not both"),
    ("compliance: {stiffness: -3}", "stiffness must be positive"),
    ("compliance: {stiffness: 10, damping: -1}", "damping must be >= 0"),
    ("compliance: {damping: 1}", "stiffness"),
    ("compliance: {stiffness: 10, zeta: 1}", "zeta")])

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
    ("{delta: 0.1, zeta: 0.5}, compliance: {stiffness: 1.0e+6}", "relaxed (seed 003) or compliant (seed 004), not both"),
]
refused_at("bad", "relaxation", HEAD, 3, BAD)
r = run_talus(TALUS, [IMPACT, "-o", os.path.join(WORK, "bad-dt"), "-dt", "0.2"])
check(r.returncode != 0 and "material soft: the contact relaxation" in r.stderr and "is unstable" in r.stderr,
      "-dt 0.2 with delta 0.1: %s" % r.stderr.strip()[-300:])

# the contacts' near-rigid floor: listed by -help, out-of-range values refused naming the option (1 and 2 ranks)
r = run_talus(TALUS, [IMPACT, "-help"])
for option in ("-contact_near_rigid", "-contact_friction_sigma"):
    check(option in r.stdout, "-help does not list %s" % option)
for args, expected in ((["-contact_near_rigid", "-1"], "-contact_near_rigid must be in [0, 100]"),
                       (["-contact_friction_sigma", "2"], "-contact_friction_sigma must be in [0, 1]")):
    for ranks in (None, 2):
        r = run_talus(TALUS, [IMPACT, "-o", os.path.join(WORK, "bad-floor"), "-t_final", "0.01"] + args, ranks)
        check(r.returncode != 0 and expected in r.stderr and "PETSC ERROR" not in r.stderr,
              "%s on %s ranks: %s" % (" ".join(args), ranks or 1, r.stderr.strip()[-300:]))

sys.exit(check.finish())
