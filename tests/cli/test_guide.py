"""The guide's tutorials (docs/guide/*.md) run as written: each page's ```sh blocks, in order, as one bash
script in an empty directory, with the page's scenes shortened by the substitutions below (each must be found,
so that a page and its test change together) and `talus` the build's. Then the files the page promises exist."""
import os
import re
import subprocess
import sys

from clitest import ENV, Checks

talus, root, scratch = sys.argv[1:4]
guide = os.path.join(root, "docs", "guide")
SETUP = 'export TALUS=/path/to/talus\nexport PATH="$TALUS/build:$TALUS/scripts:$PATH"\n'

# page: (substitutions that shorten it, files it leaves behind)
PAGES = {
    "first-bed.md": ([("end_time: 2.0", "end_time: 0.3"), ("-checkpoint_every 50", "-checkpoint_every 10"),
                      ("-t_final 3", "-t_final 0.4"), ("end_time: 1.0", "end_time: 0.05")],
                     ["out/bed/summary.json", "out/bed/checkpoints/last.h5", "out/ball-on-bed/probe-5.csv"]),
    "mechanism.md": ([("end_time: 2.0", "end_time: 0.3"), ("-set end_time=1.0", "-set end_time=0.1")],
                     ["out/arm/joints.csv", "out/arm-fast/summary.json"]),
    "wheel-rig.md": ([("talus rigid-ground.yaml\n", "talus rigid-ground.yaml -t_final 0.05\n"), ("--end 0.4", "--end 0.05")],
                     ["out/wheel-rig-rigid/rig.csv", "sweep/sweep.csv"]),
    "campaign.md": ([("end_time: 4.0", "end_time: 0.2")], ["friction.csv", "iterations.png"]),
}

checks = Checks("guide")
pages = sorted(p for p in os.listdir(guide) if p.endswith(".md") and p != "README.md")
checks(pages == sorted(PAGES), "every guide page has its entry here: pages %s, entries %s" % (pages, sorted(PAGES)))
bin_dir = os.path.join(scratch, "bin")
os.makedirs(bin_dir, exist_ok=True)
if not os.path.lexists(os.path.join(bin_dir, "talus")):
    os.symlink(os.path.abspath(talus), os.path.join(bin_dir, "talus"))
env = dict(ENV, OMPI_MCA_rmaps_base_oversubscribe="1", TALUS_GUIDE_TEST="1")
for page in pages:
    if page not in PAGES:
        continue
    text = open(os.path.join(guide, page)).read()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    script = "".join(blocks)
    checks(script.startswith(SETUP), "%s begins with the guide's two setup lines" % page)
    script = script.replace(SETUP, 'export TALUS=%s\nexport PATH="%s:$TALUS/scripts:$PATH"\n' % (root, bin_dir), 1)
    substitutions, promised = PAGES[page]
    for old, new in substitutions:
        checks(old in script, "%s: '%s' is on the page (the test shortens it)" % (page, old))
        script = script.replace(old, new)
    where = os.path.join(scratch, page[:-3])
    subprocess.run(["rm", "-rf", where])
    os.makedirs(where)
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=where, env=env, capture_output=True, text=True,
                       timeout=600)
    checks(p.returncode == 0, "%s runs as written (exit status %d): %s" % (page, p.returncode, (p.stdout + p.stderr)[-2000:]))
    # the page's commands ran in the directory it made first (mkdir X && cd X)
    made = re.search(r"mkdir (\S+) && cd \1", script)
    top = os.path.join(where, made.group(1)) if made else where
    for f in promised:
        checks(os.path.exists(os.path.join(top, f)), "%s leaves %s" % (page, f))
sys.exit(checks.finish())
