// The overlap analysis behind "did copies and kernels run at the same time", on
// hand-made timelines.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/overlap.hpp"

namespace hdbench {
namespace {

TEST(Overlap, ASerialTimelineHasNone) {
  // h2d 0-2, kernel 2-5, d2h 5-6, then a gap, then chunk 1 at 7-8.
  const OverlapSummary s = summarize_overlap(
      {{Stage::h2d, 0, 0.0, 2.0}, {Stage::kernel, 0, 2.0, 5.0}, {Stage::d2h, 0, 5.0, 6.0}, {Stage::h2d, 1, 7.0, 8.0}});
  EXPECT_DOUBLE_EQ(s.span_ms, 8.0);
  EXPECT_DOUBLE_EQ(s.kernel_busy_ms, 3.0);
  EXPECT_DOUBLE_EQ(s.copy_busy_ms, 4.0);
  EXPECT_DOUBLE_EQ(s.overlap_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.copy_copy_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.idle_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.overlap_percent(), 0.0);
}

TEST(Overlap, CountsTimeWhenAKernelAndACopyBothRun) {
  // Chunk 1's H2D (2-4) runs under chunk 0's kernel (2-5); chunk 0's D2H (5-6)
  // under chunk 1's kernel (4-7), which also overlaps the kernel before it.
  const OverlapSummary s = summarize_overlap({{Stage::h2d, 0, 0.0, 2.0},
                                              {Stage::kernel, 0, 2.0, 5.0},
                                              {Stage::h2d, 1, 2.0, 4.0},
                                              {Stage::kernel, 1, 4.0, 7.0},
                                              {Stage::d2h, 0, 5.0, 6.0},
                                              {Stage::d2h, 1, 7.0, 8.0}});
  EXPECT_DOUBLE_EQ(s.kernel_busy_ms, 5.0);  // 2-7, the two kernels' overlap counted once
  EXPECT_DOUBLE_EQ(s.copy_busy_ms, 6.0);    // 0-4, 5-6, 7-8
  EXPECT_DOUBLE_EQ(s.overlap_ms, 3.0);      // 2-4 and 5-6
  EXPECT_DOUBLE_EQ(s.idle_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.overlap_percent(), 60.0);  // of the shorter busy time (kernels, 5)
}

TEST(Overlap, SeesCopiesInBothDirectionsAtOnce) {
  const OverlapSummary s = summarize_overlap({{Stage::h2d, 1, 0.0, 4.0}, {Stage::d2h, 0, 1.0, 2.5}});
  EXPECT_DOUBLE_EQ(s.copy_copy_ms, 1.5);
  EXPECT_DOUBLE_EQ(s.overlap_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.copy_busy_ms, 4.0);
}

TEST(Overlap, AFullyHiddenCopyIsHundredPercent) {
  const OverlapSummary s = summarize_overlap({{Stage::kernel, 0, 0.0, 10.0}, {Stage::h2d, 1, 3.0, 5.0}});
  EXPECT_DOUBLE_EQ(s.overlap_percent(), 100.0);
}

TEST(Overlap, EmptyAndZeroLengthInputs) {
  const OverlapSummary empty = summarize_overlap({});
  EXPECT_DOUBLE_EQ(empty.span_ms, 0.0);
  EXPECT_DOUBLE_EQ(empty.overlap_percent(), 0.0);
  const OverlapSummary instant = summarize_overlap({{Stage::kernel, 0, 1.0, 1.0}, {Stage::h2d, 0, 1.0, 1.0}});
  EXPECT_DOUBLE_EQ(instant.kernel_busy_ms, 0.0);
  EXPECT_DOUBLE_EQ(instant.overlap_ms, 0.0);
}

TEST(Overlap, RejectsAnIntervalThatEndsBeforeItStarts) {
  EXPECT_THROW(summarize_overlap({{Stage::h2d, 0, 2.0, 1.0}}), std::invalid_argument);
}

TEST(Overlap, StageNames) {
  EXPECT_STREQ(to_string(Stage::h2d), "h2d");
  EXPECT_STREQ(to_string(Stage::kernel), "kernel");
  EXPECT_STREQ(to_string(Stage::d2h), "d2h");
}

}  // namespace
}  // namespace hdbench
