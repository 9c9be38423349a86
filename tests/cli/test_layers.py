#!/usr/bin/python3
"""scripts/check-layers: the layers and the absence of circles between files, from the objects' symbols.

Usage: test_layers.py TALUS SOURCE_ROOT WORK_DIR    (the build directory is TALUS's)

- the build itself: no circle between files, every use between folders downward (docs/development.md's
  layers), exit status 0;
- a made-up build of three files refused with each fault named: src/sim/a.c calling src/scene/b.c (a
  layer above it), src/scene/b.c and src/scene/c.c calling each other (a circle), and a file in a
  folder the layers do not order;
- a build directory without the objects refused with what to build;
- a module (src/sim/modules/) that includes the core's private header refused, with its file and line.
"""
import os
import shutil
import subprocess
import sys

from clitest import Checks

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "layers")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_layers")
CHECK = os.path.join(ROOT, "scripts", "check-layers")


def layers(build):
    return subprocess.run([CHECK, build], capture_output=True, text=True, timeout=300)


r = layers(os.path.dirname(os.path.abspath(TALUS)))
check(r.returncode == 0 and "no circle, every use downward" in r.stdout, "the build keeps its layers: %s" %
      (r.stdout + r.stderr).strip()[-2000:])
print(r.stdout.strip())


# a module that includes the core's private header is named with its line
fake_root = os.path.join(WORK, "root")
os.makedirs(os.path.join(fake_root, "src", "sim", "modules"))
with open(os.path.join(fake_root, "src", "sim", "modules", "sneaky.c"), "w") as f:
    f.write('#include "../modules.h"\n#include "../sim_impl.h"\n')
r = subprocess.run([CHECK, os.path.dirname(os.path.abspath(TALUS)), fake_root], capture_output=True, text=True,
                   timeout=300)
check(r.returncode == 1 and "src/sim/modules/sneaky.c:2 includes the core's private header" in r.stdout,
      "a module including sim_impl.h is refused: %s" % (r.stdout + r.stderr).strip()[-600:])


def build_fake(files):
    """files: {object name: C source}; a build directory with them in libtalus.so.p and the other
    targets empty"""
    fake = os.path.join(WORK, "fake-%d" % len(os.listdir(WORK)))
    for target in ("libtalus.so.p", "libtalus_solver.a.p", "libtalus_decomp.a.p", "talus.p"):
        os.makedirs(os.path.join(fake, target))
    for name, source in files.items():
        c = os.path.join(WORK, name + ".c")
        with open(c, "w") as f:
            f.write(source)
        subprocess.run(["cc", "-c", c, "-o", os.path.join(fake, "libtalus.so.p", name + ".c.o")], check=True)
    return fake


fake = build_fake({
    "src_sim_a": "int SceneB(void);\nint SimA(void) { return SceneB(); }\n",
    "src_scene_b": "int SimA(void);\nint SceneC(void);\nint SceneB(void) { return SimA() + SceneC(); }\n",
    "src_scene_c": "int SceneB(void);\nint SceneC(void) { return SceneB(); }\n",
})
r = layers(fake)
out = r.stdout
check(r.returncode == 1, "a build with faults: exit status 1, got %d" % r.returncode)
check("src/sim/a.c (sim) uses src/scene/b.c (scene), a layer above it: SceneB" in out, "the upward use named: " + out)
check("a circle of 3 files" in out and "src/scene/b.c -> src/scene/c.c (SceneC)" in out and
      "src/scene/c.c -> src/scene/b.c (SceneB)" in out, "the circle named with its ties: " + out)

fake = build_fake({"src_attic_d": "int D(void) { return 1; }\n"})
r = layers(fake)
check(r.returncode != 0 and "src/attic/d.c is in a folder (attic) that LAYERS does not order" in (r.stdout + r.stderr),
      "a folder the layers do not order: " + (r.stdout + r.stderr))

r = layers(os.path.join(WORK, "nothing-built"))
check(r.returncode != 0 and "is not built" in (r.stdout + r.stderr), "no objects: " + (r.stdout + r.stderr))
sys.exit(check.finish())
