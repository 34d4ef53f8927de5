// GpuMlp: buffers, the step's enqueue order, graph capture and downloads. The GEMM
// plans (which epilogue each GEMM fuses, and the fallbacks) are in mlp_gpu_plan.cpp.
#include "mlp/mlp_gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "core/cuda.hpp"
#include "core/nvtx.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp/mlp_gpu_impl.hpp"
#include "mlp_kernels.hpp"
#include "mlp_narrow_kernels.hpp"

namespace hdbench {
namespace {

std::size_t align_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

namespace mlp_gpu_detail {

void validate(const MlpShape& shape, std::size_t max_batch) {
  if (shape.widths.size() < 2)
    throw MlpConfigError(fmt::format("model '{}' needs at least an input width and a class count", to_string(shape)));
  for (int width : shape.widths)
    if (width < 1) throw MlpConfigError(fmt::format("model '{}' has a width below 1", to_string(shape)));
  // cuBLASLt and the kernels take int dimensions.
  if (max_batch == 0 || max_batch > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw MlpConfigError(fmt::format("max batch {} is outside 1..{}", max_batch, std::numeric_limits<int>::max()));
}

ArenaLayout make_arena_layout(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype, std::size_t max_batch) {
  validate(shape, max_batch);
  ArenaLayout a;
  // Every buffer starts on a 256-byte boundary: cuBLASLt's preferred alignment.
  const auto take = [&](std::size_t bytes) {
    if (bytes == 0) return Slot{};
    const Slot slot{a.total, bytes};
    a.total = align_up(a.total + bytes, kArenaAlignment);
    return slot;
  };
  const bool bf16 = dtype == MlpDtype::bf16;
  const std::size_t op_bytes = bf16 ? 2 : 4;
  const std::size_t params = make_parameter_layout(shape).total;
  const std::size_t layers = shape.layers();
  // The output layer may be stored padded (the plan decides per batch size): room for it.
  const int logits_room = padded_width(shape.classes(), dtype);
  int widest_output = logits_room;
  std::size_t partials = 0;
  for (std::size_t l = 0; l < layers; ++l) {
    const int width = l + 1 < layers ? shape.fan_out(l) : logits_room;
    widest_output = std::max(widest_output, width);
    partials = std::max(partials, kernels::bias_gradient_partials_needed(width));
  }

  a.parameters = take(params * 4);
  a.gradients = take(params * 4);
  a.first_moment = take(params * 4);
  a.second_moment = take(optimizer == OptimizerKind::adam ? params * 4 : 0);
  a.parameters_bf16 = take(bf16 ? params * 2 : 0);
  a.images_bf16 = take(bf16 ? max_batch * static_cast<std::size_t>(shape.inputs()) * 2 : 0);
  int widest_input = 0;
  for (std::size_t l = 0; l < layers; ++l) widest_input = std::max(widest_input, shape.fan_in(l));
  a.input_transposed = take(dtype == MlpDtype::tf32 ? align_up(max_batch, kTransposedLdFloats) *
                                                          static_cast<std::size_t>(widest_input) * sizeof(float)
                                                    : 0);
  for (std::size_t l = 0; l < layers; ++l) {
    const bool hidden = l + 1 < layers;  // the logits stay fp32 for the softmax
    const int width = hidden ? shape.fan_out(l) : logits_room;
    a.outputs.push_back(take(max_batch * static_cast<std::size_t>(width) * (hidden ? op_bytes : 4)));
  }
  for (std::size_t l = 0; l + 1 < layers; ++l) {
    const auto ld = static_cast<std::int64_t>(align_up(static_cast<std::size_t>(shape.fan_out(l)), kMaskLdBits));
    a.mask_ld.push_back(ld);
    a.masks.push_back(take(static_cast<std::size_t>(ld) / 8 * max_batch));
  }
  for (Slot& dy : a.dy) dy = take(max_batch * static_cast<std::size_t>(widest_output) * op_bytes);
  a.bias_partials = take(partials * sizeof(float));
  a.row_loss = take(max_batch * sizeof(float));
  a.row_correct = take(max_batch * sizeof(int));
  a.scalars = take(sizeof(kernels::StepScalars));
  a.adam_state = take(sizeof(kernels::AdamStepState));
  a.workspace = take(kWorkspaceBytes);
  return a;
}

}  // namespace mlp_gpu_detail

using mlp_gpu_detail::Slot;
using mlp_gpu_detail::StepPlan;

GpuMlp::GpuMlp(const MlpShape& shape, const OptimizerConfig& optimizer, MlpDtype dtype, std::size_t max_batch,
               std::span<const float> parameters, cudaStream_t stream)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.arena_layout = mlp_gpu_detail::make_arena_layout(shape, optimizer.kind, dtype, max_batch);
  m.shape = shape;
  m.layout = make_parameter_layout(shape);
  m.optimizer = optimizer;
  m.dtype = dtype;
  m.max_batch = max_batch;
  m.stream = stream;
  check_parameter_count(shape, m.layout, parameters.size());
  m.arena = DeviceBuffer(m.arena_layout.total);
  m.handle = lt::make_handle();

