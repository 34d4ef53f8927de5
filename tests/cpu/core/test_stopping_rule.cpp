// nvbench's stopping rule (issue 16), run through real Google Benchmark with a fake
// clock: every sample advances the fake clock by the seconds it returns and nothing
// waits, so nothing here is timed and a slow machine cannot fail it. The rule's noise
// is the relative half-width of the median's ~95% confidence interval (order
// statistics at binomial ranks); stdev / mean is the extra counter stdev_percent.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "capture_runs.hpp"
#include "core/grouped_timing.hpp"
#include "core/stopping_rule.hpp"
#include "core/suite.hpp"

namespace hdbench {
namespace {

using testing::CaptureRuns;

// A fake wall clock and a sample source that advances it.
struct FakeClock {
  double now = 0.0;
  WallClock clock() {
    return [this] { return now; };
  }
};

// Plays `script` cyclically, one value a sample, advancing `fake` by each.
struct ScriptedSamples {
  FakeClock& fake;
  std::vector<double> script;
  std::size_t taken = 0;
  double operator()() {
    const double s = script[taken++ % script.size()];
    fake.now += s;
    return s;
  }
};

constexpr StoppingRule kRule{.min_samples = 5, .noise_target_percent = 1.0, .timeout_seconds = 1.0, .enabled = true};

// Runs the rule with no timeout over `script` (played cyclically): where it stops on
// the data alone. `seconds` receives the samples.
StoppingOutcome sample_without_timeout(std::vector<double> script, std::vector<double>& seconds,
                                       StoppingRule rule = kRule) {
  FakeClock fake;
  ScriptedSamples samples{fake, std::move(script)};
  rule.timeout_seconds = 1e9;
  return sample_until_stopped(rule, fake.clock(), std::ref(samples), seconds);
}

// Registers and runs one benchmark named `name`; with `one_iteration` it is run as
// hdbench runs it under the rule (one trial of one iteration), else with Google
// Benchmark's min_time rule at `min_time` (fake) seconds.
CaptureRuns run_one(const std::string& name, std::function<void(benchmark::State&)> body, bool one_iteration,
                    double min_time = 0.5) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::move(body))->UseManualTime();
  if (one_iteration) {
    b->Iterations(1);
  } else {
    b->MinTime(min_time);
  }
  CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^" + name + "/");
  return capture;
}

double counter(const benchmark::BenchmarkReporter::Run& run, const std::string& name) {
  const auto it = run.counters.find(name);
  return it == run.counters.end() ? -1.0 : it->second.value;
}

TEST(StoppingRule, StableSamplesStopAtMinSamples) {
  FakeClock fake;
  ScriptedSamples samples{fake, {2e-3}};
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_stable",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_EQ(run.iterations, 1);
  EXPECT_EQ(seconds.size(), 5u);
  EXPECT_EQ(samples.taken, 5u);
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, 2e-3);
  EXPECT_DOUBLE_EQ(counter(run, "noise_percent"), 0.0);
  EXPECT_DOUBLE_EQ(counter(run, "stdev_percent"), 0.0);
  EXPECT_DOUBLE_EQ(counter(run, "noise_target_percent"), 1.0);
  EXPECT_DOUBLE_EQ(counter(run, "stopped_at_timeout"), 0.0);
}

