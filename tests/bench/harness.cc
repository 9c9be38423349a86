// Maps the C benchmarks of harness.h onto Google Benchmark. This is the only C++ in talus.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "harness.h" // declares its functions extern "C" itself
#include <talus.h>      // PETSc headers handle C++ themselves

struct TalusBench {
  benchmark::State *state;
};

extern "C" int TalusBenchKeepRunning(TalusBench *b)
{
  // Google Benchmark's loop: the first call starts the timer, the last one stops it.
  return b->state->KeepRunning() ? 1 : 0;
}

extern "C" long TalusBenchArg(TalusBench *b, int index)
{
  return static_cast<long>(b->state->range(index));
}

extern "C" void TalusBenchSetItems(TalusBench *b, double items)
{
  b->state->SetItemsProcessed(static_cast<int64_t>(items * static_cast<double>(b->state->iterations())));
}

extern "C" void TalusBenchSetBytes(TalusBench *b, double bytes)
{
  b->state->SetBytesProcessed(static_cast<int64_t>(bytes * static_cast<double>(b->state->iterations())));
}

extern "C" void TalusBenchReportNanosecondsPer(TalusBench *b, const char *name, double items)
{
  // time / (items * 1e-9) = nanoseconds per item, per pass
  b->state->counters[name] = benchmark::Counter(items * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

extern "C" void TalusBenchReportValue(TalusBench *b, const char *name, double value)
{
  b->state->counters[name] = benchmark::Counter(value);
}

extern "C" void TalusBenchFail(TalusBench *b, const char *message)
{
  b->state->SkipWithError(message);
}

extern "C" void TalusBenchRegister(const char *name, TalusBenchFunction fn, const long *args, int nargs)
{
  auto *bm = benchmark::RegisterBenchmark(name, [fn](benchmark::State &state) {
    TalusBench b{&state};
    fn(&b);
  });
  for (int k = 0; k < nargs; k++) bm->Arg(args[k]);
  bm->Unit(benchmark::kMillisecond)->UseRealTime();
}

extern "C" void TalusBenchRegisterParallel(const char *name, TalusBenchFunction fn, const long *args, int nargs, int passes)
{
  auto *bm = benchmark::RegisterBenchmark(name, [fn](benchmark::State &state) {
    TalusBench b{&state};
    fn(&b);
  });
  for (int k = 0; k < nargs; k++) bm->Arg(args[k]);
  bm->Iterations(passes)->Unit(benchmark::kMillisecond)->UseRealTime();
}

// What ranks other than 0 report: nothing (rank 0 speaks for the run).
class SilentReporter : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &) override { }
};

int main(int argc, char **argv)
{
  int rank = 0, status;

  // MPI first, so that ranks other than 0 can drop --benchmark_out before Google Benchmark opens
  // (and truncates) the file rank 0 writes. PETSc then uses this MPI and leaves finalizing it to us.
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank > 0) {
    int kept = 1;
    for (int k = 1; k < argc; k++)
      if (std::string(argv[k]).rfind("--benchmark_out", 0) != 0) argv[kept++] = argv[k];
    argc = kept;
  }
  // Google Benchmark takes its --benchmark_* flags out of argv; PETSc gets the rest.
  benchmark::Initialize(&argc, argv);
  if (TalusInitialize(&argc, &argv, nullptr)) {
    MPI_Finalize();
    return 1;
  }
  TalusBenchRegisterAll();
  if (rank == 0) benchmark::RunSpecifiedBenchmarks();
  else {
    SilentReporter display;
    benchmark::RunSpecifiedBenchmarks(&display);
  }
  benchmark::Shutdown();
  TalusBenchCleanup();
  status = TalusFinalize() ? 1 : 0;
  MPI_Finalize();
  return status;
}