  const std::size_t bytes = m.layout.total * sizeof(float);
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(m.parameters(), parameters.data(), bytes, cudaMemcpyHostToDevice, stream));
  // The gradient padding is never written by a step and must read zero; the moments
  // start at zero as torch's do.
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.gradients(), 0, bytes, stream));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.at<float>(m.arena_layout.first_moment), 0, bytes, stream));
  if (m.arena_layout.second_moment.present())
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.at<float>(m.arena_layout.second_moment), 0, bytes, stream));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.adam_state(), 0, sizeof(kernels::AdamStepState), stream));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(m.scalars(), 0, sizeof(kernels::StepScalars), stream));
  if (m.bf16()) kernels::cast_to_bf16(m.parameters(), m.parameters_bf16(), m.layout.total, stream);
  // The host span may go away when the constructor returns.
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

GpuMlp::~GpuMlp() {
  // Work still queued reads the arena; let it finish before the memory goes.
  if (impl_ && impl_->arena.data() != nullptr) {
    HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(impl_->stream));
    if (impl_->update_stream) HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(impl_->update_stream->get()));
  }
}

std::size_t GpuMlp::device_bytes_needed(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype,
                                        std::size_t max_batch) {
  return mlp_gpu_detail::make_arena_layout(shape, optimizer, dtype, max_batch).total;
}

void GpuMlp::Impl::check_batch(const float* images, const std::int32_t* labels, std::size_t batch) const {
  if (images == nullptr || labels == nullptr) throw std::invalid_argument("GpuMlp step: null images or labels");
  if (batch == 0 || batch > max_batch) {
    throw std::invalid_argument(fmt::format(
        "GpuMlp step: batch {} is outside 1..{} (the max batch the model was built for)", batch, max_batch));
  }
}

