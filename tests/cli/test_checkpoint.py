#!/usr/bin/python3
"""Checkpoints and restart (docs/checkpoint-format.md), end to end with the talus command.

Usage: test_checkpoint.py TALUS SOURCE_ROOT WORK_DIR

Scene: tests/scenes/filling-125.yaml (125 spheres falling into a box, h = 0.01 s).
- bitwise continuation: stopped at step 20 and restarted vs never stopped, on 1 and on 2 ranks:
  every body's state and every warm start equal bit for bit at step 40; stats.csv and frames.h5
  of the restarted run hold every step / frame exactly once, equal to the uninterrupted run's;
- restart on another rank count (1 -> 3, 3 -> 2): bodies conserved, state equal to the
  uninterrupted run's to solver tolerance;
- SIGTERM to a running talus: checkpoint, exit status 75, and the restart ends in the same state
  (bitwise, 1 rank) as the uninterrupted run; SIGUSR1 through mpirun on 2 ranks; -walltime;
- a frames.h5 damaged by the crash: left alone, frames go on in frames-restart-<step>.h5;
- kill -9 in the middle of a checkpoint write: the previous checkpoint is whole, last.h5 names it,
  and a restart from it completes;
- bad files: missing, truncated, flipped bytes, wrong version, not talus, not HDF5: a message that
  names the file and the fault (and the previous checkpoint), exit status 1, outputs untouched;
- talus info on a checkpoint and on a frames file; bad option values.
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

from clitest import ENV, GRACEFUL_ENV, Checks, checksum, run_all, set_values, slurm_stand_ins
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "checkpoint")
SCENE = os.path.join(ROOT, "tests", "scenes", "filling-125.yaml")
check = Checks("talus_checkpoint")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
BODY_STATE = ["id", "shape", "material", "fixed", "size", "mass", "inertia", "position", "quaternion", "velocity", "omega"]


def run(args, ranks=None):
    return run_talus(TALUS, args, ranks)


def out(name):
    return os.path.join(WORK, name)


def ckpt(name, step):
    return os.path.join(out(name), "checkpoints", "ckpt-%08d.h5" % step)


def ok(p, what):
    check(p.returncode == 0, "%s: exit %d\n%s%s" % (what, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.returncode == 0


def contacts(f):
    """Warm starts as a dict keyed by (id_a, id_b, feature): the file's row order depends on the ranks."""
    g = f["contacts"]
    keys = zip(g["id_a"][()], g["id_b"][()], g["feature"][()])
    return {k: imp for k, imp in zip(keys, g["impulse"][()])}


def compare(path_a, path_b, what, tol=0.0):
    """Every body's state (and, when tol == 0, every warm start) equal, or within tol."""
    if not (os.path.exists(path_a) and os.path.exists(path_b)):
        check(False, "%s: missing %s or %s" % (what, path_a, path_b))
        return
    with h5py.File(path_a) as a, h5py.File(path_b) as b:
        check(a.attrs["step"] == b.attrs["step"] and a.attrs["time"] == b.attrs["time"], "%s: step/time differ" % what)
        for k in BODY_STATE:
            x, y = a["bodies"][k][()], b["bodies"][k][()]
            if x.shape != y.shape:
                check(False, "%s: bodies/%s shapes %s %s" % (what, k, x.shape, y.shape))
                continue
            d = float(np.max(np.abs(x - y))) if x.size else 0.0
            check(d <= tol if tol else np.array_equal(x, y), "%s: bodies/%s differ by %g (allowed %g)" % (what, k, d, tol))
        ca, cb = contacts(a), contacts(b)
        if tol == 0.0:
            check(ca.keys() == cb.keys(), "%s: the contacts differ" % what)
            check(all(np.array_equal(ca[k], cb[k]) for k in ca if k in cb), "%s: warm starts differ" % what)


def stats_steps(name):
    return [int(r["step"]) for r in csv.DictReader(open(os.path.join(out(name), "stats.csv")))]


def frames(name):
    with h5py.File(os.path.join(out(name), "frames.h5")) as f:
        names = sorted(k for k in f if k.startswith("frame"))
        return [(f[k].attrs["time"], f[k]["position"][()].copy(), f[k]["velocity"][()].copy()) for k in names]


# ------------------------------------------------------------------ bitwise continuation, 1 and 2 ranks
for ranks in (1, 2):
    full, cut = "full-np%d" % ranks, "cut-np%d" % ranks
    common = ["-checkpoint_every", "20", "-output_every", "5"]
    ok(run([SCENE, "-o", out(full), "-t_final", "0.4"] + common, ranks), full)
    # the stopped run went on past its checkpoint at step 20 (as a crashed job would have) ...
    ok(run([SCENE, "-o", out(cut), "-t_final", "0.3"] + common, ranks), cut)
    # ... and is restarted from step 20: its later rows and frames must be replaced, not doubled
    p = run(["-restart", ckpt(cut, 20), "-t_final", "0.4"], ranks)
    if ok(p, cut + " restart"):
        compare(ckpt(full, 40), ckpt(cut, 40), "np%d stopped at 20 and restarted vs never stopped" % ranks)
        check(stats_steps(cut) == list(range(1, 41)), "np%d: stats.csv steps after the restart: %s" % (ranks, stats_steps(cut)))
        fa, fb = frames(full), frames(cut)
        check(len(fa) == len(fb) == 9, "np%d: %d and %d frames, expected 9" % (ranks, len(fa), len(fb)))
        check(all(x[0] == y[0] and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2]) for x, y in zip(fa, fb)), "np%d: frames differ" % ranks)
        xmf = open(os.path.join(out(cut), "frames.xmf")).read()
        check(xmf.count("<Time ") == 9, "np%d: frames.xmf lists %d frames" % (ranks, xmf.count("<Time ")))

