// The CPU step's thread choice, from fake timings: no timing is measured here.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
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
  EXPECT_EQ(asked,
            (std::vector<int>{1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4}));  // a busy spell hits every count alike
  EXPECT_EQ(choice.threads, 2);
  ASSERT_EQ(choice.sweep.size(), 3u);
  EXPECT_EQ(choice.sweep[1].threads, 2);
  EXPECT_DOUBLE_EQ(choice.sweep[1].seconds_per_step, 1e-3);
  EXPECT_DOUBLE_EQ(choice.sweep[1].noise, 0.0);
}

TEST(CpuThreads, OneFastRoundDoesNotWinTheSweep) {
  // 4 threads: two lucky 0.5 ms rounds, otherwise 2 ms; 2 threads: 1 ms every round.
  std::map<int, int> calls;
  const ThreadChoice choice = sweep_threads(5, [&calls](int threads) {
    const int call = calls[threads]++;
    if (threads == 4) return call < 2 ? 0.5e-3 : 2e-3;
    return threads == 2 ? 1e-3 : 3e-3;
  });
  EXPECT_EQ(choice.threads, 2);
  EXPECT_DOUBLE_EQ(choice.sweep[2].seconds_per_step, 2e-3);  // the median, not the best round
  EXPECT_DOUBLE_EQ(choice.sweep[2].noise, 0.75);             // (2 - 0.5) / 2
}

TEST(CpuThreads, OneSlowRoundIsNotTheCountsNoise) {
  // The H200 host's roof run of 2026-11-27, 784x32x10 batch 128: 15 threads 63.3 us, 8
  // threads 71.6 us (13% slower), one 15-thread round 21.7% slow. With that round as the
  // noise, 8 threads won within it; the default run of the same hour chose 15.
  const std::map<int, double> median_us = {{1, 147.5}, {2, 140.9}, {4, 95.0}, {8, 71.6}, {15, 63.3}};
  std::map<int, int> calls;
  const ThreadChoice choice = sweep_threads(16, [&](int threads) {
    const int call = calls[threads]++;
    const double disturbed = threads == 15 && call == 2 ? 1.217 : 1.0;  // the third round only
    const double jitter = 1.0 + 0.01 * (call % 3);                      // rounds within 2% otherwise
    return median_us.at(threads) * 1e-6 * jitter * disturbed;
  });
  EXPECT_EQ(choice.threads, 15);
  // Rounds 1.00, 1.01, 1.24, 1.00, 1.01: (1.01 - 1.00) / the median 1.01, the slow round left out.
  EXPECT_NEAR(choice.sweep.back().noise, 0.01 / 1.01, 1e-9);
  // With three rounds there is no round to spare: the slow one is the noise.
  calls.clear();
  const ThreadChoice three = sweep_threads(
      16,
      [&](int threads) {
        const int call = calls[threads]++;
        return median_us.at(threads) * 1e-6 * (threads == 15 && call == 2 ? 1.217 : 1.0);
      },
      kSweepTolerance, 3);
  EXPECT_NEAR(three.sweep.back().noise, 0.217, 1e-9);
  EXPECT_EQ(three.threads, 8);
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

namespace hdbench {
namespace {

// The H200 host's sweep of 784x32x10 at batch 1024 (reports/reference/h200-2026-11-26/
// cpu-h200.json): 15 threads 2.2% faster than 8 by the medians, with 7.8% round noise.
const std::map<int, ThreadTiming> kH200Batch1024 = {{1, {1, 1746.0e-6, 0.114}},
                                                    {2, {2, 1117.4e-6, 0.050}},
                                                    {4, {4, 772.5e-6, 0.080}},
                                                    {8, {8, 561.3e-6, 0.001}},
                                                    {15, {15, 549.2e-6, 0.078}}};
// Its batch 128: 15 threads 6.6% faster than 8, rounds within 1%.
const std::map<int, ThreadTiming> kH200Batch128 = {{1, {1, 218.3e-6, 0.047}},
                                                   {2, {2, 188.4e-6, 0.044}},
                                                   {4, {4, 106.0e-6, 0.047}},
                                                   {8, {8, 85.0e-6, 0.011}},
                                                   {15, {15, 79.7e-6, 0.006}}};

// How many of `runs` simulated sweeps on the 16-vCPU host choose each count: each round
// of each count takes its median time slowed by up to its measured noise (uniformly;
// a host only ever slows a step), seeded per run, so the counts are the same each time.
std::map<int, int> simulated_choices(const std::map<int, ThreadTiming>& truth, int runs, double tolerance, int rounds) {
  std::map<int, int> chosen;
  for (int run = 0; run < runs; ++run) {
    std::mt19937 rng(static_cast<std::uint32_t>(run));  // mt19937's sequence is fixed by the standard
    const ThreadChoice choice = sweep_threads(
        16,
        [&](int threads) {
          const ThreadTiming& t = truth.at(threads);
          const double u = static_cast<double>(rng()) / 4294967296.0;  // [0, 1), the same on every library
          return t.seconds_per_step * (1.0 + t.noise * u) / (1.0 + t.noise / 2);
        },
        tolerance, rounds);
    ++chosen[choice.threads];
  }
  return chosen;
}

TEST(CpuThreads, TheH200SweepChoosesEightThreadsAtBatch1024) {
  std::vector<ThreadTiming> sweep;
  for (const auto& [threads, t] : kH200Batch1024) sweep.push_back(t);
  EXPECT_EQ(choose_threads(sweep), 8);
  // Had the 15-thread rounds agreed, the old 2% margin chose 15: the flip between runs.
  sweep.back().noise = 0.01;
  EXPECT_EQ(choose_threads(sweep, 0.02), 15);
  EXPECT_EQ(choose_threads(sweep), 8);
}

TEST(CpuThreads, TheChoiceHoldsAcrossSimulatedRunsOfANoisyHost) {
  // 1000 sweeps of the 16-vCPU host's batch 1024 with its measured round noise: 8
  // threads nearly every time (981 here; 989 while the slowest round counted in the noise,
  // which a single disturbed round then widened: OneSlowRoundIsNotTheCountsNoise). The old
  // margin and rounds (2%, 3) chose 15 in 238.
  const std::map<int, int> now = simulated_choices(kH200Batch1024, 1000, kSweepTolerance, kSweepRounds);
  EXPECT_GE(now.count(8) ? now.at(8) : 0, 975);
  const std::map<int, int> before = simulated_choices(kH200Batch1024, 1000, 0.02, 3);
  EXPECT_GE(before.count(15) ? before.at(15) : 0, 150);
}

TEST(CpuThreads, AClearGainStillWinsEveryRun) {
  // Batch 128: 15 threads 6.6% faster, rounds within 1%: 15 every time.
  const std::map<int, int> chosen = simulated_choices(kH200Batch128, 1000, kSweepTolerance, kSweepRounds);
  EXPECT_EQ(chosen.count(15) ? chosen.at(15) : 0, 1000);
}

}  // namespace
}  // namespace hdbench
