#!/usr/bin/python3
"""talus serve, status and collect (docs/campaigns.md): a campaign run in one allocation, cut, and finished.

Usage: test_serve.py TALUS SOURCE_ROOT WORK_DIR

- a campaign of 3 rolling balls (a sweep over mu) and 4 filling-1k variants (a sweep over mu, cut to
  1.2 s), plus 2 job files edited by hand into nonsense, served on 2 ranks in groups of 1 and sent
  SIGTERM (to every rank, as Slurm does at a time limit) once a filling job is under way: exit status 75,
  the running jobs interrupted after a checkpoint; status.json is valid JSON at every read meanwhile;
- served again: exit 0, all 7 good jobs done, each run once to its end; the 2 broken ones failed with
  their message; talus status exits 0 and shows them; status -json counts them;
- every job's frames are bitwise those of the same scene run alone on 1 rank with the same -set;
- every rolling ball turns from sliding to rolling at 2 v0 / (7 mu g) within one step (seed 001, 3.1);
- talus collect writes one row per job: the overrides as columns, then the summary's figures, and
  scripts/campaign-plot draws a column against another;
- kill -9 of a server: its job shows as interrupted (server gone) and the next server resumes it from its
  last checkpoint, bitwise;
- 4 ranks in groups of 2: jobs bitwise their runs alone on 2 ranks; a broken job fails in its group;
- a job submitted while a server waits (-serve_idle_exit) is run; SIGUSR1 ends a waiting server;
- two servers started at once on one campaign never take the same job (each job runs once);
- -walltime: the running job checkpoints, is marked interrupted (walltime), the next one is left queued, 75;
- scripts/slurm-campaign requeues its allocation on exit 75 and the next allocation finishes the campaign;
- a full disk (a small tmpfs) fails the job that could not write, with the reason; the server goes on;
- refused with the reason: a group size that does not divide the ranks, a campaign that is a file, -o,
  talus status on a directory that is not a campaign.
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

from clitest import ENV, GRACEFUL_ENV, Checks, slurm_stand_ins
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "serve")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_serve")
BALL = os.path.join(ROOT, "inputs", "rolling-ball.yaml")
FILLING = os.path.join(ROOT, "inputs", "filling-1k.yaml")
CAMPAIGN = os.path.join(WORK, "campaign")
MUS = [0.1, 0.2, 0.3]
BALL_SETS = ["options.output_every=1"]
FILLING_SETS = ["end_time=1.2", "options.output_every=20"]


def ok(p, what):
    check(p.returncode == 0, "%s: exit %d\n%s" % (what, p.returncode, (p.stdout + p.stderr)[-1500:]))
    return p.returncode == 0


def serve(campaign, ranks=2, args=()):
    return subprocess.Popen(["mpirun", "--oversubscribe", "-n", str(ranks), TALUS, "serve", campaign] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=GRACEFUL_ENV)


def state(campaign, job):
    try:
        return json.load(open(os.path.join(campaign, "jobs", job, "state.json")))
    except (OSError, ValueError):
        return {}


def ranks_of(proc):
    """The pids of mpirun's children (the talus ranks)."""
    out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def frames(path):
    """Every frame's step, time and datasets."""
    with h5py.File(path, "r") as f:
        return [(g, f[g].attrs["step"], f[g].attrs["time"], {k: f[g][k][()] for k in f[g]})
                for g in sorted(f) if g.startswith("frame")]


def same_frames(a, b):
    fa, fb = frames(a), frames(b)
    return len(fa) == len(fb) and len(fa) > 1 and all(
        x[:3] == y[:3] and x[3].keys() == y[3].keys() and all(np.array_equal(x[3][k], y[3][k]) for k in x[3])
        for x, y in zip(fa, fb))


def alone(name, scene, sets):
    """The scene run on its own on 1 rank with these -set: its output directory (None on failure)."""
    out = os.path.join(WORK, "alone", name)
    p = run_talus(TALUS, [scene, "-o", out] + [a for s in sets for a in ("-set", s)])
    return out if ok(p, "alone " + name) else None


# ------------------------------------------------------------------ the campaign, cut by SIGTERM
ok(run_talus(TALUS, ["submit", CAMPAIGN, BALL, "-name", "ball", "-sweep", "materials.rough.mu=0.1,0.2,0.3"] +
             [a for s in BALL_SETS for a in ("-set", s)]), "submit the balls")