# a checkpoint of format 1 (tests/fixtures/ckpt-format1-filling125-step20.h5, written by commit 82a3a78
# from this scene with -t_final 0.2 -checkpoint_every 20 -output_every 5) still restarts, and goes on
# bit for bit as the run that never stopped (on 1 rank, as it was written), with the rigid contact rows its
# run had (a file before format 7 restarts with -contact_near_rigid 0 -contact_friction_sigma 0, before 8 with
# -ccp_scale 0 -ccp_scale_residual 0 -tao_apgd_confirm 0, before 9 with -contact_screen 0, before 10 with -tao_residual_norm 2, before 11 with
# -tao_apgd_reproducible_lipschitz 0 -contact_rank_order 0)
fixture = os.path.join(ROOT, "tests", "fixtures", "ckpt-format1-filling125-step20.h5")
rigid = ["-contact_near_rigid", "0", "-contact_friction_sigma", "0",
         "-ccp_scale", "0", "-ccp_scale_residual", "0", "-tao_apgd_confirm", "0", "-contact_screen", "0", "-tao_residual_norm", "2",
         "-tao_apgd_reproducible_lipschitz", "0", "-contact_rank_order", "0"]
if ok(run(["-restart", fixture, "-o", out("format1"), "-t_final", "0.4", "-checkpoint_every", "20"]), "restart from the format-1 fixture") \
        and ok(run([SCENE, "-o", out("full-rigid"), "-t_final", "0.4", "-checkpoint_every", "20"] + rigid), "full-rigid"):
    compare(ckpt("full-rigid", 40), ckpt("format1", 40), "format-1 checkpoint restarted vs never stopped")

# a checkpoint of the initial state (step 0, no contacts yet: empty datasets) restarts on 2 ranks
if ok(run([SCENE, "-o", out("step0"), "-t_final", "0", "-checkpoint_every", "1"]), "checkpoint at step 0"):
    p = run(["-restart", ckpt("step0", 0), "-t_final", "0.4"], 2)
    if ok(p, "restart from step 0 on 2 ranks"):
        compare(ckpt("full-np1", 40), ckpt("step0", 40), "from step 0 on 2 ranks vs 1 rank", tol=1e-8)

# a frames file damaged by the crash is left alone; the restarted run's frames go to a new file
if ok(run([SCENE, "-o", out("frames-damaged"), "-t_final", "0.2", "-checkpoint_every", "10", "-output_every", "5"]), "frames-damaged"):
    frames_h5 = os.path.join(out("frames-damaged"), "frames.h5")
    open(frames_h5, "r+b").truncate(1000)
    p = run(["-restart", ckpt("frames-damaged", 20), "-t_final", "0.3"])
    if ok(p, "restart with a damaged frames.h5"):
        fresh = os.path.join(out("frames-damaged"), "frames-restart-00000020.h5")
        check("cannot reopen" in p.stdout + p.stderr, "no warning about the damaged frames.h5:\n" + p.stdout[-1500:])
        check(os.path.getsize(frames_h5) == 1000, "the damaged frames.h5 was modified")
        check(os.path.exists(fresh), "no frames-restart-00000020.h5")
        if os.path.exists(fresh):
            with h5py.File(fresh) as f:
                times = sorted(float(f[k].attrs["time"]) for k in f if k.startswith("frame"))
            check(np.allclose(times, [0.2, 0.25, 0.3]), "frames-restart times %s" % times)
        xmf = open(os.path.join(out("frames-damaged"), "frames.xmf")).read()
        check("frames-restart-00000020.h5:/frame000000" in xmf and "frames.h5:" not in xmf.replace("frames-restart-00000020.h5", ""), "frames.xmf does not point to the new file")

# ------------------------------------------------------------------ another rank count
p = run(["-restart", ckpt("full-np1", 20), "-o", out("np1-to-np3"), "-t_final", "0.4"], 3)
if ok(p, "restart 1 -> 3"):
    compare(ckpt("full-np1", 40), ckpt("np1-to-np3", 40), "1 -> 3 ranks", tol=1e-8)
    with h5py.File(ckpt("np1-to-np3", 40)) as f:
        check(f.attrs["bodies"] == 125 and np.array_equal(np.sort(f["bodies"]["id"][()]), np.arange(5, 130)), "1 -> 3: bodies not conserved")
ok(run([SCENE, "-o", out("np3"), "-t_final", "0.2", "-checkpoint_every", "20"], 3), "np3")
p = run(["-restart", ckpt("np3", 20), "-t_final", "0.4"], 2)
if ok(p, "restart 3 -> 2"):
    compare(ckpt("full-np1", 40), ckpt("np3", 40), "3 ranks, then 2, vs 1 rank", tol=1e-8)

