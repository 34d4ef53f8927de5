// The MLP step's NVTX phases: "<benchmark>/forward" (with the batch's image bytes)
// then "<benchmark>/backward" (the CPU's backward pass with the fused update, with
// the parameter bytes), and on a GPU a separate "<benchmark>/optimizer" range, all
// on the calling thread in step order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture_log.hpp"
#include "core/cuda.hpp"
#include "core/system.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp/mlp_gpu.hpp"

namespace {

namespace nvtx = hdbench::nvtx;
using namespace hdbench::nvtx_capture;

const hdbench::MlpShape kShape = hdbench::parse_mlp_shape("784x8x10");
constexpr std::size_t kBatch = 4;

std::vector<float> images() { return std::vector<float>(kBatch * 784, 0.5f); }
const std::vector<std::int32_t> kLabels = {0, 1, 2, 3};

std::uint64_t image_bytes() { return kBatch * 784 * sizeof(float); }
std::uint64_t parameter_bytes() { return hdbench::make_parameter_layout(kShape).total * sizeof(float); }

TEST_F(NvtxRanges, CpuStepRangesItsForwardAndBackwardPassesAfterTheBenchmark) {
  hdbench::CpuMlp mlp(kShape, hdbench::default_optimizer(hdbench::OptimizerKind::sgd), kBatch, 1,
                      hdbench::initial_parameters(kShape, 1));
  mlp.name_ranges("mlp/nvtx-test/cpu");
  const std::vector<float> x = images();
  mlp.step(x.data(), kLabels.data(), kBatch);
  mlp.step(x.data(), kLabels.data(), kBatch);

  const std::string tid = tid_string();
  std::vector<Fields> expected;
  for (int step = 0; step < 2; ++step) {
    expected.push_back(push_line(tid, hdbench::kMlpNvtx, image_bytes(), "mlp/nvtx-test/cpu/forward"));
    expected.push_back(pop_line(tid));
    expected.push_back(push_line(tid, hdbench::kMlpNvtx, parameter_bytes(), "mlp/nvtx-test/cpu/backward"));
    expected.push_back(pop_line(tid));
  }
  const auto lines = range_lines(since_start(), tid);
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

TEST_F(NvtxRanges, GpuStepRangesItsForwardBackwardAndOptimizerEnqueues) {
  static const hdbench::system::SystemInfo machine = hdbench::system::discover();
  if (!machine.gpu_usable()) GTEST_SKIP() << machine.gpu_unavailable_reason;
  HDBENCH_CUDA_CHECK(cudaSetDevice(0));
  hdbench::Stream stream("mlp/nvtx-test");
  hdbench::GpuMlp mlp(kShape, hdbench::default_optimizer(hdbench::OptimizerKind::adam), hdbench::MlpDtype::fp32, kBatch,
                      hdbench::initial_parameters(kShape, 1), stream.get());
  const std::vector<float> x = images();
  hdbench::DeviceBuffer on_device(x.size() * sizeof(float) + kLabels.size() * sizeof(std::int32_t));
  auto* device_images = on_device.as<float>();
  auto* device_labels = reinterpret_cast<std::int32_t*>(device_images + x.size());
  hdbench::upload_bytes(device_images, x.data(), x.size() * sizeof(float));
  hdbench::upload_bytes(device_labels, kLabels.data(), kLabels.size() * sizeof(std::int32_t));
  mlp.step(device_images, device_labels, kBatch);  // the first step plans the GEMMs: outside the captured lines
  stream.synchronize();
  const std::uintmax_t before = log_size();
  mlp.name_ranges("mlp/nvtx-test/gpu");
  mlp.step(device_images, device_labels, kBatch);
  stream.synchronize();

  const std::string tid = tid_string();
  const std::vector<Fields> expected = {
      push_line(tid, hdbench::kMlpNvtx, image_bytes(), "mlp/nvtx-test/gpu/forward"),       pop_line(tid),
      push_line(tid, hdbench::kMlpNvtx, parameter_bytes(), "mlp/nvtx-test/gpu/backward"),  pop_line(tid),
      push_line(tid, hdbench::kMlpNvtx, parameter_bytes(), "mlp/nvtx-test/gpu/optimizer"), pop_line(tid),
  };
  const auto lines = range_lines(lines_since(before), tid);
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

}  // namespace
