#!/usr/bin/python3
"""The single-wheel rig on grains: the curve's trends (issue 36's small rig; docs/terramechanics.md).

Usage: test_rig_soil.py TALUS SOURCE_ROOT WORK_DIR

scripts/wheel-sweep --small --slips 0,0.6 --end 0.2: the 10^4-grain bed of inputs/wheel-rig/soil-bin.yaml settled,
then Ding 2011's smooth wheel (80 N, r 0.157 m) of inputs/wheel-rig/soil-small.yaml on it at slips 0 and 0.6
through the campaign server on 2 ranks, the means over 0.1-0.2 s (0.2 s, not 0.3: a third less of the suite's
longest test; one run measured over 0.1-0.2 s DP/W -0.098 and +0.125, T/(W r) 0.040 and 0.18, sinkage 7.4 and 8.6 mm
at slips 0 and 0.6, against -0.135, +0.089, 0.010, 0.186, 7.3 and 9.0 mm over 0.15-0.3 s). What every rig on sand
shows (Ding 2011, Chrono's and DEM-Engine's wheel rigs; ../shared/terramechanics-anchors.md):
- at slip 0 the drawbar pull is negative (the wheel pushes a bow wave: rolling resistance), by more than its
  noise (measured -0.11 with a standard deviation of 0.03 over the window);
- with slip it rises (measured +0.13 at slip 0.6), as do the driving torque (0.02 -> 0.25 W r) and the sinkage
  (slip sinkage: 8.9 -> 11.1 mm);
- the sinkage is that of a wheel in the bed (millimetres to centimetres), not of one resting on it or sunk through;
- rig.csv's slip is the imposed one;
- the same rig put on the same bed with --scene soil-small.yaml --bed (how a rig is tried on other beds) runs
  the slip-0 job's first 0.03 s bit for bit.
A wheel that did not spin, a torque or a drawbar pull of the wrong sign or sense, or a rig module reading the
wrong joint fails it.
"""
import csv
import os
import shutil
import subprocess
import sys

from clitest import Checks

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "rig-soil")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_rig_soil")

p = subprocess.run([os.path.join(ROOT, "scripts", "wheel-sweep"), "--small", "--slips", "0,0.6", "--end", "0.2",
                    "--ranks", "2", "--out", WORK, "--talus", TALUS], capture_output=True, text=True)
check(p.returncode == 0 and os.path.exists(os.path.join(WORK, "sweep.png")),
      "wheel-sweep --small: exit %d\n%s%s" % (p.returncode, p.stdout[-800:], p.stderr[-1500:]))
rows = {}
if p.returncode == 0:
    with open(os.path.join(WORK, "sweep.csv")) as f:
        rows = {round(float(r["imposed_slip"]), 6): {k: float(v) for k, v in r.items()} for r in csv.DictReader(f)}
    check(set(rows) == {0.0, 0.6}, "sweep.csv's slips: %s" % sorted(rows))
if set(rows) == {0.0, 0.6}:
    rolled, slipped = rows[0.0], rows[0.6]
    for s, m in rows.items():
        check(abs(m["slip"] - s) < 1e-6, "slip %g: rig.csv's mean slip is %.8f" % (s, m["slip"]))
        check(0.003 < m["sinkage_m"] < 0.03, "slip %g: the sinkage %.4f m is not of a wheel in the bed" % (s, m["sinkage_m"]))
    check(rolled["dp_over_w"] < -0.03, "slip 0: DP/W %.4f is not a rolling resistance (below -0.03)" % rolled["dp_over_w"])
    check(slipped["dp_over_w"] > rolled["dp_over_w"] + 0.1,
          "DP/W does not rise with slip: %.4f at 0, %.4f at 0.6" % (rolled["dp_over_w"], slipped["dp_over_w"]))
    check(slipped["torque_over_wr"] > rolled["torque_over_wr"] + 0.1 and slipped["torque_over_wr"] > 0.1,
          "T/(W r) does not rise with slip: %.4f at 0, %.4f at 0.6" % (rolled["torque_over_wr"], slipped["torque_over_wr"]))
    check(slipped["sinkage_m"] > rolled["sinkage_m"] + 0.0005,
          "the sinkage does not rise with slip: %.5f m at 0, %.5f m at 0.6" % (rolled["sinkage_m"], slipped["sinkage_m"]))
    print("test_rig_soil: slip 0: DP/W %.4f T/(W r) %.4f sinkage %.2f mm; slip 0.6: DP/W %.4f T/(W r) %.4f sinkage %.2f mm"
          % (rolled["dp_over_w"], rolled["torque_over_wr"], 1e3 * rolled["sinkage_m"], slipped["dp_over_w"],
             slipped["torque_over_wr"], 1e3 * slipped["sinkage_m"]))
if p.returncode == 0:  # the rig on the bed by --bed: the same placement and the same run as --small's
    onbed = os.path.join(WORK, "onbed")
    q = subprocess.run([os.path.join(ROOT, "scripts", "wheel-sweep"), "--scene",
                        os.path.join(ROOT, "inputs", "wheel-rig", "soil-small.yaml"), "--bed",
                        os.path.join(WORK, "bed", "out", "soil-bin"), "--slips", "0", "--end", "0.03", "--ranks", "1",
                        "--out", onbed, "--talus", TALUS], capture_output=True, text=True)
    check(q.returncode == 0, "wheel-sweep --bed: exit %d\n%s%s" % (q.returncode, q.stdout[-800:], q.stderr[-1500:]))
    placed = [[l for l in r.stdout.splitlines() if "the wheel at z" in l] for r in (p, q)]
    check(placed[0] and placed[0] == placed[1], "--bed placed the wheel otherwise than --small: %s" % placed)
    if q.returncode == 0:
        rig = [open(os.path.join(d, "campaign", "jobs", "slip-0001", "rig.csv")).read().splitlines() for d in (WORK, onbed)]
        check(len(rig[1]) > 25 and rig[1] == rig[0][:len(rig[1])],
              "--bed's slip-0 run (%d rows) differs from --small's in its first 0.03 s" % len(rig[1]))
sys.exit(check.finish())