# ------------------------------------------------------------------ stats.csv of an older talus, with fewer columns
# A restart in the directory of a run whose stats.csv lacks the last columns (force_residual_max and
# _rms came later) gets the new header; the kept rows get empty fields, the new rows values.
if ok(run([SCENE, "-t_final", "0.3", "-checkpoint_every", "20", "-o", out("older")]), "older columns: run"):
    path = os.path.join(out("older"), "stats.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    with open(path, "w") as f:
        f.write("".join(",".join(line.split(",")[:-2]) + "\n" for line in lines))
    if ok(run(["-restart", ckpt("older", 20)]), "older columns: restart"):
        with open(path) as f:
            rows = [line.split(",") for line in f.read().splitlines()]
        check(rows[0] == header and all(len(r) == len(header) for r in rows),
              "older columns: header %s, field counts %s" % (rows[0][-3:], sorted(set(len(r) for r in rows))))
        check([r[0] for r in rows[1:]] == [str(k) for k in range(1, 31)], "older columns: steps %s" % [r[0] for r in rows[1:]])
        check(all(r[-1] == "" for r in rows[1:21]) and all(r[-1] != "" for r in rows[21:]),
              "older columns: empty fields exactly on the kept rows")

# ------------------------------------------------------------------ signals and the wall-clock limit


def interrupt(args, sig, ranks=None, after_bytes=4000):
    """Starts talus, sends sig once stats.csv has grown past after_bytes, returns (status, stdout)."""
    cmd = [TALUS] + args
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=GRACEFUL_ENV)
    stats = os.path.join(args[args.index("-o") + 1], "stats.csv")
    deadline = time.time() + 300
    while proc.poll() is None and time.time() < deadline:
        if os.path.exists(stats) and os.path.getsize(stats) > after_bytes:
            proc.send_signal(sig)
            break
        time.sleep(0.005)
    text, _ = proc.communicate(timeout=600)
    return proc.returncode, text


long_run = ["-t_final", "3", "-output_every", "300"]
ok(run([SCENE, "-o", out("term-full")] + long_run), "uninterrupted run for SIGTERM")
status, text = interrupt([SCENE, "-o", out("term")] + long_run, signal.SIGTERM)
check(status == 75, "SIGTERM: exit status %d, expected 75\n%s" % (status, text[-2000:]))
last = os.path.join(out("term"), "checkpoints", "last.h5")
check(os.path.exists(last), "SIGTERM: no last.h5")
if status == 75 and os.path.exists(last):
    with h5py.File(last) as f:
        stopped = int(f.attrs["step"])
    check(0 < stopped < 300, "SIGTERM: checkpoint at step %d" % stopped)
    if ok(run(["-restart", last]), "restart after SIGTERM"):
        fa, fb = frames("term-full"), frames("term")
        check(len(fa) == len(fb) == 2, "SIGTERM: %d and %d frames, expected 2" % (len(fa), len(fb)))
        check(all(np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2]) for x, y in zip(fa, fb)), "SIGTERM: the final state differs from the uninterrupted run's")
        check(stats_steps("term") == list(range(1, 301)), "SIGTERM: stats.csv steps are not 1..300 once each")

status, text = interrupt([SCENE, "-o", out("usr1"), "-t_final", "3"], signal.SIGUSR1, ranks=2)
check(status == 75, "SIGUSR1 through mpirun -n 2: exit status %d, expected 75\n%s" % (status, text[-2000:]))
check(os.path.exists(os.path.join(out("usr1"), "checkpoints", "last.h5")), "SIGUSR1: no last.h5")
if status == 75 and ok(run(["-restart", os.path.join(out("usr1"), "checkpoints", "last.h5")], 2), "restart after SIGUSR1"):
    check(stats_steps("usr1") == list(range(1, 301)), "SIGUSR1: stats.csv steps are not 1..300 once each")

t0 = time.time()
p = run([SCENE, "-o", out("walltime"), "-t_final", "1000", "-walltime", "00:00:03", "-output_every", "0"])
elapsed = time.time() - t0
check(p.returncode == 75, "-walltime 00:00:03: exit status %d, expected 75\n%s" % (p.returncode, p.stderr[-1000:]))
check(elapsed < 30, "-walltime 00:00:03: took %.1f s" % elapsed)
check(os.path.exists(os.path.join(out("walltime"), "checkpoints", "last.h5")), "-walltime: no last.h5")
summary = json.load(open(os.path.join(out("walltime"), "summary.json")))
check(summary["status"] == "stopped_for_restart" and summary["t_target"] == 1000 and summary["t"] < 1000, "-walltime: summary.json %s" % summary)
# Slurm's forms of a time limit (squeue %L, sbatch --time): 1-12 is a day and 12 hours (before: 86412 s)
for given, seconds in (("1-12", 129600), ("2-03:30", 185400), ("1-00:00:02", 86402), ("30:00", 1800), ("45", 45)):
    p = run([SCENE, "-o", out("walltime-forms"), "-t_final", "0.02", "-walltime", given, "-checkpoint_view", "-overwrite"])
    check(p.returncode == 0 and "walltime %d" % seconds in p.stdout, "-walltime %s: expected %d s:\n%s%s" % (given, seconds, p.stdout[-600:], p.stderr))
p = run([SCENE, "-o", out("walltime-forms"), "-t_final", "0.02", "-walltime", "1-25"])
check(p.returncode == 1 and "D-HH" in p.stderr, "-walltime 1-25 (25 hours after a day) must be refused: %s" % p.stderr)

# ------------------------------------------------------------------ a renamed option in an older checkpoint
# -ccp_anti_relax true|false is now -ccp_problem coulomb|relaxed: given, it is refused naming the new name;
# stored in a checkpoint (as talus before 0.1.0 wrote them), the restart reads it under its new name.
p = run([SCENE, "-o", out("renamed-given"), "-t_final", "0.02", "-ccp_anti_relax", "false"])
check(p.returncode == 1 and "-ccp_anti_relax (from the command line): it is now -ccp_problem coulomb|relaxed" in p.stderr, "-ccp_anti_relax: %s" % p.stderr)
rows_after = {}
for name, first, then in (("renamed-old", ["-ccp_anti_relax", "false", "-options_allow_unknown"], []), ("renamed-new", [], ["-ccp_problem", "relaxed"])):
    if ok(run([SCENE, "-o", out(name), "-t_final", "0.2", "-checkpoint_every", "20", "-output_every", "0"] + first), name):
        if ok(run(["-restart", ckpt(name, 20), "-t_final", "0.3"] + then), name + ": restart"):  # contacts from step 27
            rows_after[name] = [r for r in csv.DictReader(open(os.path.join(out(name), "stats.csv"))) if int(r["step"]) > 20]
