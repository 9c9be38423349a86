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

int main(int argc, char **argv)
{
  // Google Benchmark takes its --benchmark_* flags out of argv; PETSc gets the rest.
  benchmark::Initialize(&argc, argv);
  if (TalusInitialize(&argc, &argv, nullptr)) return 1;
  TalusBenchRegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  TalusBenchCleanup();
  return TalusFinalize() ? 1 : 0;
}
