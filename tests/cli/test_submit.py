#!/usr/bin/python3
"""talus submit CAMPAIGN SCENE.yaml [-set P=V]... [-sweep P=V1,V2,...]... [-name NAME] (docs/campaigns.md).

Usage: test_submit.py TALUS SOURCE_ROOT WORK_DIR

- a sweep of 3 frictions by 2 lattice counts (a list value: commas inside brackets are not separators)
  with one -set makes 6 job files CAMPAIGN/queue/NAME-0001.json ... in the product's order (the last
  sweep fastest), each holding the scene's text, its file and its overrides (-set first); a second
  submit on 1 and on 2 ranks adds NAME-0007 on, taking no existing id; -name names them;
- a job's scene with its overrides, run with talus -set, is the scene the job describes (its summary
  lists the overrides);
- refused, with the reason and no job written: a sweep with no value or an empty one, a path not in
  the scene, a value the scene's checks refuse (in any point of the product), a campaign that is a
  file, a missing scene, -sweep on a plain run, an unknown option; no temporary file is left behind;
- a scene larger than this node's memory is accepted by submit (checked without making its bodies,
  within seconds) and refused, with both numbers, by a run on 1 rank.
"""
import json
import os
import shutil
import sys

from clitest import Checks
from clitest import run as run_talus

TALUS, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = os.path.join(WORK, "submit")
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
check = Checks("talus_submit")

SCENE = os.path.join(WORK, "ball.yaml")
with open(SCENE, "w") as f:
    f.write("name: ball\ngravity: [0, 0, -9.81]\ntime_step: 0.01\nend_time: 0.05\nmaterials:\n"
            "  - {name: rough, mu: 0.2}\nbodies:\n  - {shape: plane, normal: [0, 0, 1], position: [0, 0, 0]}\n"
            "generators:\n  - lattice: {radius: 0.1, mass: 1, origin: [0, 0, 0.1], spacing: 0.3, count: [1, 1, 1]}\n")
CAMPAIGN = os.path.join(WORK, "campaign")
QUEUE = os.path.join(CAMPAIGN, "queue")


def jobs():
    return sorted(f for f in os.listdir(QUEUE)) if os.path.isdir(QUEUE) else []


p = run_talus(TALUS, ["submit", CAMPAIGN, SCENE, "-set", "end_time=0.03", "-sweep", "materials.rough.mu=0.1,0.2,0.3",
                      "-sweep", "generators.0.lattice.count=[1,1,1],[2,1,1]"])
check(p.returncode == 0, "submit: %s" % p.stderr[-300:])
check(jobs() == ["ball-%04d.json" % k for k in range(1, 7)], "the queue: %s" % jobs())
if len(jobs()) == 6:
    job = json.load(open(os.path.join(QUEUE, "ball-0004.json")))
    check(job["overrides"] == ["end_time=0.03", "materials.rough.mu=0.2", "generators.0.lattice.count=[2,1,1]"],
          "job 4's overrides: %s" % job["overrides"])
    check(job["scene"] == open(SCENE).read() and job["scene_file"] == os.path.realpath(SCENE), "job 4's scene")
    # the job's scene and overrides, run as talus would run it
    text = os.path.join(WORK, "job4.yaml")
    with open(text, "w") as f:
        f.write(job["scene"])
    out = os.path.join(WORK, "job4")
    r = run_talus(TALUS, [text, "-o", out] + [a for o in job["overrides"] for a in ("-set", o)])
    summary = json.load(open(os.path.join(out, "summary.json"))) if r.returncode == 0 else {}
    check(summary.get("overrides", {}).get("generators.0.lattice.count") == [2, 1, 1] and summary.get("bodies") == 2,
          "job 4 run: %s %s" % (r.stderr[-300:], summary.get("overrides")))
for ranks in (1, 2):
    p = run_talus(TALUS, ["submit", CAMPAIGN, SCENE, "-sweep", "materials.rough.mu=0.5"], ranks)
    check(p.returncode == 0 and jobs()[-1] == "ball-%04d.json" % (6 + ranks), "submit on %d ranks: %s, %s"
          % (ranks, jobs()[-1:], p.stderr[-300:]))