if len(rows_after) == 2:
    columns = ["step", "contacts", "iterations", "residual", "kinetic_energy"]
    check([[r[c] for c in columns] for r in rows_after["renamed-old"]] == [[r[c] for c in columns] for r in rows_after["renamed-new"]] and len(rows_after["renamed-new"]) == 10
          and any(int(r["iterations"]) > 0 for r in rows_after["renamed-new"]),
          "a checkpoint's stored -ccp_anti_relax false did not restart as -ccp_problem relaxed")

# ------------------------------------------------------------------ kill -9 in the middle of a write
for ranks in (None, 2):
    name = "killed-np%d" % (ranks or 1)
    p = run([SCENE, "-o", out(name), "-t_final", "1", "-checkpoint_every", "10", "-checkpoint_test_kill", "2"], ranks)
    check(p.returncode != 0 and p.returncode != 75, "%s: exit status %d after SIGKILL" % (name, p.returncode))
    d = os.path.join(out(name), "checkpoints")
    check(os.path.exists(os.path.join(d, "ckpt-00000020.h5.tmp")), "%s: the unfinished checkpoint should be left as .tmp" % name)
    check(not os.path.exists(os.path.join(d, "ckpt-00000020.h5")), "%s: an unfinished checkpoint was published" % name)
    check(json.load(open(os.path.join(out(name), "summary.json")))["status"] == "running", "%s: summary.json of the killed run should say running" % name)
    check(os.path.realpath(os.path.join(d, "last.h5")) == os.path.realpath(os.path.join(d, "ckpt-00000010.h5")), "%s: last.h5 should still name ckpt-00000010.h5" % name)
    p = run(["-restart", os.path.join(d, "last.h5"), "-t_final", "0.4"], ranks)
    if ok(p, name + ": restart from the checkpoint before the kill"):
        compare(ckpt("full-np1", 40), os.path.join(d, "ckpt-00000040.h5"), name + " restarted", tol=1e-8)

# ------------------------------------------------------------------ kill -9 at any moment, then a restart
# stats.csv's and the probe's rows are flushed every step and synced before a checkpoint is published,
# and the restart leaves out a row the kill cut: every step appears exactly once, on its own line with
# the header's number of fields (before: 4-9 rows lost and two rows glued, 5 of 5 trials). On 2 ranks
# one rank is killed and mpirun ends the other.
def kill9(args, ranks, after_bytes):
    cmd = [TALUS] + args
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=GRACEFUL_ENV)
    stats = os.path.join(args[args.index("-o") + 1], "stats.csv")
    deadline = time.time() + 300
    while proc.poll() is None and time.time() < deadline:
        if os.path.exists(stats) and os.path.getsize(stats) > after_bytes:
            victims = [proc.pid]
            if ranks:
                p = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
                victims = [int(x) for x in p.stdout.split()][-1:] or victims
            for pid in victims:
                os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    proc.communicate(timeout=600)
    return proc.returncode


def check_rows(path, first_column, expected, what):
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    check(text.endswith("\n"), "%s: %s does not end with a newline" % (what, path))
    fields = lines[0].count(",")
    bad = [l for l in lines[1:] if l and l.count(",") != fields]
    check(not bad, "%s: %d rows of %s with another number of fields than the header: %s" % (what, len(bad), path, bad[:2]))
    got = [first_column(l.split(",")[0]) for l in lines[1:] if l]
    check(got == expected, "%s: %s's rows are not each step once: %s" % (what, path, got if len(got) < 20 else got[:5] + ["..."]))


for k, (ranks, after) in enumerate(((None, 3200), (None, 8800), (2, 3800), (2, 11300))):
    name = "kill9-%d" % k
    killed = kill9([SCENE, "-o", out(name), "-t_final", "1.5", "-checkpoint_every", "7", "-output_every", "0", "-probe", "10"], ranks, after)
    check(killed not in (0, 1), "%s: the run ended (exit %d) before it was killed" % (name, killed))
    last = os.path.join(out(name), "checkpoints", "last.h5")
    if not os.path.exists(last):
        check(False, "%s: no checkpoint before the kill" % name)
        continue
    if ok(run(["-restart", last], ranks), name + ": restart after kill -9"):
        check_rows(os.path.join(out(name), "stats.csv"), int, list(range(1, 151)), name)
        check_rows(os.path.join(out(name), "probe-10.csv"), lambda t: round(float(t) * 100), list(range(1, 151)), name)

# ------------------------------------------------------------------ an earlier run's checkpoints in the directory
# A fresh run into a directory holding another run's checkpoints is refused before it writes anything
# (before: it left them for a later -restart or job script to pick up, and stats.csv mixed both runs);
# with -overwrite they are moved aside, and the earlier run can still be restarted from there.
stale = out("stale")
ok(run([SCENE, "-o", stale, "-t_final", "0.05", "-checkpoint_every", "2"]), "the earlier run")
before = open(os.path.join(stale, "stats.csv")).read()
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", stale, "-t_final", "0.05"], 2)
check(p.returncode == 1 and "holds 3 checkpoint files of an earlier run" in p.stderr and "-overwrite" in p.stderr,
      "a fresh run over an earlier run's checkpoints: exit %d\n%s" % (p.returncode, p.stderr))
