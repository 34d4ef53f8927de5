#include "core/timing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hdbench {

SampleStats summarize(std::vector<double> samples) {
  SampleStats stats;
  stats.count = samples.size();
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  stats.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  stats.min = samples.front();
  stats.max = samples.back();
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n >= 2) {
    double sum_sq = 0.0;
    for (double s : samples) sum_sq += (s - stats.mean) * (s - stats.mean);
    stats.stddev = std::sqrt(sum_sq / static_cast<double>(n - 1));
    stats.cv = stats.mean != 0.0 ? stats.stddev / stats.mean : 0.0;
  }
  return stats;
}

}  // namespace hdbench
