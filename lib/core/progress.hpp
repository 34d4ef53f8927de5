// Progress of a long run on stderr: benchmarks done of the total, elapsed and
// estimated remaining time, redrawn on one line. Only when stderr is a terminal, so
// logs and pipes stay clean.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/timing.hpp"

namespace hdbench {

// How many of `names` Google Benchmark will run for --benchmark_filter=`filter`: its
// rules (an extended regex searched in the name; a leading '-' negates it; empty,
// "." and "all" select everything). Throws std::regex_error for a bad pattern.
std::size_t count_selected(const std::vector<std::string>& names, std::string_view filter);

// "[ 12/229]  1m05s elapsed, ~9m20s left  NAME" (no estimate before the first is done).
std::string progress_line(std::size_t done, std::size_t total, double elapsed_seconds, std::string_view name);

class Progress {
 public:
  // Draws nothing unless `enabled` (main passes isatty(stderr)).
  Progress(std::size_t total, bool enabled);
  // A benchmark reported runs (repetitions and aggregates count once per name).
  void finished(const std::string& run_name);
  // Clears the line.
  void end();

 private:
  std::size_t total_;
  bool enabled_;
  std::set<std::string> done_;
  HostTimer timer_;
};

}  // namespace hdbench
