#include "mlp/mlp_fused.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "core/cuda.hpp"
#include "core/nvtx.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp_fused_kernels.hpp"
#include "mlp_kernels.hpp"

namespace hdbench {
namespace {

constexpr std::size_t kAlignment = 256;
std::size_t align_up(std::size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

kernels::FusedStepShape fused_shape(const MlpShape& shape) {
  return {shape.inputs(), shape.fan_out(0), shape.classes()};
}

}  // namespace

std::optional<std::string> fused_step_unsupported(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype) {
  constexpr const char* kWhat =
      "mode fused runs two-layer models (inputs ≤ 2048, hidden ≤ 64, classes ≤ 16) in fp32 with SGD and momentum";
  if (shape.layers() != 2) {
    return fmt::format("model '{}' has {} layers, the fused step takes exactly 2 ({}); eager and graph run any model",
                       to_string(shape), shape.layers(), kWhat);
  }
  for (int width : shape.widths)
    if (width < 1) return fmt::format("model '{}' has a width below 1", to_string(shape));
  if (shape.inputs() > kernels::kFusedMaxInputs) {
    return fmt::format("model '{}' has {} inputs, over the fused step's {} (its shared memory holds 4 images; {})",
                       to_string(shape), shape.inputs(), kernels::kFusedMaxInputs, kWhat);
  }
  if (shape.fan_out(0) > kernels::kFusedMaxHidden) {
    return fmt::format("model '{}' has a hidden width of {}, over the fused step's {} ({})", to_string(shape),
                       shape.fan_out(0), kernels::kFusedMaxHidden, kWhat);
  }
  if (shape.classes() > kernels::kFusedMaxClasses) {
    return fmt::format("model '{}' has {} classes, over the fused step's {} ({})", to_string(shape), shape.classes(),
                       kernels::kFusedMaxClasses, kWhat);
  }
  if (dtype != MlpDtype::fp32) {
    return fmt::format(
        "dtype {}: the fused step computes in fp32 on the CUDA cores ({}); tf32 and bf16 run in modes eager and graph",
        to_string(dtype), kWhat);
  }
  if (optimizer != OptimizerKind::sgd) {
    return fmt::format(
        "optimizer {}: the fused step updates with SGD and momentum only ({}); {} runs in modes eager "
        "and graph",
        to_string(optimizer), kWhat, to_string(optimizer));
  }
  return std::nullopt;
}

FusedArenaLayout make_fused_arena_layout(const MlpShape& shape, std::size_t max_batch) {
  if (const auto why = fused_step_unsupported(shape, OptimizerKind::sgd, MlpDtype::fp32)) throw MlpConfigError(*why);
  if (max_batch == 0 || max_batch > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw MlpConfigError(fmt::format("max batch {} is outside 1..{}", max_batch, std::numeric_limits<int>::max()));
  FusedArenaLayout a;
  const auto take = [&](std::size_t bytes) {
    const std::size_t offset = a.total;
    a.total = align_up(a.total + bytes);
    return offset;
  };
  const std::size_t parameter_bytes = make_parameter_layout(shape).total * sizeof(float);
  const auto hidden = static_cast<std::size_t>(shape.fan_out(0));
  const auto classes = static_cast<std::size_t>(shape.classes());
  a.parameters = take(parameter_bytes);
  a.gradients = take(parameter_bytes);
  a.velocity = take(parameter_bytes);
  a.hidden = take(max_batch * hidden * sizeof(float));
  a.logits = take(max_batch * classes * sizeof(float));
  a.dlogits = take(max_batch * classes * sizeof(float));
  a.dhidden = take(max_batch * hidden * sizeof(float));
  a.row_loss = take(max_batch * sizeof(float));
  a.row_correct = take(max_batch * sizeof(int));
  a.scalars = take(sizeof(kernels::StepScalars));
  return a;
}

struct FusedMlp::Impl {
  MlpShape shape;
  ParameterLayout layout;
  OptimizerConfig optimizer;
  std::size_t max_batch = 0;
  cudaStream_t stream = nullptr;
  FusedArenaLayout arena_layout;
  DeviceBuffer arena;
  StepRangeNames ranges{"mlp/gpu"};
  GraphExec graph;
  bool has_graph = false;
  std::size_t graph_batch = 0;
  GraphExec floor_graph;
  bool has_floor_graph = false;
  std::size_t last_batch = 0;

  template <typename T>
  T* at(std::size_t offset) const noexcept {
    return reinterpret_cast<T*>(static_cast<char*>(arena.data()) + offset);
  }
  float* parameters() const noexcept { return at<float>(arena_layout.parameters); }
  float* gradients() const noexcept { return at<float>(arena_layout.gradients); }
  float* velocity() const noexcept { return at<float>(arena_layout.velocity); }

  kernels::FusedStepBuffers buffers() const noexcept {
    kernels::FusedStepBuffers b;
    b.parameters = parameters();
    b.gradients = gradients();
    b.velocity = velocity();
    b.w1 = layout.layers[0].weight;
    b.b1 = layout.layers[0].bias;
    b.w2 = layout.layers[1].weight;
    b.b2 = layout.layers[1].bias;
    b.hidden = at<float>(arena_layout.hidden);
    b.logits = at<float>(arena_layout.logits);
    b.dlogits = at<float>(arena_layout.dlogits);
    b.dhidden = at<float>(arena_layout.dhidden);
    b.row_loss = at<float>(arena_layout.row_loss);
    b.row_correct = at<int>(arena_layout.row_correct);
    b.scalars = at<kernels::StepScalars>(arena_layout.scalars);
    return b;
  }

  void check_batch(const float* images, const std::int32_t* labels, std::size_t batch) const {
    if (images == nullptr || labels == nullptr) throw std::invalid_argument("FusedMlp step: null images or labels");
    if (batch == 0 || batch > max_batch) {
      throw std::invalid_argument(fmt::format(
          "FusedMlp step: batch {} is outside 1..{} (the max batch the model was built for)", batch, max_batch));
    }
  }

  // The two kernels; the update fused into the second when `update`. The NVTX phases as
  // the CPU step names them: forward (and loss), then backward with the update.
  void enqueue(const float* images, const std::int32_t* labels, std::size_t batch, bool update) {
    const kernels::FusedStepShape s = fused_shape(shape);
    const kernels::FusedStepBuffers b = buffers();
    const int n = static_cast<int>(batch);
    {
      const nvtx::ScopedRange range(kMlpNvtx, ranges.forward,
                                    batch * static_cast<std::size_t>(shape.inputs()) * sizeof(float));
      kernels::fused_forward_backward(s, b, images, labels, n, stream);
    }
    const nvtx::ScopedRange range(kMlpNvtx, ranges.backward, layout.total * sizeof(float));
    kernels::fused_gradient_update(s, b, images, n, update, optimizer.learning_rate, optimizer.momentum, stream);
  }

  std::vector<float> download(const void* device, std::size_t count) const {
    std::vector<float> host(count);
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
    HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
  }
};

FusedMlp::FusedMlp(const MlpShape& shape, const OptimizerConfig& optimizer, MlpDtype dtype, std::size_t max_batch,
                   std::span<const float> parameters, cudaStream_t stream)
    : impl_(std::make_unique<Impl>()) {
  if (const auto why = fused_step_unsupported(shape, optimizer.kind, dtype)) throw MlpConfigError(*why);
  Impl& m = *impl_;
  m.arena_layout = make_fused_arena_layout(shape, max_batch);
  m.shape = shape;
  m.layout = make_parameter_layout(shape);
  m.optimizer = optimizer;
  m.max_batch = max_batch;
  m.stream = stream;
  check_parameter_count(shape, m.layout, parameters.size());
  m.arena = DeviceBuffer(m.arena_layout.total);
  const std::size_t bytes = m.layout.total * sizeof(float);
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(m.parameters(), parameters.data(), bytes, cudaMemcpyHostToDevice, stream));
  // The gradients' padding is never written and must read zero; the velocity starts at
  // zero as torch's momentum buffer does.
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.gradients(), 0, bytes, stream));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.velocity(), 0, bytes, stream));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.at<char>(m.arena_layout.scalars), 0, sizeof(kernels::StepScalars), stream));
  // The host span may go away when the constructor returns.
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