void GpuMlp::Impl::enqueue_gradients(const StepPlan& plan, const float* images, const std::int32_t* labels,
                                     std::size_t batch_size) {
  const int batch = static_cast<int>(batch_size);
  const std::size_t layers = shape.layers();
  const void* input = images;
  std::optional<nvtx::ScopedRange> phase;  // the forward pass (and loss), then the backward pass
  phase.emplace(kMlpNvtx, ranges.forward, batch_size * static_cast<std::size_t>(shape.inputs()) * sizeof(float));
  if (bf16()) {
    kernels::cast_to_bf16(images, images_bf16(), batch_size * static_cast<std::size_t>(shape.inputs()), stream);
    input = images_bf16();
    end_part(StepPartKind::other, "cast");
  }

  for (std::size_t l = 0; l < layers; ++l) {
    const LayerPlan& p = plan.layers[l];
    p.forward->run(weight_operand(l), l == 0 ? input : output(l - 1), stream);
    if (!p.forward_fused) forward_fallback(l, batch, l + 1 < layers ? shape.fan_out(l) : plan.logits_ld);
    end_gemm_part(l, "forward");
  }

  const float* logits = static_cast<const float*>(output(layers - 1));
  if (bf16()) {
    kernels::softmax_cross_entropy(logits, labels, batch, shape.classes(), plan.logits_ld,
                                   static_cast<__nv_bfloat16*>(dy(layers - 1)), row_loss(), row_correct(), stream);
  } else {
    kernels::softmax_cross_entropy(logits, labels, batch, shape.classes(), plan.logits_ld,
                                   static_cast<float*>(dy(layers - 1)), row_loss(), row_correct(), stream);
  }
  kernels::reduce_step_scalars(row_loss(), row_correct(), batch, scalars(), stream);
  end_part(StepPartKind::other, "loss");
  phase.reset();
  phase.emplace(kMlpNvtx, ranges.backward, layout.total * sizeof(float));

  for (std::size_t l = layers; l-- > 0;) {
    const LayerPlan& p = plan.layers[l];
    const void* layer_input = l == 0 ? input : output(l - 1);
    if (p.weight_gradient_transposed) {
      transpose_input(l, batch, layer_input);
      p.weight_gradient->run(input_transposed(), dy(l), stream);
    } else {
      p.weight_gradient->run(layer_input, dy(l), stream);
    }
    if (!p.weight_gradient_fused) bias_gradient_fallback(l, batch, l + 1 < layers ? shape.fan_out(l) : plan.logits_ld);
    if (gradient_ready) gradient_ready(l);
    end_gemm_part(l, "weight_gradient");
    if (l == 0) {  // the images need no gradient
      weights_done(l);
      break;
    }
    if (p.input_gradient_own_kernel) {
      narrow_input_gradient(l, batch, l + 1 < layers ? shape.fan_out(l) : plan.logits_ld);
    } else {
      p.input_gradient->run(weight_operand(l), dy(l), stream);
      if (!p.input_gradient_fused) relu_gradient_fallback(l, batch);
    }
    end_gemm_part(l, "input_gradient");
    weights_done(l);
  }
}

void GpuMlp::Impl::weights_done(std::size_t l) {
  if (!updating_per_layer) return;
  // Layer l's weights (and their bf16 copy) are read for the last time in this step, and
  // its weight and bias gradients are written: the update stream takes it from here.
  weights_read[l].record(stream);
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(update_stream->get(), weights_read[l].get(), 0));
  const std::size_t first = layout.layers[l].weight;
  const std::size_t end = l + 1 < shape.layers() ? layout.layers[l + 1].weight : layout.total;
  // The backward pass runs from the last layer down: Adam's step count advances once,
  // before the first layer's update.
  enqueue_update(first, end - first, update_stream->get(), l + 1 == shape.layers());
}

void GpuMlp::Impl::transpose_input(std::size_t l, int batch, const void* layer_input) {
  const int in = shape.fan_in(l);
  kernels::transpose(static_cast<const float*>(layer_input), batch, in, in, input_transposed(),
                     mlp_gpu_detail::transposed_ld(batch), stream);
}

bool GpuMlp::Impl::narrow_input_gradient_supported(std::size_t l) const noexcept {
  return l > 0 && kernels::narrow_input_gradient_supported(shape.fan_out(l), shape.fan_in(l), dy(l - 1), output(l - 1));
}

void GpuMlp::Impl::narrow_input_gradient(std::size_t l, int batch, int ld) {
  const int out = shape.fan_out(l);
  const int in = shape.fan_in(l);
  if (bf16()) {
    kernels::narrow_input_gradient(static_cast<const __nv_bfloat16*>(weight_operand(l)),
                                   static_cast<const __nv_bfloat16*>(dy(l)), ld,
                                   static_cast<const __nv_bfloat16*>(output(l - 1)),
                                   static_cast<__nv_bfloat16*>(dy(l - 1)), batch, out, in, stream);
  } else {
    kernels::narrow_input_gradient(static_cast<const float*>(weight_operand(l)), static_cast<const float*>(dy(l)), ld,
                                   static_cast<const float*>(output(l - 1)), static_cast<float*>(dy(l - 1)), batch, out,
                                   in, stream);
  }
}

void GpuMlp::Impl::end_part(StepPartKind kind, std::string_view name) {
  if (part_marks == nullptr) return;
  const std::size_t after = part_marks->parts.size() + 1;
  if (after >= part_marks->events.size())
    throw std::logic_error(
        fmt::format("GpuMlp: step part '{}' has no event left (a part was added to the step "
                    "without one more event in time_step_parts)",
                    name));
  part_marks->events[after].record(stream);
  part_marks->parts.push_back(StepPart{.name = std::string(name), .kind = kind, .microseconds = 0.0});
}

