// The fused GPU training step of a small MLP, the mlp family's `fused` mode: forward,
// softmax cross-entropy, backward and the SGD-momentum update in two kernels of
// hdbench's own (kernels/mlp_fused_kernels.hpp: kernel 1 takes 4 samples a block
// through forward, loss and backward to the hidden layer; kernel 2 gives every
// gradient element one owner that sums it over the batch in sample order, writes it
// and updates its parameter), captured into a CUDA graph of two kernel nodes and
// replayed. Where the cuBLASLt step (mlp_gpu.hpp) of 784x32x10 at batch 128 is a
// dozen tiny launches whose gaps are most of its time, this is two.
//
// What it supports (fused_step_unsupported says why anything else is refused):
// exactly two layers, inputs ≤ 2048, hidden ≤ 64, classes ≤ 16, fp32 (fp32 FMAs on the
// CUDA cores, fp32 accumulation, the loss summed in double), SGD with momentum, any
// batch from 1 to the max batch the model was built for. It is meant for small
// batches: each block of kernel 1 reads all of W1 and each gradient element is summed
// by one thread or warp, so at thousands of samples the cuBLASLt step is faster.
//
// Every sum has a fixed order: a step is reproducible to the bit, eager or replayed.
// Same parameter layout and initial values as the CPU model (mlp_model.hpp), so its
// parameters and gradients compare element by element with CpuMlp's and ReferenceMlp's.
//
// Its floor from first principles (784x32x10, batch 128, H100/H200; docs/measuring.md):
// ~13.1 MFLOP, 0.2 µs at the GPU's ~67 TFLOP/s of fp32 or ~0.7 µs on the 32 + 62 SMs
// the two grids take; ~1 MB of unique bytes (the batch 401 KB; W1, its velocity and
// gradient 100 KB each), 0.2-0.3 µs from HBM and in L2 anyway between replays; the
// widest stream is W1 read by each of kernel 1's 32 blocks, 112 KB an SM, ~0.9 µs from
// L2. What is left is latency: the two dependent kernel nodes of the replayed graph
// (measured beside the step as `launch_floor_us`: the same launches, empty) and each
// kernel's chain of dependent L2 round trips and barriers (~1-2 µs a kernel). About
// 5-8 µs a step, against 43.2 µs for the cuBLASLt graph (fp32, H200, issue 41).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mlp/mlp_model.hpp"

namespace hdbench {

// Why the fused step cannot run this model, dtype and optimizer (nullopt: it can):
// the sentence a skipped benchmark and a refused constructor give.
std::optional<std::string> fused_step_unsupported(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype);

// Where the fused step's buffers sit in its one device allocation (host arithmetic).
struct FusedArenaLayout {
  std::size_t parameters = 0;  // byte offsets; each 256-byte aligned
  std::size_t gradients = 0;
  std::size_t velocity = 0;
  std::size_t hidden = 0;
  std::size_t logits = 0;
  std::size_t dlogits = 0;
  std::size_t dhidden = 0;
  std::size_t row_loss = 0;
  std::size_t row_correct = 0;
  std::size_t scalars = 0;
  std::size_t total = 0;
};
// Throws MlpConfigError for a shape fused_step_unsupported refuses (SGD, fp32 assumed)
// or a max batch outside 1..INT_MAX.
FusedArenaLayout make_fused_arena_layout(const MlpShape& shape, std::size_t max_batch);

class FusedMlp {
 public:
  // Throws MlpConfigError with fused_step_unsupported's reason before touching the
  // device; otherwise allocates for up to `max_batch` samples on the current device
  // and uploads `parameters` (make_parameter_layout(shape).total floats). All work is
  // enqueued on `stream`, which the caller owns and which outlives the model.
  FusedMlp(const MlpShape& shape, const OptimizerConfig& optimizer, MlpDtype dtype, std::size_t max_batch,
           std::span<const float> parameters, cudaStream_t stream);
  ~FusedMlp();
  FusedMlp(const FusedMlp&) = delete;
  FusedMlp& operator=(const FusedMlp&) = delete;

  static std::size_t device_bytes_needed(const MlpShape& shape, std::size_t max_batch);

  // Enqueues one step: the two kernels, the update fused into the second. Asynchronous.
  void step(const float* images, const std::int32_t* labels, std::size_t batch);
  // The step in two halves, for tests: the two kernels writing the gradients only,
  // then sgd_momentum_update over the flat array. step() equals them bit for bit.
  void compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch);
  void apply_optimizer();

  // Captures step(images, labels, batch) into a CUDA graph (two kernel nodes; the
  // pointers and batch baked in), replacing any earlier capture; replay() enqueues it.
  void capture_step(const float* images, const std::int32_t* labels, std::size_t batch);
  void replay();
  bool captured() const noexcept;
  std::size_t graph_nodes() const;  // of the captured step; 0 before capture_step

  // The launch floor: the same two launches (grids, blocks, shared memory) of empty
  // kernels, captured likewise, to be replayed back to back and timed beside the step.
  void capture_launch_floor(std::size_t batch);
  void replay_launch_floor();

  // Names the enqueue's NVTX ranges after `benchmark` (default "mlp/gpu"): kernel 1 in
  // "<benchmark>/forward" (forward, loss and the backward to the hidden layer), kernel 2
  // in "<benchmark>/backward" (weight gradients with the update fused in, as the CPU
  // step's), apply_optimizer in "<benchmark>/optimizer". A replay has none.
  void name_ranges(const std::string& benchmark);

  // Waits for the stream, then reads the last step's loss and correct count.
  StepResult last_result();
  // Wait for the stream, then download: parameters, gradients of the last step (flat
  // layout), the last logits [batch × classes].
  std::vector<float> parameters();
  std::vector<float> gradients();
  std::vector<float> logits();
  // For tests: fills everything a step writes (the gradients' weight and bias blocks,
  // activations, logits, their gradients, the loss and count) with 0xFF bytes, a NaN,
  // so an element a step leaves unwritten cannot pass. Waits for the stream.
  void poison_step_outputs();

  // The two launches at `batch`, for the benchmark's label: "kernel 1 (forward, loss,
  // backward to the hidden layer) 32 blocks; kernel 2 (weight gradients + update) 62 blocks".
  std::string describe_launches(std::size_t batch) const;
  const MlpShape& shape() const noexcept;
  std::size_t device_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hdbench
