// The GPU training step against the CPU model: logits, loss, correct count and every
// gradient (outputs poisoned with NaN first, so an element the step leaves unwritten
// fails), the parameters after SGD and Adam; the optimizer kernel against its
// documented formula over several steps (Adam's device-side step count); a captured
// graph replayed equals eager steps; training lowers the loss; bad batches refused;
// device_bytes_needed covers what is allocated. GpuGemm and the fallback kernels are
// checked in test_mlp_kernels_gpu.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cuda.hpp"
#include "gpu_test_support.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp/mlp_model.hpp"
#include "mlp_gpu_checks.hpp"

namespace hdbench {
namespace {

using mlp_gpu_checks::Batch;
using mlp_gpu_checks::close;
using mlp_gpu_checks::max_abs;
using mlp_gpu_checks::random_batch;
using mlp_gpu_checks::Tolerance;

constexpr std::size_t kMaxBatch = 128;

// tf32 rounds operands to 10 mantissa bits, bf16 to 7 and its activations too.
Tolerance tolerance_for(MlpDtype dtype) {
  switch (dtype) {
    case MlpDtype::fp32:
      return mlp_gpu_checks::kFp32Tolerance;
    case MlpDtype::tf32:
      return {3e-3, 1e-2};
    case MlpDtype::bf16:
      return {3e-2, 5e-2};
  }
  return {0.0, 0.0};
}

// Every element outside the layers' weight and bias blocks: the padding.
std::vector<bool> padding_mask(const MlpShape& shape) {
  const ParameterLayout layout = make_parameter_layout(shape);
  std::vector<bool> padding(layout.total, true);
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    const auto weights = static_cast<std::size_t>(shape.fan_out(l)) * static_cast<std::size_t>(shape.fan_in(l));
    std::fill_n(padding.begin() + static_cast<std::ptrdiff_t>(layout.layers[l].weight), weights, false);
    std::fill_n(padding.begin() + static_cast<std::ptrdiff_t>(layout.layers[l].bias), shape.fan_out(l), false);
  }
  return padding;
}

::testing::AssertionResult padding_is_zero(const std::string& what, const MlpShape& shape,
                                           std::span<const float> values) {
  const std::vector<bool> padding = padding_mask(shape);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (padding[i] && values[i] != 0.0f)
      return ::testing::AssertionFailure() << what << ": padding element " << i << " is " << values[i] << ", not 0";
  return ::testing::AssertionSuccess();
}

// Blocks of the flat array, per layer, so each is judged against its own magnitude.
template <typename Check>
void for_each_block(const MlpShape& shape, Check check) {
  const ParameterLayout layout = make_parameter_layout(shape);
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    const auto weights = static_cast<std::size_t>(shape.fan_out(l)) * static_cast<std::size_t>(shape.fan_in(l));
    check("layer " + std::to_string(l) + " weight", layout.layers[l].weight, weights);
    check("layer " + std::to_string(l) + " bias", layout.layers[l].bias, static_cast<std::size_t>(shape.fan_out(l)));
  }
}

// Initial parameters whose hidden pre-activations keep clear of zero: tf32 and bf16
// round them by ~1e-3, and a unit that is barely on for the CPU and barely off for
// the GPU would change a whole gradient row. Alternate units get bias ±3 (about 5σ
// of the first layer's pre-activation on these inputs); deeper hidden weights shrink
// so the margin holds there too. Half the units are dead, so the ReLU gradient's
// mask is exercised as well.
std::vector<float> parameters_with_margin(const MlpShape& shape, std::uint64_t seed) {
  std::vector<float> p = initial_parameters(shape, seed);
  const ParameterLayout layout = make_parameter_layout(shape);
  for (std::size_t l = 0; l + 1 < shape.layers(); ++l) {
    for (int u = 0; u < shape.fan_out(l); ++u) p[layout.layers[l].bias + u] = (u % 2 == 0) ? 3.0f : -3.0f;
    if (l == 0) continue;
    const auto weights = static_cast<std::size_t>(shape.fan_out(l)) * static_cast<std::size_t>(shape.fan_in(l));
    for (std::size_t i = 0; i < weights; ++i) p[layout.layers[l].weight + i] *= 0.25f;
  }
  return p;
}

struct Case {
  MlpDtype dtype;
  OptimizerKind optimizer;
  const char* model;
  std::size_t batch;
  PlanPolicy policy{};  // measured unless a case forces each GEMM's epilogue and the logits' layout
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string model = info.param.model;
  std::replace(model.begin(), model.end(), 'x', '_');
  std::string name = std::string(to_string(info.param.dtype)) + "_" + to_string(info.param.optimizer) + "_" + model +
                     "_batch" + std::to_string(info.param.batch);
  const PlanPolicy& policy = info.param.policy;
  if (policy.epilogues != EpiloguePolicy::measure || policy.padding != PaddingPolicy::measure)
    name += std::string("_") + to_string(policy.epilogues) + "_" + to_string(policy.padding);
  if (policy.own_kernels != OwnKernelPolicy::measure) name += std::string("_kernel_") + to_string(policy.own_kernels);
  if (policy.transposed_inputs != TransposePolicy::measure)
    name += std::string("_transposed_") + to_string(policy.transposed_inputs);
  return name;
}

