// The CPU training step against the float64 reference (logits, loss, every gradient,
// the parameters after SGD and Adam steps), the reference against finite
// differences, thread counts that agree, bad input refused, and training that
// reaches 97% accuracy on held-out samples of the synthetic dataset.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_reference.hpp"
#include "pipeline/dataset.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {
namespace {

struct Batch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

// Fresh random inputs: images in the normalised range of MNIST pixels, any labels.
Batch random_batch(const MlpShape& shape, std::size_t batch, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pixel(-0.5f, 2.8f);
  std::uniform_int_distribution<int> label(0, shape.classes() - 1);
  Batch b;
  b.images.resize(batch * static_cast<std::size_t>(shape.inputs()));
  for (float& x : b.images) x = pixel(rng);
  for (std::size_t i = 0; i < batch; ++i) b.labels.push_back(label(rng));
  return b;
}

// max |got - want| ≤ abs + rel·|want| over a tensor, with abs scaled by the tensor's
// largest magnitude (gradients of a layer can be tiny everywhere); names the worst element.
// `abs_floor` sets a least absolute tolerance: Adam divides a gradient by its own
// running magnitude, so a gradient that is rounding noise still moves its parameter
// by up to the learning rate, and only that bound is meaningful for it.
template <typename Got, typename Want>
::testing::AssertionResult close(std::span<Got> got, std::span<Want> want, double abs_fraction, double rel,
                                 double abs_floor = 0.0) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  double scale = 0.0;
  for (auto w : want) scale = std::max(scale, std::abs(static_cast<double>(w)));
  const double abs = std::max(abs_fraction * std::max(scale, 1e-30), abs_floor);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    if (!(std::abs(g - w) <= abs + rel * std::abs(w)))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << g << " vs reference " << w << " (largest |reference| " << scale << ")";
  }
  return ::testing::AssertionSuccess();
}

TEST(MlpShape, ParsesWidths) {
  EXPECT_EQ(parse_mlp_shape("784x32x10").widths, (std::vector<int>{784, 32, 10}));
  EXPECT_EQ(parse_mlp_shape("5x3").widths, (std::vector<int>{5, 3}));
  EXPECT_EQ(to_string(parse_mlp_shape("784x4096x4096x10")), "784x4096x4096x10");
}

