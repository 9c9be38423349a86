#!/usr/bin/python3
"""scripts/reproduce-seed002: seed 002's examples and their closed forms (docs/mechanisms.md).

Usage: test_reproduce_seed002.py TALUS SOURCE_ROOT WORK_DIR

Runs the script with this build's talus and checks results.json against the closed forms of
../shared/seed-formulations.md sec. 2.3 (S2-4 to S2-7, S2-9, S2-10) and sec. 1.3 (B0-2):
- double_pendulum_periods_s within 1 % of [2.34437, 0.87404] (h = 1e-3);
- pin_drift_m (seed 000's rows) within 25 % of l h^2 w^2 / 2 at h = 0.01 and 0.005, and about 4 times
  smaller at h / 2; pin_drift_predicted_m (the default rows) below 1 % of it;
- conveyor_speed_error, floor_momentum_drift and spring_static_deflection_error at solver tolerance;
- static_floor_impulse_ratio (S2-6): 4.2 and 4.3 at rest put the whole weight on the floor (to the 8 digits of stats.csv);
- energy_gain_max_J: the examples without input gain no energy beyond 0.5 % of their swing (m g L = 9.81 J
  for the double pendulum) at any time over their lowest energy so far, nor at the end; and
  energy_above_start_max_J: never above the first step's energy by 1e-6 of m g L (S2-10, S4-4);
and that the figures are drawn.
"""
import json
import os
import subprocess
import sys

from clitest import Checks, env_for

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
OUT = os.path.join(WORK, "reproduce-seed002")
check = Checks("talus_reproduce_seed002")

os.makedirs(os.path.join(WORK, "ompi"), exist_ok=True)  # the script's runs, one after the other, as singletons
p = subprocess.run([os.path.join(ROOT, "scripts", "reproduce-seed002"), "--out", OUT, "--talus", TALUS],
                   capture_output=True, text=True, env=env_for(None, os.path.join(WORK, "ompi")), timeout=900)
check(p.returncode == 0, "the script ran: %s" % p.stderr[-800:])
if p.returncode == 0:
    r = json.load(open(os.path.join(OUT, "results.json")))
    closed = r["closed_form"]
    for got, want in zip(r["double_pendulum_periods_s"], [2.34437, 0.87404]):
        check(abs(got / want - 1) < 0.01, "double pendulum period %g s, closed form %g s" % (got, want))
    for got, want in zip(r["pin_drift_m"], closed["pin_drift_m"]):
        check(abs(got / want - 1) <= 0.25, "pin drift %g m, l h^2 w^2 / 2 = %g m" % (got, want))
    ratio = r["pin_drift_m"][0] / r["pin_drift_m"][1]
    check(3.5 <= ratio <= 4.5, "pin drift ratio for h halved: %g" % ratio)
    for got, seed000 in zip(r["pin_drift_predicted_m"], r["pin_drift_m"]):
        check(got < 0.01 * seed000, "pin drift with the rows at the step's end %g m, seed 000's %g m" % (got, seed000))
    check(r["energy_above_start_max_J"] <= 1e-6 * 9.81,
          "energy up to %g J above the start's (%s J lost)" % (r["energy_above_start_max_J"], r["energy_lost_J"]))
    check(r["conveyor_speed_error"] < 1e-8, "conveyor speed error %g m/s" % r["conveyor_speed_error"])
    check(r["floor_momentum_drift"] < 1e-12, "floor momentum drift %g" % r["floor_momentum_drift"])
    check(r["spring_static_deflection_error"] < 1e-6, "spring deflection error %g" % r["spring_static_deflection_error"])
    for got in r["static_floor_impulse_ratio"]:  # S2-6
        check(abs(got - 1) < 2e-8, "S2-6: the floor carries %.12f of the weight at rest" % got)
    check(r["energy_gain_max_J"] < 0.005 * 9.81, "energy gain %g J" % r["energy_gain_max_J"])
    for name in ("double-pendulum", "pendulum-on-block", "pendulum-on-block-friction"):
        stats = os.path.join(OUT, name, "stats.csv")
        lines = open(stats).read().splitlines()
        head = lines[0].split(",")
        first, last = lines[1].split(","), lines[-1].split(",")
        energy = [float(row[head.index("kinetic_energy")]) + float(row[head.index("potential_energy")])
                  for row in (first, last)]
        check(energy[1] - energy[0] < 0.005 * 9.81, "%s ends with %g J more than it started" % (name, energy[1] - energy[0]))
    for fig in ("seed002-examples.png", "seed002-closed-forms.png"):
        check(os.path.getsize(os.path.join(OUT, "figures", fig)) > 10000, "figure %s" % fig)
sys.exit(check.finish())