ok(run_talus(TALUS, ["submit", CAMPAIGN, FILLING, "-name", "filling", "-sweep",
                     "materials.grain.mu=0.1,0.2,0.3,0.4"] + [a for s in FILLING_SETS for a in ("-set", s)]),
   "submit the fillings")
QUEUE = os.path.join(CAMPAIGN, "queue")
with open(os.path.join(QUEUE, "broken-0001.json"), "w") as f:
    f.write("{\"scene_file\": \"x.yaml\", \"overrides\": [\n")  # cut short by hand
good = json.load(open(os.path.join(QUEUE, "ball-0001.json")))
good["scene"], good["overrides"] = good["scene"].replace("time_step: 0.01", "time_step: -1"), []
json.dump(good, open(os.path.join(QUEUE, "broken-0002.json"), "w"))
GOOD = ["ball-%04d" % k for k in (1, 2, 3)] + ["filling-%04d" % k for k in (1, 2, 3, 4)]

proc = serve(CAMPAIGN, 2, ["-serve_status_interval", "0.2"])
bad_reads, reads, sent, deadline = 0, 0, False, time.time() + 300
status_path = os.path.join(CAMPAIGN, "status.json")
while proc.poll() is None and time.time() < deadline:
    if os.path.exists(status_path):
        reads += 1
        try:
            json.load(open(status_path))
        except ValueError:
            bad_reads += 1
    if not sent and any(state(CAMPAIGN, j).get("step", 0) >= 40 for j in GOOD[3:]):
        for pid in ranks_of(proc):
            os.kill(pid, signal.SIGTERM)
        sent = True
    time.sleep(0.02)
text, _ = proc.communicate(timeout=300)
check(sent, "no filling job got under way:\n%s" % text[-2000:])
check(proc.returncode == 75, "SIGTERM: serve exit %d, expected 75\n%s" % (proc.returncode, text[-2000:]))
check(reads > 20 and bad_reads == 0, "status.json read %d times, %d of them not valid JSON" % (reads, bad_reads))
interrupted = [j for j in GOOD if state(CAMPAIGN, j).get("state") == "interrupted"]
check(1 <= len(interrupted) <= 2 and all(state(CAMPAIGN, j)["reason"] == "signal" for j in interrupted),
      "after SIGTERM, interrupted: %s" % interrupted)
check(all(os.path.exists(os.path.join(CAMPAIGN, "jobs", j, "checkpoints", "last.h5")) for j in interrupted),
      "an interrupted job without a checkpoint")
steps_at_cut = {j: state(CAMPAIGN, j)["step"] for j in interrupted}

p = subprocess.run(["mpirun", "--oversubscribe", "-n", "2", TALUS, "serve", CAMPAIGN], capture_output=True, text=True,
                   env=GRACEFUL_ENV, timeout=600)
check(p.returncode == 0, "second serve: exit %d\n%s" % (p.returncode, (p.stdout + p.stderr)[-2000:]))
check(all("%s: resumed from" % j in p.stdout for j in interrupted), "interrupted jobs not resumed:\n%s" % p.stdout)
states = {j: state(CAMPAIGN, j) for j in GOOD + ["broken-0001", "broken-0002"]}
check(all(states[j].get("state") == "done" for j in GOOD), "not all done: %s" % {j: s.get("state") for j, s in states.items()})
check(all(states[j]["attempts"] == (2 if j in interrupted else 1) for j in GOOD),
      "attempts: %s (interrupted %s)" % ({j: states[j].get("attempts") for j in GOOD}, interrupted))
check(states["broken-0001"].get("state") == "failed" and "not a job file" in states["broken-0001"].get("message", ""),
      "broken-0001: %s" % states["broken-0001"])
check(states["broken-0002"].get("state") == "failed" and
      "rolling-ball.yaml:5: time_step must be positive" in states["broken-0002"].get("message", ""),
      "broken-0002: %s" % states["broken-0002"])

st = run_talus(TALUS, ["status", CAMPAIGN])
check(st.returncode == 0 and "7 done" in st.stdout and "2 failed" in st.stdout and "not a job file" in st.stdout,
      "talus status:\n%s%s" % (st.stdout, st.stderr))
