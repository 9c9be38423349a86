"""Shared helpers of the command-line tests: counted checks, running talus (optionally under mpirun),
reading FCLib's sparse matrices."""
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


def fclib_matrix(g):
    """An FCLib sparse matrix group (m, n, nz, p, i, x; nz = -1 CSC, -2 CSR, >= 0 triplets with i
    rows and p columns) as a scipy CSR matrix."""
    import scipy.sparse as sp
    m, n, nz = (int(g[k][()].ravel()[0]) for k in ("m", "n", "nz"))
    p, i, x = g["p"][()], g["i"][()], g["x"][()]
    if nz >= 0:
        return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsr()
    if nz == -1:
        return sp.csc_matrix((x, i, p), shape=(m, n)).tocsr()
    return sp.csr_matrix((x, i, p), shape=(m, n))