void GpuMlp::Impl::end_gemm_part(std::size_t layer, const char* gemm) {
  if (part_marks != nullptr) end_part(StepPartKind::gemm, fmt::format("L{} {}", layer, gemm));
}

void GpuMlp::Impl::forward_fallback(std::size_t l, int batch, int ld) {
  const bool hidden = l + 1 < shape.layers();
  const float* bias = parameters() + layout.layers[l].bias;
  if (hidden && bf16()) {
    kernels::add_bias_activation(static_cast<__nv_bfloat16*>(output(l)), bias, batch, shape.fan_out(l), ld, true,
                                 stream);
  } else {
    kernels::add_bias_activation(static_cast<float*>(output(l)), bias, batch, shape.fan_out(l), ld, hidden, stream);
  }
}

void GpuMlp::Impl::bias_gradient_fallback(std::size_t l, int batch, int ld) {
  float* db = gradients() + layout.layers[l].bias;
  if (bf16()) {
    kernels::bias_gradient(static_cast<const __nv_bfloat16*>(dy(l)), ld, db, batch, shape.fan_out(l), bias_partials(),
                           bias_partials_capacity(), stream);
  } else {
    kernels::bias_gradient(static_cast<const float*>(dy(l)), ld, db, batch, shape.fan_out(l), bias_partials(),
                           bias_partials_capacity(), stream);
  }
}

void GpuMlp::Impl::relu_gradient_fallback(std::size_t l, int batch) {
  const std::size_t count = static_cast<std::size_t>(batch) * static_cast<std::size_t>(shape.fan_in(l));
  if (bf16()) {
    kernels::relu_gradient(static_cast<__nv_bfloat16*>(dy(l - 1)), static_cast<const __nv_bfloat16*>(output(l - 1)),
                           count, stream);
  } else {
    kernels::relu_gradient(static_cast<float*>(dy(l - 1)), static_cast<const float*>(output(l - 1)), count, stream);
  }
}

void GpuMlp::Impl::enqueue_update(std::size_t first, std::size_t count, cudaStream_t on, bool advance) {
  const nvtx::ScopedRange range(kMlpNvtx, ranges.optimizer, count * sizeof(float));
  const OptimizerConfig& o = optimizer;
  float* first_moment = at<float>(arena_layout.first_moment) + first;
  __nv_bfloat16* copy = bf16() ? parameters_bf16() + first : nullptr;
  if (o.kind == OptimizerKind::sgd) {
    kernels::sgd_momentum_update(parameters() + first, gradients() + first, first_moment, copy, count, o.learning_rate,
                                 o.momentum, on);
  } else {
    if (advance) kernels::advance_adam_step(adam_state(), o.learning_rate, o.beta1, o.beta2, on);
    kernels::adam_update(parameters() + first, gradients() + first, first_moment,
                         at<float>(arena_layout.second_moment) + first, copy, count, o.beta1, o.beta2, o.epsilon,
                         adam_state(), on);
  }
}

void GpuMlp::Impl::enqueue_optimizer() {
  enqueue_update(0, layout.total, stream, true);
  end_part(StepPartKind::update, "update");
}

void GpuMlp::Impl::enqueue_step(const StepPlan& plan, const float* images, const std::int32_t* labels,
                                std::size_t batch) {
  // The overlap needs the update after each layer's last read and nothing between the
  // backward pass and the update: not with an all-reduce in between, not while the parts
  // are timed one after another.
  if (!overlap_update || gradient_ready || part_marks != nullptr) {
    enqueue_gradients(plan, images, labels, batch);
    enqueue_optimizer();
    return;
  }
  updating_per_layer = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{updating_per_layer};
  try {
    enqueue_gradients(plan, images, labels, batch);
  } catch (...) {
    // The updates queued so far joined back, unchecked (the first error is the one to say): a
    // capture ends with no branch left open, and the next step's reads wait for them.
    (void)cudaEventRecord(updates_done->get(), update_stream->get());
    (void)cudaStreamWaitEvent(stream, updates_done->get(), 0);
    throw;
  }
  updates_done->record(update_stream->get());
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(stream, updates_done->get(), 0));
}