// Each side of both plan-time choices, forced, so every path runs whatever the device
// measures fastest: fused epilogues or plain GEMMs with hdbench's kernels (the split
// bias gradient at batch 128, the vectorised ReLU gradient with a scalar tail at 37),
// and logits stored with ld = classes or padded (the padding masked in the loss).
std::vector<PlanPolicy> forced_policies() {
  std::vector<PlanPolicy> policies;
  for (EpiloguePolicy epilogues : {EpiloguePolicy::fused, EpiloguePolicy::unfused})
    for (PaddingPolicy padding : {PaddingPolicy::unpadded, PaddingPolicy::padded})
      policies.push_back({.epilogues = epilogues, .padding = padding, .time_algorithms = false});
  // tf32's weight gradients reading their input transposed, plain (the bias gradient in
  // hdbench's kernel) and, in the last policy, fused (BGRADB).
  policies.push_back({.epilogues = EpiloguePolicy::unfused,
                      .padding = PaddingPolicy::padded,
                      .time_algorithms = false,
                      .transposed_inputs = TransposePolicy::always});
  // hdbench's kernel in place of the output layer's input-gradient GEMM, at both logits
  // layouts (last: GraphReplayEqualsEagerSteps takes the last two under the sanitizers).
  policies.push_back({.epilogues = EpiloguePolicy::unfused,
                      .padding = PaddingPolicy::unpadded,
                      .time_algorithms = false,
                      .own_kernels = OwnKernelPolicy::always});
  policies.push_back({.epilogues = EpiloguePolicy::fused,
                      .padding = PaddingPolicy::padded,
                      .time_algorithms = false,
                      .own_kernels = OwnKernelPolicy::always,
                      .transposed_inputs = TransposePolicy::always});
  return policies;
}

std::vector<Case> forced_plan_cases() {
  std::vector<Case> cases;
  for (const PlanPolicy& policy : forced_policies())
    for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16})
      for (const char* model : {"784x64x32x10", "784x32x10"})
        for (std::size_t batch : {std::size_t{37}, std::size_t{128}})
          cases.push_back({dtype, OptimizerKind::sgd, model, batch, policy});
  return cases;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16})
    for (OptimizerKind optimizer : {OptimizerKind::sgd, OptimizerKind::adam})
      for (const char* model : {"784x64x32x10", "784x32x10"})
        for (std::size_t batch : {std::size_t{1}, std::size_t{37}, std::size_t{128}})
          cases.push_back({dtype, optimizer, model, batch});
  return cases;
}

// Under compute-sanitizer every kernel is instrumented: racecheck took 14 s a case at
// 784x64x32x10 batch 128 on an H100 (2026-11-23), 20 minutes for all of them. There a
// case stands for its dtype, optimizer and plan at the small model and the odd batch
// (37 exercises every kernel's tail); the plain run checks every case.
bool sanitizer_representative(const Case& c) { return std::string_view(c.model) == "784x32x10" && c.batch == 37; }

// The same reasoning for the step-by-step tests: under compute-sanitizer they run the
// small model with one forced plan (a measured plan times every candidate, ~20 ms a
// trial there); the plain run keeps the larger model and the measured plan.
const char* sanitizer_sized(const char* model) {
  return testing_support::under_compute_sanitizer() ? "784x32x10" : model;
}

void force_plan_under_sanitizer(GpuMlp& gpu) {
  if (testing_support::under_compute_sanitizer())
    gpu.set_plan_policy(
        {.epilogues = EpiloguePolicy::fused, .padding = PaddingPolicy::padded, .time_algorithms = false});
}

class MlpGpuVersusCpu : public ::testing::TestWithParam<Case> {};

