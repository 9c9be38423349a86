"""Helpers shared by scripts/reproduce-seed00N: run talus on a scene, read its CSV outputs, write
generated scenes under the output directory."""
import csv
import os
import subprocess
import sys


def run(talus, scene, out, *extra):
    """talus SCENE -o OUT EXTRA...; exits with talus's message when it fails."""
    cmd = [talus, scene, "-o", out] + list(extra)
    print("+", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit("%s: talus failed (exit %d): %s\n%s" % (os.path.basename(sys.argv[0]), p.returncode, " ".join(cmd),
                                                        p.stderr[-3000:]))
    return out


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def column(table, name):
    import numpy as np
    return np.array([float(r[name]) for r in table])


def write_scene(out_dir, name, text):
    path = os.path.join(out_dir, "scenes", name + ".yaml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path
