// The CPU step's thread count. More threads are not always faster: a small model's
// GEMMs split into shares too thin to pay for the hand-offs (784x32x10 batch 128 on
// the H100's 16-core host: 8 threads 224 us, 16 threads 247 us). By default the step
// runs with the fastest of a short sweep (1, 2, 4, ... up to the cores), measured once
// per model and batch; --hdbench_mlp_threads=LIST runs the counts given instead.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace hdbench {

// 1, 2, 4, ... below `cores`, then `cores` itself (a count of 1 or less: {1}).
std::vector<int> thread_sweep_counts(int cores);

struct ThreadTiming {
  int threads = 0;
  double seconds_per_step = 0.0;
};

// The count to run with: the fastest, except that fewer threads within `tolerance`
// (a fraction) of the fastest win, since they leave cores free and the difference is
// within the sweep's noise. Timings that are not positive are ignored; 0 when none is.
int choose_threads(std::span<const ThreadTiming> timings, double tolerance = 0.02);

struct ThreadChoice {
  int threads = 0;
  std::vector<ThreadTiming> sweep;  // in the order measured
};

// Measures `seconds_per_step(threads)` for each of thread_sweep_counts(cores) and
// chooses among them.
ThreadChoice sweep_threads(int cores, const std::function<double(int threads)>& seconds_per_step,
                           double tolerance = 0.02);

}  // namespace hdbench