TEST_P(MlpGpuVersusCpu, GradientsLogitsLossAndUpdateMatchTheCpuModel) {
  SKIP_WITHOUT_GPU();
  const Case c = GetParam();
  if (testing_support::under_compute_sanitizer() && !sanitizer_representative(c))
    GTEST_SKIP() << "under compute-sanitizer only 784x32x10 batch 37 of each dtype, optimizer and plan runs";
  const MlpShape shape = parse_mlp_shape(c.model);
  const OptimizerConfig optimizer = default_optimizer(c.optimizer);
  const std::vector<float> initial =
      c.dtype == MlpDtype::fp32 ? initial_parameters(shape, 11) : parameters_with_margin(shape, 11);
  const Tolerance tolerance = tolerance_for(c.dtype);
  Stream stream("mlp-gpu-test");
  const Batch batch = random_batch(shape, c.batch, static_cast<std::uint32_t>(c.batch * 7919 + 3), stream.get());

  GpuMlp gpu(shape, optimizer, c.dtype, kMaxBatch, initial, stream.get());
  gpu.set_plan_policy(c.policy);
  CpuMlp cpu(shape, optimizer, kMaxBatch, 1, initial);
  const auto* images = batch.device_images.as<const float>();
  const auto* labels = batch.device_labels.as<const std::int32_t>();
  // The first step of a batch size plans its GEMMs, with trial runs that write the
  // outputs too; poison after that, so only the step itself can fill them in.
  gpu.compute_gradients(images, labels, c.batch);
  gpu.poison_step_outputs();
  gpu.compute_gradients(images, labels, c.batch);
  const StepResult gpu_result = gpu.last_result();
  const StepResult cpu_result = cpu.compute_gradients(batch.images.data(), batch.labels.data(), c.batch);
  const PlanChoices choices = gpu.plan_choices();
  std::cout << "[ info     ] plan: " << describe(choices) << "\n";
  // The plan did what was forced: no fused epilogue ran unfused, and the layout.
  EXPECT_EQ(gpu.fused_epilogue_count(), choices.fused_count());
  EXPECT_EQ(choices.gemms.size(), 3 * shape.layers() - 1);
  if (c.policy.epilogues == EpiloguePolicy::unfused) {
    EXPECT_EQ(gpu.fused_epilogue_count(), 0u);
  }
  if (c.policy.padding == PaddingPolicy::padded) {
    EXPECT_EQ(choices.logits_ld, padded_width(shape.classes(), c.dtype));
  }
  if (c.policy.padding == PaddingPolicy::unpadded) {
    EXPECT_EQ(choices.logits_ld, shape.classes());
  }
  // hdbench's kernel for the output layer's input gradient where forced (these models'
  // shapes allow it), never where an epilogue policy is forced alone.
  std::size_t own_kernels = 0;
  for (const GemmChoice& g : choices.gemms) own_kernels += g.own_kernel ? 1 : 0;
  if (c.policy.own_kernels == OwnKernelPolicy::always) {
    EXPECT_EQ(own_kernels, 1u);
  } else if (c.policy.epilogues != EpiloguePolicy::measure) {
    EXPECT_EQ(own_kernels, 0u);
  } else {
    EXPECT_LE(own_kernels, 1u);
  }
  // Weight gradients reading their input transposed: tf32 only, every one where forced (the
  // transposed plain GEMM exists wherever the one it replaces does), none where not timed.
  std::size_t transposed = 0;
  for (const GemmChoice& g : choices.gemms) transposed += g.transposed_input ? 1 : 0;
  if (c.dtype != MlpDtype::tf32 || c.policy.transposed_inputs == TransposePolicy::never) {
    EXPECT_EQ(transposed, 0u);
  } else if (c.policy.transposed_inputs == TransposePolicy::always) {
    EXPECT_EQ(transposed, shape.layers());
  } else if (c.policy.epilogues != EpiloguePolicy::measure && c.policy.padding != PaddingPolicy::measure) {
    EXPECT_EQ(transposed, 0u);
  } else {
    EXPECT_LE(transposed, shape.layers());
  }

  const std::vector<float> logits = gpu.logits();
  EXPECT_TRUE(close("logits", logits, cpu.logits(), tolerance));
  EXPECT_NEAR(gpu_result.loss, cpu_result.loss, 0.3 * tolerance.rel * (1.0 + std::abs(cpu_result.loss)));
  // Near-ties of the top two logits may fall either way under rounding.
  const double allowed_misses = c.dtype == MlpDtype::fp32 ? 1.0 : 2.0 + static_cast<double>(c.batch) / 20.0;
  EXPECT_LE(std::abs(static_cast<double>(gpu_result.correct) - static_cast<double>(cpu_result.correct)),
            allowed_misses);

  const std::vector<float> gpu_gradients = gpu.gradients();
  const std::span<const float> cpu_gradients = cpu.gradients();
  for_each_block(shape, [&](const std::string& what, std::size_t offset, std::size_t count) {
    EXPECT_TRUE(close(what + " gradient", std::span(gpu_gradients).subspan(offset, count),
                      cpu_gradients.subspan(offset, count), tolerance));
  });
  EXPECT_TRUE(padding_is_zero("gradients", shape, gpu_gradients));

  gpu.apply_optimizer();
  cpu.apply_optimizer();
  const std::vector<float> gpu_after = gpu.parameters();
  const std::span<const float> cpu_after = cpu.parameters();
  EXPECT_TRUE(padding_is_zero("parameters after the update", shape, gpu_after));
  std::vector<float> gpu_update(initial.size());
  std::vector<float> cpu_update(initial.size());
  for (std::size_t i = 0; i < initial.size(); ++i) {
    gpu_update[i] = gpu_after[i] - initial[i];
    cpu_update[i] = cpu_after[i] - initial[i];
  }
  for_each_block(shape, [&](const std::string& what, std::size_t offset, std::size_t count) {
    const std::span<const float> g = std::span(gpu_update).subspan(offset, count);
    const std::span<const float> u = std::span(cpu_update).subspan(offset, count);
    if (c.optimizer == OptimizerKind::sgd) {  // the first update is -lr·g
      EXPECT_TRUE(close(what + " update", g, u, tolerance));
      return;
    }
    // Adam's first update is about -lr·sign(g): exact wherever the gradient's sign is
    // settled, anything up to 2·lr where the gradient is within its tolerance of 0.
    const std::span<const float> grad = cpu_gradients.subspan(offset, count);
    const double grad_abs = tolerance.abs_fraction * max_abs(grad);
    std::size_t bad = 0;
    std::size_t first_bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (std::abs(static_cast<double>(grad[i])) <= 2.0 * grad_abs) continue;
      if (std::abs(static_cast<double>(g[i]) - u[i]) <= 1e-3 * optimizer.learning_rate) continue;
      if (bad++ == 0) first_bad = i;
    }
    EXPECT_EQ(bad, 0u) << what << " Adam update: first mismatch at [" << first_bad << "]: gpu " << g[first_bad]
                       << ", cpu " << u[first_bad] << ", gradient " << grad[first_bad];
  });
}

