#!/usr/bin/python3
"""ParaView and scripts/view on a talus run (issue 15's first hour): skipped (exit 77) only when
ParaView's pvpython is absent (scripts/bootstrap --optional installs it).

Usage: test_view.py TALUS SOURCE_ROOT WORK_DIR

Scene: tests/scenes/boxes-and-spheres.yaml (2 spheres, a box turned 30 degrees about z, a fixed box,
2 planes), frames every 5 steps, on 2 ranks.
- ParaView's default reader for frames.xmf (Xdmf3ReaderS) gets the bodies as cells (it got the
  points and no cells), with shape, fixed, diameter, velocity and shape_tensor, and the planes as
  quadrilaterals of their own;
- a Tensor Glyph of a unit box by shape_tensor is the turned box: its bounds are those of a
  2 x 1 x 0.5 box turned by 30 degrees, and the diameters are those of the scene;
- frames.xmf is valid XML with every frame of frames.h5, and is created once and appended to
  (strace: one open with O_TRUNC over a run of 11 frames, where it was rewritten at every frame);
- scripts/view draws it into a PNG with the counts of what it shows;
- tests/scenes/cylinders.yaml: scripts/view draws its two cylinders along their axes (the bounds of the glyphs);
- tests/scenes/hulls.yaml: scripts/view draws the compound wheel by its parts (a cylinder and four boxes, their bounds)
  and the hulls by their faces.
"""
import atexit
import math
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import ENV, Checks, run as run_talus  # noqa: E402

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "view")
check = Checks("test_view")
if not shutil.which("pvpython"):
    print("test_view: skipped: pvpython not found (scripts/bootstrap --optional installs ParaView)")
    sys.exit(77)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
SCENE = os.path.join(ROOT, "tests", "scenes", "boxes-and-spheres.yaml")
out = os.path.join(WORK, "run")
p = run_talus(TALUS, [SCENE, "-o", out, "-output_every", "5"], 2)
check(p.returncode == 0, "the run: exit %d\n%s" % (p.returncode, p.stderr[-1500:]))
xmf = os.path.join(out, "frames.xmf")


# meson sets MALLOC_PERTURB_ to catch reads of freed memory in talus; ParaView 5.11's renderer aborts under it
PV_ENV = {k: v for k, v in ENV.items() if k != "MALLOC_PERTURB_"}


def start_x_server():
    """One Xvfb for every drawing of this test, its display number read back through -displayfd (so it is known
    to be up before the first pvpython; -noreset, as a server that resets when its last client leaves refuses
    the next pvpython its window). xvfb-run -a per call started a server each time, and twice in a row in a
    CI run ParaView found none (vtkXOpenGLRenderWindow::CreateAWindow aborted); the display is not talus's."""
    if os.environ.get("DISPLAY") or not shutil.which("Xvfb"):
        return None
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
                               "-noreset"],
                              pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as f:
        number = f.readline().strip()
    if not number.isdigit():
        server.kill()
        return None
    PV_ENV["DISPLAY"] = ":" + number
    return server


X_SERVER = start_x_server()
atexit.register(lambda: X_SERVER and X_SERVER.kill())


def pvpython(script, env):
    cmd = ["pvpython", script]
    if not env.get("DISPLAY", PV_ENV.get("DISPLAY")) and shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(PV_ENV, **env), timeout=300)


