// Progress of a long run on stderr: benchmarks done of the total, elapsed and
// estimated remaining time, redrawn on one line. Only when stderr is a terminal, so
// logs and pipes stay clean.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/stopping_rule.hpp"
#include "core/timing.hpp"

namespace hdbench {

// How many of `names` Google Benchmark will run for --benchmark_filter=`filter`: its
// rules (an extended regex searched in the name; a leading '-' negates it; empty,
// "." and "all" select everything). Throws std::regex_error for a bad pattern.
std::size_t count_selected(const std::vector<std::string>& names, std::string_view filter);

// A time estimate made before the first benchmark: each of `runnable` benchmarks
// spends about kTrialFactor x min_time (Google Benchmark's trials: the last aims at
// 1.4 x min_time, the earlier ones add up to less than one more min_time) plus its
// set-up (allocations, warm-ups, a loader's threads); a skipped one costs nothing.
inline constexpr double kTrialFactor = 2.0;
inline constexpr double kSetupSeconds = 0.05;
double estimate_seconds(std::size_t runnable, double min_time_seconds);
// "227 benchmarks (12 skipped), about 16m00s at --benchmark_min_time=0.1 s"
std::string plan_line(std::size_t total, std::size_t skipped, double min_time_seconds, double budget_minutes);
// With the stopping rule each benchmark samples for at most rule.timeout_seconds (it
// stops sooner once the noise target is met; only a single sample longer than the
// timeout overruns it) plus its set-up (kSetupSeconds, an estimate): a ceiling on the
// sampling, where Google Benchmark's estimate is a guess.
double estimate_seconds(std::size_t runnable, const StoppingRule& rule);
// "55 benchmarks to run, at most 17s (0.25 s of sampling + ~0.05 s set-up each; sooner
// once 5+ samples are within 2% noise)"; Google Benchmark's line when the rule is off.
std::string plan_line(std::size_t total, std::size_t skipped, const StoppingRule& rule, double min_time_seconds,
                      double budget_minutes);

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