st = run_talus(TALUS, ["status", CAMPAIGN, "-json"])
doc = json.loads(st.stdout) if st.returncode == 0 else {}
check(doc.get("counts", {}).get("done") == 7 and doc["counts"].get("failed") == 2 and len(doc.get("jobs", [])) == 9,
      "status -json: %s" % doc.get("counts"))
ball2 = [j for j in doc.get("jobs", []) if j["id"] == "ball-0002"]
check(ball2 and ball2[0]["overrides"] == {"options.output_every": 1, "materials.rough.mu": 0.2},
      "ball-0002's overrides: %s" % ball2)

# ------------------------------------------------------------------ bitwise the runs alone
for k, mu in enumerate(MUS):
    job = "ball-%04d" % (k + 1)
    out = alone(job, BALL, BALL_SETS + ["materials.rough.mu=%g" % mu])
    mine = os.path.join(CAMPAIGN, "jobs", job, "frames.h5")
    if out:
        check(same_frames(mine, os.path.join(out, "frames.h5")), "%s: frames differ from the run alone" % job)
    # seed 001, 3.1: slip v - r w at the contact vanishes at t = 2 v0 / (7 mu g)
    fr = frames(mine)
    slip = [(t, d["velocity"][0][0] - 1.0 * d["angular_velocity"][0][1]) for _, _, t, d in fr]
    rolling = [t for t, s in slip if abs(s) < 1e-6]
    expect = 2 * 2.0 / (7 * mu * 9.81)
    check(rolling and abs(rolling[0] - expect) <= 0.01 + 1e-9,
          "%s: rolls from t = %s, expected %.4f within one step" % (job, rolling[:1], expect))
for k, mu in enumerate([0.1, 0.2, 0.3, 0.4]):
    job = "filling-%04d" % (k + 1)
    out = alone(job, FILLING, FILLING_SETS + ["materials.grain.mu=%g" % mu])
    if out:
        check(same_frames(os.path.join(CAMPAIGN, "jobs", job, "frames.h5"), os.path.join(out, "frames.h5")),
              "%s (interrupted at %s): frames differ from the run alone" % (job, steps_at_cut.get(job)))

# ------------------------------------------------------------------ collect
results = os.path.join(WORK, "results.csv")
if ok(run_talus(TALUS, ["collect", CAMPAIGN, "-o", results]), "collect"):
    rows = list(csv.DictReader(open(results)))
    check(len(rows) == 9, "results.csv: %d rows" % len(rows))
    by_id = {r["id"]: r for r in rows}
    b3 = by_id.get("ball-0003", {})
    check(b3.get("materials.rough.mu") == "0.3" and b3.get("options.output_every") == "1" and
          b3.get("steps") == "100" and b3.get("state") == "done" and float(b3.get("wall_s") or -1) > 0,
          "ball-0003's row: %s" % b3)
    f4 = by_id.get("filling-0004", {})
    check(f4.get("materials.grain.mu") == "0.4" and f4.get("end_time") == "1.2" and f4.get("bodies") == "1000" and
          f4.get("support_force_over_weight", "") != "", "filling-0004's row: %s" % f4)
    # which jobs the cut interrupts depends on timing: a ball runs 100 steps, a filling 120
    check(all(by_id.get(j, {}).get("steps") == ("100" if j.startswith("ball") else "120") and by_id[j].get("iterations_mean")
              for j in interrupted),
          "the resumed jobs' rows count every step of their run: %s" % {j: by_id.get(j, {}).get("steps")
                                                                          for j in interrupted})
    check(by_id.get("broken-0001", {}).get("state") == "failed" and "not a job file" in by_id["broken-0001"]["message"],
          "broken-0001's row: %s" % by_id.get("broken-0001"))

    plot = os.path.join(WORK, "mu.png")
    p = subprocess.run([os.path.join(ROOT, "scripts", "campaign-plot"), results, "materials.grain.mu",
                        "support_force_over_weight", "-o", plot], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(plot) > 1000 and "4 points" in p.stdout,
          "campaign-plot: %s%s" % (p.stdout, p.stderr))
    p = subprocess.run([os.path.join(ROOT, "scripts", "campaign-plot"), results, "mu", "steps"], capture_output=True,
                       text=True)
    check(p.returncode != 0 and 'has no column "mu"' in p.stderr, "campaign-plot of a missing column: %s" % p.stderr)

