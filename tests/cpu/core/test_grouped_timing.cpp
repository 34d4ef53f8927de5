// A benchmark that runs a group of calls per iteration spends about
// --benchmark_min_time, not min_time x group: time_grouped_calls reports the whole
// group as the iteration's time. A fake clock stands in for the device: each group
// advances it by group x step seconds and nothing waits, so nothing here is timed.
// No StoppingRuleScope is in force here, so this is the path with the stopping rule
// off (--benchmark_min_time given): Google Benchmark's trials bound the time spent.
// The rule's path is tested in test_stopping_rule.cpp.
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
constexpr std::size_t kGroup = 100;    // one iteration: 0.1 fake seconds

// The fake clock's advance in every call of the benchmark function (Google Benchmark
// calls it once per trial while it grows the iteration count).
struct FakeRuns {
  std::vector<double> seconds_per_trial;
  std::vector<double> last_per_call;
  double total() const { return std::accumulate(seconds_per_trial.begin(), seconds_per_trial.end(), 0.0); }
};

using testing::CaptureRuns;

// Registers and runs one benchmark named `name`; `body` is its function.
CaptureRuns run_one(const std::string& name, std::function<void(benchmark::State&)> body) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(body))->UseManualTime()->MinTime(kMinTime);
  CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^" + name + "/");
  return capture;
}

TEST(TimeGroupedCalls, SpendsMinTimePlusAtMostOneIterationAndReportsPerCallSamples) {
  FakeRuns fake;
  const CaptureRuns capture = run_one("fake_grouped_clock", [&fake](benchmark::State& state) {
    fake.seconds_per_trial.push_back(0.0);
    fake.last_per_call = time_grouped_calls(state, kGroup, [&fake](std::size_t calls) {
      const double advance = static_cast<double>(calls) * kStepSeconds;
      fake.seconds_per_trial.back() += advance;
      return advance;
    });
  });
  ASSERT_EQ(capture.runs.size(), 1u);
  const auto& run = capture.runs.front();
  const double iteration = kGroup * kStepSeconds;
  // The reported time is what the fake clock spent in the reported trial.
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, fake.seconds_per_trial.back());
  EXPECT_DOUBLE_EQ(run.real_accumulated_time, static_cast<double>(run.iterations) * iteration);
  // Google Benchmark aims its last trial at 1.4 x min_time and every earlier trial fell
  // short of min_time, growing the count at least 1.4x each time: the whole benchmark
  // stays within a few min_times plus one iteration, independent of the group size.
  EXPECT_GE(run.real_accumulated_time, kMinTime);
  EXPECT_LE(run.real_accumulated_time, 1.4 * kMinTime + iteration);
  EXPECT_LE(fake.total(), 3.0 * kMinTime + iteration);
  // The per-call samples are the group's time over its calls, one per iteration.
  ASSERT_EQ(fake.last_per_call.size(), static_cast<std::size_t>(run.iterations));
  for (double s : fake.last_per_call) EXPECT_DOUBLE_EQ(s, kStepSeconds);
}

TEST(TimeGroupedCalls, ReportingOneCallInsteadSpendsMinTimeTimesTheGroup) {
  // The defect the helper removes (issue 16): the same fake benchmark reporting one
  // call's time per iteration makes Google Benchmark run ~min_time x group.
  FakeRuns fake;
  const CaptureRuns capture = run_one("fake_per_call_clock", [&fake](benchmark::State& state) {
    fake.seconds_per_trial.push_back(0.0);
    for (auto _ : state) {
      fake.seconds_per_trial.back() += kGroup * kStepSeconds;
      state.SetIterationTime(kStepSeconds);
    }
  });
  ASSERT_EQ(capture.runs.size(), 1u);
  EXPECT_GT(fake.total(), 0.5 * kGroup * kMinTime);
}

TEST(TimeGroupedCalls, TreatsAnEmptyGroupAsOneCall) {
  FakeRuns fake;
  run_one("fake_grouped_empty", [&fake](benchmark::State& state) {
    fake.last_per_call = time_grouped_calls(state, 0, [](std::size_t calls) {
      EXPECT_EQ(calls, 1u);
      return 0.2;
    });
  });
  ASSERT_FALSE(fake.last_per_call.empty());
  for (double s : fake.last_per_call) EXPECT_DOUBLE_EQ(s, 0.2);
}

}  // namespace
}  // namespace hdbench