INSTANTIATE_TEST_SUITE_P(AllDtypesOptimizersModelsBatches, MlpGpuVersusCpu, ::testing::ValuesIn(all_cases()),
                         case_name);
INSTANTIATE_TEST_SUITE_P(ForcedPlans, MlpGpuVersusCpu, ::testing::ValuesIn(forced_plan_cases()), case_name);

// A measured plan times both candidates of every GEMM (the plain one always exists),
// both layouts of the 10-wide output layer, and counts as fused what it kept fused.
TEST(MlpGpu, MeasuredPlanRecordsBothCandidatesAndCountsWhatRanFused) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x64x32x10");
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    Stream stream;
    const Batch batch = random_batch(shape, kMaxBatch, 3, stream.get());
    GpuMlp gpu(shape, default_optimizer(OptimizerKind::sgd), dtype, kMaxBatch, initial_parameters(shape, 1),
               stream.get());
    EXPECT_EQ(gpu.fused_epilogue_count(), 0u);
    EXPECT_TRUE(gpu.plan_choices().gemms.empty());
    gpu.step(batch.device_images.as<const float>(), batch.device_labels.as<const std::int32_t>(), kMaxBatch);
    EXPECT_THROW(gpu.set_plan_policy({}), std::logic_error);
    const PlanChoices choices = gpu.plan_choices();
    std::cout << "[ info     ] " << to_string(dtype) << " plan: " << describe(choices) << "\n";
    ASSERT_EQ(choices.gemms.size(), 8u);
    for (const GemmChoice& g : choices.gemms) {
      SCOPED_TRACE("layer " + std::to_string(g.layer) + " " + g.gemm);
      ASSERT_TRUE(g.plain_microseconds.has_value());
      EXPECT_GT(*g.plain_microseconds, 0.0);
      if (g.fused) {
        ASSERT_TRUE(g.fused_microseconds.has_value());
      }
      // hdbench's kernel is timed for the output layer's input gradient only, and kept only
      // when faster than both of the GEMM's ways (a tie keeps the GEMM).
      EXPECT_EQ(g.kernel_microseconds.has_value(), g.layer == 2 && g.gemm == "input_gradient");
      if (g.own_kernel) {
        ASSERT_TRUE(g.kernel_microseconds.has_value());
        EXPECT_LT(*g.kernel_microseconds, *g.plain_microseconds);
        if (g.fused_microseconds) {
          EXPECT_LT(*g.kernel_microseconds, *g.fused_microseconds);
        }
        EXPECT_FALSE(g.fused);
        continue;  // no cuBLASLt algorithm to check
      }
      if (g.kernel_microseconds) {
        EXPECT_GE(*g.kernel_microseconds, g.fused ? *g.fused_microseconds : *g.plain_microseconds);
      }
      if (g.fused_microseconds && g.plain_microseconds) {
        EXPECT_EQ(g.fused, *g.fused_microseconds <= *g.plain_microseconds);  // a tie keeps the fused
      }
      // Its algorithm: the fastest of those timed, another than the first only when faster.
      EXPECT_GE(g.algorithms_timed, 1);
      EXPECT_LE(g.algorithms_timed, 8);
      ASSERT_TRUE(g.heuristic_first_microseconds && g.kept_algorithm_microseconds);
      EXPECT_LE(*g.kept_algorithm_microseconds, *g.heuristic_first_microseconds);
      EXPECT_EQ(g.algorithm_retuned, *g.kept_algorithm_microseconds < *g.heuristic_first_microseconds);
    }
    ASSERT_TRUE(choices.heuristic_microseconds() && choices.chosen_microseconds());
    EXPECT_GE(*choices.heuristic_microseconds(), *choices.chosen_microseconds());
    ASSERT_TRUE(choices.padded_microseconds && choices.unpadded_microseconds);
    EXPECT_EQ(choices.logits_ld == 16, *choices.padded_microseconds < *choices.unpadded_microseconds);
    EXPECT_EQ(gpu.fused_epilogue_count(), choices.fused_count());
    EXPECT_EQ(gpu.fused_epilogues(), choices.fused_count() == choices.gemms.size());
    EXPECT_EQ(gpu.logits().size(), kMaxBatch * 10);
  }
}

