/*
 * Benchmarks written in C, run by Google Benchmark through harness.cc (the project's only C++).
 *
 * A benchmark is a function that does its set-up, then loops while TalusBenchKeepRunning() and
 * reports what one loop pass processed:
 *
 *   static void BenchFoo(TalusBench *b) {
 *     PetscInt n = (PetscInt)TalusBenchArg(b, 0);
 *     ... set up ...
 *     while (TalusBenchKeepRunning(b)) { ... the work ... }
 *     TalusBenchSetItems(b, n);           items per pass -> items_per_second
 *     TalusBenchSetBytes(b, 56.0 * n);    bytes the pass must move -> bytes_per_second
 *   }
 *
 * and is registered from TalusBenchRegisterAll() with TalusBenchRegister().
 * PETSc and MPI are initialised by the harness before any benchmark runs.
 */
#ifndef TALUS_BENCH_HARNESS_H
#define TALUS_BENCH_HARNESS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TalusBench TalusBench;
typedef void (*TalusBenchFunction)(TalusBench *);

int  TalusBenchKeepRunning(TalusBench *);
long TalusBenchArg(TalusBench *, int index);
void TalusBenchSetItems(TalusBench *, double items_per_pass);
void TalusBenchSetBytes(TalusBench *, double bytes_per_pass);
/* A named figure reported per item of the pass, in nanoseconds (e.g. "ns_per_contact"). */
void TalusBenchReportNanosecondsPer(TalusBench *, const char *name, double items_per_pass);
/* A plain named figure (e.g. bytes moved per contact). */
void TalusBenchReportValue(TalusBench *, const char *name, double value);
void TalusBenchFail(TalusBench *, const char *message);

/* args: the values of argument 0 to run with (e.g. problem sizes); nargs may be 0. */
void TalusBenchRegister(const char *name, TalusBenchFunction, const long *args, int nargs);
/*
 * A benchmark that runs on every rank of PETSC_COMM_WORLD (mpirun -n P talus_bench): it makes a
 * fixed number of passes, so that every rank runs the same collective loop (Google Benchmark's
 * timed loops would stop each rank after a different number). Rank 0 reports.
 */
void TalusBenchRegisterParallel(const char *name, TalusBenchFunction, const long *args, int nargs, int passes);

/* Defined by the benchmark files (benchmarks.c): registers every benchmark. */
void TalusBenchRegisterAll(void);
/* Defined by sim_benchmarks.c: the simulator's phases on a packed bed (one rank), and the parallel
   benchmarks; called by TalusBenchRegisterAll. */
void TalusBenchRegisterSimulation(void);
void TalusBenchRegisterParallelSimulation(void);
/* Defined by solver_benchmarks.c: every solver on the FCLib problems to a tolerance; its cleanup. */
void TalusBenchRegisterSolvers(void);
void TalusBenchCleanupSolvers(void);
/* Defined by the benchmark files: frees what the benchmarks cached, before PETSc shuts down. */
void TalusBenchCleanup(void);

#ifdef __cplusplus
}
#endif
#endif
