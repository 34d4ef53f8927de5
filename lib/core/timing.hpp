// Summaries of repeated measurements, and the host clock for host-only work.
// Device work is timed with CUDA events (cuda.hpp: Event, elapsed_ms).
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace hdbench {

struct SampleStats {
  std::size_t count = 0;
  double median = 0.0;
  double mean = 0.0;
  double min = 0.0;
  double max = 0.0;
  double stddev = 0.0;  // sample standard deviation (n - 1)
  double cv = 0.0;      // stddev / mean; 0 for fewer than two samples
};

// Summarises samples (any unit); an empty input gives count == 0 and zeros.
SampleStats summarize(std::vector<double> samples);

// A spread above this is called out in the report and on the console.
inline constexpr double kLargeSpreadCv = 0.05;

class HostTimer {
 public:
  HostTimer() : start_(Clock::now()) {}
  void restart() { start_ = Clock::now(); }
  double elapsed_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

}  // namespace hdbench
