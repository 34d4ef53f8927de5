// The GPU step's plan-time decisions, with made-up timings (no GPU involved): which
// epilogue candidate a GEMM keeps, when the output layer is padded, the report line,
// the kernels-per-step count over hand-made trace records, the split of the
// bias-gradient fallback into row chunks and the room the arena keeps for it and for
// the padded logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "mlp/cublaslt.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp/mlp_gpu_choice.hpp"
#include "mlp/mlp_gpu_impl.hpp"
#include "mlp_kernels.hpp"
#include "mlp_narrow_kernels.hpp"

namespace hdbench {
namespace {

constexpr EpilogueCandidate fused(double us) { return {.fused = true, .microseconds = us, .available = true}; }
constexpr EpilogueCandidate plain(double us) { return {.fused = false, .microseconds = us, .available = true}; }
constexpr EpilogueCandidate missing_fused() {
  return {.fused = true, .microseconds = std::nullopt, .available = false};
}

TEST(MlpGpuChoice, MeasuredKeepsTheFastestCandidate) {
  // The H100's sweep: DRELU 566 us fused (GEMM + cuBLASLt's globalKernel) vs 347 plain
  // (+ a ReLU-gradient kernel, say 60); BGRADB on a 4096x4096 layer 385 vs 369 + 64.
  const std::array drelu{fused(566.0), plain(347.0 + 60.0)};
  EXPECT_EQ(choose_epilogue(drelu, EpiloguePolicy::measure), 1u);
  const std::array bgradb{fused(385.1), plain(374.5 + 64.0)};
  EXPECT_EQ(choose_epilogue(bgradb, EpiloguePolicy::measure), 0u);
  // A tie keeps the earlier candidate, whatever the order.
  const std::array tie{plain(10.0), fused(10.0)};
  EXPECT_EQ(choose_epilogue(tie, EpiloguePolicy::measure), 0u);
}

TEST(MlpGpuChoice, AMissingFusedAlgorithmIsNoCandidate) {
  const std::array only_plain{missing_fused(), plain(43.9)};
  EXPECT_EQ(choose_epilogue(only_plain, EpiloguePolicy::measure), 1u);
  EXPECT_EQ(choose_epilogue(only_plain, EpiloguePolicy::fused), 1u);  // forced, but it does not exist
  EXPECT_EQ(choose_epilogue(only_plain, EpiloguePolicy::unfused), 1u);
  const std::array none{missing_fused()};
  EXPECT_FALSE(choose_epilogue(none, EpiloguePolicy::measure).has_value());
  EXPECT_FALSE(choose_epilogue(std::span<const EpilogueCandidate>{}, EpiloguePolicy::fused).has_value());
}

TEST(MlpGpuChoice, ForcedPoliciesIgnoreTheTimings) {
  const std::array slow_fused{fused(557.2), plain(43.9)};
  EXPECT_EQ(choose_epilogue(slow_fused, EpiloguePolicy::fused), 0u);
  const std::array fast_fused{fused(1.0), plain(100.0)};
  EXPECT_EQ(choose_epilogue(fast_fused, EpiloguePolicy::unfused), 1u);
  // Untimed candidates (a forced run times nothing) are still chosen by kind.
  const std::array untimed{EpilogueCandidate{.fused = true, .microseconds = std::nullopt, .available = true},
                           EpilogueCandidate{.fused = false, .microseconds = std::nullopt, .available = true}};
  EXPECT_EQ(choose_epilogue(untimed, EpiloguePolicy::fused), 0u);
  EXPECT_EQ(choose_epilogue(untimed, EpiloguePolicy::unfused), 1u);
  // Measuring with nothing timed keeps the first that exists rather than nothing.
  EXPECT_EQ(choose_epilogue(untimed, EpiloguePolicy::measure), 0u);
}

TEST(MlpGpuChoice, PaddedWidthRoundsTo32Bytes) {
  EXPECT_EQ(padded_width(10, MlpDtype::bf16), 16);
  EXPECT_EQ(padded_width(10, MlpDtype::fp32), 16);
  EXPECT_EQ(padded_width(10, MlpDtype::tf32), 16);
  EXPECT_EQ(padded_width(3, MlpDtype::fp32), 8);
  EXPECT_EQ(padded_width(3, MlpDtype::bf16), 16);
  EXPECT_EQ(padded_width(16, MlpDtype::bf16), 16);
  EXPECT_EQ(padded_width(8, MlpDtype::fp32), 8);
  EXPECT_EQ(padded_width(17, MlpDtype::bf16), 32);
  EXPECT_EQ(padded_width(1, MlpDtype::fp32), 8);
}

TEST(MlpGpuChoice, PaddingOnlyWhenItChangesTheLayoutAndMeasuresFaster) {
  // Sweep, large model: the output layer's GEMMs in all, ld 10 vs ld 16.
  EXPECT_TRUE(choose_padding(10, MlpDtype::bf16, PaddingPolicy::measure, 557.2 + 39.3 + 30.0, 45.4 + 39.5 + 30.0));
  EXPECT_FALSE(choose_padding(10, MlpDtype::bf16, PaddingPolicy::measure, 80.0, 81.5));
  EXPECT_FALSE(choose_padding(10, MlpDtype::bf16, PaddingPolicy::measure, 80.0, 80.0));  // tie: as it is
  EXPECT_FALSE(choose_padding(10, MlpDtype::bf16, PaddingPolicy::measure, std::nullopt, 1.0));
  EXPECT_FALSE(choose_padding(10, MlpDtype::bf16, PaddingPolicy::measure, 1.0, std::nullopt));
  EXPECT_TRUE(choose_padding(10, MlpDtype::fp32, PaddingPolicy::padded, 1.0, 1000.0));
  EXPECT_FALSE(choose_padding(10, MlpDtype::fp32, PaddingPolicy::unpadded, 1000.0, 1.0));
  // Already aligned: nothing to pad, whatever the policy says.
  EXPECT_FALSE(choose_padding(16, MlpDtype::bf16, PaddingPolicy::padded, 1000.0, 1.0));
  EXPECT_FALSE(choose_padding(8, MlpDtype::fp32, PaddingPolicy::measure, 1000.0, 1.0));
}

TEST(MlpGpuChoice, TheReportLineNamesEachChoiceWithBothTimings) {
  PlanChoices choices;
  choices.classes = 10;
  choices.logits_ld = 16;
  choices.unpadded_microseconds = 626.5;
  choices.padded_microseconds = 114.9;
  choices.gemms.push_back({.layer = 1,  // forced: nothing timed
                           .gemm = "forward",
                           .fused = true,
                           .fused_microseconds = std::nullopt,
                           .plain_microseconds = std::nullopt});
  choices.gemms.push_back(
      {.layer = 1, .gemm = "weight_gradient", .fused = false, .fused_microseconds = 557.2, .plain_microseconds = 74.0});
  choices.gemms.push_back({.layer = 1,
                           .gemm = "input_gradient",
                           .fused = false,
                           .fused_microseconds = std::nullopt,
                           .plain_microseconds = 39.3});
  EXPECT_EQ(choices.fused_count(), 1u);
  EXPECT_EQ(describe(choices),
            "fused 1/3; L1 weight_gradient plain (fused 557.2us, plain 74.0us); L1 input_gradient plain (fused n/a, "
            "plain 39.3us); logits ld 16 (padded 114.9us, unpadded 626.5us)");
  EXPECT_EQ(describe(PlanChoices{}), "fused 0/0");
}

constexpr EpilogueCandidate own(double us) { return {.fused = false, .microseconds = us, .available = true}; }

TEST(MlpGpuChoice, HdbenchsOwnKernelCompetesOnlyWhereThePolicyLetsIt) {
  // The H100's bf16 output layer: DRELU 309.1, plain + ReLU gradient 109.7; a kernel at 31.0.
  const std::array fast_own{fused(309.1), plain(109.7), own(31.0)};
  EXPECT_EQ(choose_with_own_kernel(fast_own, EpiloguePolicy::measure, OwnKernelPolicy::measure), 2u);
  EXPECT_EQ(choose_with_own_kernel(fast_own, EpiloguePolicy::measure, OwnKernelPolicy::never), 1u);
  // A forced epilogue keeps its GEMM unless the kernel is forced too.
  EXPECT_EQ(choose_with_own_kernel(fast_own, EpiloguePolicy::unfused, OwnKernelPolicy::measure), 1u);
  EXPECT_EQ(choose_with_own_kernel(fast_own, EpiloguePolicy::fused, OwnKernelPolicy::measure), 0u);
  EXPECT_EQ(choose_with_own_kernel(fast_own, EpiloguePolicy::fused, OwnKernelPolicy::always), 2u);
  // Measured slower, it is not kept; forced, it is.
  const std::array slow_own{fused(309.1), plain(109.7), own(150.0)};
  EXPECT_EQ(choose_with_own_kernel(slow_own, EpiloguePolicy::measure, OwnKernelPolicy::measure), 1u);
  EXPECT_EQ(choose_with_own_kernel(slow_own, EpiloguePolicy::measure, OwnKernelPolicy::always), 2u);
  // Where the shape does not allow it, "always" falls back to the GEMM's ways.
  const std::array no_own{missing_fused(), plain(109.7),
                          EpilogueCandidate{.fused = false, .microseconds = std::nullopt, .available = false}};
  EXPECT_EQ(choose_with_own_kernel(no_own, EpiloguePolicy::measure, OwnKernelPolicy::always), 1u);
  // Two candidates: the GEMM's ways only.
  const std::array two{fused(1.0), plain(2.0)};
  EXPECT_EQ(choose_with_own_kernel(two, EpiloguePolicy::measure, OwnKernelPolicy::always), 0u);
}

TEST(MlpGpuChoice, AKeptKernelIsNamedAndCountedByItsOwnTime) {
  PlanChoices choices;
  choices.gemms.push_back({.layer = 2,
                           .gemm = "input_gradient",
                           .fused = false,
                           .fused_microseconds = 309.1,
                           .plain_microseconds = 109.7,
                           .own_kernel = true,
                           .kernel_microseconds = 31.0});
  choices.gemms.push_back(
      {.layer = 2, .gemm = "weight_gradient", .fused = true, .fused_microseconds = 45.3, .plain_microseconds = 76.0});
  EXPECT_EQ(describe(choices),
            "fused 1/2; L2 input_gradient kernel (fused 309.1us, plain 109.7us, kernel 31.0us); L2 weight_gradient "
            "fused (fused 45.3us, plain 76.0us)");
  ASSERT_TRUE(choices.chosen_microseconds().has_value());
  EXPECT_DOUBLE_EQ(*choices.chosen_microseconds(), 31.0 + 45.3);
  // Kept but never timed (a forced policy): the total is unknown.
  choices.gemms.front().kernel_microseconds = std::nullopt;
  EXPECT_FALSE(choices.chosen_microseconds().has_value());
}

TEST(MlpGpuChoice, AWeightGradientReadsItsInputTransposedOnlyWhenThatWayIsFaster) {
  // The H200's tf32 weight gradient at 4096x4096, K = 8192: both operands MN-major 1,056 us,
  // one K-major ~690 us plus a transpose (made-up 70 us).
  EXPECT_TRUE(choose_transposed_input(TransposePolicy::measure, true, 1056.5, 760.0));
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::measure, true, 700.0, 760.0));
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::measure, true, 700.0, 700.0));  // a tie keeps it as stored
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::measure, true, std::nullopt, 760.0));  // not timed
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::measure, true, 1056.5, std::nullopt));
  EXPECT_TRUE(choose_transposed_input(TransposePolicy::always, true, std::nullopt, std::nullopt));
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::never, true, 1056.5, 760.0));
  // Not there (not tf32, or no algorithm): never, whatever the policy.
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::always, false, 1056.5, 760.0));
  EXPECT_FALSE(choose_transposed_input(TransposePolicy::measure, false, 1056.5, 760.0));
}

