// GpuMlp's insides, shared by mlp_gpu.cpp (buffers, enqueue, graph) and
// mlp_gpu_plan.cpp (the cuBLASLt plans). Not part of lib's interface.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cuda.hpp"
#include "mlp/cublaslt.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp/mlp_gpu_choice.hpp"
#include "mlp/mlp_gpu_parts.hpp"
#include "mlp_kernels.hpp"

namespace hdbench::mlp_gpu_detail {

// cuBLASLt's scratch: the heuristic may pick split-K or stream-K kernels that need it.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
constexpr std::size_t kArenaAlignment = 256;
// cuBLASLt's rule for the ReLU bit-mask's leading dimension (in bits).
constexpr std::size_t kMaskLdBits = 128;
// A transposed input's rows (one per input feature, the batch along them) start 16 bytes
// apart at least, as tf32's tensor-core GEMMs want, whatever the batch.
constexpr std::size_t kTransposedLdFloats = 4;
inline int transposed_ld(int batch) noexcept {
  return static_cast<int>((static_cast<std::size_t>(batch) + kTransposedLdFloats - 1) / kTransposedLdFloats *
                          kTransposedLdFloats);
}

// A buffer in the model's one device allocation.
struct Slot {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t offset = kNone;
  std::size_t bytes = 0;
  bool present() const noexcept { return offset != kNone; }
};

// Everything a GpuMlp allocates, as one allocation: device_bytes_needed() is its size
// exactly, and the constructor allocates exactly that.
struct ArenaLayout {
  Slot parameters;            // fp32 master weights, the flat layout of mlp_model.hpp
  Slot gradients;             // fp32, same layout, padding zero
  Slot first_moment;          // SGD's velocity, Adam's m
  Slot second_moment;         // Adam's v
  Slot parameters_bf16;       // bf16 copy the bf16 GEMMs read, same offsets
  Slot images_bf16;           // bf16 copy of the input batch
  Slot input_transposed;      // tf32: a layer's input made batch-contiguous for its weight gradient
  std::vector<Slot> outputs;  // [l]: layer l's output [max_batch × fan_out]; hidden in the GEMM type, logits fp32
                              // with room for the padded leading dimension (padded_width)
  std::vector<Slot> masks;    // [l] for hidden l: cuBLASLt's ReLU bit-mask, mask_ld[l] bits per sample
  std::vector<std::int64_t> mask_ld;
  Slot dy[2];          // gradients w.r.t. layer outputs, in the GEMM type, used in turn going backward (logits' padded)
  Slot bias_partials;  // fp32 row-chunk sums of the split bias-gradient fallback
  Slot row_loss;
  Slot row_correct;
  Slot scalars;
  Slot adam_state;
  Slot workspace;
  std::size_t total = 0;
};

void validate(const MlpShape& shape, std::size_t max_batch);
ArenaLayout make_arena_layout(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype, std::size_t max_batch);

// The GEMMs of one layer for one batch size. A GEMM that is not `fused` runs with
// the default epilogue and is followed by the fallback kernel doing its epilogue.
struct LayerPlan {
  std::optional<lt::Gemm> forward;  // Yᵀ = Wᵀ·Xᵀ (+ bias, ReLU + mask for hidden layers)
  bool forward_fused = false;
  bool writes_mask = false;                 // the forward wrote the ReLU bit-mask the next layer's DRELU reads
  std::optional<lt::Gemm> weight_gradient;  // dWᵀ = Xᵀ·dY (+ bias gradient, BGRADB)
  bool weight_gradient_fused = false;
  bool weight_gradient_transposed = false;  // reads input_transposed, filled by transpose_input first
  std::optional<lt::Gemm> input_gradient;  // dXᵀ = W·dYᵀ (∘ ReLU mask of the layer below, DRELU); not for layer 0
  bool input_gradient_fused = false;
  bool input_gradient_own_kernel = false;  // hdbench's kernel in place of input_gradient (left empty)
};
struct StepPlan {
  std::vector<LayerPlan> layers;
  int logits_ld = 0;    // the output layer's leading dimension: classes, or padded_width(classes)
  PlanChoices choices;  // what was chosen and what each candidate took
};

}  // namespace hdbench::mlp_gpu_detail

namespace hdbench {

struct GpuMlp::Impl {
  using ArenaLayout = mlp_gpu_detail::ArenaLayout;
  using Slot = mlp_gpu_detail::Slot;
  using StepPlan = mlp_gpu_detail::StepPlan;
  using LayerPlan = mlp_gpu_detail::LayerPlan;

  MlpShape shape;
  ParameterLayout layout;
  OptimizerConfig optimizer;
  MlpDtype dtype = MlpDtype::fp32;
  std::size_t max_batch = 0;
  StepRangeNames ranges{"mlp/gpu"};
  cudaStream_t stream = nullptr;
  ArenaLayout arena_layout;
  DeviceBuffer arena;
  lt::Handle handle;
  // Keyed by (batch, alignment of the caller's images): a short last batch gets its own
  // plan, and a steady state makes no heuristic queries.
  std::map<std::pair<std::size_t, std::uint32_t>, StepPlan> plans;
  PlanPolicy policy;
  bool fused = true;  // no GEMM of any plan so far ran with a fallback kernel
  GraphExec graph;
  bool has_graph = false;
  std::size_t graph_batch = 0;
  const StepPlan* graph_plan = nullptr;
  std::size_t last_batch = 0;
  const StepPlan* last_plan = nullptr;       // the plan the last step (or replayed graph) ran
  GpuMlp::GradientReadyHook gradient_ready;  // may be empty
  // While time_step_parts enqueues its step: events[0] is recorded before the step and
  // events[i + 1] after parts[i] (whose times are filled in once the step has run).
  struct PartMarks {
    std::vector<Event> events;
    std::vector<StepPart> parts;
  };
  PartMarks* part_marks = nullptr;
  // set_update_overlap(true): the update's own stream, an event per layer recorded once the
  // backward pass has last read its weights, and one the step's stream waits on at its end.
  // Made when the overlap is asked for, never inside a capture.
  bool overlap_update = false;
  std::optional<Stream> update_stream;
  std::vector<Event> weights_read;
  std::optional<Event> updates_done;
  bool updating_per_layer = false;  // while enqueue_step enqueues a step with the overlap

