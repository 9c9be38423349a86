#!/usr/bin/python3
"""The same bits on any number of ranks (issue 55, item 2; docs/parallel.md): a packed bed settling
(tests/scenes/packed-bed.yaml, 1,960 spheres on a jittered lattice, 0.3 s) and a clump bed poured
(tests/scenes/clump-bed.yaml, 300 two-sphere clumps, 0.1 s, screened pairs joining the problem) on 1, 2 and 4 ranks: every frame's positions,
orientations, velocities and angular velocities, by body id, equal to the last bit. Two sources of rank-count
rounding are under test: apgd's first Lipschitz estimate (a 2-norm over all ranks: reproducible_sum.c) and the
B^T g sums of the bodies whose contacts lie on two ranks (jacobian_faces.c).

Usage: test_parallel_bitwise.py TALUS SOURCE_ROOT WORK_DIR
"""
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Checks, run  # noqa: E402

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "parallel-bitwise")
check = Checks("test_parallel_bitwise")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
FIELDS = ("position", "quaternion", "velocity", "angular_velocity")


def frames(out):
    """every frame's fields, rows in body id order"""
    result = []
    with h5py.File(os.path.join(out, "frames.h5"), "r") as f:
        for name in sorted(k for k in f if k.startswith("frame")):
            order = np.argsort(f[name]["id"][()])
            result.append({k: f[name][k][()][order] for k in FIELDS})
    return result


for scene, args in (("packed-bed", ["-t_final", "0.3", "-output_every", "10"]),
                    # a narrow screening margin: 9 steps of 100 solve again with screened pairs joining the problem
                    ("clump-bed", ["-output_every", "20", "-contact_screen", "0.5"])):
    runs = {}
    for ranks in (1, 2, 4):
        out = os.path.join(WORK, "%s-np%d" % (scene, ranks))
        p = run(TALUS, [os.path.join(ROOT, "tests", "scenes", scene + ".yaml"), "-o", out] + args, ranks)
        check(p.returncode == 0, "%s on %d ranks: exit %d\n%s" % (scene, ranks, p.returncode, p.stderr[-2000:]))
        if p.returncode == 0:
            runs[ranks] = frames(out)
    if 1 not in runs:
        continue
    check(len(runs[1]) >= 4, "%s: %d frames" % (scene, len(runs[1])))
    for ranks in (2, 4):
        if ranks not in runs:
            continue
        differ = [(i, k, float(np.abs(a[k] - b[k]).max())) for i, (a, b) in enumerate(zip(runs[1], runs[ranks]))
                  for k in FIELDS if not np.array_equal(a[k], b[k])]
        check(len(runs[ranks]) == len(runs[1]) and not differ,
              "%s: %d ranks differ from 1 rank (frame, field, largest difference): %s" % (scene, ranks, differ[:4]))
sys.exit(check.finish())
