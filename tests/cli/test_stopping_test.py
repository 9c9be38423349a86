#!/usr/bin/python3
"""The stopping test of issue 54 in a scene: the residual's norm, the force check and ensembles.

Usage: test_stopping_test.py TALUS SOURCE_ROOT WORK_DIR

- -tao_residual_norm: max (the default) bounds every contact, which the start line and summary.json say; a
  step's reported residual over |g| h then bounds stats.csv's largest contact force residual over its lighter
  body's weight (what a user reads; equal where that contact is a grain's on a wall); 2 is the 2-norm over all
  contacts (larger for
  the same iterate, so more iterations at the same tolerance); an unknown norm is refused;
- -ccp_force_check RHO: every checked step of the settled pile (tests/scenes/filling-125.yaml) on 1 and 2
  ranks has every body's contact force within 1 % of its weight of a reference 200 times tighter, at the
  shipped -ccp_force_rtol 0.002 with the max norm; a checked run is the same run as an unchecked one;
  summary.json counts the checked steps; bad values of its options and a scene without gravity are refused;
- -ccp_finish nbgs: steps apgd leaves above the tolerance (at 3 iterations) are finished to it on 1 and 2 ranks,
  counted in stats.csv (finish_iterations) and summary.json (steps_finished); a finish bounded at one sweep leaves
  some unconverged, with one sweep a solve; a bad choice, a relaxed problem and nbgs finishing nbgs are refused;
- -perturb_positions: members differ, the same member is the same on 1 and 2 ranks, bad values refused;
- scripts/ensemble: members, figures (mean, spread) and ensemble.json; its refusals are one line with
  "error" naming the argument.
"""
import csv
import json
import math
import os
import subprocess
import sys

import h5py
import numpy as np

from clitest import Checks
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "stopping-test")
os.makedirs(WORK, exist_ok=True)
check = Checks("talus_stopping_test")
PILE = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
ENSEMBLE = os.path.join(ROOT, "scripts", "ensemble")
G, H = 9.81, 0.01


def run(args, ranks=None):
    return run_talus(TALUS, args, ranks, timeout=300)


