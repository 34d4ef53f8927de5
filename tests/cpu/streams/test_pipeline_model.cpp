// The ideal time of a copy → kernel → copy pipeline and the kernel calibration line,
// on numbers whose answers are worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "streams/pipeline_model.hpp"

namespace hdbench {
namespace {

TEST(IdealPipeline, OneChunkCannotOverlapAndTakesTheSumOfItsStages) {
  const StageSeconds alone{1.0, 2.0, 3.0};
  for (int engines : {0, 1, 2, 3}) EXPECT_DOUBLE_EQ(ideal_pipeline_seconds(alone, 1, engines), 6.0);
}

TEST(IdealPipeline, TwoEnginesHideAllButTheBusiestStagePlusFillAndDrain) {
  // Equal stages of T: T for the busiest plus one chunk of each other stage.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({1.0, 1.0, 1.0}, 4, 2), 1.0 + 2.0 / 4);
  // Kernel-bound: the kernels' total plus the first H2D and last D2H chunk.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({1.0, 4.0, 1.0}, 8, 2), 4.0 + 2.0 / 8);
  // Copy-bound: more copy engines than two change nothing.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({3.0, 1.0, 2.0}, 2, 2), 3.0 + 3.0 / 2);
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({3.0, 1.0, 2.0}, 2, 7), 3.0 + 3.0 / 2);
}

TEST(IdealPipeline, OneEngineCarriesBothCopyDirections) {
  // The engine is busy H + D = 2; the kernels need 0.25 + 1 + 0.25.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({1.0, 1.0, 1.0}, 4, 1), 2.0);
  // Kernel-bound: the kernels plus the first chunk in and the last out.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({1.0, 8.0, 1.0}, 4, 1), 0.25 + 8.0 + 0.25);
  // H2D-heavy: all of H before the last chunk's kernel and copy back.
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({4.0, 1.0, 0.0}, 4, 1), 4.0 + 0.25);
}

TEST(IdealPipeline, NoCopyEnginesMeansNoOverlap) {
  EXPECT_DOUBLE_EQ(ideal_pipeline_seconds({1.0, 1.0, 1.0}, 16, 0), 3.0);
}

TEST(IdealPipeline, LiesBetweenTheBusiestStageAndTheSum) {
  for (double h : {0.1, 1.0, 5.0}) {
    for (double k : {0.0, 0.7, 3.0}) {
      for (double d : {0.2, 1.0, 4.0}) {
        for (int chunks : {1, 2, 5, 64}) {
          for (int engines : {1, 2}) {
            const StageSeconds alone{h, k, d};
            const double ideal = ideal_pipeline_seconds(alone, chunks, engines);
            EXPECT_LE(ideal, alone.sum() + 1e-12);
            EXPECT_GE(ideal, std::max({h, k, d}) - 1e-12);
            // More chunks never make the bound worse.
            EXPECT_LE(ideal_pipeline_seconds(alone, chunks * 2, engines), ideal + 1e-12);
          }
        }
      }
    }
  }
}

TEST(IdealPipeline, RejectsBadInput) {
  EXPECT_THROW(ideal_pipeline_seconds({1.0, 1.0, 1.0}, 0, 2), std::invalid_argument);
  EXPECT_THROW(ideal_pipeline_seconds({-1.0, 1.0, 1.0}, 4, 2), std::invalid_argument);
}

TEST(RoundsModel, RecoversTheLineThroughTwoPoints) {
  // 10 us fixed + 2 us per round.
  const auto model = fit_rounds_model(4, 18e-6, 104, 218e-6);
  ASSERT_TRUE(model.has_value());
  EXPECT_NEAR(model->fixed_seconds, 10e-6, 1e-15);
  EXPECT_NEAR(model->seconds_per_round, 2e-6, 1e-15);
  EXPECT_EQ(rounds_for_seconds(*model, 1010e-6, 1 << 14), 500);
  // The order of the points does not matter.
  const auto swapped = fit_rounds_model(104, 218e-6, 4, 18e-6);
  ASSERT_TRUE(swapped.has_value());
  EXPECT_NEAR(swapped->seconds_per_round, 2e-6, 1e-15);
}

TEST(RoundsModel, NoSlopeMeansNoModel) {
  EXPECT_FALSE(fit_rounds_model(4, 1e-3, 64, 1e-3).has_value());
  EXPECT_FALSE(fit_rounds_model(4, 2e-3, 64, 1e-3).has_value());
  EXPECT_THROW(fit_rounds_model(8, 1e-3, 8, 2e-3), std::invalid_argument);
}

TEST(RoundsModel, RoundsStayWithinOneAndTheCap) {
  const RoundsModel model{10e-6, 1e-6};
  EXPECT_EQ(rounds_for_seconds(model, 5e-6, 1000), 1);    // faster than the fixed cost: as light as it gets
  EXPECT_EQ(rounds_for_seconds(model, 1.0, 1000), 1000);  // capped
  EXPECT_EQ(rounds_for_seconds(model, 110e-6, 1000), 100);
  EXPECT_THROW(rounds_for_seconds(model, 1.0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hdbench