TEST(MlpShape, RejectsMalformedStrings) {
  for (const char* bad : {"", "784", "784x", "x10", "784xx10", "784x0x10", "784x-3x10", "784x3.5x10", "abc",
                          "784x32x10 ", "784X32", "784x2000000x10"}) {
    try {
      parse_mlp_shape(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const MlpConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(MlpModel, NamesRoundTrip) {
  for (MlpDtype d : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) EXPECT_EQ(mlp_dtype_from_string(to_string(d)), d);
  for (OptimizerKind k : {OptimizerKind::sgd, OptimizerKind::adam}) EXPECT_EQ(optimizer_from_string(to_string(k)), k);
  for (StepMode m : {StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap})
    EXPECT_EQ(step_mode_from_string(to_string(m)), m);
  EXPECT_STREQ(to_string(StepMode::fused), "fused");
  EXPECT_STREQ(to_string(StepMode::overlap), "overlap");
  EXPECT_FALSE(step_mode_from_string("compile"));
  EXPECT_FALSE(mlp_dtype_from_string("fp16"));
  EXPECT_FALSE(optimizer_from_string("lamb"));
}

TEST(MlpModel, LayoutAlignsBlocksAndCountsParameters) {
  const MlpShape shape = parse_mlp_shape("784x32x10");
  const ParameterLayout layout = make_parameter_layout(shape);
  ASSERT_EQ(layout.layers.size(), 2u);
  for (const auto& l : layout.layers) {
    EXPECT_EQ(l.weight % 64, 0u);
    EXPECT_EQ(l.bias % 64, 0u);
  }
  EXPECT_GE(layout.layers[0].bias, 784u * 32u);
  EXPECT_GE(layout.layers[1].weight, layout.layers[0].bias + 32);
  EXPECT_GE(layout.total, layout.layers[1].bias + 10);
  EXPECT_EQ(parameter_count(shape), 784u * 32 + 32 + 32 * 10 + 10);
}

TEST(MlpModel, InitialParametersAreBoundedDeterministicAndPaddingIsZero) {
  const MlpShape shape = parse_mlp_shape("100x7x3");
  const ParameterLayout layout = make_parameter_layout(shape);
  const auto a = initial_parameters(shape, 5);
  EXPECT_EQ(a, initial_parameters(shape, 5));
  EXPECT_NE(a, initial_parameters(shape, 6));
  std::vector<bool> used(layout.total, false);
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    const double bound = 1.0 / std::sqrt(shape.fan_in(l));
    const std::size_t w = static_cast<std::size_t>(shape.fan_in(l)) * shape.fan_out(l);
    for (std::size_t i = 0; i < w; ++i) used[layout.layers[l].weight + i] = true;
    for (int i = 0; i < shape.fan_out(l); ++i) used[layout.layers[l].bias + i] = true;
    double lo = 1, hi = -1;
    for (std::size_t i = 0; i < w; ++i) {
      lo = std::min<double>(lo, a[layout.layers[l].weight + i]);
      hi = std::max<double>(hi, a[layout.layers[l].weight + i]);
    }
    EXPECT_GE(lo, -bound);
    EXPECT_LT(hi, bound);
    EXPECT_LT(lo, -bound / 2);  // spread over the range, not a constant
    EXPECT_GT(hi, bound / 2);
  }
  for (std::size_t i = 0; i < layout.total; ++i)
    if (!used[i]) {
      EXPECT_EQ(a[i], 0.0f) << "padding at " << i;
    }
}

TEST(MlpModel, CountsTrainingStepFlops) {
  const MlpShape shape = parse_mlp_shape("784x32x10");
  EXPECT_DOUBLE_EQ(forward_flops(shape, 128), 2.0 * 128 * (784 * 32 + 32 * 10));
  // forward + weight gradients for both layers + the input gradient of layer 2 only
  EXPECT_DOUBLE_EQ(training_step_flops(shape, 128), 2.0 * 128 * (3 * 32 * 10 + 2 * 784 * 32));
}

struct Case {
  const char* model;
  std::size_t batch;
  int threads;
};

class CpuStepVsReference : public ::testing::TestWithParam<Case> {};

TEST_P(CpuStepVsReference, GradientsLogitsLossAndUpdatesMatchFloat64) {
  const Case c = GetParam();
  const MlpShape shape = parse_mlp_shape(c.model);
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
    SCOPED_TRACE(to_string(kind));
    const auto init = initial_parameters(shape, 17);
    CpuMlp cpu(shape, default_optimizer(kind), c.batch, c.threads, init);
    ReferenceMlp ref(shape, default_optimizer(kind), init);
    // Three steps on different batches: Adam's bias correction changes with t, and a
    // gradient element the CPU step failed to rewrite would keep a stale value.
    for (std::uint32_t s = 0; s < 3; ++s) {
      SCOPED_TRACE(s);
      const Batch b = random_batch(shape, c.batch, 100 + s);
      const StepResult got = cpu.compute_gradients(b.images.data(), b.labels.data(), c.batch);
      const StepResult want = ref.compute_gradients(b.images.data(), b.labels.data(), c.batch);
      EXPECT_NEAR(got.loss, want.loss, 1e-5 * std::max(1.0, want.loss));
      EXPECT_EQ(got.correct, want.correct);
      EXPECT_TRUE(close(cpu.logits(), ref.logits(), 1e-5, 1e-5));
      EXPECT_TRUE(close(cpu.gradients(), ref.gradients(), 1e-5, 1e-4));
      cpu.apply_optimizer();
      ref.apply_optimizer();
      EXPECT_TRUE(close(cpu.parameters(), ref.parameters(), 1e-5, 1e-5, 1e-2 * default_optimizer(kind).learning_rate));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuStepVsReference,
                         ::testing::Values(Case{"784x32x10", 1, 1}, Case{"784x32x10", 37, 2}, Case{"784x32x10", 20, 2},
                                           Case{"784x32x10", 128, 2}, Case{"20x16x8x5", 5, 1},
                                           Case{"20x16x8x5", 300, 2}, Case{"7x3", 64, 2}, Case{"64x300x10", 200, 2}));

TEST(MlpReference, GradientsMatchFiniteDifferences) {
  const MlpShape shape = parse_mlp_shape("6x5x4x3");
  const auto init = initial_parameters(shape, 3);
  const Batch b = random_batch(shape, 4, 9);
  ReferenceMlp ref(shape, default_optimizer(OptimizerKind::sgd), init);
  ref.compute_gradients(b.images.data(), b.labels.data(), 4);
  CpuMlp cpu(shape, default_optimizer(OptimizerKind::sgd), 4, 1, init);
  cpu.compute_gradients(b.images.data(), b.labels.data(), 4);
  std::vector<double> p(ref.parameters().begin(), ref.parameters().end());
  const ParameterLayout layout = make_parameter_layout(shape);
  std::size_t checked = 0;
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < static_cast<std::size_t>(shape.fan_in(l)) * shape.fan_out(l); ++i)
      indices.push_back(layout.layers[l].weight + i);
    for (int i = 0; i < shape.fan_out(l); ++i) indices.push_back(layout.layers[l].bias + i);
    for (std::size_t i : indices) {
      const double h = 1e-6;
      const double saved = p[i];
      p[i] = saved + h;
      const double up = ref.loss_at(p, b.images.data(), b.labels.data(), 4);
      p[i] = saved - h;
      const double down = ref.loss_at(p, b.images.data(), b.labels.data(), 4);
      p[i] = saved;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(ref.gradients()[i], numeric, 1e-7 + 1e-5 * std::abs(numeric)) << "parameter " << i;
      EXPECT_NEAR(cpu.gradients()[i], numeric, 1e-5 + 1e-3 * std::abs(numeric)) << "parameter " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, parameter_count(shape));
}

TEST(CpuMlp, ThreadCountsAgree) {
  const MlpShape shape = parse_mlp_shape("784x256x10");
  const auto init = initial_parameters(shape, 1);
  CpuMlp one(shape, default_optimizer(OptimizerKind::adam), 512, 1, init);
  CpuMlp two(shape, default_optimizer(OptimizerKind::adam), 512, 2, init);
  for (std::uint32_t s = 0; s < 2; ++s) {
    const Batch b = random_batch(shape, 512, s);
    const StepResult r1 = one.step(b.images.data(), b.labels.data(), 512);
    const StepResult r2 = two.step(b.images.data(), b.labels.data(), 512);
    EXPECT_NEAR(r1.loss, r2.loss, 1e-5);
    EXPECT_TRUE(close(two.gradients(), one.gradients(), 1e-5, 1e-4));
    EXPECT_TRUE(close(two.parameters(), one.parameters(), 1e-5, 1e-5,
                      1e-2 * default_optimizer(OptimizerKind::adam).learning_rate));
  }
  EXPECT_EQ(two.threads(), 2);
  EXPECT_EQ(two.steps_taken(), 2u);
}

// The thread sweep changes a model's threads between steps: the steps that follow
// agree with a model built with that many threads.
TEST(CpuMlp, SetThreadsBetweenStepsAgreesWithAModelBuiltSo) {
  const MlpShape shape = parse_mlp_shape("784x256x10");
  const auto init = initial_parameters(shape, 3);
  CpuMlp swept(shape, default_optimizer(OptimizerKind::sgd), 512, 1, init);
  CpuMlp built(shape, default_optimizer(OptimizerKind::sgd), 512, 1, init);
  for (int threads : {1, 2, 4, 2}) {
    swept.set_threads(threads);
    EXPECT_EQ(swept.threads(), threads);
    const Batch b = random_batch(shape, 512, static_cast<std::uint32_t>(threads));
    const StepResult r1 = swept.step(b.images.data(), b.labels.data(), 512);
    const StepResult r2 = built.step(b.images.data(), b.labels.data(), 512);
    EXPECT_NEAR(r1.loss, r2.loss, 1e-5);
    EXPECT_EQ(r1.correct, r2.correct);
    EXPECT_TRUE(close(swept.parameters(), built.parameters(), 1e-5, 1e-5));
  }
  EXPECT_THROW(swept.set_threads(0), MlpConfigError);
}

// step() updates each weight block inside the backward pass; it must be the same
// arithmetic as computing every gradient first and updating after.
TEST(CpuMlp, FusedStepEqualsGradientsThenUpdateBitForBit) {
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " threads " + std::to_string(threads));
      const MlpShape shape = parse_mlp_shape("784x128x64x10");
      const auto init = initial_parameters(shape, 4);
      CpuMlp fused(shape, default_optimizer(kind), 256, threads, init);
      CpuMlp split(shape, default_optimizer(kind), 256, threads, init);
      for (std::uint32_t s = 0; s < 3; ++s) {
        const Batch b = random_batch(shape, 256, 50 + s);
        const StepResult r1 = fused.step(b.images.data(), b.labels.data(), 256);
        const StepResult r2 = split.compute_gradients(b.images.data(), b.labels.data(), 256);
        split.apply_optimizer();
        EXPECT_EQ(r1.loss, r2.loss);
        ASSERT_TRUE(std::equal(fused.parameters().begin(), fused.parameters().end(), split.parameters().begin()))
            << "step " << s;
      }
      EXPECT_EQ(fused.steps_taken(), split.steps_taken());
    }
  }
}