TEST(MlpGpuChoice, ATransposedInputIsNamedWithTheOtherWaysTime) {
  PlanChoices choices;
  choices.gemms.push_back({.layer = 1,
                           .gemm = "weight_gradient",
                           .fused = true,
                           .fused_microseconds = 760.0,
                           .plain_microseconds = 801.0,
                           .transposed_input = true,
                           .other_way_microseconds = 1056.5});
  choices.gemms.push_back({.layer = 0,
                           .gemm = "weight_gradient",
                           .fused = true,
                           .fused_microseconds = 190.0,
                           .plain_microseconds = 230.0,
                           .other_way_microseconds = 205.0});
  EXPECT_EQ(describe(choices),
            "fused 2/2; L1 weight_gradient fused (fused 760.0us, plain 801.0us, input transposed; as stored "
            "1056.5us); L0 weight_gradient fused (fused 190.0us, plain 230.0us, input transposed 205.0us)");
  // The kept way's time counts, its transpose included.
  ASSERT_TRUE(choices.chosen_microseconds().has_value());
  EXPECT_DOUBLE_EQ(*choices.chosen_microseconds(), 760.0 + 190.0);
}

TEST(MlpGpuChoice, TheTransposeRefusesBadShapesBeforeLaunching) {
  // Checked on the host, so no GPU is needed; the null pointers are never read.
  EXPECT_NO_THROW(kernels::check_transpose(8192, 4096, 4096, 8192));
  EXPECT_NO_THROW(kernels::check_transpose(0, 0, 0, 0));
  EXPECT_THROW(kernels::check_transpose(-1, 4, 4, 4), std::invalid_argument);
  EXPECT_THROW(kernels::check_transpose(8, 4, 3, 8), std::invalid_argument);  // source rows narrower than the data
  EXPECT_THROW(kernels::check_transpose(8, 4, 4, 7), std::invalid_argument);  // destination rows too
  EXPECT_THROW(kernels::check_transpose(1, 65535 * 32 + 1, 65535 * 32 + 1, 1), std::invalid_argument);
  EXPECT_THROW(kernels::transpose(nullptr, 8, 4, 3, nullptr, 8, nullptr), std::invalid_argument);
  EXPECT_NO_THROW(kernels::transpose(nullptr, 0, 4, 4, nullptr, 0, nullptr));  // nothing to move, nothing launched
}