// The optimizer as OptimizerConfig documents it, on the GPU's own gradients, step by
// step: catches a wrong formula and an Adam step count stuck at 1.
struct HostOptimizer {
  OptimizerConfig config;
  std::vector<float> m;
  std::vector<float> v;
  int t = 0;

  void apply(std::vector<float>& p, const std::vector<float>& g) {
    if (m.empty()) {
      m.assign(p.size(), 0.0f);
      v.assign(p.size(), 0.0f);
    }
    ++t;
    const double bias1 = 1.0 - std::pow(static_cast<double>(config.beta1), t);
    const double bias2 = 1.0 - std::pow(static_cast<double>(config.beta2), t);
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (config.kind == OptimizerKind::sgd) {
        m[i] = config.momentum * m[i] + g[i];
        p[i] -= config.learning_rate * m[i];
      } else {
        m[i] = config.beta1 * m[i] + (1.0f - config.beta1) * g[i];
        v[i] = config.beta2 * v[i] + (1.0f - config.beta2) * g[i] * g[i];
        const double step = config.learning_rate * (m[i] / bias1) / (std::sqrt(v[i] / bias2) + config.epsilon);
        p[i] = static_cast<float>(p[i] - step);
      }
    }
  }
};

TEST(MlpGpu, OptimizerFollowsTheDocumentedFormulaStepByStep) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape(sanitizer_sized("784x64x32x10"));
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
      SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(kind));
      Stream stream;
      const Batch batch = random_batch(shape, 64, 5, stream.get());
      std::vector<float> expected = initial_parameters(shape, 3);
      GpuMlp gpu(shape, default_optimizer(kind), dtype, kMaxBatch, expected, stream.get());
      force_plan_under_sanitizer(gpu);
      HostOptimizer host{default_optimizer(kind), {}, {}, 0};
      for (int step = 0; step < 4; ++step) {
        gpu.compute_gradients(batch.device_images.as<const float>(), batch.device_labels.as<const std::int32_t>(), 64);
        const std::vector<float> gradients = gpu.gradients();
        gpu.apply_optimizer();
        host.apply(expected, gradients);
        const std::vector<float> actual = gpu.parameters();
        ASSERT_TRUE(close("parameters after step " + std::to_string(step + 1), actual, expected, {1e-6, 1e-5}));
        ASSERT_TRUE(padding_is_zero("parameters", shape, actual));
        expected = actual;  // each step from where the GPU is, so errors cannot compound
      }
    }
  }
}

struct GraphCase {
  MlpDtype dtype;
  PlanPolicy policy;
  OptimizerKind kind;
  std::size_t size;
};

// fp32 under every policy and both optimizers and sizes; bf16 (its own casts and
// fallback kernels) under every policy with SGD at both sizes.
std::vector<GraphCase> graph_cases(const std::vector<PlanPolicy>& policies) {
  std::vector<GraphCase> cases;
  for (const PlanPolicy& policy : policies) {
    for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam})
      for (std::size_t size : {std::size_t{37}, kMaxBatch}) cases.push_back({MlpDtype::fp32, policy, kind, size});
    for (std::size_t size : {std::size_t{37}, kMaxBatch})
      cases.push_back({MlpDtype::bf16, policy, OptimizerKind::sgd, size});
  }
  return cases;
}

// Two models from the same parameters under one forced plan policy: what both run must
// agree bit for bit.
struct TwinModels {
  TwinModels(const MlpShape& shape, OptimizerKind kind, MlpDtype dtype, std::span<const float> initial,
             const PlanPolicy& policy, cudaStream_t stream)
      : first(shape, default_optimizer(kind), dtype, kMaxBatch, initial, stream),
        second(shape, default_optimizer(kind), dtype, kMaxBatch, initial, stream) {
    first.set_plan_policy(policy);
    second.set_plan_policy(policy);
  }
  GpuMlp first;
  GpuMlp second;
};

// Twin models on one stream of their own, and a random batch of `size` samples on the device:
// what the bit-for-bit tests below step.
struct TwinRun {
  TwinRun(const MlpShape& shape, std::size_t size, std::uint32_t seed, OptimizerKind kind, MlpDtype dtype,
          std::span<const float> initial, const PlanPolicy& policy)
      : batch(random_batch(shape, size, seed, stream.get())),
        images(batch.images_on_device()),
        labels(batch.labels_on_device()),
        twins(shape, kind, dtype, initial, policy, stream.get()) {}
  Stream stream;
  Batch batch;
  const float* images;
  const std::int32_t* labels;
  TwinModels twins;
};

// The two models' fp32 master parameters agree bit for bit (they wait for their streams).
void expect_same_parameters(GpuMlp& a, GpuMlp& b, const std::string& what) {
  const std::vector<float> x = a.parameters();
  const std::vector<float> y = b.parameters();
  ASSERT_EQ(x.size(), y.size());
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << what;
}

