#!/usr/bin/python3
"""Generators made in parallel (docs/scene-format.md, "Generators"; issue 20):
- every generator gives the same bodies, bitwise (ids, positions, orientations, velocities), on 1, 2,
  3 and 4 ranks, and so do listed bodies mixed with two generators;
- a lattice's centres are origin + (i, j, k) spacing shifted by jitter (2u - 1), u drawn by an
  independent sequential splitmix64 stream here, bitwise (the numbers talus drew before it made
  lattices in parallel);
- random_fill: count spheres, all inside the box, none overlapping, spread over the whole box;
- clumps (random_fill with parts:): compounds, each turned its own way, the same on 1-4 ranks; parts reaching
  beyond the radius are refused;
- refusals with FILE:LINE: a fill that cannot fit, two generators whose boxes meet, a joint naming a
  generated sphere; and a 20-step run stays bitwise the same on 1 and 3 ranks.
Usage: test_generators.py TALUS ROOT WORKDIR"""
import os
import shutil
import sys

import h5py
import numpy as np

from clitest import Checks, run, run_all

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "generators")
os.makedirs(WORK, exist_ok=True)
check = Checks("test_generators")

HEAD = """name: gen
gravity: [0, 0, -9.81]
time_step: 0.005
end_time: 0
domain: {min: [-20, -20, -5], max: [20, 20, 40]}
materials:
  - {name: grain, mu: 0.4, density: 1000}
"""
LATTICE = "  - lattice: {radius: 0.4, origin: [-3, -2, 1], spacing: 0.9, count: [7, 5, 4], jitter: 0.04, seed: 2016, velocity: [0.5, 0, -1]}\n"
FILL = "  - random_fill: {radius: 0.3, mass: 2, min: [-6, -6, 6], max: [6, 6, 12], count: 300, seed: 11}\n"
CLUMPS = ("  - random_fill: {radius: 0.5, min: [-6, -6, 6], max: [6, 6, 12], count: 200, seed: 5, parts: "
          "[{shape: sphere, radius: 0.3, position: [-0.2, 0, 0]}, {shape: sphere, radius: 0.3, position: [0.2, 0, 0]}]}\n")
SCENES = {
    "lattice": HEAD + "generators:\n" + LATTICE,
    "fill": HEAD + "generators:\n" + FILL,
    "mixed": HEAD + "bodies:\n  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}\n"
    "  - {shape: box, half_extents: [1, 1, 0.5], mass: 3, position: [10, 10, 2], rotation: [0, 0, 1, 30]}\n"
    "  - {shape: sphere, radius: 0.5, mass: 1, position: [-10, 10, 3], velocity: [1, 2, 3]}\n"
    "generators:\n" + LATTICE + FILL,
    "clumps": HEAD + "generators:\n" + CLUMPS,
}
FIELDS = ("id", "position", "quaternion", "velocity", "angular_velocity", "size")


def first_frame(out):
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        g = f["frame000000"]
        order = np.argsort(g["id"][()])
        return {k: g[k][()][order] for k in FIELDS}


frames = {}
for name, text in SCENES.items():
    fn = os.path.join(WORK, name + ".yaml")
    with open(fn, "w") as f:
        f.write(text)
    for ranks in (1, 2, 3, 4):
        out = os.path.join(WORK, "%s-np%d" % (name, ranks))
        p = run(TALUS, [fn, "-o", out], ranks)
        check(p.returncode == 0, "%s on %d ranks: exit %d\n%s" % (name, ranks, p.returncode, p.stderr[-2000:]))
        if p.returncode == 0:
            frames[name, ranks] = first_frame(out)
    for ranks in (2, 3, 4):
        if (name, 1) in frames and (name, ranks) in frames:
            a, b = frames[name, 1], frames[name, ranks]
            differ = [k for k in FIELDS if a[k].shape != b[k].shape or not np.array_equal(a[k], b[k])]
            check(not differ, "%s: %d ranks made other bodies than 1 rank (%s differ)" % (name, ranks, ", ".join(differ)))