TEST(MlpGpuChoice, TheNarrowInputGradientKernelTakesOnlyWhatItCan) {
  // Checked on the host before any launch, so no GPU is needed; the pointers are never read.
  alignas(16) static float buffer[8];
  const void* aligned = buffer;
  const void* misaligned = buffer + 1;
  EXPECT_TRUE(kernels::narrow_input_gradient_supported(10, 4096, aligned, aligned));
  EXPECT_TRUE(kernels::narrow_input_gradient_supported(16, 32, aligned, aligned));
  EXPECT_TRUE(kernels::narrow_input_gradient_supported(1, 4, aligned, aligned));
  EXPECT_FALSE(kernels::narrow_input_gradient_supported(17, 32, aligned, aligned));  // weights beyond the registers
  EXPECT_FALSE(kernels::narrow_input_gradient_supported(0, 32, aligned, aligned));
  EXPECT_FALSE(kernels::narrow_input_gradient_supported(10, 30, aligned, aligned));  // rows not in fours
  EXPECT_FALSE(kernels::narrow_input_gradient_supported(10, 32, misaligned, aligned));
  EXPECT_FALSE(kernels::narrow_input_gradient_supported(10, 32, aligned, misaligned));
  // The launcher refuses what it does not take, and an ld below the outputs, before launching.
  EXPECT_THROW(kernels::narrow_input_gradient(buffer, buffer, 10, buffer, buffer, 1, 17, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::narrow_input_gradient(buffer, buffer, 8, buffer, buffer, 1, 10, 32, nullptr),
               std::invalid_argument);
}

TEST(MlpGpuChoice, TheChosenGemmsTimesAddUpOnlyWhenEachWasTimed) {
  PlanChoices choices;
  EXPECT_FALSE(choices.chosen_microseconds().has_value());  // no GEMMs: nothing to say
  choices.gemms.push_back(
      {.layer = 0, .gemm = "forward", .fused = true, .fused_microseconds = 18.5, .plain_microseconds = 25.0});
  choices.gemms.push_back(
      {.layer = 1, .gemm = "weight_gradient", .fused = false, .fused_microseconds = 557.2, .plain_microseconds = 74.0});
  // Each GEMM's chosen candidate: the fused 18.5 and the plain 74.0, not the faster or slower of each pair.
  ASSERT_TRUE(choices.chosen_microseconds().has_value());
  EXPECT_DOUBLE_EQ(*choices.chosen_microseconds(), 92.5);
  choices.gemms.push_back({.layer = 1,  // forced: its chosen candidate never timed
                           .gemm = "forward",
                           .fused = true,
                           .fused_microseconds = std::nullopt,
                           .plain_microseconds = 30.0});
  EXPECT_FALSE(choices.chosen_microseconds().has_value());
}

TEST(MlpGpuChoice, TheFastestAlgorithmIsKeptAndTiesGoToTheHeuristicsOrder) {
  EXPECT_FALSE(lt::fastest_of({}).has_value());
  const std::vector<double> one{530.1};
  EXPECT_EQ(lt::fastest_of(one), 0u);
  // The H100's tf32 weight gradient (K = 8192) ran 1069 us with the heuristic's first.
  const std::vector<double> timed{1069.0, 1102.5, 801.2, 950.0, 801.2};
  EXPECT_EQ(lt::fastest_of(timed), 2u);

  lt::AlgorithmChoice choice{.offered = 8, .kept = 4, .ranks = {0, 1, 4, 5, 7}, .timed_microseconds = timed};
  EXPECT_TRUE(choice.retuned());
  EXPECT_DOUBLE_EQ(choice.first_microseconds().value(), 1069.0);
  EXPECT_DOUBLE_EQ(choice.kept_microseconds().value(), 801.2);
  // The first that ran kept (the heuristic's rank 0 refused by cuBLASLt): not retuned.
  const lt::AlgorithmChoice first{.offered = 3, .kept = 1, .ranks = {1, 2}, .timed_microseconds = {40.0, 41.0}};
  EXPECT_FALSE(first.retuned());
  EXPECT_DOUBLE_EQ(first.kept_microseconds().value(), 40.0);
  // Untimed (one candidate asked for): nothing to compare.
  const lt::AlgorithmChoice untimed{.offered = 8, .kept = 0, .ranks = {0}, .timed_microseconds = {}};
  EXPECT_FALSE(untimed.retuned());
  EXPECT_FALSE(untimed.first_microseconds().has_value());
  EXPECT_FALSE(untimed.kept_microseconds().has_value());
}

TEST(MlpGpuChoice, WhatTimingTheAlgorithmsSavedIsAddedBackForTheHeuristicTotal) {
  PlanChoices choices;
  EXPECT_FALSE(choices.heuristic_microseconds().has_value());
  choices.gemms.push_back({.layer = 1,
                           .gemm = "weight_gradient",
                           .fused = true,
                           .fused_microseconds = 810.0,
                           .plain_microseconds = 830.0,
                           .algorithm_retuned = true,
                           .algorithm_rank = 2,
                           .algorithms_timed = 6,
                           .heuristic_first_microseconds = 1069.0,
                           .kept_algorithm_microseconds = 801.2});
  choices.gemms.push_back({.layer = 1,  // kept the heuristic's first
                           .gemm = "input_gradient",
                           .fused = false,
                           .fused_microseconds = std::nullopt,
                           .plain_microseconds = 878.0,
                           .algorithm_rank = 0,
                           .algorithms_timed = 8,
                           .heuristic_first_microseconds = 870.0,
                           .kept_algorithm_microseconds = 870.0});
  EXPECT_EQ(choices.retuned_count(), 1u);
  EXPECT_DOUBLE_EQ(choices.chosen_microseconds().value(), 810.0 + 878.0);
  EXPECT_DOUBLE_EQ(choices.heuristic_microseconds().value(), 810.0 + 878.0 + (1069.0 - 801.2));
  EXPECT_EQ(describe(choices),
            "fused 1/2; L1 weight_gradient fused (fused 810.0us, plain 830.0us) algorithm 3 of 6 timed (801.2us "
            "against the first's 1069.0us); L1 input_gradient plain (fused n/a, plain 878.0us)");
}

TEST(MlpGpuChoice, NarrowBiasGradientsSplitTheirRows) {
  // 10 columns x 8192 rows: one column block, so the rows are split (at most 64 chunks).
  EXPECT_EQ(kernels::bias_gradient_row_chunks(8192, 10), 64);
  EXPECT_EQ(kernels::bias_gradient_row_chunks(8192, 32), 64);
  // Wide layers fill the GPU with column blocks already: few or no chunks.
  EXPECT_EQ(kernels::bias_gradient_row_chunks(8192, 4096), 2);
  EXPECT_EQ(kernels::bias_gradient_row_chunks(8192, 16384), 1);
  // Short batches are not worth a second pass.
  EXPECT_EQ(kernels::bias_gradient_row_chunks(127, 10), 1);
  EXPECT_EQ(kernels::bias_gradient_row_chunks(128, 10), 2);
  EXPECT_EQ(kernels::bias_gradient_row_chunks(1, 10), 1);
  // The room needed covers every row count.
  for (int width : {1, 10, 16, 32, 33, 100, 4096, 16384}) {
    for (int rows : {1, 128, 1000, 8192, 1 << 20}) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(width));
      const int chunks = kernels::bias_gradient_row_chunks(rows, width);
      if (chunks > 1) {
        EXPECT_LE(static_cast<std::size_t>(chunks) * width, kernels::bias_gradient_partials_needed(width));
      }
    }
  }
}