TEST(MlpGpu, GraphReplayEqualsEagerSteps) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape(sanitizer_sized("784x64x32x10"));
  const std::vector<float> initial = initial_parameters(shape, 21);
  // Forced policies only (epilogues, padding and the heuristic's first algorithm): two
  // models measuring separately may choose differently, and then their results differ in
  // the last bits for a reason that is not the graph.
  // Under the sanitizer, three that take each side of every choice: fused and unpadded,
  // then hdbench's kernel unfused and unpadded, and fused and padded.
  std::vector<PlanPolicy> policies = forced_policies();
  if (testing_support::under_compute_sanitizer())
    policies = {policies.front(), policies[policies.size() - 2], policies.back()};
  for (const auto& [dtype, policy, kind, size] : graph_cases(policies)) {
    SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(policy.epilogues) + "/" + to_string(policy.padding) +
                 "/kernel " + to_string(policy.own_kernels) + "/transposed " + to_string(policy.transposed_inputs) +
                 " " + to_string(kind) + " batch " + std::to_string(size));
    TwinRun run(shape, size, 9, kind, dtype, initial, policy);
    const float* images = run.images;
    const std::int32_t* labels = run.labels;
    GpuMlp& eager = run.twins.first;
    GpuMlp& graph = run.twins.second;
    EXPECT_FALSE(graph.captured());
    EXPECT_THROW(graph.replay(), std::logic_error);
    graph.capture_step(images, labels, size);
    EXPECT_TRUE(graph.captured());
    EXPECT_EQ(graph.parameters(), initial) << "capturing must not run the step";
    for (int step = 0; step < 3; ++step) {
      eager.step(images, labels, size);
      graph.replay();
      const StepResult e = eager.last_result();
      const StepResult g = graph.last_result();
      EXPECT_EQ(e.loss, g.loss) << "step " << step;
      EXPECT_EQ(e.correct, g.correct) << "step " << step;
    }
    expect_same_parameters(eager, graph, "parameters differ after 3 steps");
    EXPECT_NE(eager.parameters(), initial);
  }
}

// set_update_overlap: each layer's update on the model's second stream, overlapped with the
// backward GEMMs below it, eager and replayed from a graph. The update is element by element,
// so the parameters (fp32 masters, and in bf16 the copies the next forward reads) are the
// serial step's bit for bit, with either optimizer (Adam's step count advanced once a step)
// and across a model of one layer (its only update has nothing to overlap).
TEST(MlpGpu, OverlappedUpdateEqualsTheUpdateAfterTheBackwardPass) {
  SKIP_WITHOUT_GPU();
  // Forced to the last choice, so that the twins plan alike (tf32's transposed inputs too).
  const PlanPolicy policy{.epilogues = EpiloguePolicy::fused,
                          .padding = PaddingPolicy::unpadded,
                          .time_algorithms = false,
                          .own_kernels = OwnKernelPolicy::never,
                          .transposed_inputs = TransposePolicy::always};
  // Under the sanitizers the small model alone (see sanitizer_sized).
  std::vector<const char*> models{"784x64x32x10", "784x10"};
  if (testing_support::under_compute_sanitizer()) models = {"784x32x10"};
  for (const char* model : models) {
    const MlpShape shape = parse_mlp_shape(model);
    const std::vector<float> initial = initial_parameters(shape, 29);
    for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
      for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
        for (bool replayed : {false, true}) {
          SCOPED_TRACE(std::string(model) + " " + to_string(dtype) + " " + to_string(kind) +
                       (replayed ? " graph" : " eager"));
          TwinRun run(shape, kMaxBatch, 13, kind, dtype, initial, policy);
          GpuMlp& serial = run.twins.first;
          GpuMlp& overlapped = run.twins.second;
          EXPECT_FALSE(overlapped.update_overlap());
          overlapped.set_update_overlap(true);
          EXPECT_TRUE(overlapped.update_overlap());
          if (replayed) {
            serial.capture_step(run.images, run.labels, kMaxBatch);
            overlapped.capture_step(run.images, run.labels, kMaxBatch);
            EXPECT_EQ(overlapped.parameters(), initial) << "capturing must not run the step";
            // The update cut per layer, not the serial one under another name: a kernel (or
            // two) a layer where the serial step has one for all. One layer: the same.
            if (shape.layers() > 1) {
              EXPECT_GT(overlapped.graph_nodes(), serial.graph_nodes());
            } else {
              EXPECT_EQ(overlapped.graph_nodes(), serial.graph_nodes());
            }
          }
          for (int step = 0; step < 3; ++step) {
            for (GpuMlp* m : {&serial, &overlapped}) {
              if (replayed) {
                m->replay();
              } else {
                m->step(run.images, run.labels, kMaxBatch);
              }
            }
            // The loss comes from the forward pass, which read the parameters the last
            // step's updates wrote: equal only if the stream waited for all of them.
            EXPECT_EQ(serial.last_result().loss, overlapped.last_result().loss) << "step " << step;
          }
          expect_same_parameters(serial, overlapped, "parameters differ after 3 steps");
          EXPECT_NE(overlapped.parameters(), initial);
        }
      }
    }
  }
}

