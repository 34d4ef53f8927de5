// The progress line and the count of benchmarks a filter selects.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "core/progress.hpp"

namespace hdbench {
namespace {

const std::vector<std::string> kNames = {
    "transfer/h2d/pinned/copy/4KiB/manual_time", "transfer/d2h/pinned/copy/4KiB/manual_time",
    "streams/sync/pinned/256MiB/compute:1/manual_time", "host_memcpy/threads:1/4KiB/manual_time"};

TEST(CountSelected, FollowsGoogleBenchmarkFilterRules) {
  EXPECT_EQ(count_selected(kNames, ""), 4u);
  EXPECT_EQ(count_selected(kNames, "."), 4u);
  EXPECT_EQ(count_selected(kNames, "all"), 4u);
  EXPECT_EQ(count_selected(kNames, "transfer"), 2u);
  EXPECT_EQ(count_selected(kNames, "^transfer/h2d"), 1u);
  EXPECT_EQ(count_selected(kNames, "h2d|streams"), 2u);
  EXPECT_EQ(count_selected(kNames, "-transfer"), 2u);  // negated
  EXPECT_EQ(count_selected(kNames, "nothing"), 0u);
  EXPECT_THROW(count_selected(kNames, "("), std::regex_error);
}

TEST(ProgressLine, ShowsDoneTotalElapsedAndRemaining) {
  EXPECT_EQ(progress_line(0, 229, 0.0, ""), "[  0/229]     0s elapsed");
  // 10 done in 65 s: 6.5 s each, 219 left = 1423.5 s.
  EXPECT_EQ(progress_line(10, 229, 65.0, "streams/x"), "[ 10/229]  1m05s elapsed, ~23m44s left  streams/x");
  EXPECT_EQ(progress_line(3, 3, 7300.0, "a"), "[3/3]  2h01m elapsed, ~0s left  a");
}

TEST(Progress, DrawsOnlyWhenEnabledAndCountsEachNameOnce) {
  ::testing::internal::CaptureStderr();
  Progress quiet(2, false);  // stderr is not a terminal
  quiet.finished("a");
  quiet.end();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");

  ::testing::internal::CaptureStderr();
  Progress shown(2, true);
  shown.finished("a");
  shown.finished("a");  // aggregates of the same benchmark: not a second benchmark
  shown.finished("b");
  shown.end();
  const std::string drawn = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(drawn.find("[1/2]"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("[2/2]"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("[3/2]"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.substr(drawn.size() - 4), "\r\033[K");  // the line is cleared at the end
}

}  // namespace
}  // namespace hdbench

namespace hdbench {
namespace {

TEST(PlanLine, CountsTheBenchmarksAndEstimatesFromMinTimeLeavingSkippedOut) {
  EXPECT_DOUBLE_EQ(estimate_seconds(0, 0.1), 0.0);
  EXPECT_DOUBLE_EQ(estimate_seconds(10, 0.1), 10 * (kTrialFactor * 0.1 + kSetupSeconds));
  // 227 listed, 27 skipped: 200 x (2 x 0.1 + 0.05) = 50 s.
  EXPECT_EQ(plan_line(227, 27, 0.1, 0.0),
            "227 benchmarks to run (27 skipped on this machine), about 50s at --benchmark_min_time=0.1 s");
  EXPECT_EQ(plan_line(1, 0, 0.5, 2.0),
            "1 benchmark to run, about 1s at --benchmark_min_time=0.5 s; stops starting new ones after 2m00s");
  EXPECT_EQ(plan_line(3, 5, 0.1, 0.0),
            "3 benchmarks to run (3 skipped on this machine), about 0s at --benchmark_min_time=0.1 s");
}

}  // namespace
}  // namespace hdbench

namespace hdbench {
namespace {

TEST(PlanLine, WithTheStoppingRuleStatesAnUpperBoundFromTheTimeout) {
  const StoppingRule quick{.min_samples = 5, .noise_target_percent = 2.0, .timeout_seconds = 0.25, .enabled = true};
  EXPECT_DOUBLE_EQ(estimate_seconds(0, quick), 0.0);
  EXPECT_DOUBLE_EQ(estimate_seconds(10, quick), 10 * (0.25 + kSetupSeconds));
  // 55 listed, 5 skipped: 50 x (0.25 + 0.05) = 15 s at most.
  EXPECT_EQ(plan_line(55, 5, quick, 0.0, 0.0),
            "55 benchmarks to run (5 skipped on this machine), at most 15s (0.25 s of sampling + ~0.05 s set-up "
            "each; sooner once 5+ samples are within 2% noise)");
  EXPECT_EQ(plan_line(1, 0, quick, 0.0, 2.0),
            "1 benchmark to run, at most 0s (0.25 s of sampling + ~0.05 s set-up each; sooner once 5+ samples are "
            "within 2% noise); stops starting new ones after 2m00s");
  // The rule off (--benchmark_min_time given): Google Benchmark's estimate, as before.
  StoppingRule off = quick;
  off.enabled = false;
  EXPECT_EQ(plan_line(227, 27, off, 0.1, 0.0), plan_line(227, 27, 0.1, 0.0));
}

}  // namespace
}  // namespace hdbench