// The arena keeps room for the padded logits and their gradient, and for the split
// bias gradient's partials, whatever the plan later chooses.
TEST(MlpGpuChoice, TheArenaHasRoomForThePaddedLogits) {
  const MlpShape shape = parse_mlp_shape("784x32x10");
  constexpr std::size_t kBatch = 8192;
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    const auto a = mlp_gpu_detail::make_arena_layout(shape, OptimizerKind::sgd, dtype, kBatch);
    const auto ld = static_cast<std::size_t>(padded_width(10, dtype));
    const std::size_t op_bytes = dtype == MlpDtype::bf16 ? 2 : 4;
    EXPECT_EQ(a.outputs.back().bytes, kBatch * ld * sizeof(float));  // logits stay fp32
    EXPECT_EQ(a.dy[0].bytes, kBatch * 32 * op_bytes);                // the widest: the hidden layer's 32
    EXPECT_GE(a.dy[0].bytes, kBatch * ld * op_bytes);
    const std::size_t partials = std::max(kernels::bias_gradient_partials_needed(32),
                                          kernels::bias_gradient_partials_needed(static_cast<int>(ld)));
    EXPECT_EQ(a.bias_partials.bytes, partials * sizeof(float));
    EXPECT_GE(a.total, a.bias_partials.offset + a.bias_partials.bytes);
  }
  // A model wider than its padding: the dy buffers follow the widest layer.
  const auto wide =
      mlp_gpu_detail::make_arena_layout(parse_mlp_shape("784x4x10"), OptimizerKind::sgd, MlpDtype::bf16, kBatch);
  EXPECT_EQ(wide.dy[0].bytes, kBatch * 16 * 2);
}