# ------------------------------------------------------------------ kill -9 of a server, then resumed
KILLED = os.path.join(WORK, "killed")
# (to 3 s: the server is killed at step 45, and the job must still be running then, however fast its steps get)
ok(run_talus(TALUS, ["submit", KILLED, FILLING, "-name", "k", "-set", "end_time=3", "-set", "options.output_every=10",
                     "-set", "options.checkpoint_every=20"]), "submit the job to kill")
proc = serve(KILLED, 1, ["-serve_status_interval", "0.05"])
deadline = time.time() + 300
while proc.poll() is None and time.time() < deadline and state(KILLED, "k-0001").get("step", 0) < 45:
    time.sleep(0.02)
for pid in ranks_of(proc):
    os.kill(pid, signal.SIGKILL)
proc.communicate(timeout=120)
check(state(KILLED, "k-0001").get("state") == "running", "killed: state.json %s" % state(KILLED, "k-0001"))
st = run_talus(TALUS, ["status", KILLED, "-json"])
doc = json.loads(st.stdout) if st.returncode == 0 else {"jobs": [{}]}
check(doc["jobs"][0].get("state") == "interrupted" and doc["jobs"][0].get("reason") == "server gone",
      "a killed server's job: %s" % doc["jobs"][0])
p = subprocess.run(["mpirun", "--oversubscribe", "-n", "1", TALUS, "serve", KILLED], capture_output=True, text=True,
                   env=GRACEFUL_ENV, timeout=600)
check(p.returncode == 0 and "k-0001: resumed from" in p.stdout and state(KILLED, "k-0001").get("state") == "done",
      "after kill -9: %s\n%s" % (state(KILLED, "k-0001"), (p.stdout + p.stderr)[-1500:]))
out = alone("killed", FILLING, ["end_time=3", "options.output_every=10", "options.checkpoint_every=20"])
if out:
    check(same_frames(os.path.join(KILLED, "jobs", "k-0001", "frames.h5"), os.path.join(out, "frames.h5")),
          "the job resumed after kill -9: frames differ from the run alone")

# ------------------------------------------------------------------ the wall-clock limit
# (the job to cut runs to 8 s of the filling: far longer than the 3 s limit, however fast its steps get; to 2 s it
# once finished in 2.97 s, inside the limit)
WALL = os.path.join(WORK, "wall")
ok(run_talus(TALUS, ["submit", WALL, FILLING, "-name", "w", "-set", "end_time=8"]), "submit the job to cut")
ok(run_talus(TALUS, ["submit", WALL, BALL, "-name", "x"]), "submit a job left queued")
t0 = time.time()
p = subprocess.run(["mpirun", "--oversubscribe", "-n", "1", TALUS, "serve", WALL, "-walltime", "3"], capture_output=True,
                   text=True, env=GRACEFUL_ENV, timeout=600)
check(p.returncode == 75 and time.time() - t0 < 10 and state(WALL, "w-0001").get("reason") == "walltime" and
      state(WALL, "w-0001").get("state") == "interrupted" and not state(WALL, "x-0001") and
      "2 left" in p.stdout and os.path.exists(os.path.join(WALL, "jobs", "w-0001", "checkpoints", "last.h5")),
      "-walltime 3: exit %d after %.1f s, %s\n%s" % (p.returncode, time.time() - t0, state(WALL, "w-0001"),
                                                      (p.stdout + p.stderr)[-1500:]))

# ------------------------------------------------------------------ a job submitted while the server waits
# -serve_idle_exit 4: the server waits for work, takes the job submitted 1 s after its start, then waits
# 4 s more and ends; SIGUSR1 (to mpirun, which passes it on) ends a waiting server at once.
IDLE = os.path.join(WORK, "idle")
ok(run_talus(TALUS, ["submit", IDLE, BALL, "-name", "first", "-set", "end_time=0.1"]), "submit to the idle campaign")
t0 = time.time()
proc = serve(IDLE, 1, ["-serve_idle_exit", "4"])
time.sleep(1.5)
ok(run_talus(TALUS, ["submit", IDLE, BALL, "-name", "late", "-set", "end_time=0.1"]), "submit while serving")
text = proc.communicate(timeout=120)[0]
check(proc.returncode == 0 and state(IDLE, "late-0001").get("state") == "done" and 5 < time.time() - t0 < 30,
      "the job submitted while serving: exit %d after %.1f s, %s\n%s" % (
          proc.returncode, time.time() - t0, state(IDLE, "late-0001"), text[-1500:]))