// Where the overlap cannot hold, the update stays after the backward pass: time_step_parts
// times the parts one after another (the update last), and compute_gradients/apply_optimizer
// leave the caller the gradients in between.
TEST(MlpGpu, OverlappedUpdateStepsAsideForTimedPartsAndTheSplitStep) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x64x32x10");
  const std::vector<float> initial = initial_parameters(shape, 31);
  const PlanPolicy policy{
      .epilogues = EpiloguePolicy::unfused, .padding = PaddingPolicy::padded, .time_algorithms = false};
  TwinRun run(shape, kMaxBatch, 17, OptimizerKind::sgd, MlpDtype::fp32, initial, policy);
  const float* images = run.images;
  const std::int32_t* labels = run.labels;
  TwinModels& twins = run.twins;
  twins.second.set_update_overlap(true);
  const std::vector<StepPart> parts = twins.second.time_step_parts(images, labels, kMaxBatch);
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts.back().kind, StepPartKind::update);
  EXPECT_EQ(parts.back().name, "update");
  twins.first.step(images, labels, kMaxBatch);
  twins.first.compute_gradients(images, labels, kMaxBatch);
  twins.first.apply_optimizer();
  twins.second.compute_gradients(images, labels, kMaxBatch);
  twins.second.apply_optimizer();
  expect_same_parameters(twins.first, twins.second, "parameters differ after 2 steps");
}

// time_step_parts is a step like any other, with events between its parts: the same
// result bit for bit as step() on a twin model, and its parts named in the step's order.
TEST(MlpGpu, TimedStepPartsAreTheStepInItsOrder) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x64x32x10");
  const std::vector<float> initial = initial_parameters(shape, 23);
  // Forced, so that the twins plan alike.
  const PlanPolicy policy{
      .epilogues = EpiloguePolicy::unfused, .padding = PaddingPolicy::padded, .time_algorithms = false};
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::bf16}) {
    for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
      SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(kind));
      TwinRun run(shape, kMaxBatch, 5, kind, dtype, initial, policy);
      const float* images = run.images;
      const std::int32_t* labels = run.labels;
      GpuMlp& plain = run.twins.first;
      GpuMlp& timed = run.twins.second;
      std::vector<StepPart> parts;
      for (int step = 0; step < 2; ++step) {  // the second step's plan already exists
        plain.step(images, labels, kMaxBatch);
        parts = timed.time_step_parts(images, labels, kMaxBatch);
        EXPECT_EQ(plain.last_result().loss, timed.last_result().loss) << "step " << step;
      }
      expect_same_parameters(plain, timed, "parameters differ");

      std::vector<std::string> names;
      for (const StepPart& part : parts) {
        names.push_back(part.name);
        EXPECT_GE(part.microseconds, 0.0) << part.name;
        EXPECT_EQ(part.kind == StepPartKind::gemm, part.name.front() == 'L') << part.name;
      }
      std::vector<std::string> expected;
      if (dtype == MlpDtype::bf16) expected.emplace_back("cast");
      for (const char* name :
           {"L0 forward", "L1 forward", "L2 forward", "loss", "L2 weight_gradient", "L2 input_gradient",
            "L1 weight_gradient", "L1 input_gradient", "L0 weight_gradient", "update"})
        expected.emplace_back(name);
      EXPECT_EQ(names, expected);
      EXPECT_EQ(parts.back().kind, StepPartKind::update);
    }
  }
}

// Under compute-sanitizer every step costs ~0.5 s (racecheck, H100: this test took 254 s
// at full size and was killed), so the sanitizers train a smaller model on a smaller batch
// for fewer steps: the same dtypes, optimizers and modes, ~0.15 s a step (estimated from
// racecheck-mlp.log's per-case times), ~30 s in all. The CPU model with these settings
// reaches, after 16 steps, loss 0.001 (SGD) and 0.36 (Adam) from 2.26.
struct TrainingSize {
  const char* model;
  std::size_t batch;
  int steps;
};

TrainingSize training_size() {
  if (testing_support::under_compute_sanitizer()) return {"784x32x10", 32, 16};
  return {"784x64x32x10", kMaxBatch, 40};
}

