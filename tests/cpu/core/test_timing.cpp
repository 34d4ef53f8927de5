#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/timing.hpp"

namespace hdbench {
namespace {

TEST(Summarize, EmptyInputGivesZeros) {
  const SampleStats stats = summarize({});
  EXPECT_EQ(stats.count, 0u);
  EXPECT_EQ(stats.median, 0.0);
  EXPECT_EQ(stats.mean, 0.0);
  EXPECT_EQ(stats.min, 0.0);
  EXPECT_EQ(stats.max, 0.0);
  EXPECT_EQ(stats.stddev, 0.0);
  EXPECT_EQ(stats.cv, 0.0);
}

TEST(Summarize, SingleSampleHasNoSpread) {
  const SampleStats stats = summarize({7.5});
  EXPECT_EQ(stats.count, 1u);
  EXPECT_DOUBLE_EQ(stats.median, 7.5);
  EXPECT_DOUBLE_EQ(stats.mean, 7.5);
  EXPECT_DOUBLE_EQ(stats.min, 7.5);
  EXPECT_DOUBLE_EQ(stats.max, 7.5);
  EXPECT_EQ(stats.stddev, 0.0);
  EXPECT_EQ(stats.cv, 0.0);
}

TEST(Summarize, OddCountMedianIsTheMiddleSample) {
  const SampleStats stats = summarize({9.0, 1.0, 5.0, 3.0, 100.0});
  EXPECT_EQ(stats.count, 5u);
  EXPECT_DOUBLE_EQ(stats.median, 5.0);
  EXPECT_DOUBLE_EQ(stats.min, 1.0);
  EXPECT_DOUBLE_EQ(stats.max, 100.0);
  EXPECT_DOUBLE_EQ(stats.mean, 118.0 / 5.0);
}

TEST(Summarize, EvenCountMedianAveragesTheMiddlePair) {
  const SampleStats stats = summarize({4.0, 1.0, 3.0, 10.0});
  EXPECT_EQ(stats.count, 4u);
  EXPECT_DOUBLE_EQ(stats.median, 3.5);
  EXPECT_DOUBLE_EQ(stats.mean, 4.5);
  EXPECT_DOUBLE_EQ(stats.min, 1.0);
  EXPECT_DOUBLE_EQ(stats.max, 10.0);
  EXPECT_DOUBLE_EQ(summarize({2.0, 1.0}).median, 1.5);
}

TEST(Summarize, SampleStandardDeviationAndCv) {
  // Sum of squared deviations from the mean 5 is 32; n - 1 = 7.
  const SampleStats stats = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(stats.mean, 5.0);
  EXPECT_DOUBLE_EQ(stats.median, 4.5);
  EXPECT_NEAR(stats.stddev, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(stats.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);

  const SampleStats pair = summarize({1.0, 3.0});
  EXPECT_NEAR(pair.stddev, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(pair.cv, std::sqrt(2.0) / 2.0, 1e-12);
}

TEST(Summarize, IdenticalSamplesHaveZeroSpread) {
  const SampleStats stats = summarize(std::vector<double>(10, 3.25));
  EXPECT_EQ(stats.count, 10u);
  EXPECT_DOUBLE_EQ(stats.median, 3.25);
  EXPECT_DOUBLE_EQ(stats.mean, 3.25);
  EXPECT_NEAR(stats.stddev, 0.0, 1e-15);
  EXPECT_NEAR(stats.cv, 0.0, 1e-15);
}

TEST(Summarize, ZeroMeanGivesZeroCv) {
  const SampleStats stats = summarize({-1.0, 1.0});
  EXPECT_DOUBLE_EQ(stats.mean, 0.0);
  EXPECT_NEAR(stats.stddev, std::sqrt(2.0), 1e-12);
  EXPECT_EQ(stats.cv, 0.0);
}

TEST(Summarize, CvIsScaleFree) {
  const SampleStats a = summarize({10.0, 11.0, 12.0, 13.0});
  const SampleStats b = summarize({1000.0, 1100.0, 1200.0, 1300.0});
  EXPECT_NEAR(a.cv, b.cv, 1e-12);
  EXPECT_NEAR(b.stddev, 100.0 * a.stddev, 1e-9);
}

TEST(HostTimer, ElapsedIsNonNegativeAndMonotonic) {
  HostTimer timer;
  const double first = timer.elapsed_seconds();
  const double second = timer.elapsed_seconds();
  EXPECT_GE(first, 0.0);
  EXPECT_GE(second, first);
  timer.restart();
  EXPECT_GE(timer.elapsed_seconds(), 0.0);
}

}  // namespace
}  // namespace hdbench