t0 = time.time()
proc = serve(IDLE, 1, ["-serve_idle_exit", "100"])
time.sleep(2)
proc.send_signal(signal.SIGUSR1)
text = proc.communicate(timeout=120)[0]
check(proc.returncode == 0 and time.time() - t0 < 20 and "stopped (signal" in text,
      "SIGUSR1 to a waiting server: exit %d after %.1f s\n%s" % (proc.returncode, time.time() - t0, text[-1500:]))

# ------------------------------------------------------------------ groups of 2 ranks
# 4 ranks in 2 groups of 2: each job runs on 2 ranks, bitwise the same scene run alone on 2 ranks; a
# broken job file fails in its group (on both ranks together) and the group goes on.
PAIRS = os.path.join(WORK, "pairs")
ok(run_talus(TALUS, ["submit", PAIRS, FILLING, "-name", "p", "-set", "end_time=0.6", "-set", "options.output_every=10",
                     "-sweep", "materials.grain.mu=0.2,0.3"]), "submit for groups of 2")
with open(os.path.join(PAIRS, "queue", "broken-0001.json"), "w") as f:
    f.write("[]")
p = subprocess.run(["mpirun", "--oversubscribe", "-n", "4", TALUS, "serve", PAIRS, "-serve_group_size", "2"],
                   capture_output=True, text=True, env=GRACEFUL_ENV, timeout=600)
check(p.returncode == 0 and "4 ranks in 2 groups of 2" in p.stdout and
      [state(PAIRS, j).get("state") for j in ("broken-0001", "p-0001", "p-0002")] == ["failed", "done", "done"] and
      state(PAIRS, "p-0001").get("ranks") == 2,
      "groups of 2: exit %d, %s\n%s" % (p.returncode, [state(PAIRS, j) for j in ("broken-0001", "p-0001")],
                                        (p.stdout + p.stderr)[-1500:]))
r = run_talus(TALUS, [FILLING, "-o", os.path.join(WORK, "alone", "p-0002"), "-set", "end_time=0.6", "-set",
                      "options.output_every=10", "-set", "materials.grain.mu=0.3"], 2)
if ok(r, "p-0002 alone on 2 ranks"):
    check(same_frames(os.path.join(PAIRS, "jobs", "p-0002", "frames.h5"),
                      os.path.join(WORK, "alone", "p-0002", "frames.h5")),
          "p-0002 on a group of 2: frames differ from the run alone on 2 ranks")

# ------------------------------------------------------------------ two servers, one campaign
TWO = os.path.join(WORK, "two")
ok(run_talus(TALUS, ["submit", TWO, BALL, "-name", "b", "-set", "end_time=0.3", "-sweep",
                     "materials.rough.mu=0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45"]), "submit 8 balls")
a, b = serve(TWO, 1), serve(TWO, 1)
ta, tb = a.communicate(timeout=300)[0], b.communicate(timeout=300)[0]
ids = ["b-%04d" % k for k in range(1, 9)]
check(a.returncode == 0 and b.returncode == 0 and all(state(TWO, j).get("state") == "done" for j in ids),
      "two servers: %d %d %s" % (a.returncode, b.returncode, [state(TWO, j).get("state") for j in ids]))
check(all(state(TWO, j).get("attempts") == 1 for j in ids) and (ta + tb).count(": started") == 8,
      "two servers: a job taken twice:\n%s\n%s" % (ta, tb))

# ------------------------------------------------------------------ scripts/slurm-campaign, with squeue and scontrol stand-ins
# The first allocation has 2 min 1 s left (1 s once talus serve keeps its 120 s margin): the filling job (to 3 s:
# several seconds, however fast a step gets) is cut, talus serve exits 75 and the script requeues its allocation;
# the second has a day and finishes it.
SLURM = os.path.join(WORK, "slurm")
ok(run_talus(TALUS, ["submit", SLURM, FILLING, "-name", "s", "-set", "end_time=3"]), "submit for slurm-campaign")
fake_bin, requeued = slurm_stand_ins(WORK)
env = dict(GRACEFUL_ENV, PATH=fake_bin + os.pathsep + ENV["PATH"], SLURM_JOB_ID="42", SLURM_SUBMIT_DIR=WORK,
           TALUS=os.path.abspath(TALUS), MPIRUN="mpirun --oversubscribe -n 1")
