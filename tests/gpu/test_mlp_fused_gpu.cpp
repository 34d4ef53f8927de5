// The fused step (lib/mlp/mlp_fused.hpp, mode `fused`) against the CPU model and the
// float64 reference for three steps on fresh batches: logits, loss, correct count and
// every gradient (outputs poisoned with NaN first, so an element the kernels leave
// unwritten fails), and the parameters after each update, at the fp32 tolerance the
// cuBLASLt step is held to (test_mlp_gpu.cpp). Batch 128 and others: 1, 37 (a partial
// block of 4 samples), 300 (kernel 2's batch chunks of 128, the last partial); shapes
// at the limits (hidden 64, classes 16, inputs 2048) and one whose inputs are not a
// multiple of 4 (the scalar loads). Then: the fused update equals gradients + the
// separate optimizer kernel, a replayed graph equals direct steps, and two runs agree,
// all to the bit; training lowers the loss; unsupported cases and bad batches refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "gpu_test_support.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_fused.hpp"
#include "mlp/mlp_model.hpp"
#include "mlp/mlp_reference.hpp"
#include "mlp_gpu_checks.hpp"

namespace hdbench {
namespace {

using mlp_gpu_checks::Batch;
using mlp_gpu_checks::close;
using mlp_gpu_checks::random_batch;

constexpr std::size_t kMaxBatch = 300;

// Each layer's weight and bias blocks of the flat array, judged against their own magnitude.
template <typename Check>
void for_each_block(const MlpShape& shape, Check check) {
  const ParameterLayout layout = make_parameter_layout(shape);
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    const auto weights = static_cast<std::size_t>(shape.fan_out(l)) * static_cast<std::size_t>(shape.fan_in(l));
    check("layer " + std::to_string(l) + " weight", layout.layers[l].weight, weights);
    check("layer " + std::to_string(l) + " bias", layout.layers[l].bias, static_cast<std::size_t>(shape.fan_out(l)));
  }
}

::testing::AssertionResult padding_is_zero(const std::string& what, const MlpShape& shape,
                                           std::span<const float> values) {
  const ParameterLayout layout = make_parameter_layout(shape);
  std::vector<bool> padding(layout.total, true);
  for_each_block(shape, [&](const std::string&, std::size_t offset, std::size_t count) {
    std::fill_n(padding.begin() + static_cast<std::ptrdiff_t>(offset), count, false);
  });
  for (std::size_t i = 0; i < values.size(); ++i)
    if (padding[i] && values[i] != 0.0f)
      return ::testing::AssertionFailure() << what << ": padding element " << i << " is " << values[i] << ", not 0";
  return ::testing::AssertionSuccess();
}

template <typename T>
std::vector<double> minus(std::span<const T> a, std::span<const float> b) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = static_cast<double>(a[i]) - static_cast<double>(b[i]);
  return out;
}

struct Case {
  const char* model;
  std::size_t batch;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string model = info.param.model;
  std::replace(model.begin(), model.end(), 'x', '_');
  return model + "_batch" + std::to_string(info.param.batch);
}

// Under compute-sanitizer every case still runs (the kernels are two launches a step),
// on the three that cover both load paths, a partial block and several batch chunks.
bool sanitizer_representative(const Case& c) {
  const std::string model = c.model;
  return (model == "784x32x10" && (c.batch == 37 || c.batch == 300)) || model == "100x7x3";
}

class FusedStepVersusCpu : public ::testing::TestWithParam<Case> {};

