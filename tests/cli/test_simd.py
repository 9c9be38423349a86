#!/usr/bin/python3
"""-simd: the wide kernels (AVX-512: the cone projection, apgd's passes, the matrix-free B's products; src/solver/
simd.c) give the scalar code's bits, so a run with them and one with -simd false are the same run.

Usage: test_simd.py TALUS SOURCE_ROOT WORK_DIR

- the filling pile (tests/scenes/filling-125.yaml to 1.5 s: the Coulomb problem scaled per contact, spheres on
  spheres and planes, every record axial), on 1 and 2 ranks; the same unscaled (-ccp_scale 0, where B^T g is wide
  and B v is not) and relaxed (-ccp_problem relaxed: no anti-relaxation);
- the compaction slab resting on its grains (tests/fixtures/compaction-100-settled.h5, 50 steps from 4 s): a box
  among spheres, so that groups of 8 contacts hold general records and go one contact at a time;
- each pair compared by scripts/same-run (frames, the last checkpoint, stats.csv but its wall times);
- -simd's value: a word that is not a truth value is refused naming the option (as any logical option is).
On a processor without AVX-512 both runs are scalar, and the comparison holds trivially: the test says so.
"""
import os
import subprocess
import sys

from clitest import Checks
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "simd")
os.makedirs(WORK, exist_ok=True)
check = Checks("talus_simd")
FILLING = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
SETTLED = os.path.join(ROOT, "tests", "fixtures", "compaction-100-settled.h5")
SAME_RUN = os.path.join(ROOT, "scripts", "same-run")

with open("/proc/cpuinfo") as f:
    wide = " avx512f" in f.read()
print("  this processor %s AVX-512" % ("has" if wide else "lacks (both runs are scalar)"))

CASES = [  # name, scene, extra options, ranks
    ("filling", FILLING, ["-t_final", "1.5"], None),
    ("filling-2", FILLING, ["-t_final", "1.5"], 2),
    ("filling-unscaled", FILLING, ["-t_final", "1.5", "-ccp_scale", "0"], None),
    ("filling-relaxed", FILLING, ["-t_final", "1.5", "-ccp_problem", "relaxed"], None),
    ("compaction", None, ["-restart", SETTLED, "-t_final", "4.05"], None),
]
for name, scene, extra, ranks in CASES:
    outs = []
    for simd in ("true", "false"):
        out = os.path.join(WORK, "%s-%s" % (name, simd))
        p = run_talus(TALUS, ([scene] if scene else []) + ["-o", out, "-overwrite", "-output_every", "10", "-checkpoint_every", "50",
                              "-simd", simd] + extra, ranks)
        check(p.returncode == 0, "%s with -simd %s failed: %s" % (name, simd, p.stderr[-400:]))
        outs.append(out)
    same = subprocess.run([SAME_RUN] + outs, capture_output=True, text=True)
    check(same.returncode == 0, "%s: the run with the wide kernels differs from the scalar one:\n%s"
          % (name, same.stdout[-1200:] + same.stderr[-400:]))
    print("  %s%s: the same run with and without -simd" % (name, " on %d ranks" % ranks if ranks else ""))

p = run_talus(TALUS, [FILLING, "-o", os.path.join(WORK, "bad"), "-overwrite", "-simd", "maybe"])
check(p.returncode == 1 and "-simd maybe (from the command line): not a truth value" in p.stderr,
      "-simd maybe: %s" % p.stderr[-300:])

sys.exit(check.finish())
