// The fused step's host side, checked without a GPU: which models, dtypes and
// optimizers it takes and the reason it gives for the rest; its launch configuration
// (grids, shared memory within the default 48 KiB); its device allocation's layout;
// and a refused model refused before the device is touched. The kernels themselves
// are checked against the CPU model and the float64 reference in
// tests/gpu/test_mlp_fused_gpu.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mlp/mlp_fused.hpp"
#include "mlp/mlp_model.hpp"
#include "mlp_fused_kernels.hpp"

namespace hdbench {
namespace {

using ::testing::HasSubstr;

TEST(FusedStepSupport, TakesSmallTwoLayerFp32SgdModels) {
  for (const char* model : {"784x32x10", "784x64x16", "1x1x1", "2048x64x16", "100x7x3", "784x16x10"}) {
    EXPECT_EQ(fused_step_unsupported(parse_mlp_shape(model), OptimizerKind::sgd, MlpDtype::fp32), std::nullopt)
        << model;
  }
}

TEST(FusedStepSupport, RefusesTheRestNamingWhatIsOutOfReach) {
  const auto why = [](const char* model, OptimizerKind optimizer = OptimizerKind::sgd,
                      MlpDtype dtype = MlpDtype::fp32) {
    const std::optional<std::string> reason = fused_step_unsupported(parse_mlp_shape(model), optimizer, dtype);
    return reason.value_or("(accepted)");
  };
  EXPECT_THAT(why("784x64x32x10"), HasSubstr("model '784x64x32x10' has 3 layers"));
  EXPECT_THAT(why("784x10"), HasSubstr("has 1 layers, the fused step takes exactly 2"));
  EXPECT_THAT(why("784x4096x4096x10"), HasSubstr("3 layers"));
  EXPECT_THAT(why("784x65x10"), HasSubstr("hidden width of 65, over the fused step's 64"));
  EXPECT_THAT(why("784x32x17"), HasSubstr("17 classes, over the fused step's 16"));
  EXPECT_THAT(why("2049x32x10"), HasSubstr("2049 inputs, over the fused step's 2048"));
  EXPECT_THAT(why("784x32x10", OptimizerKind::sgd, MlpDtype::bf16), HasSubstr("dtype bf16"));
  EXPECT_THAT(why("784x32x10", OptimizerKind::sgd, MlpDtype::tf32), HasSubstr("dtype tf32"));
  EXPECT_THAT(why("784x32x10", OptimizerKind::adam), HasSubstr("optimizer adam"));
  // Every reason says what the mode does take.
  for (const std::string& reason :
       {why("784x64x32x10"), why("784x65x10"), why("784x32x17"), why("2049x32x10"),
        why("784x32x10", OptimizerKind::adam), why("784x32x10", OptimizerKind::sgd, MlpDtype::bf16)}) {
    EXPECT_THAT(reason, HasSubstr("hidden ≤ 64, classes ≤ 16")) << reason;
  }
}

TEST(FusedStepGrid, SplitsThe784x32x10StepAtBatch128) {
  const kernels::FusedStepGrid g = kernels::fused_step_grid({784, 32, 10}, 128);
  EXPECT_EQ(g.forward_blocks, 32);        // 4 samples a block
  EXPECT_EQ(g.forward_rows_per_warp, 4);  // 8 warps × 4 rows = 32 hidden units
  EXPECT_EQ(g.forward_shared_bytes, 4u * 4u * (784u + 64u + 2u * 16u));
  EXPECT_EQ(g.column_tiles, 25);  // 784 inputs in tiles of 32
  EXPECT_EQ(g.row_groups, 2);     // 32 hidden rows in groups of 16
  EXPECT_EQ(g.w1_blocks(), 50);
  EXPECT_EQ(g.small_outputs, 32 * 10 + 10 + 32 + 1);  // dW2, db2, db1, the loss
  EXPECT_EQ(g.small_blocks, 12);                      // 363 outputs, 4 a warp, 8 warps a block
  EXPECT_EQ(g.gradient_blocks(), 62);
}

TEST(FusedStepGrid, CoversEveryBatchAndShapeWithinTheLimits) {
  EXPECT_EQ(kernels::fused_step_grid({784, 32, 10}, 1).forward_blocks, 1);
  EXPECT_EQ(kernels::fused_step_grid({784, 32, 10}, 37).forward_blocks, 10);
  EXPECT_EQ(kernels::fused_step_grid({784, 32, 10}, 1 << 20).forward_blocks, 1 << 18);
  EXPECT_EQ(kernels::fused_step_grid({784, 32, 10}, 2147483647).forward_blocks, 536870912);  // no overflow
  for (int hidden : {1, 7, 8, 9, 16, 17, 32, 33, 63, 64}) {
    const kernels::FusedStepGrid g = kernels::fused_step_grid({100, hidden, 3}, 64);
    SCOPED_TRACE(hidden);
    EXPECT_GE(8 * g.forward_rows_per_warp, hidden);                   // every hidden row has a warp
    EXPECT_LT(4 * g.forward_rows_per_warp, hidden > 8 ? hidden : 9);  // and no more than twice the rows needed
    EXPECT_GE(16 * g.row_groups, hidden);
    EXPECT_EQ(g.column_tiles, 4);  // 100 inputs: 3 full tiles and a partial one
  }
  // The largest accepted shape still fits the default 48 KiB of shared memory (no opt-in).
  EXPECT_LE(kernels::fused_step_grid({kernels::kFusedMaxInputs, 64, 16}, 1).forward_shared_bytes, 48u * 1024u);
  for (const kernels::FusedStepShape bad :
       {kernels::FusedStepShape{0, 32, 10}, kernels::FusedStepShape{2049, 32, 10}, kernels::FusedStepShape{784, 65, 10},
        kernels::FusedStepShape{784, 32, 17}, kernels::FusedStepShape{784, 0, 10}}) {
    EXPECT_THROW(kernels::fused_step_grid(bad, 128), std::invalid_argument);
  }
  EXPECT_THROW(kernels::fused_step_grid({784, 32, 10}, 0), std::invalid_argument);
}

TEST(FusedArena, HoldsEveryBufferAlignedAndGrowsWithTheBatch) {
  const MlpShape shape = parse_mlp_shape("784x32x10");
  const FusedArenaLayout a = make_fused_arena_layout(shape, 128);
  const std::size_t parameter_bytes = make_parameter_layout(shape).total * sizeof(float);
  const std::vector<std::pair<std::size_t, std::size_t>> slots = {
      {a.parameters, parameter_bytes}, {a.gradients, parameter_bytes},
      {a.velocity, parameter_bytes},   {a.hidden, 128 * 32 * 4},
      {a.logits, 128 * 10 * 4},        {a.dlogits, 128 * 10 * 4},
      {a.dhidden, 128 * 32 * 4},       {a.row_loss, 128 * 4},
      {a.row_correct, 128 * 4},        {a.scalars, 16}};
  for (std::size_t i = 0; i < slots.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(slots[i].first % 256, 0u);
    const std::size_t end = slots[i].first + slots[i].second;
    EXPECT_LE(end, i + 1 < slots.size() ? slots[i + 1].first : a.total);  // no overlap, in order
  }
  EXPECT_EQ(FusedMlp::device_bytes_needed(shape, 128), a.total);
  EXPECT_LT(a.total, FusedMlp::device_bytes_needed(shape, 129));
  EXPECT_THROW(make_fused_arena_layout(shape, 0), MlpConfigError);
  EXPECT_THROW(make_fused_arena_layout(parse_mlp_shape("784x64x32x10"), 128), MlpConfigError);
}

// The refusal comes before any CUDA call, so it is the same sentence with or without a GPU.
TEST(FusedMlp, RefusesAnUnsupportedCaseBeforeTouchingTheDevice) {
  const MlpShape deep = parse_mlp_shape("784x64x32x10");
  try {
    FusedMlp mlp(deep, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 128, initial_parameters(deep, 1),
                 nullptr);
    ADD_FAILURE() << "a three-layer model was accepted";
  } catch (const MlpConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("3 layers"));
  }
  const MlpShape small = parse_mlp_shape("784x32x10");
  EXPECT_THROW(FusedMlp(small, default_optimizer(OptimizerKind::adam), MlpDtype::fp32, 128,
                        initial_parameters(small, 1), nullptr),
               MlpConfigError);
  EXPECT_THROW(FusedMlp(small, default_optimizer(OptimizerKind::sgd), MlpDtype::bf16, 128, initial_parameters(small, 1),
                        nullptr),
               MlpConfigError);
  EXPECT_THROW(
      FusedMlp(small, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 0, initial_parameters(small, 1), nullptr),
      MlpConfigError);
}

}  // namespace
}  // namespace hdbench