TEST_P(FusedStepVersusCpu, MatchesTheCpuModelAndTheFloat64ReferenceForThreeSteps) {
  SKIP_WITHOUT_GPU();
  const Case c = GetParam();
  if (testing_support::under_compute_sanitizer() && !sanitizer_representative(c))
    GTEST_SKIP() << "under compute-sanitizer only 784x32x10 at batches 37 and 300 and 100x7x3 run";
  const MlpShape shape = parse_mlp_shape(c.model);
  const OptimizerConfig optimizer = default_optimizer(OptimizerKind::sgd);
  const std::vector<float> initial = initial_parameters(shape, 11);
  Stream stream("mlp-fused-test");
  FusedMlp fused(shape, optimizer, MlpDtype::fp32, kMaxBatch, initial, stream.get());
  CpuMlp cpu(shape, optimizer, kMaxBatch, 1, initial);
  ReferenceMlp reference(shape, optimizer, initial);
  for (std::uint32_t step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step + 1));
    // A fresh batch each step: a gradient element the step failed to rewrite would keep
    // a stale value, and the poison before it would show.
    const Batch batch = random_batch(shape, c.batch, static_cast<std::uint32_t>(c.batch * 7919 + step), stream.get());
    fused.poison_step_outputs();
    fused.compute_gradients(batch.images_on_device(), batch.labels_on_device(), c.batch);
    const StepResult got = fused.last_result();
    const StepResult on_cpu = cpu.compute_gradients(batch.images.data(), batch.labels.data(), c.batch);
    const StepResult want = reference.compute_gradients(batch.images.data(), batch.labels.data(), c.batch);

    const std::vector<float> logits = fused.logits();
    EXPECT_TRUE(close<float>("logits vs cpu", logits, cpu.logits()));
    EXPECT_TRUE(close<double>("logits vs float64", logits, reference.logits()));
    EXPECT_NEAR(got.loss, on_cpu.loss, 0.3 * mlp_gpu_checks::kFp32Tolerance.rel * (1.0 + std::abs(on_cpu.loss)));
    EXPECT_NEAR(got.loss, want.loss, 0.3 * mlp_gpu_checks::kFp32Tolerance.rel * (1.0 + std::abs(want.loss)));
    // A near-tie of the top two logits may fall either way under rounding.
    EXPECT_LE(std::abs(static_cast<double>(got.correct) - static_cast<double>(on_cpu.correct)), 1.0);
    EXPECT_LE(std::abs(static_cast<double>(got.correct) - static_cast<double>(want.correct)), 1.0);

    const std::vector<float> gradients = fused.gradients();
    const std::span<const float> g(gradients);
    for_each_block(shape, [&](const std::string& what, std::size_t offset, std::size_t count) {
      EXPECT_TRUE(
          close<float>(what + " gradient vs cpu", g.subspan(offset, count), cpu.gradients().subspan(offset, count)));
      EXPECT_TRUE(close<double>(what + " gradient vs float64", g.subspan(offset, count),
                                reference.gradients().subspan(offset, count)));
    });
    EXPECT_TRUE(padding_is_zero("gradients", shape, gradients));

    fused.apply_optimizer();
    cpu.apply_optimizer();
    reference.apply_optimizer();
    // The updates so far (parameters - initial), judged against their own magnitude.
    const std::vector<float> after = fused.parameters();
    EXPECT_TRUE(padding_is_zero("parameters", shape, after));
    const std::vector<double> moved = minus<float>(after, initial);
    const std::vector<double> cpu_moved = minus<float>(cpu.parameters(), initial);
    const std::vector<double> reference_moved = minus<double>(reference.parameters(), initial);
    std::vector<float> moved_f(moved.begin(), moved.end());
    for_each_block(shape, [&](const std::string& what, std::size_t offset, std::size_t count) {
      const std::span<const float> m = std::span<const float>(moved_f).subspan(offset, count);
      EXPECT_TRUE(close<double>(what + " update vs cpu", m, std::span<const double>(cpu_moved).subspan(offset, count)));
      EXPECT_TRUE(close<double>(what + " update vs float64", m,
                                std::span<const double>(reference_moved).subspan(offset, count)));
    });
  }
}

INSTANTIATE_TEST_SUITE_P(ShapesAndBatches, FusedStepVersusCpu,
                         ::testing::Values(Case{"784x32x10", 128}, Case{"784x32x10", 1}, Case{"784x32x10", 37},
                                           Case{"784x32x10", 300}, Case{"784x64x16", 128}, Case{"784x16x10", 256},
                                           Case{"2048x64x16", 64}, Case{"100x7x3", 37}),
                         case_name);

// The three ways to run a step agree to the bit: the update fused into kernel 2, the
// gradients then the separate optimizer kernel, and the step replayed from its graph;
// and a second model from the same start retraces the first (no atomics, fixed orders).
TEST(FusedMlp, FusedUpdateHalvesAndGraphReplayAgreeBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const std::size_t size : {std::size_t{37}, std::size_t{128}}) {
    SCOPED_TRACE("batch " + std::to_string(size));
    const MlpShape shape = parse_mlp_shape("784x32x10");
    const std::vector<float> initial = initial_parameters(shape, 21);
    const OptimizerConfig optimizer = default_optimizer(OptimizerKind::sgd);
    Stream stream;
    const Batch batch = random_batch(shape, size, 9, stream.get());
    const float* images = batch.images_on_device();
    const std::int32_t* labels = batch.labels_on_device();
    FusedMlp direct(shape, optimizer, MlpDtype::fp32, kMaxBatch, initial, stream.get());
    FusedMlp halves(shape, optimizer, MlpDtype::fp32, kMaxBatch, initial, stream.get());
    FusedMlp graph(shape, optimizer, MlpDtype::fp32, kMaxBatch, initial, stream.get());
    FusedMlp again(shape, optimizer, MlpDtype::fp32, kMaxBatch, initial, stream.get());
    EXPECT_FALSE(graph.captured());
    EXPECT_EQ(graph.graph_nodes(), 0u);
    EXPECT_THROW(graph.replay(), std::logic_error);
    graph.capture_step(images, labels, size);
    EXPECT_TRUE(graph.captured());
    EXPECT_EQ(graph.graph_nodes(), 2u) << "the step is two kernel nodes";
    EXPECT_EQ(graph.parameters(), initial) << "capturing must not run the step";
    for (int step = 0; step < 3; ++step) {
      direct.step(images, labels, size);
      halves.compute_gradients(images, labels, size);
      halves.apply_optimizer();
      graph.replay();
      again.step(images, labels, size);
      const StepResult d = direct.last_result();
      for (FusedMlp* other : {&halves, &graph, &again}) {
        const StepResult o = other->last_result();
        EXPECT_EQ(d.loss, o.loss) << "step " << step;
        EXPECT_EQ(d.correct, o.correct) << "step " << step;
      }
    }
    const std::vector<float> p = direct.parameters();
    EXPECT_NE(p, initial);
    for (FusedMlp* other : {&halves, &graph, &again}) {
      const std::vector<float> q = other->parameters();
      ASSERT_EQ(p.size(), q.size());
      EXPECT_EQ(std::memcmp(p.data(), q.data(), p.size() * sizeof(float)), 0) << "parameters differ after 3 steps";
      const std::vector<float> gp = direct.gradients();
      const std::vector<float> gq = other->gradients();
      EXPECT_EQ(std::memcmp(gp.data(), gq.data(), gp.size() * sizeof(float)), 0) << "gradients differ";
    }
  }
}