// tf32 keeps room for the widest layer input transposed, its rows 16 bytes apart at any
// batch; the other dtypes never transpose and hold nothing for it.
TEST(MlpGpuChoice, OnlyTf32HoldsATransposedInput) {
  const MlpShape shape = parse_mlp_shape("784x4096x10");
  for (std::size_t batch : {std::size_t{37}, std::size_t{8192}}) {
    const auto tf32 = mlp_gpu_detail::make_arena_layout(shape, OptimizerKind::sgd, MlpDtype::tf32, batch);
    EXPECT_EQ(tf32.input_transposed.bytes, 4096 * ((batch + 3) / 4 * 4) * sizeof(float)) << batch;
    EXPECT_EQ(tf32.input_transposed.offset % mlp_gpu_detail::kArenaAlignment, 0u);
    for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::bf16})
      EXPECT_FALSE(
          mlp_gpu_detail::make_arena_layout(shape, OptimizerKind::sgd, dtype, batch).input_transposed.present());
  }
  EXPECT_EQ(mlp_gpu_detail::transposed_ld(37), 40);
  EXPECT_EQ(mlp_gpu_detail::transposed_ld(8192), 8192);
  EXPECT_EQ(mlp_gpu_detail::transposed_ld(1), 4);
}

}  // namespace
}  // namespace hdbench