void GpuMlp::set_update_overlap(bool overlap) {
  Impl& m = *impl_;
  if (overlap && !m.update_stream) {
    // Made whole before any is kept: a creation that throws leaves the serial update as it was,
    // not a stream with too few events for the next try to index.
    Stream update_stream("mlp/update");
    std::vector<Event> weights_read;
    for (std::size_t l = 0; l < m.shape.layers(); ++l) weights_read.emplace_back(cudaEventDisableTiming);
    Event updates_done(cudaEventDisableTiming);
    m.weights_read = std::move(weights_read);
    m.updates_done.emplace(std::move(updates_done));
    m.update_stream.emplace(std::move(update_stream));
  }
  m.overlap_update = overlap;
}

bool GpuMlp::update_overlap() const noexcept { return impl_->overlap_update; }

std::size_t GpuMlp::graph_nodes() const { return impl_->has_graph ? impl_->graph.node_count() : 0; }

const StepPlan& GpuMlp::Impl::begin_step(const float* images, const std::int32_t* labels, std::size_t batch) {
  check_batch(images, labels, batch);
  const StepPlan& plan = plan_for(batch, images);
  last_batch = batch;
  last_plan = &plan;
  return plan;
}

void GpuMlp::step(const float* images, const std::int32_t* labels, std::size_t batch) {
  impl_->enqueue_step(impl_->begin_step(images, labels, batch), images, labels, batch);
}

void GpuMlp::compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch) {
  impl_->enqueue_gradients(impl_->begin_step(images, labels, batch), images, labels, batch);
}

void GpuMlp::apply_optimizer() { impl_->enqueue_optimizer(); }

std::vector<StepPart> GpuMlp::time_step_parts(const float* images, const std::int32_t* labels, std::size_t batch) {
  Impl& m = *impl_;
  m.check_batch(images, labels, batch);
  // Planned first: a new plan's trial runs stay out of the first part.
  m.plan_for(batch, images);
  Impl::PartMarks marks;
  // One before the step, one after each part: the cast, each layer's forward, the loss,
  // each layer's weight gradient, each but the first layer's input gradient, the update.
  const std::size_t layers = m.shape.layers();
  for (std::size_t i = 0; i < 3 * layers + 3; ++i) marks.events.emplace_back();
  marks.events[0].record(m.stream);
  m.part_marks = &marks;
  struct Unmark {
    Impl& m;
    ~Unmark() { m.part_marks = nullptr; }
  } unmark{m};
  step(images, labels, batch);
  marks.events[marks.parts.size()].synchronize();
  for (std::size_t i = 0; i < marks.parts.size(); ++i)
    marks.parts[i].microseconds = 1e3 * static_cast<double>(elapsed_ms(marks.events[i], marks.events[i + 1]));
  return std::move(marks.parts);
}

void GpuMlp::set_gradient_ready_hook(GradientReadyHook hook) { impl_->gradient_ready = std::move(hook); }
float* GpuMlp::device_gradients() noexcept { return impl_->gradients(); }

void GpuMlp::name_ranges(const std::string& benchmark) { impl_->ranges = StepRangeNames(benchmark); }

void GpuMlp::capture_step(const float* images, const std::int32_t* labels, std::size_t batch) {
  Impl& m = *impl_;
  m.check_batch(images, labels, batch);
  // Planning queries the heuristic and runs trial GEMMs: neither may happen inside the
  // capture, so the plan for this batch is made first.
  const StepPlan& plan = m.plan_for(batch, images);
  // An earlier graph may still be running: let it finish before it is destroyed.
  if (m.has_graph) HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  m.graph = GraphExec();
  m.has_graph = false;
  m.graph = GraphExec::capture(m.stream, [&] { m.enqueue_step(plan, images, labels, batch); });
  m.has_graph = true;
  m.graph_batch = batch;
  m.graph_plan = &plan;
}

void GpuMlp::replay() {
  Impl& m = *impl_;
  if (!m.has_graph) throw std::logic_error("GpuMlp::replay() before capture_step()");
  m.graph.launch(m.stream);
  m.last_batch = m.graph_batch;
  m.last_plan = m.graph_plan;
}

