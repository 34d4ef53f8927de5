#include "core/stopping_rule.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>

#include "core/report.hpp"
#include "core/run_watch.hpp"
#include "core/timing.hpp"

namespace hdbench {
namespace {

// The timeout stops no benchmark before it has this many samples (fewer only when
// min_samples asks for fewer): one sample has no noise figure at all, and an H100's
// default run had 8 such rows (loader epochs longer than the 1 s timeout) that read
// as noise 0. Three give the full range: a figure, if a wide one. A benchmark whose
// sample outlasts the timeout takes three samples' time.
constexpr std::size_t kSamplesBeforeTimeout = 3;

// The median interval's tails: 2.5% each, ~95% together.
constexpr double kTailProbability = 0.025;
constexpr double kTwoSidedZ = 1.959963984540054;  // the standard normal's 97.5% quantile
constexpr std::size_t kExactRanksUpTo = 1000;

// k (1-based) of median_interval_ranks: the largest k with P(B <= k - 1) <= 2.5%, at least 1.
std::size_t lower_rank(std::size_t n) {
  if (n <= kExactRanksUpTo) {
    // P(B = i) by the recurrence C(n, i + 1) = C(n, i) (n - i) / (i + 1), in logs (2^-n underflows).
    double log_p = -static_cast<double>(n) * std::log(2.0);
    double cdf = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      cdf += std::exp(log_p);  // P(B <= i)
      if (cdf > kTailProbability) return std::max<std::size_t>(i, 1);
      log_p += std::log(static_cast<double>(n - i)) - std::log(static_cast<double>(i + 1));
    }
    return 1;
  }
  // P(B <= j) ~ Phi((j + 0.5 - n/2) / (sqrt(n)/2)) <= 2.5%  <=>  j <= n/2 - z sqrt(n)/2 - 0.5.
  const double nd = static_cast<double>(n);
  return static_cast<std::size_t>(std::floor(nd / 2.0 - kTwoSidedZ * std::sqrt(nd) / 2.0 - 0.5)) + 1;
}

// noise_percent of `samples`, reordering them (three selections, O(n), no full sort).
double noise_in_place(std::vector<double>& samples) {
  const std::size_t n = samples.size();
  if (n == 0) return 0.0;
  const auto begin = samples.begin();
  const auto at = [&](std::size_t i) { return begin + static_cast<std::ptrdiff_t>(i); };
  const std::size_t mid = n / 2;
  std::nth_element(begin, at(mid), samples.end());
  const double upper_middle = samples[mid];
  const double median = n % 2 == 1 ? upper_middle : 0.5 * (*std::max_element(begin, at(mid)) + upper_middle);
  const MedianInterval ranks = median_interval_ranks(n);
  double lower = upper_middle;
  if (ranks.lower < mid) {
    std::nth_element(begin, at(ranks.lower), at(mid));
    lower = samples[ranks.lower];
  }
  double upper = upper_middle;
  if (ranks.upper > mid) {
    std::nth_element(at(mid + 1), at(ranks.upper), samples.end());
    upper = samples[ranks.upper];
  }
  if (median == 0.0) return 0.0;
  return 100.0 * (upper - lower) / 2.0 / std::fabs(median);
}

}  // namespace

WallClock steady_wall_clock() {
  return [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
}

MedianInterval median_interval_ranks(std::size_t n) {
  if (n == 0) return {};
  const std::size_t k = lower_rank(n);
  return {.lower = k - 1, .upper = n - k};
}

double noise_percent(const std::vector<double>& seconds) {
  std::vector<double> copy(seconds);
  return noise_in_place(copy);
}

double stdev_percent(const std::vector<double>& seconds) { return 100.0 * summarize(seconds).cv; }

StoppingOutcome sample_until_stopped(const StoppingRule& rule, const WallClock& clock,
                                     const std::function<double()>& sample, std::vector<double>& seconds) {
  const std::size_t first = seconds.size();
  const std::size_t min_samples = static_cast<std::size_t>(rule.min_samples < 1 ? 1 : rule.min_samples);
  const double started = clock();
  std::vector<double> scratch;  // the check's copy, reused
  std::size_t next_check = min_samples;
  bool satisfied = false;
  sampling_started();
  for (;;) {
    test_hang_hook(seconds.size() - first);
    seconds.push_back(sample());
    const std::size_t taken = seconds.size() - first;
    // The run's budget and the benchmark's deadline (core/run_watch.hpp) end sampling
    // here, between samples, whatever the rule says.
    if (sampling_must_stop(taken)) break;
    if (taken >= next_check) {
      scratch.assign(seconds.begin() + static_cast<std::ptrdiff_t>(first), seconds.end());
      if (noise_in_place(scratch) <= rule.noise_target_percent) {
        satisfied = true;
        break;
      }
      next_check = taken + (taken < 64 ? 1 : taken / 16);
    }
    if (taken >= std::min(min_samples, kSamplesBeforeTimeout) && clock() - started >= rule.timeout_seconds) break;
  }
  sampling_ended();
  const std::vector<double> these(seconds.begin() + static_cast<std::ptrdiff_t>(first), seconds.end());
  const SampleStats stats = summarize(these);
  StoppingOutcome outcome;
  outcome.samples = stats.count;
  outcome.noise_percent = noise_percent(these);
  outcome.stdev_percent = 100.0 * stats.cv;
  outcome.median_seconds = stats.median;
  outcome.stopped_at_timeout = !satisfied;
  return outcome;
}

std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule, const WallClock& clock,
                                const std::function<double()>& sample, std::size_t units_per_sample) {
  // KeepRunningBatch counts `units` iterations per turn, so Google Benchmark divides the
  // manual time (a whole sample's) by the units it covered: its Time column, items/s,
  // bytes/s and compare.py are per unit whatever the group size, and its own rule
  // (when in force) still stops on the summed sample time, not min_time x group.
  const auto units = static_cast<benchmark::IterationCount>(std::max<std::size_t>(units_per_sample, 1));
  std::vector<double> seconds;
  if (!rule.enabled) {
    sampling_started();
    while (state.KeepRunningBatch(units)) {
      test_hang_hook(seconds.size());
      const double s = sample();
      state.SetIterationTime(s);
      seconds.push_back(s);
      // Google Benchmark's loop ends when the state is skipped: the cut's reason is the skip's
      // or the error's (core/report.cpp reads it).
      if (sampling_must_stop(seconds.size())) fail_benchmark(state, current_cut().message);
    }
    sampling_ended();
    return seconds;
  }
  StoppingOutcome outcome;
  while (state.KeepRunningBatch(units)) {  // one turn: Suite::add runs one iteration
    outcome = sample_until_stopped(rule, clock, sample, seconds);
    state.SetIterationTime(outcome.median_seconds);
  }
  if (outcome.samples > 0) {
    state.counters["noise_percent"] = outcome.noise_percent;
    state.counters["stdev_percent"] = outcome.stdev_percent;
    state.counters["noise_target_percent"] = rule.noise_target_percent;
    state.counters["stopped_at_timeout"] = outcome.stopped_at_timeout ? 1.0 : 0.0;
    state.counters["samples"] = static_cast<double>(outcome.samples);  // 1: the noise is unknown, not 0
  }
  return seconds;
}

std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule,
                                const std::function<double()>& sample, std::size_t units_per_sample) {
  return run_samples(state, rule, steady_wall_clock(), sample, units_per_sample);
}

}  // namespace hdbench