# clumps: compounds (code 6) at the cells a fill of spheres takes, each turned its own way (unit quaternions, no two
# alike), the same on any number of ranks (above); parts that reach beyond the radius are refused
if ("clumps", 1) in frames and ("fill", 1) in frames:
    with h5py.File(os.path.join(WORK, "clumps-np1", "frames.h5"), "r") as f:
        shapes = f["frame000000"]["shape"][()]
    q = frames["clumps", 1]["quaternion"]
    check(len(shapes) == 200 and (shapes == 6).all() and np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-6)
          and len(np.unique(np.round(q, 6), axis=0)) == 200, "clumps: shapes %s, quaternions %s" % (np.unique(shapes), q[:3]))
fn = os.path.join(WORK, "clumps-too-big.yaml")
with open(fn, "w") as f:
    f.write(HEAD + "generators:\n" + CLUMPS.replace("radius: 0.5,", "radius: 0.45,"))
p = run(TALUS, [fn, "-o", os.path.join(WORK, "clumps-too-big")])
check(p.returncode != 0 and "the parts reach 0.5 from their centroid, beyond the generator's radius 0.45" in p.stderr,
      "clumps wider than the radius: exit %d %s" % (p.returncode, p.stderr[-400:]))

# ------------------------------------------------------------------ the lattice against a sequential stream
MASK = (1 << 64) - 1


def splitmix_stream(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield float((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0)


if ("lattice", 1) in frames:
    got, draws, expected = frames["lattice", 1], splitmix_stream(2016), []
    for k in range(4):
        for j in range(5):
            for i in range(7):
                x = [-3 + i * 0.9, -2 + j * 0.9, 1 + k * 0.9]
                for d in range(3):
                    x[d] += 0.04 * (2.0 * next(draws) - 1.0)
                expected.append(x)
    expected = np.array(expected)
    check(np.array_equal(got["id"], np.arange(140)), "lattice: ids are not 0..139")
    check(np.array_equal(got["position"], expected),
          "lattice: centres differ from origin + ijk spacing + the sequential stream's jitter by up to %g m"
          % np.abs(got["position"] - expected).max())
    check(np.all(got["velocity"] == [0.5, 0, -1]), "lattice: velocity not [0.5, 0, -1]")

if ("fill", 1) in frames:
    x, r = frames["fill", 1]["position"], 0.3
    lo, hi = np.array([-6, -6, 6]), np.array([6, 6, 12])
    check(len(x) == 300, "random_fill: %d spheres, not 300" % len(x))
    check(np.all(x >= lo + r) and np.all(x <= hi - r), "random_fill: a sphere is not inside the box")
    dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)) + np.eye(len(x)) * 1e9
    check(dist.min() >= 2 * r, "random_fill: two spheres overlap (closest centres %g m apart)" % dist.min())
    # spread: each octant of the box holds 300 / 8 = 37.5 spheres, give or take 3 standard deviations
    octant = ((x > (lo + hi) / 2) * [1, 2, 4]).sum(1)
    counts = np.bincount(octant, minlength=8)
    check(counts.min() >= 37.5 - 3 * np.sqrt(37.5) and counts.max() <= 37.5 + 3 * np.sqrt(37.5),
          "random_fill: octants hold %s spheres" % counts.tolist())
    print("random_fill: 300 spheres, closest centres %.3f m apart (diameter 0.6), octants %s" % (dist.min(), counts.tolist()))

if ("mixed", 1) in frames:
    m = frames["mixed", 1]
    check(np.array_equal(m["id"], np.concatenate([[1, 2], np.arange(3, 443)])),
          "mixed: finite bodies' ids are not 1, 2 (listed), then 3..442 (two generators)")
    if ("lattice", 1) in frames:
        check(np.array_equal(m["position"][2:142], frames["lattice", 1]["position"]),
              "mixed: the lattice's spheres moved when listed bodies came before it")