bool GpuMlp::captured() const noexcept { return impl_->has_graph; }

StepResult GpuMlp::last_result() {
  Impl& m = *impl_;
  if (m.last_batch == 0) throw std::logic_error("GpuMlp::last_result() before any step");
  kernels::StepScalars scalars{};
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(&scalars, m.scalars(), sizeof(scalars), cudaMemcpyDeviceToHost, m.stream));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  return StepResult{scalars.loss_sum / static_cast<double>(m.last_batch), static_cast<std::size_t>(scalars.correct)};
}

std::vector<float> GpuMlp::Impl::download(const void* device, std::size_t count) const {
  std::vector<float> host(count);
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

std::vector<float> GpuMlp::parameters() { return impl_->download(impl_->parameters(), impl_->layout.total); }
std::vector<float> GpuMlp::gradients() { return impl_->download(impl_->gradients(), impl_->layout.total); }
std::vector<float> GpuMlp::logits() {
  const Impl& m = *impl_;
  if (m.last_plan == nullptr) throw std::logic_error("GpuMlp::logits() before any step");
  const auto classes = static_cast<std::size_t>(m.shape.classes());
  const auto ld = static_cast<std::size_t>(m.last_plan->logits_ld);
  std::vector<float> stored = m.download(m.output(m.shape.layers() - 1), m.last_batch * ld);
  if (ld == classes) return stored;
  std::vector<float> rows(m.last_batch * classes);  // the padding dropped
  for (std::size_t r = 0; r < m.last_batch; ++r)
    std::copy_n(stored.begin() + static_cast<std::ptrdiff_t>(r * ld), classes,
                rows.begin() + static_cast<std::ptrdiff_t>(r * classes));
  return rows;
}

void GpuMlp::poison_step_outputs() {
  const Impl& m = *impl_;
  const auto poison = [&](void* device, std::size_t bytes) {
    if (device != nullptr && bytes != 0) HDBENCH_CUDA_CHECK(cudaMemsetAsync(device, 0xFF, bytes, m.stream));
  };
  const auto poison_slot = [&](const Slot& slot) { poison(m.at<char>(slot), slot.bytes); };
  // The gradients' blocks, not their padding: the padding must stay zero.
  for (std::size_t l = 0; l < m.shape.layers(); ++l) {
    const auto out = static_cast<std::size_t>(m.shape.fan_out(l));
    const LayerOffsets& offsets = m.layout.layers[l];
    poison(m.gradients() + offsets.weight, out * static_cast<std::size_t>(m.shape.fan_in(l)) * sizeof(float));
    poison(m.gradients() + offsets.bias, out * sizeof(float));
  }
  const mlp_gpu_detail::ArenaLayout& a = m.arena_layout;
  for (const Slot& slot : a.outputs) poison_slot(slot);
  for (const Slot& slot : a.masks) poison_slot(slot);
  for (const Slot& slot : a.dy) poison_slot(slot);
  poison_slot(a.images_bf16);
  poison_slot(a.bias_partials);
  poison_slot(a.row_loss);
  poison_slot(a.row_correct);
  poison_slot(a.scalars);
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

bool GpuMlp::fused_epilogues() const noexcept { return impl_->fused; }

void GpuMlp::set_plan_policy(const PlanPolicy& policy) {
  if (!impl_->plans.empty()) throw std::logic_error("GpuMlp::set_plan_policy() after a step was planned");
  impl_->policy = policy;
}

PlanChoices GpuMlp::plan_choices() const {
  return impl_->last_plan != nullptr ? impl_->last_plan->choices : PlanChoices{};
}

std::size_t GpuMlp::fused_epilogue_count() const noexcept {
  return impl_->last_plan != nullptr ? impl_->last_plan->choices.fused_count() : 0;
}
const MlpShape& GpuMlp::shape() const noexcept { return impl_->shape; }
MlpDtype GpuMlp::dtype() const noexcept { return impl_->dtype; }
std::size_t GpuMlp::device_bytes() const noexcept { return impl_->arena.size(); }

}  // namespace hdbench
