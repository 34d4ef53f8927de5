// The CPU step's thread count. More threads are not always faster: a small model's
// GEMMs split into shares too thin to pay for the hand-offs (784x32x10 batch 128 on
// the H100's 16-core host: 8 threads 224 us, 16 threads 247 us). By default the step
// runs with the fastest of a short sweep (1, 2, 4, ... up to all cores but one, which
// the run's own threads need: the GPU sampler, the progress line, CUPTI), measured per
// model and batch in interleaved rounds so a busy spell on the host touches every count
// alike, and chosen by the median with its noise, not by one fast sample;
// --hdbench_mlp_threads=LIST runs the counts given instead.
//
// The choice leans to fewer threads: more must be faster by more than 5% (or than the
// fastest count's own noise, if larger). On the H200's 16-vCPU host 784x32x10 at batch
// 1024 ran 561 us at 8 threads and 549 us at 15, and the old 2% margin chose 8 in one run
// and 15 in the next; a step's median moves by more than 2% from run to run there
// (561 us in the sweep, 611 us timed). Simulated on that sweep's medians and round
// noise, 2% and 3 rounds chose 15 in 24% of runs; 5% and 5 rounds in 1%
// (tests/cpu/mlp/test_cpu_threads.cpp). The noise leaves the slowest round out: on the
// H200 host of 2026-11-27 one slow round at 15 threads (21.7% noise) let 8 threads win
// at batch 128 where the default run, the same hour, chose 15.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace hdbench {

// The most threads the sweep tries: all cores but one on a host of three or more.
int sweep_ceiling(int cores);
// 1, 2, 4, ... below sweep_ceiling(cores), then the ceiling itself (a count of 1 or less: {1}).
std::vector<int> thread_sweep_counts(int cores);

inline constexpr int kSweepRounds = 5;
// How much faster more threads must be to win, at least (a fraction).
inline constexpr double kSweepTolerance = 0.05;

struct ThreadTiming {
  int threads = 0;
  double seconds_per_step = 0.0;  // the median over the rounds
  double noise = 0.0;             // (slowest - fastest round) / median, the slowest round left out of 4 or more
};

// The count to run with: the fastest, except that fewer threads within the tolerance of
// the fastest win, since they leave cores free and the difference is within the sweep's
// noise. The tolerance is `tolerance` (a fraction) or the fastest count's own noise,
// whichever is larger. Timings that are not positive are ignored; 0 when none is.
int choose_threads(std::span<const ThreadTiming> timings, double tolerance = kSweepTolerance);

struct ThreadChoice {
  int threads = 0;
  std::vector<ThreadTiming> sweep;  // in the order measured
};

// Measures `seconds_per_step(threads)` for each of thread_sweep_counts(cores), `rounds`
// times over (1, 2, 4, 1, 2, 4, ...), and chooses among the medians.
ThreadChoice sweep_threads(int cores, const std::function<double(int threads)>& seconds_per_step,
                           double tolerance = kSweepTolerance, int rounds = kSweepRounds);

// The CPU step's threads in an epoch, beside `loader_workers` loader threads: the sweep's
// `chosen` count (measured with every core but one free), cut to the cores the workers
// leave, at least 1. The sweep's 15 threads on the H200's 16-vCPU host plus 2 workers
// and the consumer's wake-ups put 17 busy threads on 16 CPUs: each of the step's ~10
// team runs a batch waits for its slowest part, and a part whose thread a loader worker
// has preempted holds the whole team (spinning, then asleep) for a scheduler slice; the
// epoch that took 46-75 ms a sample beside it ran for minutes.
int epoch_step_threads(int chosen, int cores, int loader_workers);

}  // namespace hdbench
