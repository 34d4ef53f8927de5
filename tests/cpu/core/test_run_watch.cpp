// The run's budget and each benchmark's deadline while a benchmark runs (issue 39):
// cut between samples, a hanging sample cancelled at the deadline, a loader epoch that
// never completes stopped by its cancel hook. Bounds are wide: a slow machine only
// takes longer, it never fails them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/run_watch.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "pipeline/dataset.hpp"
#include "pipeline/loader.hpp"

namespace hdbench {
namespace {

// A rule that never stops by itself within the test: only the watch can end it.
StoppingRule endless_rule() {
  StoppingRule rule;
  rule.min_samples = 1000000;
  rule.noise_target_percent = 1e-9;
  rule.timeout_seconds = 1e6;
  return rule;
}

double sleep_sample() {
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 0.01;
}

TEST(RunWatch, TheDeadlineCutsSamplingBetweenSamplesAndSaysWhere) {
  RunWatch watch({.budget_seconds = 0, .deadline_seconds = 0.3}, nullptr);
  watch.begin("family/case");
  std::vector<double> seconds;
  const HostTimer timer;
  sample_until_stopped(endless_rule(), steady_wall_clock(), sleep_sample, seconds);
  EXPECT_LT(timer.elapsed_seconds(), 20.0);
  EXPECT_GE(seconds.size(), 1u);
  const Cut cut = watch.end();
  EXPECT_EQ(cut.kind, CutKind::deadline);
  EXPECT_NE(cut.message.find("deadline of 0.3 s passed after "), std::string::npos) << cut.message;
  // The sampling loop's check after the last sample, or the watchdog's at the deadline during it.
  const bool after_last =
      cut.message.find(std::to_string(seconds.size()) + " samples in sampling") != std::string::npos;
  const bool during_last =
      cut.message.find(std::to_string(seconds.size() - 1) + " samples in sampling") != std::string::npos;
  EXPECT_TRUE(after_last || during_last) << cut.message << " (" << seconds.size() << " samples)";
}

TEST(RunWatch, TheBudgetCutsTheBenchmarkInFlight) {
  RunWatch watch({.budget_seconds = 0.3, .deadline_seconds = 0}, nullptr);
  watch.begin("family/case");
  std::vector<double> seconds;
  sample_until_stopped(endless_rule(), steady_wall_clock(), sleep_sample, seconds);
  const Cut cut = watch.end();
  EXPECT_EQ(cut.kind, CutKind::budget);
  EXPECT_NE(cut.message.find("cut by --hdbench_max_minutes budget after "), std::string::npos) << cut.message;
  EXPECT_TRUE(watch.budget_spent());
  // The next benchmark is not cut by this one's cut.
  watch.begin("family/next");
  EXPECT_EQ(current_cut().kind, CutKind::none);
  EXPECT_EQ(watch.end().kind, CutKind::none);
}

TEST(RunWatch, WithoutAWatchNothingIsCut) {
  EXPECT_FALSE(sampling_must_stop(5));
  EXPECT_FALSE(cancel_requested());
  EXPECT_EQ(current_cut().kind, CutKind::none);
}

TEST(RunWatch, AHangingSampleIsCancelledAtTheDeadline) {
  ::setenv("HDBENCH_TEST_HANG", "hang-me", 1);
  RunWatch watch({.budget_seconds = 0, .deadline_seconds = 0.5}, nullptr);
  watch.begin("family/hang-me/case");
  std::vector<double> seconds;
  const HostTimer timer;
  EXPECT_THROW(sample_until_stopped(endless_rule(), steady_wall_clock(), sleep_sample, seconds), BenchmarkCancelled);
  ::unsetenv("HDBENCH_TEST_HANG");
  EXPECT_LT(timer.elapsed_seconds(), 20.0);
  EXPECT_EQ(seconds.size(), 1u);  // the hook hangs the second sample
  const Cut cut = watch.end();
  EXPECT_EQ(cut.kind, CutKind::deadline);
  EXPECT_NE(cut.message.find("after 1 sample in sampling"), std::string::npos) << cut.message;
}

TEST(RunWatch, ALoaderEpochThatNeverCompletesIsStoppedByTheCancellation) {
  RunWatch watch({.budget_seconds = 0, .deadline_seconds = 0.5}, nullptr);
  watch.begin("loader/case");
  const Dataset data = make_synthetic_mnist(256, 3);
  LoaderConfig config;
  config.batch_size = 8;
  config.workers = 1;
  config.transform.cost_us = 200000.0;  // 1.6 s a batch, 51 s an epoch: it outlasts the deadline by far
  const HostTimer timer;
  {
    Loader loader(data, config);
    loader.start_epoch(0);
    try {
      while (loader.next()) loader.release();
      ADD_FAILURE() << "the epoch completed";
    } catch (const LoaderError& error) {
      EXPECT_NE(std::string(error.what()).find("cancelled: deadline of 0.5 s"), std::string::npos) << error.what();
    }
  }
  EXPECT_LT(timer.elapsed_seconds(), 30.0);
  EXPECT_EQ(watch.end().kind, CutKind::deadline);
}

TEST(RunWatch, OneAtATime) {
  RunWatch watch({}, nullptr);
  EXPECT_THROW(RunWatch({}, nullptr), std::logic_error);
}

}  // namespace
}  // namespace hdbench
