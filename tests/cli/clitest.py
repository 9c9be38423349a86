"""Shared helpers of the command-line tests: counted checks and running talus (optionally under mpirun)."""
import os
import subprocess

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


class Checks:
    def __init__(self, name):
        self.name, self.count, self.failures = name, 0, []

    def __call__(self, cond, what):
        self.count += 1
        if not cond:
            self.failures.append(what)
            print("FAIL", what)

    def finish(self):
        print("%s: %d checks, %d failed" % (self.name, self.count, len(self.failures)))
        return 1 if self.failures else 0


def run(talus, args, ranks=None, timeout=600):
    cmd = [talus] + args
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout)
