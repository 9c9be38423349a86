#!/usr/bin/python3
"""scripts/reproduce-seed004: seed 004's examples and their closed forms (docs/compliance.md).

Usage: test_reproduce_seed004.py TALUS SOURCE_ROOT WORK_DIR

Runs the script with this build's talus and checks results.json against the formulations note's
sec. 4.3 and issue 17's keys:
- compliant_decay_ratio within 1e-8 of 1/sqrt(1 + h^2 K/m) = 0.0995037 (S4-1);
- stiff_pendulum_stable true: the K = 1e15 pin bounded at h = 0.1 and 1e-4 (S4-4), its drift within
  g h^2 at each;
- foundation_sinkage_rel_error below 2 % (S4-6; the 5 N load), foundation_lifts_off {"5": false,
  "50": true} (the kern criterion of sec. 4.2);
and that the figure is drawn.
"""
import json
import os
import subprocess
import sys

from clitest import Checks, env_for

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
OUT = os.path.join(WORK, "reproduce-seed004")
check = Checks("talus_reproduce_seed004")

os.makedirs(os.path.join(WORK, "ompi"), exist_ok=True)  # the script's runs, one after the other, as singletons
p = subprocess.run([os.path.join(ROOT, "scripts", "reproduce-seed004"), "--out", OUT, "--talus", TALUS],
                   capture_output=True, text=True, env=env_for(None, os.path.join(WORK, "ompi")), timeout=600)
check(p.returncode == 0, "the script ran: %s" % p.stderr[-800:])
if p.returncode == 0:
    r = json.load(open(os.path.join(OUT, "results.json")))
    closed = r["closed_form"]
    check(abs(r["compliant_decay_ratio"] / 0.0995037 - 1) < 1e-6 and
          abs(r["compliant_decay_ratio"] / closed["compliant_decay_ratio"] - 1) < 1e-8,
          "compliant_decay_ratio %r, closed form %r" % (r["compliant_decay_ratio"], closed["compliant_decay_ratio"]))
    check(r["stiff_pendulum_stable"] is True, "stiff pendulum: drifts %s" % r["stiff_pendulum_drift_m"])
    for h, drift in r["stiff_pendulum_drift_m"].items():
        check(0 < drift <= 9.81 * float(h) ** 2, "stiff pendulum h = %s: drift %g m, g h^2 = %g m" % (h, drift, 9.81 * float(h) ** 2))
    check(r["foundation_sinkage_rel_error"] < 0.02, "foundation sinkage off (m g + F)/E by %g" % r["foundation_sinkage_rel_error"])
    check(r["foundation_lifts_off"] == {"5": False, "50": True}, "foundation lift-off %s" % r["foundation_lifts_off"])
    check(os.path.exists(os.path.join(OUT, "figures", "seed004.png")), "no figures/seed004.png")
sys.exit(check.finish())