# ---------------------------------------------------------------- what ParaView's default reader gets
p = pvpython(os.path.join(ROOT, "tests", "cli", "view_check.py"), {"TALUS_VIEW_XMF": xmf})
facts = dict(line.split(" ", 1) for line in p.stdout.splitlines() if " " in line)
check(p.returncode == 0, "view_check.py: exit %d\n%s%s" % (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
check(facts.get("reader") == "Xdmf3ReaderS", "the default reader of frames.xmf is %s, not ParaView's XDMF3 reader" % facts.get("reader"))
check(facts.get("times") == "0 0.05 0.1", "the frames' times: %s" % facts.get("times"))
check(facts.get("body_cells") == "4" and facts.get("plane_cells") == "2", "cells: %s bodies, %s planes (expected 4, 2)" % (facts.get("body_cells"), facts.get("plane_cells")))
for array in ("shape", "fixed", "diameter", "velocity", "angular_velocity", "shape_tensor", "id"):
    check(array in facts.get("arrays", "").split(), "the bodies lack the array %s: %s" % (array, facts.get("arrays")))
check(facts.get("diameters") == "2:1 3:0.5 4:%.6g 5:%.6g" % (2 * math.sqrt(1 + 0.25 + 0.0625), 2 * math.sqrt(0.75)),
      "diameters by id: %s" % facts.get("diameters"))
bounds = [float(b) for b in facts.get("box_bounds", "0 0 0 0 0 0").split()]
c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
hx, hy = 1.0 * c + 0.5 * s, 1.0 * s + 0.5 * c  # the turned box's half widths along x and y
expected = [-hx, hx, -hy, hy, 0.0, 0.5]
check(all(abs(a - b) < 2e-3 for a, b in zip(bounds, expected)), "the box drawn from shape_tensor spans %s, expected %s" % (bounds, expected))

# ---------------------------------------------------------------- frames.xmf: valid, complete, appended
root = ET.parse(xmf).getroot()
frames = root.findall("./Domain/Grid/Grid")
with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
    h5frames = sorted(k for k in f if k.startswith("frame"))
check(len(frames) == len(h5frames) == 3, "frames.xmf has %d frames, frames.h5 %d (expected 3)" % (len(frames), len(h5frames)))
if shutil.which("strace"):
    traced = os.path.join(WORK, "strace.txt")
    cmd = ["strace", "-f", "-e", "trace=openat", "-o", traced, TALUS, SCENE, "-o", os.path.join(WORK, "appended"), "-output_every", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300)
    opens = [line for line in open(traced) if "frames.xmf" in line]
    check(p.returncode == 0 and len(opens) == 11 and sum("O_TRUNC" in line for line in opens) == 1,
          "frames.xmf over 11 frames: %d opens, %d truncating (expected 11 and 1)" % (len(opens), sum("O_TRUNC" in line for line in opens)))
    check(len(ET.parse(os.path.join(WORK, "appended", "frames.xmf")).getroot().findall("./Domain/Grid/Grid")) == 11, "the appended frames.xmf lacks frames")
else:
    print("test_view: strace not found: the check that frames.xmf is appended to is skipped")

# ---------------------------------------------------------------- scripts/view draws it
png = os.path.join(WORK, "view.png")


def view(args):
    """scripts/view on the test's X server, again (up to twice, waiting longer each time) when ParaView could not
    open a window on it (it aborts in vtkXOpenGLRenderWindow::CreateAWindow)."""
    cmd = [os.path.join(ROOT, "scripts", "view")] + args
    p = subprocess.run(cmd, capture_output=True, text=True, env=PV_ENV, timeout=300)
    for wait in (2, 8):
        if p.returncode == 0 or "CreateAWindow" not in p.stdout + p.stderr:
            break
        print("test_view: ParaView could not open a window on the X server; scripts/view run again in %d s" % wait)
        time.sleep(wait)
        p = subprocess.run(cmd, capture_output=True, text=True, env=PV_ENV, timeout=300)
    return p


p = view([out, "--screenshot", png, "--time", "0.05"])
check(p.returncode == 0 and "moving: 2 spheres, 1 boxes" in p.stdout and "fixed: 0 spheres, 1 boxes" in p.stdout and "2 planes; t = 0.05 of 3 frames" in p.stdout,
      "scripts/view: exit %d\n%s%s" % (p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
if os.path.exists(png):
    import matplotlib.image
    image = matplotlib.image.imread(png)
    check(image.shape[:2] == (600, 800) and image[..., :3].std() > 0.05, "the screenshot is blank or of the wrong size: %s" % (image.shape,))
else:
    check(False, "scripts/view wrote no screenshot")
# joints: the double pendulum's two joints as polylines through the rods' centres and the pins
pendulum = os.path.join(WORK, "pendulum")
p = run_talus(TALUS, [os.path.join(ROOT, "inputs", "seed002", "double-pendulum.yaml"), "-o", pendulum, "-t_final", "0.1"])
check(p.returncode == 0, "the double pendulum: %s" % p.stderr[-500:])
p = view([pendulum, "--screenshot", os.path.join(WORK, "pendulum.png")])
check(p.returncode == 0 and "moving: 2 spheres" in p.stdout and "2 joints" in p.stdout, "scripts/view of joints: %s%s" % (p.stdout[-800:], p.stderr[-800:]))
with h5py.File(os.path.join(pendulum, "frames.h5"), "r") as f:
    last = sorted(k for k in f if k.startswith("frame"))[-1]
    path, ids, pos = f[last]["joints/path"][()], f[last]["id"][()], f[last]["position"][()]
    centre = {int(i): pos[k] for k, i in enumerate(ids)}
    check(path.shape == (8, 3) and abs(path[0]).max() == 0.0 and abs(path[3] - centre[0]).max() == 0.0
          and abs(path[4] - centre[0]).max() == 0.0 and abs(path[7] - centre[1]).max() == 0.0
          and abs(path[1] - path[2]).max() < 1e-4 and abs(path[5] - path[6]).max() < 1e-4,
          "joints/path: the pin at the origin, the rods' centres at the ends, the anchors together: %s" % path)
# cylinders: ParaView's unit cylinder (along y) turned onto each body's z; at the start the roller lies across the
# slope (its axis along y: y -0.3 .. 0.3), the post stands (x -1.6 .. -1.4, z 0.8 .. 1.6), the capsule (drawn as
# a cylinder of its whole length) lies along y at x 0.9 .. 1.1
cylinders = os.path.join(WORK, "cylinders")
p = run_talus(TALUS, [os.path.join(ROOT, "tests", "scenes", "cylinders.yaml"), "-o", cylinders, "-t_final", "0.05",
                      "-output_every", "10"])
check(p.returncode == 0, "the cylinders: %s" % p.stderr[-500:])
p = view([cylinders, "--screenshot", os.path.join(WORK, "cylinders.png"), "--time", "0"])
bounds = [line for line in p.stdout.splitlines() if "moving cylinders within" in line]
check(p.returncode == 0 and "moving: 1 spheres, 0 boxes, 3 cylinders" in p.stdout and bounds
      and "x -1.6 .. 1.1, y -0.3 .. 0.3, z -0.01206 .. 1.6" in bounds[0],
      "scripts/view of cylinders: %s%s" % (p.stdout[-800:], p.stderr[-800:]))
# a compound is drawn by its parts: hulls.yaml's wheel (turned 90 degrees about x, centred at y 0.6, z 0.185) as a
# cylinder of radius 0.15 and half length 0.05 and four box grousers reaching 0.18 from its axis; its three hulls by
# their faces (12 + 4 + 12 triangles; the cube's corner at x -0.5, z 0.001)
hulls = os.path.join(WORK, "hulls")
p = run_talus(TALUS, [os.path.join(ROOT, "tests", "scenes", "hulls.yaml"), "-o", hulls, "-t_final", "0.01",
                      "-output_every", "10"])
check(p.returncode == 0, "the hulls: %s" % p.stderr[-500:])
p = view([hulls, "--screenshot", os.path.join(WORK, "hulls.png"), "--time", "0"])
found = {kind: [line for line in p.stdout.splitlines() if "moving %s within" % kind in line] for kind in ("cylinders", "boxes")}
faces = [line for line in p.stdout.splitlines() if "hull faces within" in line]
check(p.returncode == 0 and "moving: 0 spheres, 4 boxes, 1 cylinders" in p.stdout and "28 hull faces" in p.stdout
      and faces and faces[0].split()[6] == "-0.5" and faces[0].split()[-3] == "0.001"
      and found["cylinders"] and "x -0.15 .. 0.15, y 0.55 .. 0.65, z 0.035 .. 0.335" in found["cylinders"][0]
      and found["boxes"] and "x -0.18 .. 0.18, y 0.55 .. 0.65, z 0.005 .. 0.365" in found["boxes"][0],
      "scripts/view of a compound's parts: %s%s" % (p.stdout[-800:], p.stderr[-800:]))
p = subprocess.run([os.path.join(ROOT, "scripts", "view"), os.path.join(WORK, "nothing-here")], capture_output=True, text=True, env=ENV)
check(p.returncode == 2 and "no " in p.stderr and "frames.xmf" in p.stderr, "scripts/view of a missing run: exit %d %s" % (p.returncode, p.stderr))
sys.exit(check.finish())