# ------------------------------------------------------------------ refusals
REFUSED = [
    ("fill that cannot fit", HEAD + "generators:\n  - random_fill: {radius: 1, mass: 1, min: [-2, -2, 3], max: [2, 2, 7], count: 9, seed: 1}\n",
     9, "do not fit in the region: it holds at most 8"),
    ("generators that meet", HEAD + "generators:\n" + LATTICE + "  - random_fill: {radius: 0.3, mass: 2, min: [0, 0, 3], max: [6, 6, 12], count: 30}\n",
     10, "the bodies made here could reach into those made at line 9"),
    ("joint to a generated sphere", HEAD + "bodies:\n  - {shape: sphere, radius: 0.5, mass: 1, position: [-10, 10, 3]}\ngenerators:\n" + LATTICE
     + "joints:\n  - {type: spherical, bodies: [0, 5], point: [-3, -2, 1]}\n",
     13, "body id 5: the bodies listed under bodies: have ids 0 to 0"),
]
for label, text, line, expected in REFUSED:
    fn = os.path.join(WORK, label.replace(" ", "-") + ".yaml")
    with open(fn, "w") as f:
        f.write(text)
    for ranks in (1, 3):
        p = run(TALUS, [fn, "-o", os.path.join(WORK, "refused")], ranks)
        where = "%s:%d:" % (fn, line)
        check(p.returncode != 0 and where in p.stderr and expected in p.stderr,
              "%s on %d ranks: expected '%s ... %s', got exit %d:\n%s" % (label, ranks, where, expected, p.returncode, p.stderr[-1500:]))

# ------------------------------------------------------------------ an overlap only one rank holds
# a listed sphere inside the fill's box lands on some generated sphere: found whichever rank made it
fn = os.path.join(WORK, "overlap.yaml")
with open(fn, "w") as f:
    f.write(HEAD + "overlap_tolerance: 0\nbodies:\n  - {shape: box, half_extents: [6, 6, 3], mass: 1, position: [0, 0, 9]}\ngenerators:\n" + FILL)
for ranks in (1, 4):
    p = run(TALUS, [fn, "-o", os.path.join(WORK, "refused")], ranks)
    lines = [l for l in p.stderr.splitlines() if l.startswith("talus: error:")]
    check(p.returncode != 0 and "bodies 0 (a box) and 1 (a sphere) overlap by" in p.stderr and len(lines) == 1,
          "an overlap with a generated sphere on %d ranks: exit %d\n%s" % (ranks, p.returncode, p.stderr[-1500:]))

# ------------------------------------------------------------------ bodies from a file
# a settled filling's last frame and its checkpoint seed new runs: the same bodies, bitwise, on 1 and 3 ranks
settle = os.path.join(WORK, "settle")
shutil.rmtree(settle, ignore_errors=True)  # an earlier run of this test in the same build left its checkpoints
p = run(TALUS, [os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", settle, "-t_final", "0.3", "-output_every", "10",
                "-checkpoint_every", "30"])
