// The CPU step's thread choice, from fake timings: no timing is measured here.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "mlp/cpu_threads.hpp"

namespace hdbench {
namespace {

TEST(CpuThreads, TheSweepDoublesUpToTheCores) {
  EXPECT_EQ(thread_sweep_counts(1), (std::vector<int>{1}));
  EXPECT_EQ(thread_sweep_counts(2), (std::vector<int>{1, 2}));
  // All cores but one from three up: the run's own threads (GPU sampler, progress) keep one.
  EXPECT_EQ(thread_sweep_counts(3), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_sweep_counts(16), (std::vector<int>{1, 2, 4, 8, 15}));
  EXPECT_EQ(thread_sweep_counts(12), (std::vector<int>{1, 2, 4, 8, 11}));
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

TEST(CpuThreads, TheSweepMeasuresEveryCountInInterleavedRoundsAndRecordsMedianAndNoise) {
  std::vector<int> asked;
  const ThreadChoice choice = sweep_threads(5, [&asked](int threads) {
    asked.push_back(threads);
    return threads == 2 ? 1e-3 : 2e-3;
  });
  EXPECT_EQ(asked, (std::vector<int>{1, 2, 4, 1, 2, 4, 1, 2, 4}));  // a busy spell hits every count alike
  EXPECT_EQ(choice.threads, 2);
  ASSERT_EQ(choice.sweep.size(), 3u);
  EXPECT_EQ(choice.sweep[1].threads, 2);
  EXPECT_DOUBLE_EQ(choice.sweep[1].seconds_per_step, 1e-3);
  EXPECT_DOUBLE_EQ(choice.sweep[1].noise, 0.0);
}

TEST(CpuThreads, OneFastRoundDoesNotWinTheSweep) {
  // 4 threads: one lucky 0.5 ms round, otherwise 2 ms; 2 threads: 1 ms every round.
  std::map<int, int> calls;
  const ThreadChoice choice = sweep_threads(5, [&calls](int threads) {
    const int call = calls[threads]++;
    if (threads == 4) return call == 0 ? 0.5e-3 : 2e-3;
    return threads == 2 ? 1e-3 : 3e-3;
  });
  EXPECT_EQ(choice.threads, 2);
  EXPECT_DOUBLE_EQ(choice.sweep[2].seconds_per_step, 2e-3);  // the median, not the best round
  EXPECT_DOUBLE_EQ(choice.sweep[2].noise, 0.75);             // (2 - 0.5) / 2
}

TEST(CpuThreads, TheFastestCountsNoiseWidensTheTolerance) {
  // 8 threads are fastest but their rounds disagree by 10%: 4 threads within 5% are as good.
  const std::vector<ThreadTiming> timings = {{4, 1.05e-3, 0.01}, {8, 1.0e-3, 0.10}};
  EXPECT_EQ(choose_threads(timings, 0.02), 4);
  const std::vector<ThreadTiming> settled = {{4, 1.05e-3, 0.01}, {8, 1.0e-3, 0.01}};
  EXPECT_EQ(choose_threads(settled, 0.02), 8);
}

}  // namespace
}  // namespace hdbench