TEST(CpuMlp, RefusesBadInput) {
  const MlpShape shape = parse_mlp_shape("10x4x3");
  const auto init = initial_parameters(shape, 1);
  EXPECT_THROW(CpuMlp(shape, {}, 0, 1, init), MlpConfigError);
  EXPECT_THROW(CpuMlp(shape, {}, 8, 0, init), MlpConfigError);
  EXPECT_THROW(CpuMlp(shape, {}, 8, 1, std::vector<float>(3)), MlpConfigError);
  CpuMlp mlp(shape, {}, 8, 1, init);
  Batch b = random_batch(shape, 9, 1);
  EXPECT_THROW(mlp.step(b.images.data(), b.labels.data(), 9), std::invalid_argument);
  EXPECT_THROW(mlp.step(b.images.data(), b.labels.data(), 0), std::invalid_argument);
  b.labels[2] = 3;
  EXPECT_THROW(mlp.step(b.images.data(), b.labels.data(), 4), std::invalid_argument);
  b.labels[2] = -1;
  EXPECT_THROW(mlp.step(b.images.data(), b.labels.data(), 4), std::invalid_argument);
  EXPECT_EQ(mlp.steps_taken(), 0u);
}

// Logits hundreds apart (a confident model, and one confidently wrong): the softmax's
// exp underflows to zero for every class but the top, and the loss of a wrong label is
// the whole gap. Loss, accuracy and gradients still match the float64 reference.
TEST(CpuMlp, FarApartLogitsMatchTheReference) {
  const MlpShape shape = parse_mlp_shape("20x16x12");
  auto init = initial_parameters(shape, 5);
  const ParameterLayout layout = make_parameter_layout(shape);
  for (int c = 0; c < shape.classes(); ++c)  // class 3 far on top, the others spread far below
    init[layout.layers.back().bias + static_cast<std::size_t>(c)] = c == 3 ? 60.0f : -25.0f * static_cast<float>(c);
  for (const std::size_t batch : {std::size_t{7}, std::size_t{400}}) {  // 400 x 12 logits: split over the team
    SCOPED_TRACE(batch);
    CpuMlp cpu(shape, default_optimizer(OptimizerKind::sgd), batch, 2, init);
    ReferenceMlp ref(shape, default_optimizer(OptimizerKind::sgd), init);
    const Batch b = random_batch(shape, batch, 77);
    const StepResult got = cpu.compute_gradients(b.images.data(), b.labels.data(), batch);
    const StepResult want = ref.compute_gradients(b.images.data(), b.labels.data(), batch);
    EXPECT_GT(want.loss, 50.0);  // most labels are not class 3: each costs its whole gap
    EXPECT_NEAR(got.loss, want.loss, 1e-5 * want.loss);
    EXPECT_EQ(got.correct, want.correct);
    EXPECT_TRUE(close(cpu.gradients(), ref.gradients(), 1e-5, 1e-4));
  }
}