// What made most of an H100's default run sample until the timeout: a tight bulk with
// rare slow samples (pinned H2D at 256 MiB: 20% stdev / mean around a steady median).
TEST(StoppingRule, StableSamplesWithRareOutliersStopAtMinSamples) {
  FakeClock fake;
  // 2 ms +- 0.05%, one sample in 25 four times as long.
  std::vector<double> script;
  for (int i = 0; i < 50; ++i) script.push_back(i % 25 == 3 ? 8e-3 : 2e-3 * (1.0 + 5e-4 * ((i * 7) % 3 - 1)));
  ScriptedSamples samples{fake, script};
  StoppingRule rule = kRule;
  rule.min_samples = 10;
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_rare_outliers",
      [&](benchmark::State& state) { seconds = run_samples(state, rule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_EQ(seconds.size(), 10u);  // the outlier is among them
  EXPECT_DOUBLE_EQ(seconds[3], 8e-3);
  EXPECT_DOUBLE_EQ(counter(run, "stopped_at_timeout"), 0.0);
  EXPECT_LT(counter(run, "noise_percent"), 0.06);
  EXPECT_NEAR(counter(run, "noise_percent"), noise_percent(seconds), 1e-9);
  // stdev / mean would never have let it stop: it is kept, not hidden.
  EXPECT_GT(counter(run, "stdev_percent"), 50.0);
  EXPECT_NEAR(counter(run, "stdev_percent"), stdev_percent(seconds), 1e-9);
  EXPECT_NEAR(run.real_accumulated_time, 2e-3, 2e-6);  // the median, untouched by the outlier
}

TEST(StoppingRule, BimodalSamplesStopAtTheTimeoutAndReportTheNoiseReached) {
  FakeClock fake;
  ScriptedSamples samples{fake, {1e-3, 3e-3}};  // two modes of equal weight: the interval spans both
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_noisy",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_EQ(run.iterations, 1);
  // Sampling stopped with the first sample that took the fake clock to the timeout.
  EXPECT_GE(fake.now, kRule.timeout_seconds);
  EXPECT_LT(fake.now - 3e-3, kRule.timeout_seconds);
  EXPECT_EQ(seconds.size(), samples.taken);
  EXPECT_GT(seconds.size(), 100u);
  EXPECT_DOUBLE_EQ(counter(run, "stopped_at_timeout"), 1.0);
  EXPECT_NEAR(counter(run, "noise_percent"), noise_percent(seconds), 1e-9);
  EXPECT_GT(counter(run, "noise_percent"), 49.9);  // (3 - 1) / 2 over a median of 2 (or 1)
  EXPECT_NEAR(counter(run, "stdev_percent"), stdev_percent(seconds), 1e-9);
  EXPECT_GT(counter(run, "stdev_percent"), 40.0);
  // The reported time is a per-sample figure, not the whole sampling time.
  EXPECT_LE(run.real_accumulated_time, 3e-3);
}

// Samples spread evenly over 1-3 ms in a fixed scrambled order (101 levels).
std::vector<double> wide_script() {
  std::vector<double> script;
  for (int i = 0; i < 101; ++i) script.push_back(1e-3 + 2e-3 * ((i * 37) % 101) / 100.0);
  return script;
}

TEST(StoppingRule, VeryNoisySamplesStopAtTheTimeout) {
  FakeClock fake;
  ScriptedSamples samples{fake, wide_script()};
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_very_noisy",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_GE(fake.now, kRule.timeout_seconds);
  EXPECT_GT(seconds.size(), 400u);  // ~500 samples of 2 ms in 1 s: the median is known to ~+-4% only
  EXPECT_DOUBLE_EQ(counter(run, "stopped_at_timeout"), 1.0);
  EXPECT_GT(counter(run, "noise_percent"), 2.0);
  EXPECT_NEAR(counter(run, "noise_percent"), noise_percent(seconds), 1e-9);
}

TEST(StoppingRule, WideButSteadySamplesStopOnceTheirMedianIsKnownToTheTarget) {
  // The noise is the reported median's precision, not the spread of one sample: given
  // time for ~10^4 samples the same data pins its median to 1%.
  std::vector<double> seconds;
  const StoppingOutcome outcome = sample_without_timeout(wide_script(), seconds);
  EXPECT_FALSE(outcome.stopped_at_timeout);
  EXPECT_LE(outcome.noise_percent, 1.0);
  EXPECT_GT(outcome.samples, 1000u);
  EXPECT_LT(outcome.samples, 40000u);
  EXPECT_GT(outcome.stdev_percent, 25.0);  // the spread of one sample is still ~29%
  EXPECT_NEAR(outcome.median_seconds, 2e-3, 2e-5);
}

TEST(StoppingRule, ReportsTheMedianSampleAsTheIterationTime) {
  FakeClock fake;
  ScriptedSamples samples{fake, {5e-3, 1e-3, 4e-3, 2e-3, 3e-3}};
  StoppingRule rule = kRule;
  rule.noise_target_percent = 1000.0;  // any noise: stops at min_samples
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_median",
      [&](benchmark::State& state) { seconds = run_samples(state, rule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_DOUBLE_EQ(capture.runs.front().real_accumulated_time, 3e-3);
  EXPECT_EQ(seconds, samples.script);  // every sample, in the order taken
  EXPECT_DOUBLE_EQ(counter(capture.runs.front(), "stopped_at_timeout"), 0.0);
}

TEST(StoppingRule, ATimeoutBeforeMinSamplesCountsAsStoppedAtTheTimeout) {
  FakeClock fake;
  ScriptedSamples samples{fake, {0.4}};  // stable, but only three fit in the timeout
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_slow_samples",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_EQ(seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(counter(capture.runs.front(), "stopped_at_timeout"), 1.0);
  EXPECT_NEAR(counter(capture.runs.front(), "noise_percent"), 0.0, 1e-9);
}

TEST(StoppingRule, TakesThreeSamplesEvenWhenEachOutlastsTheTimeout) {
  // Issue 28: one sample has no noise figure (8 rows of an H100 run read as noise 0).
  FakeClock fake;
  ScriptedSamples samples{fake, {5.0, 6.0, 4.0}};
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_long_samples",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_EQ(seconds, (std::vector<double>{5.0, 6.0, 4.0}));
  const auto& run = capture.runs.front();
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, 5.0);  // the median
  EXPECT_DOUBLE_EQ(counter(run, "stopped_at_timeout"), 1.0);
  EXPECT_DOUBLE_EQ(counter(run, "samples"), 3.0);
  EXPECT_DOUBLE_EQ(counter(run, "noise_percent"), 100.0 * (6.0 - 4.0) / 2.0 / 5.0);  // the full range
}

TEST(StoppingRule, AskedForFewerSamplesTheTimeoutMayStopAtThem) {
  FakeClock fake;
  ScriptedSamples samples{fake, {5.0}};
  StoppingRule one = kRule;
  one.min_samples = 1;
  std::vector<double> seconds;
  run_one(
      "rule_one_long_sample",
      [&](benchmark::State& state) { seconds = run_samples(state, one, fake.clock(), std::ref(samples)); }, true);
  EXPECT_EQ(seconds, std::vector<double>{5.0});
}

TEST(StoppingRule, DisabledIsGoogleBenchmarksLoopOneSamplePerIteration) {
  FakeClock fake;
  ScriptedSamples samples{fake, {0.01}};
  StoppingRule rule = kRule;
  rule.enabled = false;
  std::vector<double> seconds;
  const CaptureRuns capture = run_one(
      "rule_disabled",
      [&](benchmark::State& state) { seconds = run_samples(state, rule, fake.clock(), std::ref(samples)); }, false,
      0.5);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_GT(run.iterations, 1);  // Google Benchmark's count, grown until min_time
  ASSERT_EQ(seconds.size(), static_cast<std::size_t>(run.iterations));
  EXPECT_NEAR(run.real_accumulated_time, static_cast<double>(run.iterations) * 0.01, 1e-12);  // time = sample
  EXPECT_GE(run.real_accumulated_time, 0.5);
  EXPECT_EQ(run.counters.count("stopped_at_timeout"), 0u);  // the rule wrote nothing
  EXPECT_EQ(run.counters.count("noise_percent"), 0u);
}

TEST(StoppingRule, TheRulePassedDecidesAndDisabledIsGoogleBenchmarksLoop) {
  FakeClock fake;
  ScriptedSamples samples{fake, {2e-3}};
  std::vector<double> seconds;
  run_one(
      "rule_passed",
      [&](benchmark::State& state) { seconds = run_samples(state, kRule, fake.clock(), std::ref(samples)); }, true);
  EXPECT_EQ(seconds.size(), 5u);
  // Disabled, the same call is Google Benchmark's loop: many one-sample iterations.
  const CaptureRuns capture = run_one(
      "rule_passed_disabled",
      [&](benchmark::State& state) { seconds = run_samples(state, StoppingRule{.enabled = false}, std::ref(samples)); },
      false, 0.1);
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_EQ(seconds.size(), static_cast<std::size_t>(capture.runs.front().iterations));
  EXPECT_GT(seconds.size(), 5u);
}

TEST(StoppingRule, SuiteBenchmarksSampleUnderTheOptionsRule) {
  Options options;
  options.stopping_rule = {.min_samples = 3, .noise_target_percent = 1000.0, .timeout_seconds = 1e6, .enabled = true};
  const system::SystemInfo info;
  Suite suite(options, info);
  std::size_t taken = 0;
  std::vector<double> seconds;
  // main runs Google Benchmark at --benchmark_min_time=0 (one trial of one iteration);
  // here the test binary's min_time is Google's default, so the iteration is fixed.
  suite
      .add("rule_suite/x", {{"family", "test"}},
           [&](benchmark::State& state) {
             seconds = run_samples(state, suite.stopping_rule(), [&] { return 1e-3 * static_cast<double>(++taken); });
           })
      ->Iterations(1);
  CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^rule_suite/x");
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_EQ(seconds, (std::vector<double>{1e-3, 2e-3, 3e-3}));
  EXPECT_DOUBLE_EQ(capture.runs.front().real_accumulated_time, 2e-3);
  EXPECT_DOUBLE_EQ(counter(capture.runs.front(), "noise_target_percent"), 1000.0);
}

TEST(StoppingRule, AGroupOfCallsIsOneSampleAndTheIterationTimeItsMedian) {
  FakeClock fake;
  const std::vector<double> group_seconds = {0.30, 0.10, 0.20};
  std::size_t taken = 0;
  StoppingRule rule = kRule;
  rule.min_samples = 3;
  rule.noise_target_percent = 1000.0;
  std::vector<double> per_call;
  const CaptureRuns capture = run_one(
      "rule_grouped",
      [&](benchmark::State& state) {
        per_call = time_grouped_calls(state, 100, rule, fake.clock(), [&](std::size_t calls) {
          EXPECT_EQ(calls, 100u);
          const double s = group_seconds[taken++ % group_seconds.size()];
          fake.now += s;
          return s;
        });
      },
      true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, 0.20);  // the median group
  EXPECT_EQ(run.iterations, 100);                     // its calls: Time is one call's
  EXPECT_DOUBLE_EQ(run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit), 0.20 / 100);
  EXPECT_EQ(counter(run, "samples"), 3.0);
  ASSERT_EQ(per_call.size(), 3u);
  EXPECT_DOUBLE_EQ(per_call[0], 0.30 / 100);
  EXPECT_DOUBLE_EQ(per_call[1], 0.10 / 100);
  EXPECT_DOUBLE_EQ(per_call[2], 0.20 / 100);
}

TEST(StoppingRule, SampleUntilStoppedNeedsMinSamplesUnderTheTarget) {
  // One slow sample, then stable ones: the full range counts it until the interval at
  // 9 samples leaves the extremes out ([x(2), x(8)]); stdev / mean there is ~17%.
  std::vector<double> script = {1.0, 1.5};
  for (int i = 0; i < 10000; ++i) script.push_back(1.0);
  std::vector<double> seconds;
  const StoppingOutcome outcome = sample_without_timeout(script, seconds);
  EXPECT_FALSE(outcome.stopped_at_timeout);
  EXPECT_LE(outcome.noise_percent, 1.0);
  EXPECT_EQ(outcome.samples, 9u);
  EXPECT_EQ(outcome.samples, seconds.size());
  EXPECT_GT(outcome.stdev_percent, 15.0);
  // One sample fewer was still above the target.
  seconds.pop_back();
  EXPECT_GT(noise_percent(seconds), 1.0);
}

TEST(StoppingRule, AlreadyUnderTheTargetItStillTakesMinSamples) {
  StoppingRule rule = kRule;
  rule.min_samples = 30;
  std::vector<double> seconds;
  const StoppingOutcome outcome =
      sample_without_timeout({1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 9e-3}, seconds, rule);
  EXPECT_EQ(outcome.samples, 30u);
  EXPECT_FALSE(outcome.stopped_at_timeout);
  EXPECT_DOUBLE_EQ(outcome.noise_percent, 0.0);
}

TEST(StoppingRule, MedianIntervalRanksAreTheBinomialOnes) {
  // Fewer than 6 samples: no interval reaches 95%, the full range stands in.
  for (std::size_t n = 1; n < 6; ++n) {
    EXPECT_EQ(median_interval_ranks(n).lower, 0u) << n;
    EXPECT_EQ(median_interval_ranks(n).upper, n - 1) << n;
  }
  // The published table of distribution-free intervals of the median (1-based ranks
  // 1-6, 2-9, 6-15, 10-21, 40-61).
  const std::vector<std::array<std::size_t, 3>> table = {
      {6, 0, 5}, {10, 1, 8}, {20, 5, 14}, {30, 9, 20}, {100, 39, 60}};
  for (const auto& [n, lower, upper] : table) {
    EXPECT_EQ(median_interval_ranks(n).lower, lower) << n;
    EXPECT_EQ(median_interval_ranks(n).upper, upper) << n;
  }
  // Beyond 1000 the normal approximation: never narrower than the exact binomial
  // ranks, at most one rank wider.
  for (const std::size_t n : {1000u, 1001u, 1500u, 4096u, 20000u}) {
    long double log_p = -static_cast<long double>(n) * std::log(2.0L);
    long double cdf = 0.0L;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
      cdf += std::exp(log_p);
      if (cdf > 0.025L) {
        k = i;
        break;
      }
      log_p += std::log(static_cast<long double>(n - i)) - std::log(static_cast<long double>(i + 1));
    }
    const MedianInterval ranks = median_interval_ranks(n);
    EXPECT_LE(ranks.lower + 1, k) << n;
    EXPECT_GE(ranks.lower + 2, k) << n;
    EXPECT_EQ(ranks.upper, n - 1 - ranks.lower) << n;
  }
}

TEST(StoppingRule, NoiseIsTheMedianIntervalsHalfWidthOverTheMedianAndIgnoresHowFarOutliersLie) {
  EXPECT_DOUBLE_EQ(noise_percent({}), 0.0);
  EXPECT_DOUBLE_EQ(noise_percent({4.0}), 0.0);
  EXPECT_DOUBLE_EQ(noise_percent({3.0, 1.0, 2.0}), 50.0);  // the full range below 6: (3 - 1) / 2 / 2
  // 1..10 shuffled: the interval is [x(2), x(9)] = [2, 9] around a median of 5.5.
  std::vector<double> ten = {7, 2, 10, 4, 1, 9, 3, 6, 8, 5};
  EXPECT_NEAR(noise_percent(ten), 100.0 * 3.5 / 5.5, 1e-12);
  const double stdev_before = stdev_percent(ten);
  ten[2] = 1e6;  // the largest sample a million times as long: nothing moves
  EXPECT_NEAR(noise_percent(ten), 100.0 * 3.5 / 5.5, 1e-12);
  EXPECT_GT(stdev_percent(ten), 5 * stdev_before);  // 55% -> 316%
  EXPECT_NEAR(stdev_percent({1.0, 3.0}), 100.0 * std::sqrt(2.0) / 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(stdev_percent({1.0}), 0.0);
}

TEST(StoppingRule, ManyFastSamplesAreCheckedOnAGrowingScheduleNotAfterEachOne) {
  // A fast benchmark takes ~10^5 samples before its timeout: checked at 64, then every
  // 1/16 more, the checks cost O(1) per sample. Noisy until sample 50000, then steady:
  // it stops within a sixteenth after the first check the steady samples satisfy.
  std::vector<double> script;
  for (int i = 0; i < 100000; ++i) script.push_back(i < 50000 ? 1e-6 * (1 + i % 2) : 1e-6);
  std::vector<double> seconds;
  const StoppingOutcome outcome = sample_without_timeout(script, seconds);
  EXPECT_FALSE(outcome.stopped_at_timeout);
  EXPECT_GT(outcome.samples, 50000u);
  EXPECT_LT(outcome.samples, 60000u);
  EXPECT_DOUBLE_EQ(outcome.noise_percent, 0.0);
}

}  // namespace
}  // namespace hdbench
