// The CPU step's thread choice, from fake timings: no timing is measured here.
#include <gtest/gtest.h>

#include <vector>

#include "mlp/cpu_threads.hpp"

namespace hdbench {
namespace {

TEST(CpuThreads, TheSweepDoublesUpToTheCores) {
  EXPECT_EQ(thread_sweep_counts(1), (std::vector<int>{1}));
  EXPECT_EQ(thread_sweep_counts(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_sweep_counts(16), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(thread_sweep_counts(12), (std::vector<int>{1, 2, 4, 8, 12}));
  EXPECT_EQ(thread_sweep_counts(0), (std::vector<int>{1}));
}

TEST(CpuThreads, TheFastestCountIsChosen) {
  // The H100 host's 784x32x10 batch 128 with the fallback kernels: 8 threads beat 16.
  const std::vector<ThreadTiming> timings = {{1, 900e-6}, {2, 520e-6}, {4, 310e-6}, {8, 224e-6}, {16, 247e-6}};
  EXPECT_EQ(choose_threads(timings), 8);
  // A large model scales to every core.
  const std::vector<ThreadTiming> large = {{1, 8.0}, {2, 4.1}, {4, 2.1}, {8, 1.1}, {16, 0.6}};
  EXPECT_EQ(choose_threads(large), 16);
}

TEST(CpuThreads, FewerThreadsWithinTheToleranceWin) {
  const std::vector<ThreadTiming> timings = {{1, 300e-6}, {2, 200e-6}, {4, 198e-6}};
  EXPECT_EQ(choose_threads(timings, 0.02), 2);  // 200 is within 2% of 198
  EXPECT_EQ(choose_threads(timings, 0.0), 4);
}

TEST(CpuThreads, MissingTimingsAreIgnored) {
  EXPECT_EQ(choose_threads(std::vector<ThreadTiming>{}), 0);
  EXPECT_EQ(choose_threads(std::vector<ThreadTiming>{{1, 0.0}, {2, -1.0}}), 0);
  EXPECT_EQ(choose_threads(std::vector<ThreadTiming>{{1, 0.0}, {2, 5e-3}}), 2);
}

TEST(CpuThreads, TheSweepMeasuresEachCountOnceAndRecordsIt) {
  std::vector<int> asked;
  const ThreadChoice choice = sweep_threads(4, [&asked](int threads) {
    asked.push_back(threads);
    return threads == 2 ? 1e-3 : 2e-3;
  });
  EXPECT_EQ(asked, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(choice.threads, 2);
  ASSERT_EQ(choice.sweep.size(), 3u);
  EXPECT_EQ(choice.sweep[1].threads, 2);
  EXPECT_DOUBLE_EQ(choice.sweep[1].seconds_per_step, 1e-3);
}

}  // namespace
}  // namespace hdbench