check(open(os.path.join(stale, "stats.csv")).read() == before, "the refused run touched the earlier run's stats.csv")
p = run([os.path.join(ROOT, "inputs", "rolling-ball.yaml"), "-o", stale, "-t_final", "0.05", "-overwrite"])
if ok(p, "-overwrite"):
    aside = os.path.join(stale, "checkpoints.earlier-1")
    check("moved to %s" % aside in p.stdout and os.path.exists(os.path.join(aside, "last.h5")), "-overwrite: %s" % p.stdout)
    check(not os.path.exists(os.path.join(stale, "checkpoints", "last.h5")), "-overwrite left last.h5 in place")
    p = run(["info", os.path.join(aside, "last.h5")])
    check(p.returncode == 0 and "filling-125" in p.stdout, "the earlier run's checkpoint moved aside is whole:\n%s" % p.stdout)

# ------------------------------------------------------------------ a full disk on 2 ranks
# Parallel HDF5 meeting a full disk inside H5Fclose can leave the ranks in different collective calls
# (before: 12 of 41 runs hung, and 3 of 3 with frames). Checkpoints and frames now check the room
# first, on rank 0 for every rank; text rows fail on every rank together. Each run must end within
# 60 s with exit 1 and a message, last.h5 naming a whole checkpoint that restarts. Needs a tmpfs
# (root, as CI runs): skipped, with a note, where it cannot be mounted.
COMPACTION = os.path.join(ROOT, "inputs", "compaction.yaml")
full = os.path.join(WORK, "full")
os.makedirs(full)


def run_bounded(args, ranks, limit=60):
    cmd = ["mpirun", "--oversubscribe", "-n", str(ranks), TALUS] + args
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
    try:
        so, se = proc.communicate(timeout=limit)
        return proc.returncode, so + se
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, ""


