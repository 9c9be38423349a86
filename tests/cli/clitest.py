"""Shared helpers of the command-line tests: counted checks, running talus (optionally under mpirun),
reading FCLib's sparse matrices, editing a checkpoint's values with their checksums."""
import os
import subprocess
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# For runs that stop on a signal or a time limit with exit status 75, each rank after writing its part of a
# checkpoint: mpirun's default grace of 1 s before it kills the ranks still finishing (the test suite's
# environment sets 0, so that a refusal on 2 ranks ends at once instead of 1-2 s later).
GRACEFUL_ENV = dict(ENV, OMPI_MCA_odls_base_sigkill_timeout="1")


def env_for(ranks, session):
    """The environment of a talus run: one started without mpirun runs as an isolated singleton (Open MPI starts
    no daemon for it: 0.21 -> 0.09 s a start, and the suite starts talus some hundreds of times on one rank) in
    a session directory of its own (isolated singletons share one name, jf.0, under the common one: a run that
    ended removed it while another created it, and orte_init failed)."""
    if ranks:
        return ENV
    return dict(ENV, OMPI_MCA_ess_singleton_isolated="1", OMPI_MCA_orte_tmpdir_base=session)


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
    """talus ARGS (under mpirun -n RANKS when given); a run of more than 2 s says what it was and how long it took,
    so that a test's log shows where its time goes"""
    import tempfile
    cmd = [talus] + args
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)] + cmd
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="talus-ompi-") as session:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env_for(ranks, session), timeout=timeout)
    if ranks and p.returncode < 0:
        # mpirun itself killed by a signal (a rank's crash makes it exit with a status, not die): Open MPI's PMIx
        # server crashed once in a suite (SIGSEGV in pmix_ptl_base_process_msg as two ranks aborted at once, 0 of
        # 20 again); the run is made once more, and a second death fails the test as before
        print("clitest: mpirun died of signal %d (its own crash, not a rank's): run again" % -p.returncode)
        with tempfile.TemporaryDirectory(prefix="talus-ompi-") as session:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env_for(ranks, session), timeout=timeout)
    if time.time() - start > 2.0:
        print("  %5.1f s: %s%s" % (time.time() - start, "%s ranks: " % ranks if ranks else "", " ".join(args)[:160]))
    return p


def run_all(talus, jobs, workers=4, timeout=600):
    """run() of each (args, ranks) of jobs, `workers` at a time; their processes in the order of jobs. For the many
    short runs a test makes to check refusals: each spends most of its half second starting MPI and PETSc, not
    computing, so running them side by side takes a fraction of the time one after the other does."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run(talus, job[0], job[1], timeout), jobs))


def restart_differs(talus, out, again, from_step, to_step, keys, ranks=None):
    """Restarts run `out` from its checkpoint at from_step into `again`; returns (the restart's process, the
    datasets among keys whose values at to_step differ from the run's that never stopped, None when the
    restart failed)."""
    import h5py
    import numpy as np
    name = "ckpt-%08d.h5"
    p = run(talus, ["-restart", os.path.join(out, "checkpoints", name % from_step), "-o", again], ranks)
    if p.returncode:
        return p, None
    with h5py.File(os.path.join(out, "checkpoints", name % to_step), "r") as a, \
            h5py.File(os.path.join(again, "checkpoints", name % to_step), "r") as b:
        return p, [k for k in keys if not np.array_equal(a[k][()], b[k][()])]


def checksum(values):
    """A checkpoint dataset's checksum (docs/checkpoint-format.md), for values edited by a test."""
    import numpy as np
    raw = np.ascontiguousarray(values)
    x = (raw.view(np.uint64) if raw.dtype.itemsize == 8 else raw.astype(np.uint64)).ravel().copy()
    with np.errstate(over="ignore"):
        x ^= (np.arange(1, x.size + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        x ^= x >> np.uint64(32)
        x *= np.uint64(0xD6E8FEB86659FD93)
        x ^= x >> np.uint64(32)
        return np.uint64(x.sum(dtype=np.uint64))


def set_values(f, name, change):
    """Dataset `name` of the open checkpoint f changed in place by change(values), its checksum kept valid:
    a crafted checkpoint only the reader's checks of sense can refuse."""
    d = f[name]
    v = d[()].copy()
    change(v)
    d[...] = v
    d.attrs.modify("checksum", checksum(v))


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


def slurm_stand_ins(work):
    """squeue and scontrol stand-ins in WORK/slurm-stand-ins: squeue prints what WORK/slurm-stand-ins/left
    holds (the time left, %L), scontrol appends its arguments to WORK/scontrol.log. Returns (the
    directory to put first on PATH, the log)."""
    fake_bin = os.path.join(work, "slurm-stand-ins")
    os.makedirs(fake_bin)
    requeued = os.path.join(work, "scontrol.log")
    open(os.path.join(fake_bin, "squeue"), "w").write("#!/bin/sh\ncat %s/left\n" % fake_bin)
    open(os.path.join(fake_bin, "scontrol"), "w").write("#!/bin/sh\necho \"$@\" >> %s\n" % requeued)
    for f in ("squeue", "scontrol"):
        os.chmod(os.path.join(fake_bin, f), 0o755)
    return fake_bin, requeued