// Profiling a step records where its time went without changing what it computes.
TEST(CpuMlp, AProfiledStepComputesWhatAnUnprofiledOneDoes) {
  const MlpShape shape = parse_mlp_shape("784x64x10");
  const auto init = initial_parameters(shape, 8);
  CpuMlp profiled(shape, default_optimizer(OptimizerKind::sgd), 512, 2, init);
  CpuMlp plain(shape, default_optimizer(OptimizerKind::sgd), 512, 2, init);
  CpuStepProfile profile;
  profiled.profile_into(&profile);
  for (std::uint32_t s = 0; s < 3; ++s) {
    const Batch b = random_batch(shape, 512, 60 + s);
    const StepResult r1 = profiled.step(b.images.data(), b.labels.data(), 512);
    const StepResult r2 = plain.step(b.images.data(), b.labels.data(), 512);
    EXPECT_EQ(r1.loss, r2.loss);
    ASSERT_TRUE(std::equal(profiled.parameters().begin(), profiled.parameters().end(), plain.parameters().begin()));
  }
  EXPECT_EQ(profile.steps, 3u);
  ASSERT_EQ(profile.busy_seconds.size(), 2u);  // a row per team thread
  for (int p = 0; p < kCpuStepPhases; ++p) {
    SCOPED_TRACE(to_string(static_cast<CpuStepPhase>(p)));
    EXPECT_GE(profile.wall_seconds[static_cast<std::size_t>(p)], 0.0);
    EXPECT_GE(profile.handover_seconds[static_cast<std::size_t>(p)], 0.0);
  }
  profiled.set_threads(1);  // a new team: the profile restarts with its threads
  EXPECT_EQ(profile.steps, 0u);
  EXPECT_EQ(profile.busy_seconds.size(), 1u);
  profiled.profile_into(nullptr);
  const Batch b = random_batch(shape, 512, 99);
  profiled.step(b.images.data(), b.labels.data(), 512);
  EXPECT_EQ(profile.steps, 0u);
}