FusedMlp::~FusedMlp() {
  // Work still queued reads the arena; let it finish before the memory goes.
  if (impl_ && impl_->arena.data() != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(impl_->stream));
}

std::size_t FusedMlp::device_bytes_needed(const MlpShape& shape, std::size_t max_batch) {
  return make_fused_arena_layout(shape, max_batch).total;
}

void FusedMlp::step(const float* images, const std::int32_t* labels, std::size_t batch) {
  impl_->check_batch(images, labels, batch);
  impl_->enqueue(images, labels, batch, true);
  impl_->last_batch = batch;
}

void FusedMlp::compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch) {
  impl_->check_batch(images, labels, batch);
  impl_->enqueue(images, labels, batch, false);
  impl_->last_batch = batch;
}

void FusedMlp::apply_optimizer() {
  Impl& m = *impl_;
  const nvtx::ScopedRange range(kMlpNvtx, m.ranges.optimizer, m.layout.total * sizeof(float));
  kernels::sgd_momentum_update(m.parameters(), m.gradients(), m.velocity(), nullptr, m.layout.total,
                               m.optimizer.learning_rate, m.optimizer.momentum, m.stream);
}

void FusedMlp::capture_step(const float* images, const std::int32_t* labels, std::size_t batch) {
  Impl& m = *impl_;
  m.check_batch(images, labels, batch);
  // An earlier graph may still be running: let it finish before it is destroyed.
  if (m.has_graph) HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  m.graph = GraphExec();
  m.has_graph = false;
  m.graph = GraphExec::capture(m.stream, [&] { m.enqueue(images, labels, batch, true); });
  m.has_graph = true;
  m.graph_batch = batch;
}

