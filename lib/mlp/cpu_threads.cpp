#include "mlp/cpu_threads.hpp"

#include <algorithm>
#include <limits>

namespace hdbench {

std::vector<int> thread_sweep_counts(int cores) {
  std::vector<int> counts;
  for (int t = 1; t < cores; t *= 2) counts.push_back(t);
  counts.push_back(std::max(1, cores));
  return counts;
}

int choose_threads(std::span<const ThreadTiming> timings, double tolerance) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const ThreadTiming& t : timings)
    if (t.seconds_per_step > 0 && t.threads > 0) fastest = std::min(fastest, t.seconds_per_step);
  int chosen = 0;
  for (const ThreadTiming& t : timings) {
    if (t.seconds_per_step <= 0 || t.threads <= 0 || t.seconds_per_step > fastest * (1.0 + tolerance)) continue;
    if (chosen == 0 || t.threads < chosen) chosen = t.threads;
  }
  return chosen;
}

ThreadChoice sweep_threads(int cores, const std::function<double(int threads)>& seconds_per_step, double tolerance) {
  ThreadChoice choice;
  for (int threads : thread_sweep_counts(cores)) choice.sweep.push_back({threads, seconds_per_step(threads)});
  choice.threads = choose_threads(choice.sweep, tolerance);
  return choice;
}

}  // namespace hdbench