check(p.returncode == 0, "the filling to seed from: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
with open(os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")) as f:
    walls = "".join(l for l in f if not l.startswith("generators:") and "lattice:" not in l)
sources = {"frames": os.path.join(settle, "frames.h5"), "frame-1": os.path.join(settle, "frames.h5"),
           "checkpoint": os.path.join(settle, "checkpoints", "ckpt-00000030.h5")}
if p.returncode == 0:
    with h5py.File(sources["frames"], "r") as f:
        want = {}
        for name in ("frame000003", "frame000001"):
            order = np.argsort(f[name]["id"][()])
            want[name] = {k: f[name][k][()][order] for k in ("position", "quaternion", "velocity", "angular_velocity")}
    for label, path in sources.items():
        frame = ", frame: 1" if label == "frame-1" else ""
        fn = os.path.join(WORK, "from-%s.yaml" % label)
        with open(fn, "w") as f:
            # a bed settled with the contacts' near-rigid floor rests up to millimetres deep (docs/compliance.md)
            f.write(walls.replace("options:", "overlap_tolerance: 0.01\nbodies_file: {file: %s, mass: 1%s}\noptions:"
                                  % (path, frame)))
        for ranks in (1, 3):
            out = os.path.join(WORK, "from-%s-np%d" % (label, ranks))
            q = run(TALUS, [fn, "-o", out, "-t_final", "0.02"], ranks)
            check(q.returncode == 0, "bodies_file from %s on %d ranks: exit %d\n%s" % (label, ranks, q.returncode, q.stderr[-2000:]))
            if q.returncode:
                continue
            got, ref = first_frame(out), want["frame000001" if label == "frame-1" else "frame000003"]
            check(np.array_equal(got["id"], np.arange(5, 130)), "bodies_file from %s: ids are not 5..129 (after the 5 planes)" % label)
            for k in ("position", "quaternion", "velocity"):
                check(np.array_equal(got[k], ref[k]), "bodies_file from %s on %d ranks: %s differs from the source's by %g"
                      % (label, ranks, k, np.abs(got[k] - ref[k]).max()))
            # a frame's angular velocity is in the world frame: through the body frame and back, to rounding
            check(np.abs(got["angular_velocity"] - ref["angular_velocity"]).max() < 1e-12,
                  "bodies_file from %s: angular velocity off by %g" % (label, np.abs(got["angular_velocity"] - ref["angular_velocity"]).max()))

    # a table whose rows are all empty (every body removed) gives no bed: refused, not a run without it
    empty = os.path.join(WORK, "empty-rows.h5")
    with h5py.File(empty, "w") as f:
        g = f.create_group("bodies")
        g["position"], g["size"] = np.zeros((4, 3)), np.ones((4, 3))
        g["shape"], g["id"] = np.zeros(4, dtype=np.int32), -np.ones(4, dtype=np.int64)
    # rows that cannot be a body's state: a zero turn, a NaN speed (issue 55), named by their row
    broken = {}
    for label, key, value in (("zero quaternion", "quaternion", np.zeros(4)), ("NaN velocity", "velocity", np.array([0, np.nan, 0]))):
        broken[label] = os.path.join(WORK, "broken-%s.h5" % key)
        with h5py.File(broken[label], "w") as f:
            g = f.create_group("bodies")
            g["position"] = np.array([[0.0, 0.0, 1.0 + k] for k in range(3)])
            g["size"], g["shape"] = np.full((3, 3), 0.1), np.zeros(3, dtype=np.int32)
            rows = np.tile(np.array([1.0, 0, 0, 0]) if key == "quaternion" else np.zeros(3), (3, 1))
            rows[1] = value
            g[key] = rows
    for label, radius in (("huge sphere", 1e20), ("infinite sphere", np.inf)):  # a size in other units, or no size
        broken[label] = os.path.join(WORK, "broken-%s.h5" % label.replace(" ", "-"))
        with h5py.File(broken[label], "w") as f:
            g = f.create_group("bodies")
            g["position"] = np.array([[0.0, 0.0, 1.0 + k] for k in range(3)])
            g["size"], g["shape"] = np.full((3, 3), 0.1), np.zeros(3, dtype=np.int32)
            g["size"][2, 0] = radius
    BAD_FILES = [
        ("huge sphere", "bodies_file: {file: %s, mass: 1}" % broken["huge sphere"],
         "row 2: a sphere of bounding radius 1e+20 m, larger than the domain"),
        ("infinite sphere", "bodies_file: {file: %s, mass: 1}" % broken["infinite sphere"],
         "row 2: a sphere whose size is not finite"),
        ("zero quaternion", "bodies_file: {file: %s, mass: 1}" % broken["zero quaternion"], "row 1: the quaternion is zero or not finite"),
        ("NaN velocity", "bodies_file: {file: %s, mass: 1}" % broken["NaN velocity"], "row 1: the velocity or the angular velocity is not finite"),
        ("all rows empty", "bodies_file: {file: %s, mass: 1}" % empty, "all 4 rows of group bodies are empty"),
        ("no such file", "bodies_file: {file: %s, mass: 1}" % os.path.join(WORK, "nothing.h5"), "No such file or directory"),
        ("a directory", "bodies_file: {file: %s, mass: 1}" % WORK, "Is a directory"),
        ("not HDF5", "bodies_file: {file: %s, mass: 1}" % os.path.join(ROOT, "README.md"), "not a readable HDF5 file"),
        ("frame beyond", "bodies_file: {file: %s, mass: 1, frame: 9}" % sources["frames"], "frame 9 asked for, and the file's frames are 0 to 3"),
        ("group without positions", "bodies_file: {file: %s, mass: 1, group: every_frame}" % sources["frames"], "no dataset position in group every_frame"),
        ("no mass", "bodies_file: {file: %s}" % sources["frames"], "need a mass, or a material with a positive density"),
        ("frame and group", "bodies_file: {file: %s, mass: 1, frame: 1, group: bodies}" % sources["frames"], "give frame (of a frames file) or group, not both"),
    ]
    line = walls.split("options:")[0].count("\n") + 1
    jobs = []
    for label, text, expected in BAD_FILES:
        fn = os.path.join(WORK, "bad-file-%s.yaml" % label.replace(" ", "-"))
        with open(fn, "w") as f:
            f.write(walls.replace("options:", text + "\noptions:"))
        jobs += [(label, fn, expected, ranks) for ranks in (1, 2)]
    procs = run_all(TALUS, [([fn, "-o", os.path.join(WORK, "refused-%d" % k)], ranks)
                            for k, (label, fn, expected, ranks) in enumerate(jobs)])
    for (label, fn, expected, ranks), q in zip(jobs, procs):
        lines = [l for l in q.stderr.splitlines() if l.startswith("talus: error:")]
        check(q.returncode != 0 and ("%s:%d:" % (fn, line)) in q.stderr and expected in q.stderr and len(lines) == 1,
              "bodies_file, %s, %d ranks: expected '%s:%d: ... %s', got exit %d:\n%s" % (label, ranks, fn, line, expected, q.returncode, q.stderr[-1500:]))
    # a generator whose box meets the file's bodies
    fn = os.path.join(WORK, "file-and-generator.yaml")
    with open(fn, "w") as f:
        f.write(walls.replace("options:", "generators:\n  - lattice: {radius: 0.5, mass: 1, origin: [-2, -2, 1], spacing: 1.1, count: [3, 3, 3]}\n"
                              "bodies_file: {file: %s, mass: 1}\noptions:" % sources["frames"]))
    q = run(TALUS, [fn, "-o", os.path.join(WORK, "refused")], 2)
    check(q.returncode != 0 and "the bodies made here could reach into those made at line" in q.stderr,
          "bodies_file meeting a generator: exit %d\n%s" % (q.returncode, q.stderr[-1500:]))

# ------------------------------------------------------------------ runs stay bitwise across rank counts
ends = {}
for ranks in (1, 3):
    out = os.path.join(WORK, "filling-np%d" % ranks)
    p = run(TALUS, [os.path.join(ROOT, "tests", "scenes", "filling-125.yaml"), "-o", out, "-t_final", "0.2", "-output_every", "20"], ranks)
    check(p.returncode == 0, "filling-125 on %d ranks: exit %d\n%s" % (ranks, p.returncode, p.stderr[-2000:]))
    if p.returncode == 0:
        with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
            g = f[sorted(k for k in f if k.startswith("frame"))[-1]]
            order = np.argsort(g["id"][()])
            ends[ranks] = {k: g[k][()][order] for k in FIELDS}
if len(ends) == 2:
    check(all(np.array_equal(ends[1][k], ends[3][k]) for k in FIELDS), "filling-125, 20 steps: 3 ranks end other than 1 rank")
sys.exit(check.finish())
