// How long a benchmark measures: nvbench's stopping rule instead of Google Benchmark's
// growing trials. Google Benchmark finds an iteration count by calling a benchmark
// function again and again (1, 10, 100, … iterations) until the summed manual time
// reaches --benchmark_min_time, and every call repeats the benchmark's set-up
// (allocation, pinning, warm-up, verification). With the rule, a benchmark runs one
// trial of one iteration (main passes --benchmark_min_time=0, so the first trial is
// final; see Suite::add) and that iteration takes samples until there are at least
// min_samples and their relative noise (stdev / mean) is at most the target, or until
// the wall time spent sampling reaches the timeout; the iteration's manual time is the
// median sample, so Google Benchmark's Time column and bytes/items per second stay
// per-sample figures.
//
// Every benchmark loop calls run_samples (or time_grouped_calls, grouped_timing.hpp);
// without the rule (--benchmark_min_time given, or --hdbench_noise_target=0) it is
// Google Benchmark's loop: one sample per iteration, that sample the iteration's time.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace benchmark {
class State;
}

namespace hdbench {

struct StoppingRule {
  // The declared defaults are the full preset's; quick and default replace them.
  int min_samples = 20;
  double noise_target_percent = 0.5;  // stdev / mean of the samples, in percent
  double timeout_seconds = 5.0;       // wall time spent sampling, per benchmark run
  bool enabled = true;                // false: Google Benchmark's own rule
};

// Seconds on a monotonic clock; tests pass a fake one.
using WallClock = std::function<double()>;
WallClock steady_wall_clock();

// Why a rule stopped, and the noise it reached (for the counters and for tests).
struct StoppingOutcome {
  std::size_t samples = 0;
  double noise_percent = 0.0;  // 0 for fewer than two samples
  double median_seconds = 0.0;
  bool stopped_at_timeout = false;  // the timeout came before min_samples at the target noise
};

// Takes samples under `rule` until it is satisfied or its timeout passes (at least
// one sample always); `sample` runs one sample and returns its seconds.
StoppingOutcome sample_until_stopped(const StoppingRule& rule, const WallClock& clock,
                                     const std::function<double()>& sample, std::vector<double>& seconds);

// Runs the iterations of `state`, returning every sample's seconds (for the family's
// counters). Rule enabled: each iteration (one, as hdbench runs it) samples
// until the rule stops, reports the median sample as its manual time, and writes the
// counters noise_percent, noise_target_percent and stopped_at_timeout (1 or 0).
// Disabled: one sample per iteration, reported as its manual time.
std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule, const WallClock& clock,
                                const std::function<double()>& sample);
// The same under the rule in force (StoppingRuleScope); none in force: disabled.
std::vector<double> run_samples(benchmark::State& state, const std::function<double()>& sample);

// Puts `rule` (and the clock its timeout reads) in force on this thread while it
// lives: Suite::add holds one around each call of a benchmark function.
class StoppingRuleScope {
 public:
  explicit StoppingRuleScope(const StoppingRule& rule, WallClock clock = steady_wall_clock());
  ~StoppingRuleScope();
  StoppingRuleScope(const StoppingRuleScope&) = delete;
  StoppingRuleScope& operator=(const StoppingRuleScope&) = delete;

 private:
  StoppingRule rule_;
  WallClock clock_;
  const StoppingRuleScope* previous_;
  friend std::vector<double> run_samples(benchmark::State&, const std::function<double()>&);
};

// Relative noise in percent of `seconds` (sample stdev / mean), 0 for fewer than two.
double noise_percent(const std::vector<double>& seconds);

}  // namespace hdbench
