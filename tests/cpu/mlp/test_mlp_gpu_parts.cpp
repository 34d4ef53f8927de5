// The GPU step's parts as GpuMlp::time_step_parts returns them, summed and described
// without a GPU (the times are made up for the tests, not measured).
#include <gtest/gtest.h>

#include <vector>

#include "mlp/mlp_gpu_parts.hpp"

namespace hdbench {
namespace {

const std::vector<StepPart> kParts{{"cast", StepPartKind::other, 12.5},
                                   {"L0 forward", StepPartKind::gemm, 118.0},
                                   {"L1 forward", StepPartKind::gemm, 40.0},
                                   {"loss", StepPartKind::other, 7.5},
                                   {"L1 weight_gradient", StepPartKind::gemm, 45.0},
                                   {"L1 input_gradient", StepPartKind::gemm, 110.0},
                                   {"L0 weight_gradient", StepPartKind::gemm, 115.0},
                                   {"update", StepPartKind::update, 251.0}};

TEST(MlpGpuParts, TotalsSplitTheStepIntoGemmsUpdateAndTheRest) {
  const StepPartTotals totals = total_parts(kParts);
  EXPECT_DOUBLE_EQ(totals.gemm_microseconds, 428.0);
  EXPECT_DOUBLE_EQ(totals.update_microseconds, 251.0);
  EXPECT_DOUBLE_EQ(totals.other_microseconds, 20.0);
  EXPECT_DOUBLE_EQ(totals.total_microseconds(), 699.0);
  EXPECT_DOUBLE_EQ(total_parts({}).total_microseconds(), 0.0);
}

TEST(MlpGpuParts, DescribeListsEveryPartInOrder) {
  EXPECT_EQ(describe_parts(kParts),
            "cast 12.5us, L0 forward 118.0us, L1 forward 40.0us, loss 7.5us, L1 weight_gradient 45.0us, "
            "L1 input_gradient 110.0us, L0 weight_gradient 115.0us, update 251.0us");
  EXPECT_EQ(describe_parts({}), "");
}

TEST(MlpGpuParts, UpdateBytesCountEveryArrayTheKernelsReadAndWrite) {
  // SGD: weight, gradient, velocity read; weight, velocity written. Adam: weight, gradient,
  // m, v read; weight, m, v written. bf16 writes the GEMMs' copy too.
  EXPECT_EQ(update_bytes_per_parameter(OptimizerKind::sgd, MlpDtype::fp32), 20u);
  EXPECT_EQ(update_bytes_per_parameter(OptimizerKind::sgd, MlpDtype::tf32), 20u);
  EXPECT_EQ(update_bytes_per_parameter(OptimizerKind::sgd, MlpDtype::bf16), 22u);
  EXPECT_EQ(update_bytes_per_parameter(OptimizerKind::adam, MlpDtype::fp32), 28u);
  EXPECT_EQ(update_bytes_per_parameter(OptimizerKind::adam, MlpDtype::bf16), 30u);
}

}  // namespace
}  // namespace hdbench