def stepped(name, args, ranks=None, t_final="1.5"):
    out = os.path.join(WORK, name)
    p = run([PILE, "-t_final", t_final, "-ccp_force_rtol", "0.002", "-o", out, "-overwrite", "-output_every", "50"] + args,
            ranks)
    check(p.returncode == 0, "%s: exit %d\n%s%s" % (name, p.returncode, p.stdout[-800:], p.stderr[-800:]))
    if p.returncode != 0:
        return p, [], {}, out
    with open(os.path.join(out, "stats.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "summary.json")) as f:
        return p, rows, json.load(f), out


def refused(args, words, ranks=None):
    p = run(args, ranks)
    text = p.stdout + p.stderr
    check(p.returncode != 0 and all(w in text for w in words),
          "%s: exit %d, expected a refusal naming %s:\n%s" % (" ".join(args[1:]), p.returncode, words, text[-600:]))


def same_frames(a, b):
    with h5py.File(os.path.join(a, "frames.h5"), "r") as fa, h5py.File(os.path.join(b, "frames.h5"), "r") as fb:
        frames = sorted(k for k in fa if k.startswith("frame"))
        return frames == sorted(k for k in fb if k.startswith("frame")) and all(
            np.array_equal(fa[k]["position"][()], fb[k]["position"][()]) for k in frames)


# ------------------------------------------------------------------ the norm
p, rows_max, s_max, _ = stepped("max", [])
check("in every contact (-ccp_force_rtol 0.002" in p.stdout, "the start line does not name the norm:\n%s" % p.stdout[:600])
check(s_max.get("residual_norm") == "max", "summary.json's residual_norm: %s" % s_max.get("residual_norm"))
# the scaled problem's residual in m/s bounds every contact's force residual over its lighter body's weight
ratios = [float(r["force_residual_max_over_weight"]) / (float(r["residual"]) / (G * H)) for r in rows_max
          if float(r["residual"]) > 0]
check(ratios and max(ratios) <= 1 + 1e-5 and min(ratios) > 0.1,
      "a contact's force residual over weight against the residual over |g| h: %g to %g" %
      (min(ratios or [0]), max(ratios or [0])))
check(all(int(r["force_residual_max_body"]) >= 0 for r in rows_max if float(r["force_residual_max_over_weight"]) > 0),
      "a step with a force residual names no body for it")
check("force_residual_max_where" in s_max and s_max["force_residual_max_where"]["body"] >= 0,
      "summary.json does not say where the largest force residual was: %s" % s_max.get("force_residual_max_where"))
p, rows_2, s_2, _ = stepped("two", ["-tao_residual_norm", "2"])
check("over all contacts (2-norm)" in p.stdout and s_2.get("residual_norm") == "2",
      "-tao_residual_norm 2: start line or summary.json (%s)\n%s" % (s_2.get("residual_norm"), p.stdout[:600]))
check(s_2 and s_max and s_2["iterations_mean"] > s_max["iterations_mean"],
      "the 2-norm takes no more iterations than the max norm: %s vs %s" %
      (s_2.get("iterations_mean"), s_max.get("iterations_mean")))
refused([PILE, "-t_final", "0.1", "-tao_residual_norm", "infinity", "-o", os.path.join(WORK, "bad")],
        ["-tao_residual_norm", "max 2"])

# ------------------------------------------------------------------ the force check
checked = {}
for ranks in (1, 2):
    p, rows, summary, out = stepped("check-%d" % ranks, ["-ccp_force_check", "1e-5", "-ccp_force_check_every", "10"],
                                    ranks=ranks)
    checked[ranks] = out
    done = [r for r in rows if r["force_check_converged"] != "-1"]
    check(len(done) >= 10, "%d ranks: %d steps checked" % (ranks, len(done)))
    check(all(r["force_check_converged"] == "1" for r in done), "%d ranks: a reference did not converge" % ranks)
    errors = [float(r["force_error_max_over_weight"]) for r in done]
    check(errors and max(errors) < 0.01 and all(int(r["force_error_body"]) >= 0 for r in done
                                                  if float(r["force_error_max_over_weight"]) > 0),
          "%d ranks: a body's force error beyond 1 %% of its weight: %s" % (ranks, errors))
    check(all(math.isnan(float(r["force_error_max_over_weight"])) for r in rows if r["force_check_converged"] == "-1"),
          "%d ranks: an unchecked step has a force error" % ranks)
    fc = summary.get("force_check", {})
    check(fc.get("steps_checked") == len(done) and fc.get("steps_beyond_1pct") == 0 and
          abs(fc.get("force_error_max_over_weight", -1) - max(errors or [0])) < 1e-6 * max(errors or [1]),
          "%d ranks: summary.json's force_check %s" % (ranks, fc))
    print("%d ranks: %d steps checked, largest body force error %.3g %% of its weight" %
          (ranks, len(done), 100 * max(errors or [0])))
check(same_frames(checked[1], os.path.join(WORK, "max")), "a checked run is not the same run as an unchecked one")
for bad, word in ((["-ccp_force_check", "-1"], "-ccp_force_check"), (["-ccp_force_check", "nan"], "-ccp_force_check"),
                  (["-ccp_force_check", "1e-5", "-ccp_force_check_every", "0"], "-ccp_force_check_every"),
                  (["-ccp_force_check", "1e-5", "-ccp_force_check_max_it", "0"], "-ccp_force_check_max_it")):
    refused([PILE, "-t_final", "0.1", "-o", os.path.join(WORK, "bad")] + bad, [word])
still = os.path.join(WORK, "no-gravity.yaml")
with open(still, "w") as f:
    f.write("name: drift\ngravity: [0, 0, 0]\ntime_step: 0.01\nend_time: 0.05\nenvelope: 0.05\n"
            "materials:\n  - {name: m, mu: 0.2}\nbodies:\n"
            "  - {shape: sphere, radius: 0.5, mass: 1, position: [0, 0, 0], velocity: [1, 0, 0]}\n"
            "  - {shape: sphere, radius: 0.5, mass: 1, position: [1.0, 0, 0]}\n")
refused([still, "-ccp_force_check", "1e-5", "-tao_gatol", "1e-8", "-o", os.path.join(WORK, "bad")],
        ["-ccp_force_check", "gravity"])

# ------------------------------------------------------------------ -ccp_finish
# apgd stopped at 3 iterations leaves steps above the tolerance; nbgs goes on from its answer and meets it, on 1 and 2
# ranks: no step unconverged, finish_iterations counted in iterations and summary.json's steps_finished; with its
# sweeps bounded at 1 it cannot always (a step keeps the better answer: the one sweep's, where it lowered the residual)
_, capped, s_capped, _ = stepped("capped", ["-tao_max_it", "3"], t_final="0.5")
check(s_capped.get("steps_not_converged", 0) > 10 and s_capped.get("steps_finished") == 0,
      "apgd at 3 iterations: %s steps unconverged, %s finished" %
      (s_capped.get("steps_not_converged"), s_capped.get("steps_finished")))
for ranks in (1, 2):
    p, rows, summary, _ = stepped("finish-%d" % ranks, ["-tao_max_it", "3", "-ccp_finish", "nbgs"], ranks=ranks,
                                  t_final="0.5")
    finished = [r for r in rows if int(r["finish_iterations"]) > 0]
    check("goes on with nbgs" in p.stdout,
          "%d ranks: the start line does not say -ccp_finish:\n%s" % (ranks, p.stdout[:900]))
    check(summary.get("steps_not_converged") == 0 and len(finished) == summary.get("steps_finished") and
          len(finished) >= s_capped.get("steps_not_converged", 0) // 2,
          "%d ranks, -ccp_finish nbgs: %s unconverged, %s finished (%d rows), %s unconverged without it" %
          (ranks, summary.get("steps_not_converged"), summary.get("steps_finished"), len(finished),
           s_capped.get("steps_not_converged")))
    check(all(float(r["residual"]) <= 1.0001 * 0.002 * G * H and int(r["iterations"]) > int(r["finish_iterations"])
              for r in finished), "%d ranks: a finished step above the tolerance, or its sweeps not in its iterations"
          % ranks)
_, rows, summary, _ = stepped("finish-short", ["-tao_max_it", "3", "-ccp_finish", "nbgs", "-ccp_finish_tao_max_it",
                                               "1"], t_final="0.5")
bounded = [int(r["finish_iterations"]) / int(r["solves"]) for r in rows if int(r["finish_iterations"]) > 0]
check(summary.get("steps_not_converged", 0) > 0 and bounded and max(bounded) <= 1 and
      len(bounded) == summary.get("steps_finished"),
      "the finish bounded at one sweep: %s steps unconverged, sweeps %s" %
      (summary.get("steps_not_converged"), bounded))
for bad, words in ((["-ccp_finish", "lemke"], ["-ccp_finish", "nbgs"]),
                   (["-ccp_finish", "nbgs", "-ccp_problem", "relaxed"], ["-ccp_finish", "Coulomb"]),
                   (["-ccp_finish", "nbgs", "-tao_type", "nbgs"], ["-ccp_finish", "-tao_max_it"])):
    refused([PILE, "-t_final", "0.1", "-o", os.path.join(WORK, "bad")] + bad, words)

# ------------------------------------------------------------------ members of an ensemble
_, _, _, a = stepped("member-a", ["-perturb_positions", "1e-9", "-perturb_seed", "1"], t_final="0.3")
_, _, _, b = stepped("member-b", ["-perturb_positions", "1e-9", "-perturb_seed", "2"], t_final="0.3")
_, _, _, a2 = stepped("member-a2", ["-perturb_positions", "1e-9", "-perturb_seed", "1"], ranks=2, t_final="0.3")
with h5py.File(os.path.join(a, "frames.h5"), "r") as fa, h5py.File(os.path.join(b, "frames.h5"), "r") as fb:
    moved = np.abs(fa["frame000000"]["position"][()] - fb["frame000000"]["position"][()]).max()
check(0 < moved <= 2e-9, "two members' first frames differ by %g m, not by up to 2e-9" % moved)
check(same_frames(a, a2), "a member is not the same on 1 and 2 ranks")
for bad in ("-1", "inf"):
    refused([PILE, "-t_final", "0.1", "-perturb_positions", bad, "-o", os.path.join(WORK, "bad")], ["-perturb_positions"])

# ------------------------------------------------------------------ scripts/ensemble
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def ensemble(args):
    return subprocess.run([ENSEMBLE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                          timeout=300)


out = os.path.join(WORK, "ensemble")
p = ensemble([PILE, "-n", "2", "--jobs", "2", "--talus", TALUS, "--out", out, "--figure", "summary:iterations_mean",
              "--figure", "stats:kinetic_energy:mean:0.2:0.3", "--figure", "stats:iterations:within:0:100",
              "--", "-t_final", "0.3", "-output_every", "0"])
check(p.returncode == 0, "scripts/ensemble: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
try:
    with open(os.path.join(out, "ensemble.json")) as f:
        table = json.load(f)["figures"]
except (OSError, ValueError, KeyError) as e:
    table = {}
    check(False, "ensemble.json: %s" % e)
ke = table.get("stats:kinetic_energy:mean:0.2:0.3", {})
check(len(ke.get("members", [])) == 2 and ke["min"] <= ke["mean"] <= ke["max"] and ke["spread"] >= 0,
      "the ensemble's kinetic energy: %s" % ke)
within = table.get("stats:iterations:within:0:100", {})
check(all(0 <= v <= 1 for v in within.get("members", [-1])), "a fraction outside [0, 1]: %s" % within)
check("stats:kinetic_energy:mean:0.2:0.3" in p.stdout and "spread" in p.stdout, "the printed table:\n%s" % p.stdout)
for args, word in (([PILE, "-n", "1"], "-n 1"), ([os.path.join(WORK, "none.yaml")], "no such scene"),
                   ([PILE, "--figure", "stats:kinetic_energy:median"], "STAT"),
                   ([PILE, "--figure", "summary"], "summary:KEY"), ([PILE, "--jitter", "0"], "--jitter"),
                   ([PILE, "--talus", os.path.join(WORK, "none")], "no talus"),
                   ([PILE, "--out", still], "is a file")):
    p = ensemble(args + (["--talus", TALUS] if "--talus" not in args else []))
    lines = p.stderr.strip().splitlines()
    check(p.returncode != 0 and len(lines) == 1 and "error" in lines[0] and word in lines[0],
          "scripts/ensemble %s: exit %d, expected one error line naming %r:\n%s" %
          (" ".join(args[1:]), p.returncode, word, p.stderr))
p = ensemble([PILE, "-n", "2", "--talus", TALUS, "--out", os.path.join(WORK, "ensemble-col"),
              "--figure", "stats:no_such_column", "--", "-t_final", "0.05", "-output_every", "0"])
check(p.returncode != 0 and "no column no_such_column" in p.stderr, "a missing column: exit %d\n%s" % (p.returncode, p.stderr))
sys.exit(check.finish())