// The tutorial's model learns the synthetic dataset: ≥ 97% on samples it never saw.
TEST(CpuMlp, TrainingReaches97PercentOnHeldOutSyntheticDigits) {
  const std::size_t train = 12000, held_out = 2000, batch = 64;
  const Dataset data = make_synthetic_mnist(train + held_out, 2024);
  const std::size_t pixels = data.pixels_per_sample();
  std::vector<float> images(data.size() * pixels);
  std::vector<std::int32_t> labels(data.size());
  for (std::uint32_t i = 0; i < data.size(); ++i) {
    transform_sample(data, i, 0, {}, images.data() + i * pixels);
    labels[i] = data.labels[i];
  }
  const MlpShape shape = parse_mlp_shape("784x32x10");
  CpuMlp mlp(shape, default_optimizer(OptimizerKind::sgd), held_out, 2, initial_parameters(shape, 7));
  const StepResult before = mlp.evaluate(images.data() + train * pixels, labels.data() + train, held_out);
  double first_epoch_loss = 0, last_epoch_loss = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    double loss = 0;
    for (std::size_t start = 0; start + batch <= train; start += batch)
      loss += mlp.step(images.data() + start * pixels, labels.data() + start, batch).loss;
    (epoch == 0 ? first_epoch_loss : last_epoch_loss) = loss;
  }
  const StepResult after = mlp.evaluate(images.data() + train * pixels, labels.data() + train, held_out);
  EXPECT_LT(last_epoch_loss, first_epoch_loss);
  EXPECT_LT(after.loss, before.loss);
  EXPECT_GE(static_cast<double>(after.correct) / held_out, 0.97)
      << after.correct << " of " << held_out << " held-out samples right (before training: " << before.correct << ")";
}

}  // namespace
}  // namespace hdbench