TEST(MlpGpu, TrainingLowersTheLoss) {
  SKIP_WITHOUT_GPU();
  const TrainingSize size = training_size();
  const MlpShape shape = parse_mlp_shape(size.model);
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
      for (StepMode mode : {StepMode::eager, StepMode::graph}) {
        SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(kind) + " " + to_string(mode) + " " + size.model +
                     " batch " + std::to_string(size.batch));
        Stream stream;
        const Batch batch = random_batch(shape, size.batch, 17, stream.get());
        const auto* images = batch.device_images.as<const float>();
        const auto* labels = batch.device_labels.as<const std::int32_t>();
        GpuMlp gpu(shape, default_optimizer(kind), dtype, kMaxBatch, initial_parameters(shape, 5), stream.get());
        force_plan_under_sanitizer(gpu);
        if (mode == StepMode::graph) gpu.capture_step(images, labels, size.batch);
        const auto run = [&] { mode == StepMode::graph ? gpu.replay() : gpu.step(images, labels, size.batch); };
        run();
        const StepResult first = gpu.last_result();
        for (int step = 1; step < size.steps; ++step) run();
        const StepResult last = gpu.last_result();
        EXPECT_TRUE(std::isfinite(first.loss) && std::isfinite(last.loss));
        // One fixed batch of random labels: memorising it drives the loss down fast.
        EXPECT_LT(last.loss, 0.5 * first.loss) << "loss " << first.loss << " → " << last.loss;
        EXPECT_GT(last.correct, first.correct);
      }
    }
  }
}

TEST(MlpGpu, BatchesOutsideTheMaxBatchAreRefused) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x32x10");
  Stream stream;
  const Batch batch = random_batch(shape, 17, 1, stream.get());
  const auto* images = batch.device_images.as<const float>();
  const auto* labels = batch.device_labels.as<const std::int32_t>();
  GpuMlp gpu(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 16, initial_parameters(shape, 1),
             stream.get());
  EXPECT_THROW(gpu.compute_gradients(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(gpu.step(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(gpu.capture_step(images, labels, 17), std::invalid_argument);
  EXPECT_THROW(gpu.step(images, labels, 0), std::invalid_argument);
  EXPECT_THROW(gpu.step(nullptr, labels, 4), std::invalid_argument);
  EXPECT_THROW(gpu.last_result(), std::logic_error);
  EXPECT_NO_THROW(gpu.step(images, labels, 16));
  EXPECT_TRUE(std::isfinite(gpu.last_result().loss));
  EXPECT_THROW(GpuMlp(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 0, initial_parameters(shape, 1),
                      stream.get()),
               MlpConfigError);
  EXPECT_THROW(
      GpuMlp(shape, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, 4, std::vector<float>(3), stream.get()),
      MlpConfigError);
}

TEST(MlpGpu, DeviceBytesNeededCoversWhatTheModelAllocates) {
  SKIP_WITHOUT_GPU();
  const MlpShape shape = parse_mlp_shape("784x64x32x10");
  Stream stream;
  std::size_t previous = 0;
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
      for (std::size_t max_batch : {std::size_t{1}, std::size_t{1000}}) {
        SCOPED_TRACE(std::string(to_string(dtype)) + " " + to_string(kind) + " max batch " + std::to_string(max_batch));
        const std::size_t needed = GpuMlp::device_bytes_needed(shape, kind, dtype, max_batch);
        GpuMlp gpu(shape, default_optimizer(kind), dtype, max_batch, initial_parameters(shape, 1), stream.get());
        EXPECT_GE(needed, gpu.device_bytes());
        EXPECT_GT(gpu.device_bytes(), 4 * make_parameter_layout(shape).total * (kind == OptimizerKind::adam ? 4 : 3));
        if (max_batch == 1000) {
          EXPECT_GT(needed, previous);  // grows with the batch
        }
        previous = needed;
      }
    }
  }
}

// Sizing is host arithmetic: it is checked on every machine, GPU or not.
TEST(MlpGpuSizing, DeviceBytesNeededAddsUpWithoutADevice) {
  const MlpShape shape = parse_mlp_shape("784x64x32x10");
  const std::size_t parameter_bytes = make_parameter_layout(shape).total * sizeof(float);
  const auto needed = [&](OptimizerKind kind, MlpDtype dtype, std::size_t max_batch) {
    return GpuMlp::device_bytes_needed(shape, kind, dtype, max_batch);
  };
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    // Adam's second moment, on a 256-byte boundary.
    EXPECT_EQ(needed(OptimizerKind::adam, dtype, 64) - needed(OptimizerKind::sgd, dtype, 64),
              (parameter_bytes + 255) / 256 * 256);
    EXPECT_LT(needed(OptimizerKind::sgd, dtype, 64), needed(OptimizerKind::sgd, dtype, 65));
    // Parameters, gradients, velocity and cuBLASLt's 32 MiB workspace at least.
    EXPECT_GT(needed(OptimizerKind::sgd, dtype, 1), 3 * parameter_bytes + (std::size_t{32} << 20));
  }
  // tf32 holds the widest layer input (784) transposed besides, for its weight gradients.
  EXPECT_EQ(needed(OptimizerKind::sgd, MlpDtype::tf32, 1000) - needed(OptimizerKind::sgd, MlpDtype::fp32, 1000),
            (784 * 1000 * sizeof(float) + 255) / 256 * 256);
  EXPECT_THROW(needed(OptimizerKind::sgd, MlpDtype::fp32, 0), MlpConfigError);
  EXPECT_THROW(GpuMlp::device_bytes_needed(MlpShape{{784}}, OptimizerKind::sgd, MlpDtype::fp32, 8), MlpConfigError);
}

}  // namespace
}  // namespace hdbench