p = run_talus(TALUS, ["submit", os.path.join(WORK, "fresh"), SCENE], 2)  # made by one rank, not raced
check(p.returncode == 0 and os.listdir(os.path.join(WORK, "fresh", "queue")) == ["ball-0001.json"],
      "a new campaign on 2 ranks: %s" % p.stderr[-300:])
p = run_talus(TALUS, ["submit", CAMPAIGN, SCENE, "-name", "rough"])
check(p.returncode == 0 and "rough-0001.json" in jobs(), "-name: %s" % jobs())
check(not [f for f in os.listdir(QUEUE) if f.startswith(".")], "temporary files left: %s" % os.listdir(QUEUE))

# a scene larger than this node (2e8 spheres, about 440 GB while stepping) is for the server's ranks to
# refuse or run: submit checks it without making its bodies, in seconds; a lattice that overlaps is
# still refused
p = run_talus(TALUS, ["submit", os.path.join(WORK, "large"), SCENE, "-set", "generators.0.lattice.count=[10000,10000,2]"], timeout=60)
check(p.returncode == 0 and os.listdir(os.path.join(WORK, "large", "queue")) == ["ball-0001.json"],
      "submit of a 2e8-sphere scene: exit %d: %s" % (p.returncode, p.stderr[-500:]))
p = run_talus(TALUS, [SCENE, "-o", os.path.join(WORK, "large-run"), "-set", "generators.0.lattice.count=[10000,10000,2]"], timeout=60)
check(p.returncode == 1 and "2e+08 bodies on 1 rank would need about 440 GB a rank" in p.stderr,
      "a run of the 2e8-sphere scene on 1 rank: exit %d: %s" % (p.returncode, p.stderr[-500:]))

before = jobs()
afile = os.path.join(WORK, "afile")
open(afile, "w").close()
BAD = [
    (["submit", CAMPAIGN, SCENE, "-sweep", "materials.rough.mu="], "give PATH=V1,V2,... (at least one value)"),
    (["submit", CAMPAIGN, SCENE, "-sweep", "materials.rough.mu=0.1,,0.3"], "an empty value in the list"),
    (["submit", CAMPAIGN, SCENE, "-sweep", "materials.rough.mu=0.1,0.3,0.1"], "the value 0.1 is given twice"),
    (["submit", CAMPAIGN, SCENE, "-sweep", "materials.sand.mu=0.1,0.2"], "the scene has no \"sand\" there"),
    (["submit", CAMPAIGN, SCENE, "-sweep", "materials.rough.mu=0.1,-1", "-sweep", "end_time=1,2"],
     "materials.rough.mu=-1: friction coefficient mu must be >= 0"),
    (["submit", CAMPAIGN, SCENE, "-set", "generators.0.lattice.spacing=0.1"], "spheres of radius 0.1 overlap at spacing 0.1"),
    (["submit", CAMPAIGN, SCENE, "-sweep"], "-sweep needs PATH=VALUE after it"),
    (["submit", afile, SCENE], "is a file, not a directory"),
    (["submit", CAMPAIGN, os.path.join(WORK, "none.yaml")], "cannot open the scene file"),
    (["submit", CAMPAIGN], "give the campaign's directory and the scene"),
    (["submit", CAMPAIGN, SCENE, "-nmae", "x"], "did you mean -name?"),
    (["submit", CAMPAIGN, SCENE, "-name", "a/b"], "-name \"a/b\" cannot name jobs"),
    (["submit", CAMPAIGN, SCENE, "-name", "x" * 101], "must be 1 to 100 letters"),
    ([SCENE, "-sweep", "materials.rough.mu=0.1,0.2"], "-sweep makes the jobs of a campaign"),
]
for args, expected in BAD:
    p = run_talus(TALUS, args)
    check(p.returncode == 1 and expected in p.stderr, "%s: expected '%s', got %d: %s"
          % (args[3:] or args, expected, p.returncode, p.stderr.strip()[-300:]))
check(jobs() == before, "refused submits wrote jobs: %s" % sorted(set(jobs()) - set(before)))
sys.exit(check.finish())