def mount_full(size):
    subprocess.run(["umount", full], capture_output=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", full], capture_output=True).returncode == 0


if not mount_full("1300k"):
    print("full disk: skipped (tmpfs cannot be mounted here: not root?)")
else:
    cases = [("checkpoints", size, ["-o", out("full-ck-%s" % size), "-checkpoint_dir", os.path.join(full, "ck"), "-checkpoint_every", "10", "-checkpoint_keep", "100"])
             for size in ("1300k", "1900k", "2500k")]
    cases += [("frames", size, ["-o", os.path.join(full, "out"), "-output_every", "2"]) for size in ("700k", "2500k")]
    cases += [("stats.csv", "8k", ["-o", os.path.join(full, "out"), "-output_every", "0"])]
    for what, size, args in cases:
        mount_full(size)
        status, text = run_bounded([COMPACTION, "-dt", "0.005", "-t_final", "1"] + args, 2)
        label = "%s to a full disk of %s on 2 ranks" % (what, size)
        check(status is not None, "%s: hung (killed after 60 s)" % label)
        if status is None:
            continue
        errors = [l for l in text.splitlines() if l.startswith("talus: error:")]
        check(status == 1 and len(errors) == 1 and ("not enough room" in errors[0] or "No space left" in errors[0]),
              "%s: exit %s, errors %s\n%s" % (label, status, errors, text[-1500:]))
        if what == "checkpoints":  # the outputs are on a disk with room: summary.json says the run failed, and why
            summary = json.load(open(os.path.join(out("full-ck-%s" % size), "summary.json")))
            check(summary["status"] == "failed" and summary["error"] in errors[0] and summary["step"] > 0,
                  "%s: summary.json says %s" % (label, summary))
        last = os.path.join(full, "ck", "last.h5")
        if what == "checkpoints" and os.path.exists(last):
            p = run(["info", last])
            check(p.returncode == 0 and "talus checkpoint" in p.stdout, "%s: last.h5 is not a whole checkpoint:\n%s%s" % (label, p.stdout, p.stderr))
            p = run(["-restart", last, "-t_final", "0.6", "-checkpoint_dir", out("full-ck-restart-%s" % size), "-o", out("full-ck-restart-%s" % size)], 2)
            ok(p, "%s: restart from last.h5" % label)
    subprocess.run(["umount", full], capture_output=True)

# ------------------------------------------------------------------ bad files
bad = os.path.join(WORK, "bad")
os.makedirs(bad)
good = ckpt("full-np1", 40)
shutil.copy(ckpt("full-np1", 20), os.path.join(bad, "ckpt-00000020.h5"))
size = os.path.getsize(good)


def damaged(name, data):
    path = os.path.join(bad, name)
    open(path, "wb").write(data)
    return path


def refuse(path, fault, previous=False, what=None, ranks=2):
    """A restart from path must stop with status 1, naming the file and the fault, writing nothing."""
    o = os.path.join(WORK, "bad-out")
    shutil.rmtree(o, ignore_errors=True)
    check_refused(run(["-restart", path, "-o", o], ranks), path, fault, previous, what, o)


def refuse_all(cases):
    """refuse() of each (path, fault, what, ranks) of cases, four restarts at a time (each its own output
    directory): independent refusals, each mostly MPI's and PETSc's start-up."""
    outs = [os.path.join(WORK, "bad-out-%d" % k) for k in range(len(cases))]
    for o in outs:
        shutil.rmtree(o, ignore_errors=True)
    procs = run_all(TALUS, [(["-restart", c[0], "-o", o], c[3]) for c, o in zip(cases, outs)])
    for (path, fault, what, ranks), p, o in zip(cases, procs, outs):
        check_refused(p, path, fault, False, what, o)


def check_refused(p, path, fault, previous, what, o):
    msg = p.stdout + p.stderr
    what = what or os.path.basename(path)
    check(p.returncode == 1, "%s: exit status %d, expected 1\n%s" % (what, p.returncode, msg[-1500:]))
    check(path in msg and fault in msg, "%s: the message should name %s and say '%s':\n%s" % (what, path, fault, msg[-1500:]))
    check("Segmentation" not in msg and "signal" not in msg.lower(), "%s: crashed\n%s" % (what, msg[-1500:]))
    if previous:
        check("the previous checkpoint is " + os.path.join(bad, "ckpt-00000020.h5") in msg, "%s: no hint of the previous checkpoint:\n%s" % (what, msg[-1500:]))
    check(not os.path.exists(o), "%s: outputs were written" % what)
    if os.path.dirname(path) == bad and os.path.basename(path).startswith("ckpt-") and os.path.exists(path):
        os.remove(path)  # not the previous checkpoint of the next case


blob = open(good, "rb").read()
refuse(os.path.join(bad, "ckpt-00000099.h5"), "No such file")
refuse(damaged("ckpt-00000040.h5", blob[: size // 2]), "truncated", previous=True, what="truncated")
with h5py.File(good) as f:  # flip bytes in the middle of the stored positions: the checksum must catch it
    offset = f["bodies"]["position"].id.get_offset()
flipped = bytearray(blob)
for k in range(8):
    flipped[offset + 1000 + k] ^= 0xFF
refuse(damaged("ckpt-00000041.h5", bytes(flipped)), "bodies/position is damaged", previous=True, what="flipped data bytes")
# flipped bytes in the metadata (superblock, object headers): caught by the 1.10 format's checksums
for at in (0, 40, 200, 600, 1500, 3000):
    meta = bytearray(blob)
    meta[at] ^= 0x5A
    path = damaged("ckpt-00000042.h5", bytes(meta))
    p = run(["-restart", path, "-o", os.path.join(WORK, "meta-out"), "-t_final", "0.41"])
    msg = p.stdout + p.stderr
    check(p.returncode == 0 or (p.returncode == 1 and "cannot restart from " + path in msg), "flipped byte at %d: exit %d\n%s" % (at, p.returncode, msg[-1500:]))
# fuzz: 40 random single-byte flips anywhere in the file (seeded): each restart either runs (a flip in
# unused bytes) or stops with one error naming the file; never a crash, a hang or garbage
rng = np.random.default_rng(2026)
outcomes = {"ran": 0, "refused": 0}
fuzz = []
for trial in range(40):
    fuzzed = bytearray(blob)
    at = int(rng.integers(0, len(blob)))
    fuzzed[at] ^= int(rng.integers(1, 256))
    fuzz.append((at, damaged("fuzz-%02d.h5" % trial, bytes(fuzzed))))
try:  # four at a time, each restart its own file and output directory
    procs = run_all(TALUS, [(["-restart", path, "-o", os.path.join(WORK, "fuzz-out-%02d" % k), "-t_final", "0.41"], None)
                            for k, (at, path) in enumerate(fuzz)], timeout=60)
except subprocess.TimeoutExpired as e:
    check(False, "fuzz: a flipped byte hung the restart: %s" % e)
    procs = []
for (at, path), p in zip(fuzz, procs):
    msg = p.stdout + p.stderr
    refused = p.returncode == 1 and ("cannot restart from " + path) in msg and msg.count("talus: error") == 1
    check(p.returncode == 0 or refused, "fuzz: a flip at byte %d: exit %d\n%s" % (at, p.returncode, msg[-1500:]))
    outcomes["ran" if p.returncode == 0 else "refused"] += 1
print("fuzz: 40 single-byte flips of a checkpoint: %(ran)d restarts ran, %(refused)d were refused with a message" % outcomes)
shutil.copy(good, os.path.join(bad, "version.h5"))
with h5py.File(os.path.join(bad, "version.h5"), "r+") as f:
    f.attrs.modify("version", np.int64(99))
refuse(os.path.join(bad, "version.h5"), "format version 99")


# crafted checkpoints: edited values with their checksums recomputed (docs/checkpoint-format.md), so
# that only the reader's checks of sense can refuse them (before: NaN quaternions and masses, negative
# radii and steps, NaN time and duplicate ids ran, exit 0; a short materials/names read past the heap;
# a header of 2e9 bodies allocated 384 GB)
def crafted(name, edit):
    path = os.path.join(bad, name)
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


def replace_dataset(f, name, v):
    del f[name]
    f[name] = v
    f[name].attrs.create("checksum", checksum(v), dtype=np.uint64)


assert checksum(h5py.File(good)["bodies/position"][()]) == h5py.File(good)["bodies/position"].attrs["checksum"]
crafts = [
    ("nan-quaternion", lambda f: set_values(f, "bodies/quaternion", lambda v: v.__setitem__((0, 0), np.nan)), "not a unit quaternion"),
    ("nan-mass", lambda f: set_values(f, "bodies/mass", lambda v: v.__setitem__(0, np.nan)), "not a finite number"),
    ("negative-mass", lambda f: set_values(f, "bodies/mass", lambda v: v.__setitem__(0, -1.0)), "without a positive mass"),
    ("negative-radius", lambda f: set_values(f, "bodies/size", lambda v: v.__setitem__((0, 0), -0.5)), "a size its shape does not allow"),
    ("inf-velocity", lambda f: set_values(f, "bodies/velocity", lambda v: v.__setitem__((3, 1), np.inf)), "not a finite number"),
    ("duplicate-id", lambda f: set_values(f, "bodies/id", lambda v: v.__setitem__(1, v[0])), "a body id is stored twice"),
    ("id-out-of-range", lambda f: set_values(f, "bodies/id", lambda v: v.__setitem__(0, 10**9)), "an id outside the scene's"),
    ("bad-material-index", lambda f: set_values(f, "bodies/material", lambda v: v.__setitem__(0, 7)), "a material that is not stored"),
    ("negative-mu", lambda f: set_values(f, "materials/mu_density", lambda v: v.__setitem__((0, 0), -1.0)), "mu or density"),
    ("negative-stiffness", lambda f: set_values(f, "materials/compliance", lambda v: v.__setitem__((0, 0), -1.0)), "mu or density, or its relaxation or compliance"),
    ("grid-without-stiffness", lambda f: set_values(f, "materials/compliance", lambda v: v.__setitem__((0, 2), 10.0)), "its foundation grid"),
    ("fractional-grid", lambda f: set_values(f, "materials/compliance", lambda v: v.__setitem__((0, 2), 2.5)), "its foundation grid"),
    ("short-names", lambda f: replace_dataset(f, "materials/names", np.frombuffer(b"gr", dtype=np.uint8)), "materials/names does not have the header's number of rows"),
    ("huge-header", lambda f: (f.attrs.modify("finite_bodies", np.int64(2 * 10**9)), f.attrs.modify("bodies", np.int64(2 * 10**9))), "the header's counts are inconsistent"),
    ("more-bodies-in-header", lambda f: (f.attrs.modify("finite_bodies", np.int64(200)), f.attrs.modify("bodies", np.int64(200))), "bodies/id does not have the header's number of rows"),
    ("negative-step", lambda f: f.attrs.modify("step", np.int64(-5)), "the header's step, time"),
    ("nan-time", lambda f: f.attrs.modify("time", np.float64(np.nan)), "the header's step, time"),
    ("zero-dt", lambda f: f.attrs.modify("dt", np.float64(0.0)), "the header's step, time"),
    ("nan-gravity", lambda f: f.attrs.modify("gravity", np.array([0.0, np.nan, -9.81])), "gravity, envelope or domain"),
]
refuse_all([(crafted("crafted-%s.h5" % name, edit), fault, "crafted checkpoint: " + name, 2) for name, edit, fault in crafts])
# the fields that choose where a row is sent, each checked against its range before use (a body's rank of 7
# ended in "destination rank 7 of item 0 is not in the communicator", naming no file), on 1 and 2 ranks
ranged = [
    ("body-rank", lambda f: set_values(f, "bodies/rank", lambda v: v.__setitem__(0, 7)), "a writing rank (bodies/rank) outside"),
    ("negative-body-rank", lambda f: set_values(f, "bodies/rank", lambda v: v.__setitem__(3, -1)), "a writing rank (bodies/rank) outside"),
    ("contact-rank", lambda f: set_values(f, "contacts/rank", lambda v: v.__setitem__(0, 9)), "a writing rank (contacts/rank) outside"),
    ("contact-slot", lambda f: set_values(f, "contacts/owner_slot", lambda v: v.__setitem__(0, 10**6)), "(contacts/owner_slot) outside the file's bodies"),
    ("contact-id", lambda f: set_values(f, "contacts/id_b", lambda v: v.__setitem__(0, 10**6)), "a body id (contacts/id_a or id_b) outside"),
    ("contact-owner", lambda f: set_values(f, "contacts/owner", lambda v: v.__setitem__(0, -3)), "a keeping body (contacts/owner)"),
    ("contact-impulse", lambda f: set_values(f, "contacts/impulse", lambda v: v.__setitem__((0, 0), np.inf)), "an impulse (contacts/impulse)"),
    ("huge-velocity", lambda f: set_values(f, "bodies/velocity", lambda v: v.__setitem__((3, 1), 1e300)), "beyond 1e100 in magnitude"),
]
with h5py.File(good, "r") as f:
    check(f["contacts/rank"].shape[0] > 0, "the crafted checkpoints' source has warm-start contacts to edit")
refuse_all([(crafted("crafted-%s.h5" % name, edit), fault, "crafted checkpoint on %d rank(s): %s" % (ranks, name), ranks)
            for name, edit, fault in ranged for ranks in (1, 2)])
refuse(os.path.join(out("full-np1"), "frames.h5"), "not a talus checkpoint")
refuse(SCENE, "not a readable HDF5 file")

# ------------------------------------------------------------------ talus info, options
p = run(["info", good])
check(p.returncode == 0 and "talus checkpoint, format version 11" in p.stdout and "joints: 0" in p.stdout and "step: 40" in p.stdout and "bodies: 125" in p.stdout, "talus info CHECKPOINT:\n" + p.stdout + p.stderr)
p = run(["info", os.path.join(out("full-np1"), "frames.h5")])
check(p.returncode == 0 and "frames: 9" in p.stdout and "bodies per frame: 125" in p.stdout, "talus info FRAMES:\n" + p.stdout + p.stderr)
p = run(["info", SCENE])
check(p.returncode == 1 and "not a readable HDF5 file" in p.stdout + p.stderr, "talus info on YAML:\n" + p.stdout + p.stderr)
for args, msg in ((["-walltime", "ten"], "-walltime ten"), (["-checkpoint_keep", "0"], "-checkpoint_keep must be >= 1"), (["-checkpoint_every", "-3"], "-checkpoint_every must be >= 0")):
    p = run([SCENE, "-o", out("badopt"), "-t_final", "0.02"] + args)
    check(p.returncode == 1 and msg in p.stdout + p.stderr, "%s: %d\n%s" % (args, p.returncode, p.stdout + p.stderr))
p = run([SCENE, "-o", out("keep"), "-t_final", "0.3", "-checkpoint_every", "5", "-checkpoint_keep", "2"])
if ok(p, "-checkpoint_keep 2"):
    left = sorted(f for f in os.listdir(os.path.join(out("keep"), "checkpoints")) if f.startswith("ckpt-"))
    check(left == ["ckpt-00000025.h5", "ckpt-00000030.h5"], "-checkpoint_keep 2 left %s" % left)
# an option value with blanks, quotes and a backslash (here the output directory) comes back whole at a
# restart: the checkpoint quotes it (it used to be cut at the first blank, and the restart wrote to
# "with"); on 2 ranks, restarted without -o, every step once in the same stats.csv
spaced = out('with space "and quotes" \\ too')
p = run([SCENE, "-o", spaced, "-t_final", "0.1", "-checkpoint_every", "5"], ranks=2)
if ok(p, "-o with blanks and quotes"):
    with h5py.File(os.path.join(spaced, "checkpoints", "ckpt-00000005.h5")) as f:
        stored = bytes(f["options"][()]).decode()
    check('-o "%s"' % spaced.replace("\\", "\\\\").replace('"', '\\"') in stored, "the checkpoint's options quote -o: %s" % stored)
    p = run(["-restart", os.path.join(spaced, "checkpoints", "ckpt-00000005.h5"), "-t_final", "0.15"], ranks=2)
    if ok(p, "restart of the run with -o with blanks and quotes"):
        check(not os.path.exists(out("with")), "the restart wrote to the directory cut at the first blank")
        steps = [int(r["step"]) for r in csv.DictReader(open(os.path.join(spaced, "stats.csv")))]
        check(steps == list(range(1, 16)), "stats.csv of the restarted run with -o with blanks: steps %s" % steps)
p = run(["-restart", good, "-tao_gatol", "1e-9", "-t_final", "0.42", "-o", out("override"), "-help"])
check(p.returncode == 0 and "-checkpoint_every" in p.stdout and "-walltime" in p.stdout, "-help lists the checkpoint options")

# ------------------------------------------------------------------ the example Slurm job script
# squeue and scontrol are stand-ins (there is no Slurm here): squeue reports the time the job has left,
# scontrol records the requeue. The first start of the "job" has 4 s left (less than the 120 s
# margin): talus checkpoints after one step and exits with 75, and the job requeues itself; the
# second (SLURM_RESTART_COUNT 1, as Slurm sets it) has a day left and finishes the run from last.h5;
# a third, with no limit known, restarts from the final checkpoint and has nothing left to do. Each
# runs from another directory than the repository's (the job starts in sbatch's directory).
fake_bin, requeued = slurm_stand_ins(WORK)
job = os.path.join(ROOT, "scripts", "slurm-job")
env = dict(GRACEFUL_ENV, PATH=fake_bin + os.pathsep + ENV["PATH"], SLURM_JOB_ID="41", SLURM_SUBMIT_DIR=WORK, TALUS=os.path.abspath(TALUS), MPIRUN="mpirun --oversubscribe -n 2")
for attempt, left in enumerate(("00:00:04", "1-00:00:02", "UNLIMITED")):
    open(os.path.join(fake_bin, "left"), "w").write(left + "\n")
    p = subprocess.run([job, SCENE, "slurm", "-t_final", "0.05", "-output_every", "0"], capture_output=True, text=True,
                       env=dict(env, SLURM_RESTART_COUNT=str(attempt)), timeout=600, cwd="/")
    check(p.returncode == 0, "slurm-job attempt %d (%s left): exit %d\n%s%s" % (attempt, left, p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
    if attempt:
        check("restarting from" in p.stdout, "slurm-job attempt %d did not restart from last.h5:\n%s" % (attempt, p.stdout[-1500:]))
    lines = open(requeued).read().splitlines() if os.path.exists(requeued) else []
    check(lines == ["requeue 41"], "slurm-job after attempt %d: scontrol called %s, expected one requeue of job 41" % (attempt, lines))
check(stats_steps("slurm") == list(range(1, 6)), "slurm-job: stats.csv steps %s, expected 1..5 once each" % stats_steps("slurm"))
# the same OUTPUT_DIR given with another scene: the job refuses to go on with filling-125's checkpoint
p = subprocess.run([job, os.path.join(ROOT, "inputs", "rolling-ball.yaml"), out("slurm"), "-t_final", "0.05"], capture_output=True, text=True, env=env, timeout=600)
check(p.returncode == 2 and "is a checkpoint of scene 'filling-125', not of" in p.stderr, "slurm-job with another scene's checkpoint: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
# a job that has been requeued TALUS_MAX_REQUEUES times stops with 75 instead of requeueing again
open(os.path.join(fake_bin, "left"), "w").write("00:00:04\n")
p = subprocess.run([job, SCENE, "slurm-limit", "-t_final", "0.05", "-output_every", "0"], capture_output=True, text=True,
                   env=dict(env, SLURM_RESTART_COUNT="3", TALUS_MAX_REQUEUES="3"), timeout=600)
check(p.returncode == 75 and "the limit (TALUS_MAX_REQUEUES): not requeued" in p.stderr and len(open(requeued).read().splitlines()) == 1,
      "slurm-job at its requeue limit: exit %d\n%s%s" % (p.returncode, p.stdout[-600:], p.stderr[-600:]))

sys.exit(check.finish())
