// A benchmark that times a group of calls per sample reports one call's time in
// Google Benchmark's Time column (and items/bytes per second, and what compare.py
// reads), whatever the group size, and still spends about --benchmark_min_time under
// Google's own rule, not min_time x group. A fake clock stands in for the device: each
// group advances it by group x step seconds and nothing waits, so nothing here is
// timed. With the rule disabled the path is Google Benchmark's rule
// (--benchmark_min_time given); enabled, the stopping rule's.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "capture_runs.hpp"
#include "core/grouped_timing.hpp"

namespace hdbench {
namespace {

constexpr double kMinTime = 0.5;       // fake seconds
constexpr double kStepSeconds = 1e-3;  // one fake call

// The fake clock's advance in every call of the benchmark function (Google Benchmark
// calls it once per trial while it grows the iteration count).
struct FakeRuns {
  double now = 0.0;
  std::vector<double> seconds_per_trial;
  std::vector<double> last_per_call;
  double total() const { return std::accumulate(seconds_per_trial.begin(), seconds_per_trial.end(), 0.0); }
  // One group of `calls` fake calls.
  double run_group(std::size_t calls) {
    const double advance = static_cast<double>(calls) * kStepSeconds;
    seconds_per_trial.back() += advance;
    now += advance;
    return advance;
  }
};

using testing::CaptureRuns;

// Registers and runs one benchmark named `name`: under Google Benchmark's rule at
// kMinTime, or (one_iteration) as hdbench runs it under the stopping rule.
CaptureRuns run_one(const std::string& name, std::function<void(benchmark::State&)> body, bool one_iteration = false) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::move(body))->UseManualTime();
  if (one_iteration) {
    b->Iterations(1);
  } else {
    b->MinTime(kMinTime);
  }
  CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^" + name + "/");
  return capture;
}

// Seconds per iteration as the console, the JSON report and compare.py show it.
double time_column_seconds(const benchmark::BenchmarkReporter::Run& run) {
  return run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
}

// The rule disabled: Google Benchmark's own loop (--benchmark_min_time given).
const StoppingRule kGoogleRule{.enabled = false};

class GroupSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(GroupSizes, GoogleRuleReportsOneCallPerIterationWithinMinTime) {
  const std::size_t group = GetParam();
  FakeRuns fake;
  const CaptureRuns capture = run_one("fake_grouped_clock_" + std::to_string(group), [&](benchmark::State& state) {
    fake.seconds_per_trial.push_back(0.0);
    fake.last_per_call =
        time_grouped_calls(state, group, kGoogleRule, [&](std::size_t calls) { return fake.run_group(calls); });
  });
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  // Time is one call's, whatever the group (so two runs with different groups compare as 1.0).
  EXPECT_DOUBLE_EQ(time_column_seconds(run), kStepSeconds);
  EXPECT_EQ(run.iterations % static_cast<benchmark::IterationCount>(group), 0);
  // The reported time is what the fake clock spent in the reported trial.
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, fake.seconds_per_trial.back());
  // Google Benchmark aims its last trial at 1.4 x min_time, growing the count at least
  // 1.4x a trial: the whole benchmark stays within a few min_times plus one group.
  const double one_group = static_cast<double>(group) * kStepSeconds;
  EXPECT_GE(run.real_accumulated_time, kMinTime);
  EXPECT_LE(run.real_accumulated_time, 1.4 * kMinTime + one_group);
  EXPECT_LE(fake.total(), 3.0 * kMinTime + one_group);
  // The per-call samples are each group's time over its calls, one per group.
  ASSERT_EQ(fake.last_per_call.size(), static_cast<std::size_t>(run.iterations) / group);
  for (double s : fake.last_per_call) EXPECT_DOUBLE_EQ(s, kStepSeconds);
}

TEST_P(GroupSizes, StoppingRuleReportsOneCallPerIteration) {
  const std::size_t group = GetParam();
  FakeRuns fake;
  fake.seconds_per_trial.push_back(0.0);
  const StoppingRule rule{.min_samples = 5, .noise_target_percent = 1.0, .timeout_seconds = 10.0, .enabled = true};
  const WallClock clock = [&fake] { return fake.now; };
  const CaptureRuns capture = run_one(
      "fake_grouped_rule_" + std::to_string(group),
      [&](benchmark::State& state) {
        fake.last_per_call =
            time_grouped_calls(state, group, rule, clock, [&](std::size_t calls) { return fake.run_group(calls); });
      },
      true);
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  EXPECT_EQ(run.iterations, static_cast<benchmark::IterationCount>(group));
  EXPECT_DOUBLE_EQ(time_column_seconds(run), kStepSeconds);
  EXPECT_EQ(fake.last_per_call.size(), 5u);  // stable samples: the rule's minimum
}

INSTANTIATE_TEST_SUITE_P(OneAndMany, GroupSizes, ::testing::Values(1, 8, 46));

TEST(TimeGroupedCalls, TreatsAnEmptyGroupAsOneCall) {
  FakeRuns fake;
  run_one("fake_grouped_empty", [&fake](benchmark::State& state) {
    fake.last_per_call = time_grouped_calls(state, 0, kGoogleRule, [](std::size_t calls) {
      EXPECT_EQ(calls, 1u);
      return 0.2;
    });
  });
  ASSERT_FALSE(fake.last_per_call.empty());
  for (double s : fake.last_per_call) EXPECT_DOUBLE_EQ(s, 0.2);
}

}  // namespace
}  // namespace hdbench