TEST(FusedMlp, TrainingLowersTheLoss) {
  SKIP_WITHOUT_GPU();
  const bool small = testing_support::under_compute_sanitizer();
  const std::size_t size = small ? 32 : 128;
  const int steps = small ? 16 : 40;
  const MlpShape shape = parse_mlp_shape("784x32x10");
  Stream stream;
  const Batch batch = random_batch(shape, size, 17, stream.get());
  FusedMlp fused(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, kMaxBatch, initial_parameters(shape, 5),
                 stream.get());
  fused.capture_step(batch.images_on_device(), batch.labels_on_device(), size);
  fused.replay();
  const StepResult first = fused.last_result();
  for (int step = 1; step < steps; ++step) fused.replay();
  const StepResult last = fused.last_result();
  EXPECT_TRUE(std::isfinite(first.loss) && std::isfinite(last.loss));
  // One fixed batch of random labels: memorising it drives the loss down fast.
  EXPECT_LT(last.loss, 0.5 * first.loss) << "loss " << first.loss << " → " << last.loss;
  EXPECT_GT(last.correct, first.correct);
}

TEST(FusedMlp, ALabelOutsideTheClassesGivesANanLoss) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x32x10");
  Stream stream;
  Batch batch = random_batch(shape, 8, 3, stream.get());
  batch.labels[5] = 10;
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(batch.device_labels.data(), batch.labels.data(), batch.device_labels.size(),
                                     cudaMemcpyHostToDevice, stream.get()));
  FusedMlp fused(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, kMaxBatch, initial_parameters(shape, 5),
                 stream.get());
  fused.compute_gradients(batch.images_on_device(), batch.labels_on_device(), 8);
  EXPECT_TRUE(std::isnan(fused.last_result().loss));
}

TEST(FusedMlp, RefusesUnsupportedCasesAndBadBatchesWithTheReason) {
  SKIP_WITHOUT_GPU();
  Stream stream;
  const auto refusal = [&](const char* model, OptimizerKind optimizer, MlpDtype dtype) -> std::string {
    const MlpShape shape = parse_mlp_shape(model);
    try {
      FusedMlp fused(shape, default_optimizer(optimizer), dtype, 16, initial_parameters(shape, 1), stream.get());
    } catch (const MlpConfigError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(refusal("784x4096x4096x10", OptimizerKind::sgd, MlpDtype::fp32).find("3 layers"), std::string::npos);
  EXPECT_NE(refusal("784x128x10", OptimizerKind::sgd, MlpDtype::fp32).find("hidden width of 128"), std::string::npos);
  EXPECT_NE(refusal("784x32x100", OptimizerKind::sgd, MlpDtype::fp32).find("100 classes"), std::string::npos);
  EXPECT_NE(refusal("784x32x10", OptimizerKind::sgd, MlpDtype::bf16).find("dtype bf16"), std::string::npos);
  EXPECT_NE(refusal("784x32x10", OptimizerKind::adam, MlpDtype::fp32).find("optimizer adam"), std::string::npos);

  const MlpShape shape = parse_mlp_shape("784x32x10");
  const Batch batch = random_batch(shape, 17, 1, stream.get());
  const float* images = batch.images_on_device();
  const std::int32_t* labels = batch.labels_on_device();
  FusedMlp fused(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 16, initial_parameters(shape, 1),
                 stream.get());
  EXPECT_THROW(fused.last_result(), std::logic_error);
  EXPECT_THROW(fused.logits(), std::logic_error);
  EXPECT_THROW(fused.step(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(fused.compute_gradients(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(fused.capture_step(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(fused.step(images, labels, 0), std::invalid_argument);
  EXPECT_THROW(fused.step(nullptr, labels, 4), std::invalid_argument);
  EXPECT_THROW(fused.replay_launch_floor(), std::logic_error);
  EXPECT_THROW(fused.capture_launch_floor(17), std::invalid_argument);
  EXPECT_NO_THROW(fused.step(images, labels, 16));
  EXPECT_TRUE(std::isfinite(fused.last_result().loss));
  // The launch floor's graph: the same two launches, empty, replayed.
  fused.capture_launch_floor(16);
  for (int i = 0; i < 3; ++i) fused.replay_launch_floor();
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_LE(FusedMlp::device_bytes_needed(shape, 16), fused.device_bytes());
}

}  // namespace
}  // namespace hdbench
