#!/usr/bin/python3
"""scripts/bench, the end-to-end benchmark: its results and its unhappy paths.

Usage: test_bench_script.py TALUS TALUS_BENCH SOURCE_ROOT WORK_DIR

- a small run (beds of 8 and 24 spheres on 1 and 2 ranks, a convergence study) writes the JSON,
  the tables and the plot, with the quantities the tables are made of and speedups against 1 rank;
- a second run with the same --out does not overwrite the first: it writes STEM-b;
- bad options (non-numbers, zero or negative sizes, ranks, steps, tolerance, missing executables)
  are refused with a usage error (exit status 2) before anything runs, without a traceback;
- a run that fails (a talus that exits with an error) stops with one error naming the command,
  exit status 1, and writes no results;
- the solver benchmarks (solve/PROBLEM/SOLVER) run every solver on a shipped FCLib problem and on a
  problem given in TALUS_BENCH_PROBLEMS, and report their counters;
- scripts/compare-dem refuses an -output_every of its own (it writes the two frames it reads) before it runs.
"""
import json
import os
import subprocess
import sys

from clitest import ENV, Checks

TALUS, BENCH, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
SCRIPT = os.path.join(ROOT, "scripts", "bench")
check = Checks("bench_script")
work = os.path.join(WORK, "bench-script")
stem = os.path.join(work, "results")


def bench(*args, talus=TALUS):
    cmd = [SCRIPT, "--talus", talus, "--bench-exe", BENCH, "--work", os.path.join(work, "runs"), "--triad-time", "0.05"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)


subprocess.run(["rm", "-rf", work])

# ------------------------------------------------------------------ the solver benchmarks
extra = os.path.join(ROOT, "inputs", "fclib", "Spheres-i099-356-679.hdf5")
p = subprocess.run([BENCH, "--benchmark_filter=solve/Box_Stacks", "--benchmark_min_time=0.001", "--benchmark_format=json"],
                   capture_output=True, text=True, env=dict(ENV, TALUS_BENCH_PROBLEMS=extra + ":"), timeout=600)
