// The CPU's measured fp32 roof (issue 28): what CPU work is rated against, at the
// thread count the work used. No timing is asserted: the measurement runs, names its
// loop and gives positive rates; the rule for a thread count is checked on numbers.
#include <gtest/gtest.h>

#include <thread>

#include "core/fma_roof.hpp"

namespace hdbench {
namespace {

TEST(FmaRoof, AThreadCountGetsOneThreadsRateEachUpToTheAllThreadsRate) {
  // A 16-vCPU host whose one thread runs 100 GFLOP/s and all 16 together 900 (SMT
  // siblings share FMA units; clocks drop with every core busy).
  const FmaRoof roof{.isa = "avx512", .one_thread_gflops = 100.0, .all_threads_gflops = 900.0, .threads = 16};
  EXPECT_DOUBLE_EQ(roof.gflops_at(1), 100.0);
  EXPECT_DOUBLE_EQ(roof.gflops_at(4), 400.0);
  EXPECT_DOUBLE_EQ(roof.gflops_at(9), 900.0);
  EXPECT_DOUBLE_EQ(roof.gflops_at(16), 900.0);
  EXPECT_DOUBLE_EQ(roof.gflops_at(0), 0.0);
  // An all-threads trial that came out below one thread's (a busy moment) never lowers
  // the roof under what one thread showed.
  const FmaRoof odd{.isa = "sse", .one_thread_gflops = 50.0, .all_threads_gflops = 40.0, .threads = 2};
  EXPECT_DOUBLE_EQ(odd.gflops_at(2), 50.0);
}

// Made up for the test (not measured): the start-up all-threads trials of a 2-vCPU VM
// came out at one core's rate (a core was busy), and a step on both cores then ran at
// 150 GFLOP/s. Work that beats the roof has it measured again, once, and raised.
TEST(FmaRoof, WorkThatBeatsTheRoofHasItMeasuredAgainAndRaised) {
  FmaRoof roof{.isa = "avx2_fma", .one_thread_gflops = 100.0, .all_threads_gflops = 102.0, .threads = 2};
  int measured = 0;
  const auto again = [&] {
    ++measured;
    return FmaRoof{
        .isa = "avx2_fma", .one_thread_gflops = 99.0, .all_threads_gflops = 199.0, .threads = 2, .seconds = 0.2};
  };
  // Within the roof: not measured again.
  EXPECT_DOUBLE_EQ(roof_for_work(roof, 2, 90.0, again), 102.0);
  EXPECT_EQ(measured, 0);
  // Beyond it: measured again; each figure keeps the better of the two.
  EXPECT_DOUBLE_EQ(roof_for_work(roof, 2, 150.0, again), 199.0);
  EXPECT_EQ(measured, 1);
  EXPECT_EQ(roof.remeasured, 1);
  EXPECT_DOUBLE_EQ(roof.one_thread_gflops, 100.0);
  EXPECT_DOUBLE_EQ(roof.all_threads_gflops, 199.0);
  EXPECT_DOUBLE_EQ(roof.seconds, 0.2);
  // Work that still beats the raised roof gets it as it is: the caller leaves its share out.
  EXPECT_DOUBLE_EQ(roof_for_work(roof, 2, 250.0, again), 199.0);
  EXPECT_EQ(roof.remeasured, 2);
  EXPECT_DOUBLE_EQ(roof.all_threads_gflops, 199.0);
  EXPECT_EQ(to_json(roof)["remeasured"], 2);
}

TEST(FmaRoof, MeasuresThisMachineAtItsWidestLevel) {
  const CpuFeatures cpu = discover_cpu_features();
  const FmaRoof roof = measure_fma_roof(cpu.level(), 2);
  EXPECT_EQ(roof.isa, to_string(cpu.level()));
  EXPECT_EQ(roof.threads, 2);
  EXPECT_GT(roof.one_thread_gflops, 0.0);
  EXPECT_GT(roof.all_threads_gflops, 0.0);
  EXPECT_GT(roof.seconds, 0.0);
  const nlohmann::json j = to_json(roof);
  for (const char* key :
       {"isa", "one_thread_GFLOP/s", "all_threads_GFLOP/s", "threads", "method", "confirmed", "one_thread_trials"})
    EXPECT_TRUE(j.contains(key)) << key;
  // Between 3 and 15 trials each, whatever the host's load; the roof is the best of them.
  EXPECT_GE(roof.one_thread.trials, 3);
  EXPECT_LE(roof.one_thread.trials, 15);
  EXPECT_GE(roof.all_threads.trials, 3);
  EXPECT_LE(roof.all_threads.trials, 15);
  EXPECT_EQ(roof.one_thread.best_gflops, roof.one_thread_gflops);
}

TEST(FmaRoof, ARoofIsConfirmedWhenASecondTrialComesWithinTheAgreementOfTheBest) {
  EXPECT_TRUE(roof_confirmed({100.0, 99.0, 60.0}, 0.02));
  EXPECT_TRUE(roof_confirmed({60.0, 99.0, 100.0}, 0.02));   // order does not matter
  EXPECT_FALSE(roof_confirmed({100.0, 90.0, 60.0}, 0.02));  // one lucky trial, the rest busy
  EXPECT_FALSE(roof_confirmed({100.0}, 0.02));              // one trial confirms nothing
  EXPECT_TRUE(roof_confirmed({100.0, 100.0}, 0.0));
}

TEST(FmaRoof, EveryLevelRunsOnThisCpu) {
  // The narrower loops run on any x86-64 with that level; each gives a positive rate.
  const CpuFeatures cpu = discover_cpu_features();
  for (VectorLevel level : {VectorLevel::sse, VectorLevel::avx, VectorLevel::avx2_fma, VectorLevel::avx512}) {
    if (static_cast<int>(level) > static_cast<int>(cpu.level())) continue;
    const FmaRoof roof = measure_fma_roof(level, 1);
    EXPECT_EQ(roof.isa, to_string(level));
    EXPECT_GT(roof.one_thread_gflops, 0.0) << roof.isa;
  }
}

}  // namespace
}  // namespace hdbench
