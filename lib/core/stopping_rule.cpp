#include "core/stopping_rule.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>

#include "core/timing.hpp"

namespace hdbench {
namespace {

// The rule in force on this thread (benchmarks run one at a time on the main thread).
thread_local const StoppingRuleScope* active_scope = nullptr;

// Mean and variance in one pass (Welford), so checking the noise after every sample
// costs O(1) however many samples a fast benchmark takes before its timeout.
class RunningNoise {
 public:
  void add(double x) {
    ++n_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (x - mean_);
  }
  std::size_t count() const { return n_; }
  double percent() const {
    if (n_ < 2 || mean_ == 0.0) return 0.0;
    return 100.0 * std::sqrt(m2_ / static_cast<double>(n_ - 1)) / std::fabs(mean_);
  }

 private:
  std::size_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

}  // namespace

WallClock steady_wall_clock() {
  return [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
}

double noise_percent(const std::vector<double>& seconds) { return 100.0 * summarize(seconds).cv; }

StoppingOutcome sample_until_stopped(const StoppingRule& rule, const WallClock& clock,
                                     const std::function<double()>& sample, std::vector<double>& seconds) {
  const std::size_t first = seconds.size();
  const std::size_t min_samples = static_cast<std::size_t>(rule.min_samples < 1 ? 1 : rule.min_samples);
  const double started = clock();
  RunningNoise noise;
  bool satisfied = false;
  for (;;) {
    const double s = sample();
    seconds.push_back(s);
    noise.add(s);
    if (noise.count() >= min_samples && noise.percent() <= rule.noise_target_percent) {
      satisfied = true;
      break;
    }
    if (clock() - started >= rule.timeout_seconds) break;
  }
  const SampleStats stats = summarize(std::vector<double>(seconds.begin() + static_cast<std::ptrdiff_t>(first), seconds.end()));
  StoppingOutcome outcome;
  outcome.samples = stats.count;
  outcome.noise_percent = 100.0 * stats.cv;
  outcome.median_seconds = stats.median;
  outcome.stopped_at_timeout = !satisfied;
  return outcome;
}

std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule, const WallClock& clock,
                                const std::function<double()>& sample) {
  std::vector<double> seconds;
  if (!rule.enabled) {
    for (auto _ : state) {
      const double s = sample();
      state.SetIterationTime(s);
      seconds.push_back(s);
    }
    return seconds;
  }
  StoppingOutcome outcome;
  for (auto _ : state) {
    outcome = sample_until_stopped(rule, clock, sample, seconds);
    state.SetIterationTime(outcome.median_seconds);
  }
  if (outcome.samples > 0) {
    state.counters["noise_percent"] = outcome.noise_percent;
    state.counters["noise_target_percent"] = rule.noise_target_percent;
    state.counters["stopped_at_timeout"] = outcome.stopped_at_timeout ? 1.0 : 0.0;
  }
  return seconds;
}

StoppingRuleScope::StoppingRuleScope(const StoppingRule& rule, WallClock clock)
    : rule_(rule), clock_(std::move(clock)), previous_(active_scope) {
  active_scope = this;
}

StoppingRuleScope::~StoppingRuleScope() { active_scope = previous_; }

std::vector<double> run_samples(benchmark::State& state, const std::function<double()>& sample) {
  if (active_scope == nullptr) return run_samples(state, StoppingRule{.enabled = false}, steady_wall_clock(), sample);
  return run_samples(state, active_scope->rule_, active_scope->clock_, sample);
}

}  // namespace hdbench