for attempt, left in enumerate(("00:02:01", "1-00:00:00")):
    open(os.path.join(fake_bin, "left"), "w").write(left + "\n")
    p = subprocess.run([os.path.join(ROOT, "scripts", "slurm-campaign"), "slurm"], capture_output=True, text=True,
                       env=dict(env, SLURM_RESTART_COUNT=str(attempt)), timeout=600, cwd="/")
    lines = open(requeued).read().splitlines() if os.path.exists(requeued) else []
    check(p.returncode == 0 and lines == ["requeue 42"] and
          state(SLURM, "s-0001").get("state") == ("interrupted", "done")[attempt],
          "slurm-campaign attempt %d (%s left): exit %d, scontrol %s, %s\n%s%s" % (
              attempt, left, p.returncode, lines, state(SLURM, "s-0001"), p.stdout[-1500:], p.stderr[-800:]))

# ------------------------------------------------------------------ a full disk fails the job, not the server
# A campaign on a tmpfs of 1300 kB (root, as CI runs; skipped with a note where it cannot be mounted):
# the first job's frames fill it and it fails with the reason; the server goes on to the next (which
# finds no room either) and ends normally.
FULL = os.path.join(WORK, "full")
os.makedirs(FULL)
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1300k", "tmpfs", FULL], capture_output=True).returncode:
    print("full disk: skipped (tmpfs cannot be mounted here: not root?)")
else:
    try:
        c = os.path.join(FULL, "c")
        ok(run_talus(TALUS, ["submit", c, os.path.join(ROOT, "inputs", "compaction.yaml"), "-name", "a", "-set",
                             "time_step=0.005", "-set", "end_time=1", "-set", "options.output_every=2"]), "submit a")
        ok(run_talus(TALUS, ["submit", c, BALL, "-name", "b", "-set", "end_time=0.2"]), "submit b")
        p = subprocess.run(["mpirun", "--oversubscribe", "-n", "1", TALUS, "serve", c], capture_output=True, text=True,
                           env=GRACEFUL_ENV, timeout=300)
        sa, sb = state(c, "a-0001"), state(c, "b-0001")
        check(p.returncode == 0 and sa.get("state") == "failed" and "not enough room" in sa.get("message", "") and
              sa.get("step", 0) > 0 and sb.get("state") in ("failed", "done") and "b-0001: started" in p.stdout,
              "full disk: exit %d, a %s, b %s\n%s" % (p.returncode, sa, sb, (p.stdout + p.stderr)[-1500:]))
    finally:
        subprocess.run(["umount", FULL], capture_output=True)

# ------------------------------------------------------------------ refusals
a_file = os.path.join(WORK, "a-file")
open(a_file, "w").close()
for args, ranks, expect in (
        (["serve", CAMPAIGN, "-serve_group_size", "3"], 2, "must divide the 2 ranks"),
        (["serve", CAMPAIGN, "-serve_group_size", "two"], 2, "-serve_group_size"),
        (["serve", a_file], 1, "is a file, not a directory"),
        (["serve", os.path.join(WORK, "no-such-campaign")], 1, "no-such-campaign does not exist: make it"),
        (["serve", CAMPAIGN, "-o", "x"], 1, "does not take -o"),
        (["serve", CAMPAIGN, "-walltime", "soon"], 1, "-walltime soon"),
        (["serve", CAMPAIGN, "-walltime", "1:00", "-walltime_margin", "60"], 1, "leaves no time to run jobs"),
        (["status", WORK], None, "is not a campaign"),
        (["collect", a_file], None, "is not a campaign")):
    p = run_talus(TALUS, args, ranks)
    check(p.returncode != 0 and expect in p.stderr and "Abort" not in p.stderr + p.stdout,
          "%s: exit %d, expected the error \"%s\":\n%s" % (" ".join(args), p.returncode, expect, p.stderr[-800:]))
check(not os.path.exists(os.path.join(WORK, "no-such-campaign")), "talus serve made the campaign it was given")

sys.exit(check.finish())