check(p.returncode == 0, "solver benchmarks: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
if p.returncode == 0:
    runs = {b["name"].split("/")[2]: b for b in json.loads(p.stdout)["benchmarks"] if b["name"].startswith("solve/Box_Stacks")}
    check(sorted(runs) == ["apgd", "apgd_scaled", "nbgs"], "solver benchmarks on the box stacks: %s" % sorted(runs))
    for name, b in runs.items():
        check(b.get("converged") == 1 and b.get("iterations", 0) > 0 and b.get("u_outside_dual_cone", 1) < 1e-7,
              "solver benchmark %s: %s" % (name, b))
p = subprocess.run([BENCH, "--benchmark_list_tests"], capture_output=True, text=True,
                   env=dict(ENV, TALUS_BENCH_PROBLEMS=extra), timeout=120)
check(p.stdout.count("solve/Spheres-i099-356-679/nbgs") == 2, "a problem in TALUS_BENCH_PROBLEMS is not registered:\n%s" % p.stdout)

# ------------------------------------------------------------------ a small run
p = bench("--bodies", "8,24", "--steps", "2", "--ranks", "1,2", "--converge-bodies", "8", "--converge-max-it", "200", "--out", stem)
check(p.returncode == 0, "small run: exit %d\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
for ext in (".json", ".md", "-wall.png"):
    check(os.path.isfile(stem + ext), "small run: %s%s missing" % (stem, ext))
if os.path.isfile(stem + ".json"):
    r = json.load(open(stem + ".json"))
    runs = r["runs"]
    check([(x["bodies"], x["ranks"]) for x in runs] == [(8, 1), (8, 2), (24, 1), (24, 2)], "runs %s" % [(x["bodies"], x["ranks"]) for x in runs])
    check(all(x["steps"] == 2 and x["contacts_mean"] > 0 and x["iterations_mean"] == 50 for x in runs), "steps, contacts, 50 iterations per step")
    check(all(abs(x["speedup"] - 1.0) < 1e-12 for x in runs if x["ranks"] == 1), "1-rank runs have speedup 1")
    check(all(x["speedup"] > 0 for x in runs), "every run has a speedup against 1 rank")
    check(r["triad_1_process_Bps"] > 1e8 and r["triad_2_processes_Bps"] > 1e8, "triad probes %g, %g" % (r["triad_1_process_Bps"], r["triad_2_processes_Bps"]))
    conv = r["convergence"]
    check(len(conv) == 1 and conv[0]["bodies"] == 8 and len(conv[0]["iterations"]) == 2, "convergence study %s" % conv)
    check(all(conv[0]["converged"]) and max(conv[0]["residual"]) <= 1e-6, "8 spheres converge to 1e-6: %s" % conv)
    table = open(stem + ".md").read()
    check(all(table.count("\n| %d | %d | " % (b, n)) == 1 for b in (8, 24) for n in (1, 2)), "the table has a row per run")

# ------------------------------------------------------------------ results are never overwritten
before = open(stem + ".json").read() if os.path.isfile(stem + ".json") else None
p = bench("--bodies", "8", "--steps", "1", "--ranks", "1", "--converge-bodies", "", "--out", stem)
check(p.returncode == 0, "second run: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
check(before is not None and open(stem + ".json").read() == before, "the first run's results were overwritten")
check(os.path.isfile(stem + "-b.json") and "written %s-b.json" % stem in p.stdout, "the second run did not go to %s-b" % stem)

# ------------------------------------------------------------------ bad options
bad = [
    (["--bodies", "abc"], "--bodies takes comma-separated integers"),
    (["--bodies", "0"], "--bodies: every value must be at least 8"),
    (["--ranks", "0"], "--ranks: every value must be at least 1"),
    (["--ranks", "1,x"], "--ranks takes comma-separated integers"),
    (["--steps", "0"], "--steps must be at least 1"),
    (["--steps", "two"], "invalid int value"),
    (["--converge-tol=-1e-6"], "--converge-tol must be positive"),
    (["--converge-max-it", "0"], "--converge-max-it must be at least 1"),
    (["--bodies", "", "--converge-bodies", ""], "nothing to run"),
    (["--triad-time", "0"], "--triad-time must be positive"),
]
for args, message in bad:
    p = bench(*args, "--out", os.path.join(work, "bad"))
    check(p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr, "%s: exit %d, %r" % (args, p.returncode, p.stderr[-300:]))
p = bench("--out", os.path.join(work, "bad"), talus=os.path.join(work, "no-such-talus"))
check(p.returncode == 2 and "is not an executable" in p.stderr, "missing talus: exit %d, %r" % (p.returncode, p.stderr[-300:]))
check(not any(f.startswith("bad") for f in os.listdir(work)), "a refused run wrote results")

# ------------------------------------------------------------------ a failing run
p = bench("--bodies", "8", "--steps", "1", "--ranks", "1", "--converge-bodies", "", "--out", os.path.join(work, "failed"), talus="/bin/false")
check(p.returncode == 1 and "bench: error: exit status" in p.stderr and "/bin/false" in p.stderr and "Traceback" not in p.stderr,
      "failing talus: exit %d, %r" % (p.returncode, p.stderr[-500:]))
check(not any(f.startswith("failed") for f in os.listdir(work)), "a failed run wrote results")

# ------------------------------------------------------------------ scripts/compare-dem's refusals
for options in (["--", "-output_every", "0"], ["--baseline-options", "-output_every 0"]):
    p = subprocess.run([os.path.join(ROOT, "scripts", "compare-dem"), "--talus", TALUS, "--out", os.path.join(work, "dem")] + options,
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(p.returncode == 1 and "-output_every is set by compare-dem" in p.stderr and "Traceback" not in p.stderr
          and not os.path.exists(os.path.join(work, "dem")), "compare-dem %s: exit %d, %r" % (options, p.returncode, p.stderr[-300:]))

sys.exit(check.finish())