  template <typename T>
  T* at(const Slot& slot) const noexcept {
    return slot.present() ? reinterpret_cast<T*>(static_cast<char*>(arena.data()) + slot.offset) : nullptr;
  }
  bool bf16() const noexcept { return dtype == MlpDtype::bf16; }
  float* parameters() const noexcept { return at<float>(arena_layout.parameters); }
  float* gradients() const noexcept { return at<float>(arena_layout.gradients); }
  __nv_bfloat16* parameters_bf16() const noexcept { return at<__nv_bfloat16>(arena_layout.parameters_bf16); }
  __nv_bfloat16* images_bf16() const noexcept { return at<__nv_bfloat16>(arena_layout.images_bf16); }
  float* input_transposed() const noexcept { return at<float>(arena_layout.input_transposed); }
  void* output(std::size_t layer) const noexcept { return at<char>(arena_layout.outputs[layer]); }
  // The gradient w.r.t. layer l's output: the logits' in dy[0], then alternating.
  void* dy(std::size_t layer) const noexcept { return at<char>(arena_layout.dy[(shape.layers() - 1 - layer) % 2]); }
  float* row_loss() const noexcept { return at<float>(arena_layout.row_loss); }
  int* row_correct() const noexcept { return at<int>(arena_layout.row_correct); }
  kernels::StepScalars* scalars() const noexcept { return at<kernels::StepScalars>(arena_layout.scalars); }
  kernels::AdamStepState* adam_state() const noexcept { return at<kernels::AdamStepState>(arena_layout.adam_state); }
  // Layer l's weight as the GEMMs read it: the fp32 master or its bf16 copy.
  const void* weight_operand(std::size_t layer) const noexcept {
    const std::size_t offset = layout.layers[layer].weight;
    return bf16() ? static_cast<const void*>(parameters_bf16() + offset)
                  : static_cast<const void*>(parameters() + offset);
  }

  float* bias_partials() const noexcept { return at<float>(arena_layout.bias_partials); }
  std::size_t bias_partials_capacity() const noexcept { return arena_layout.bias_partials.bytes / sizeof(float); }

  // The fallback kernels that finish a plain GEMM's work (the step and the plan's
  // timing run the same ones). `ld` is the layer output's leading dimension.
  void forward_fallback(std::size_t layer, int batch, int ld);
  void bias_gradient_fallback(std::size_t layer, int batch, int ld);
  void relu_gradient_fallback(std::size_t layer, int batch);  // the ReLU gradient of layer-1's output
  // Layer l's input ([batch × fan_in], fp32) transposed into input_transposed ([fan_in × batch]).
  void transpose_input(std::size_t layer, int batch, const void* layer_input);
  // Layer l's input gradient with the ReLU gradient of layer l-1, in hdbench's kernel in
  // place of the GEMM (kernels/mlp_narrow_kernels.hpp), where the kernel takes the layer;
  // `ld` is the leading dimension of layer l's output gradient.
  bool narrow_input_gradient_supported(std::size_t layer) const noexcept;
  void narrow_input_gradient(std::size_t layer, int batch, int ld);
  // Mean microseconds of `repeats` runs of `work` on the stream (after one warm-up), by CUDA events.
  template <typename Work>
  double time_microseconds(Work&& work, int repeats);

  // Ends a part of the step (records the event after it) while time_step_parts runs one;
  // otherwise nothing. A GEMM part is named as the plan's label names the GEMM.
  void end_part(StepPartKind kind, std::string_view name);
  void end_gemm_part(std::size_t layer, const char* gemm);

  void check_batch(const float* images, const std::int32_t* labels, std::size_t batch) const;
  // A step's start: the batch checked, its plan (made on first use), and the batch and plan
  // recorded as the last step's (for last_result and logits).
  const StepPlan& begin_step(const float* images, const std::int32_t* labels, std::size_t batch);
  // The plan for this batch and images' alignment, built on first use (outside any capture).
  const StepPlan& plan_for(std::size_t batch, const float* images);
  StepPlan build_plan(std::size_t batch, const void* input);
  void enqueue_gradients(const StepPlan& plan, const float* images, const std::int32_t* labels, std::size_t batch);
  void enqueue_optimizer();
  // The whole step: the gradients, then the update after them, or per layer on the update
  // stream where set_update_overlap asked for it and nothing rules it out.
  void enqueue_step(const StepPlan& plan, const float* images, const std::int32_t* labels, std::size_t batch);
  // The update of [first, first + count) of the flat parameters on `on` (Adam's step count
  // advanced first where `advance`).
  void enqueue_update(std::size_t first, std::size_t count, cudaStream_t on, bool advance);
  // Called by the backward pass once it has last read layer l's weights: with the overlap,
  // the layer's update goes to the update stream after an event on the step's stream.
  void weights_done(std::size_t layer);
  std::vector<float> download(const void* device, std::size_t count) const;
};

}  // namespace hdbench
