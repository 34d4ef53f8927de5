#include "mlp/cpu_threads.hpp"

#include <algorithm>

namespace hdbench {

int sweep_ceiling(int cores) { return cores > 2 ? cores - 1 : std::max(1, cores); }

std::vector<int> thread_sweep_counts(int cores) {
  const int ceiling = sweep_ceiling(cores);
  std::vector<int> counts;
  for (int t = 1; t < ceiling; t *= 2) counts.push_back(t);
  counts.push_back(ceiling);
  return counts;
}

int choose_threads(std::span<const ThreadTiming> timings, double tolerance) {
  // The fastest count's noise only: taken inside the search, every count that was the
  // fastest so far widened it (1 thread's 11% on the 16-vCPU host let 8 threads win).
  const ThreadTiming* fastest_timing = nullptr;
  for (const ThreadTiming& t : timings) {
    if (t.seconds_per_step > 0 && t.threads > 0 &&
        (fastest_timing == nullptr || t.seconds_per_step < fastest_timing->seconds_per_step)) {
      fastest_timing = &t;
    }
  }
  if (fastest_timing == nullptr) return 0;
  const double fastest = fastest_timing->seconds_per_step;
  tolerance = std::max(tolerance, fastest_timing->noise);
  int chosen = 0;
  for (const ThreadTiming& t : timings) {
    if (t.seconds_per_step <= 0 || t.threads <= 0 || t.seconds_per_step > fastest * (1.0 + tolerance)) continue;
    if (chosen == 0 || t.threads < chosen) chosen = t.threads;
  }
  return chosen;
}

ThreadChoice sweep_threads(int cores, const std::function<double(int threads)>& seconds_per_step, double tolerance,
                           int rounds) {
  const std::vector<int> counts = thread_sweep_counts(cores);
  std::vector<std::vector<double>> measured(counts.size());
  for (int round = 0; round < std::max(1, rounds); ++round) {
    for (std::size_t i = 0; i < counts.size(); ++i) measured[i].push_back(seconds_per_step(counts[i]));
  }
  ThreadChoice choice;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::vector<double>& m = measured[i];
    std::sort(m.begin(), m.end());
    const double median = m.size() % 2 ? m[m.size() / 2] : 0.5 * (m[m.size() / 2 - 1] + m[m.size() / 2]);
    // One round a host disturbed (a slow one: a host never speeds a step up) is left out of
    // the noise where there are four or more: on the H200's host one such round at 15
    // threads read as 21.7% noise, let 8 threads win within it, and the next run chose 15.
    const double slowest = m.size() >= 4 ? m[m.size() - 2] : m.back();
    choice.sweep.push_back({counts[i], median, median > 0 ? (slowest - m.front()) / median : 0.0});
  }
  choice.threads = choose_threads(choice.sweep, tolerance);
  return choice;
}

int epoch_step_threads(int chosen, int cores, int loader_workers) {
  const int left = std::max(1, cores - std::max(0, loader_workers));
  return std::clamp(chosen, 1, left);
}

}  // namespace hdbench