void FusedMlp::replay() {
  Impl& m = *impl_;
  if (!m.has_graph) throw std::logic_error("FusedMlp::replay() before capture_step()");
  m.graph.launch(m.stream);
  m.last_batch = m.graph_batch;
}

bool FusedMlp::captured() const noexcept { return impl_->has_graph; }

std::size_t FusedMlp::graph_nodes() const { return impl_->has_graph ? impl_->graph.node_count() : 0; }

void FusedMlp::capture_launch_floor(std::size_t batch) {
  Impl& m = *impl_;
  if (batch == 0 || batch > m.max_batch)
    throw std::invalid_argument(fmt::format("FusedMlp launch floor: batch {} is outside 1..{}", batch, m.max_batch));
  if (m.has_floor_graph) HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  m.floor_graph = GraphExec();
  m.has_floor_graph = false;
  m.floor_graph = GraphExec::capture(
      m.stream, [&] { kernels::fused_step_empty(fused_shape(m.shape), static_cast<int>(batch), m.stream); });
  m.has_floor_graph = true;
}

void FusedMlp::replay_launch_floor() {
  Impl& m = *impl_;
  if (!m.has_floor_graph) throw std::logic_error("FusedMlp::replay_launch_floor() before capture_launch_floor()");
  m.floor_graph.launch(m.stream);
}

void FusedMlp::name_ranges(const std::string& benchmark) { impl_->ranges = StepRangeNames(benchmark); }

StepResult FusedMlp::last_result() {
  Impl& m = *impl_;
  if (m.last_batch == 0) throw std::logic_error("FusedMlp::last_result() before any step");
  kernels::StepScalars scalars{};
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(&scalars, m.at<kernels::StepScalars>(m.arena_layout.scalars), sizeof(scalars),
                                     cudaMemcpyDeviceToHost, m.stream));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  return StepResult{scalars.loss_sum / static_cast<double>(m.last_batch), static_cast<std::size_t>(scalars.correct)};
}

std::vector<float> FusedMlp::parameters() { return impl_->download(impl_->parameters(), impl_->layout.total); }
std::vector<float> FusedMlp::gradients() { return impl_->download(impl_->gradients(), impl_->layout.total); }
std::vector<float> FusedMlp::logits() {
  const Impl& m = *impl_;
  if (m.last_batch == 0) throw std::logic_error("FusedMlp::logits() before any step");
  return m.download(m.at<float>(m.arena_layout.logits), m.last_batch * static_cast<std::size_t>(m.shape.classes()));
}

void FusedMlp::poison_step_outputs() {
  const Impl& m = *impl_;
  const auto poison = [&](std::size_t offset, std::size_t bytes) {
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.at<char>(offset), 0xFF, bytes, m.stream));
  };
  const std::size_t batch = m.max_batch;
  const auto hidden = static_cast<std::size_t>(m.shape.fan_out(0));
  const auto classes = static_cast<std::size_t>(m.shape.classes());
  // The gradients' blocks, not their padding: the padding must stay zero.
  for (std::size_t l = 0; l < m.shape.layers(); ++l) {
    const auto out = static_cast<std::size_t>(m.shape.fan_out(l));
    const LayerOffsets& offsets = m.layout.layers[l];
    poison(m.arena_layout.gradients + offsets.weight * sizeof(float),
           out * static_cast<std::size_t>(m.shape.fan_in(l)) * sizeof(float));
    poison(m.arena_layout.gradients + offsets.bias * sizeof(float), out * sizeof(float));
  }
  poison(m.arena_layout.hidden, batch * hidden * sizeof(float));
  poison(m.arena_layout.logits, batch * classes * sizeof(float));
  poison(m.arena_layout.dlogits, batch * classes * sizeof(float));
  poison(m.arena_layout.dhidden, batch * hidden * sizeof(float));
  poison(m.arena_layout.row_loss, batch * sizeof(float));
  poison(m.arena_layout.row_correct, batch * sizeof(int));
  poison(m.arena_layout.scalars, sizeof(kernels::StepScalars));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

std::string FusedMlp::describe_launches(std::size_t batch) const {
  const kernels::FusedStepGrid g = kernels::fused_step_grid(fused_shape(impl_->shape), static_cast<int>(batch));
  return fmt::format(
      "kernel 1 (forward, loss, backward to the hidden layer) {} blocks; kernel 2 (weight gradients + update) {} "
      "blocks ({} dW1 tiles, {} for the rest)",
      g.forward_blocks, g.gradient_blocks(), g.w1_blocks(), g.small_blocks);
}

const MlpShape& FusedMlp::shape() const noexcept { return impl_->shape; }
std::size_t FusedMlp::device_bytes() const noexcept { return impl_->arena.size(); }

}  // namespace hdbench
