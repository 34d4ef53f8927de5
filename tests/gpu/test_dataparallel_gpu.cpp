// GPU tests of the data-parallel step with one rank (the lent machines have one GPU;
// NCCL refuses two ranks on one device): NCCL's mean over one rank leaves the
// gradients as they were, so both exchanges must end where one process without any
// exchange ends, the bucketed exchange in as many buckets as the cap makes, with the
// all-reduce run and timed. Skip with the reason when no GPU is usable.
#include <gtest/gtest.h>

#include "dataparallel/gpu_step.hpp"
#include "gpu_test_support.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench {
namespace {

GpuDataParallelCase small_case(bool overlap, std::size_t bucket_bytes) {
  DataParallelCase step{parse_mlp_shape("784x64x32x10"), 96, 3, 1, 0x5eedULL, 1e-4};
  return {step, overlap, bucket_bytes, 60.0};
}

TEST(GpuDataParallelStep, BucketedOverlapEndsWhereOneProcessEndsInOneBucketPerCap) {
  SKIP_WITHOUT_GPU();
  dataparallel::SelfCommunicator self;
  // Layer gradients (weights and biases) are about 200 KB, 8 KB and 1.3 KB: a 1 KB cap
  // closes a bucket at each layer, going backward.
  const nlohmann::json result = run_gpu_data_parallel(self, small_case(true, 1024));
  ASSERT_FALSE(result.contains("error_message")) << result["error_message"];
  const nlohmann::json& k = result["counters"];
  EXPECT_EQ(k["buckets"].get<double>(), 3.0);
  EXPECT_TRUE(result["checks"]["ranks_identical"].get<bool>());
  EXPECT_TRUE(result["checks"]["matches_one_rank"].get<bool>());
  EXPECT_LE(k["params_max_abs_diff_vs_one_rank"].get<double>(), 1e-4);
  EXPECT_GT(k["step_us"].get<double>(), 0.0);
  EXPECT_GT(k["step_no_exchange_us"].get<double>(), 0.0);
  EXPECT_GT(k["allreduce_us"].get<double>(), 0.0);
  EXPECT_FALSE(k.contains("allreduce_busbw_GB/s"));  // one rank crosses no link: no bandwidth
  EXPECT_FALSE(k.contains("allreduce_algbw_GB/s"));
  EXPECT_EQ(k["samples"].get<double>(), 3.0);  // the step's noise has its sample count
  EXPECT_GE(k["noise_percent"].get<double>(), 0.0);
  ASSERT_EQ(result["per_rank"].size(), 1u);
  EXPECT_EQ(result["per_rank"][0]["step_us_all"].size(), 3u);
  EXPECT_LT(k["final_loss"].get<double>(), 10.0);
}

TEST(GpuDataParallelStep, OneAllReduceAfterTheBackwardPassEndsThereToo) {
  SKIP_WITHOUT_GPU();
  dataparallel::SelfCommunicator self;
  const nlohmann::json result = run_gpu_data_parallel(self, small_case(false, 4096));
  ASSERT_FALSE(result.contains("error_message")) << result["error_message"];
  EXPECT_EQ(result["counters"]["buckets"].get<double>(), 1.0);
  EXPECT_TRUE(result["checks"]["matches_one_rank"].get<bool>());
  EXPECT_GT(result["counters"]["allreduce_us"].get<double>(), 0.0);
}

}  // namespace
}  // namespace hdbench
