// The MLP training step on the GPU: cuBLASLt GEMMs, each with a fused epilogue (bias +
// ReLU forward; ReLU gradient + bias gradient backward) or plain followed by hdbench's
// own kernel, whichever measured faster when the batch size was planned (and the
// output layer stored padded when that measured faster: mlp_gpu_choice.hpp), one softmax-cross-entropy
// kernel that also writes the logits' gradient, the loss and the correct count, and
// one optimizer kernel across the whole flat parameter array (or, with
// set_update_overlap, one a layer on a second stream, overlapped with the backward
// pass). fp32, tf32 (fp32 operands, tensor-core products) and bf16 (bf16 GEMM operands,
// fp32 accumulation, gradients and master weights). The step runs eagerly, or captured
// once into a CUDA graph and replayed.
//
// Same layout and initial values as the CPU model (mlp_model.hpp): row-major
// activations [batch × width], weights [fan_out × fan_in], so parameters and
// gradients compare element by element with CpuMlp's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mlp/mlp_gpu_choice.hpp"
#include "mlp/mlp_gpu_parts.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench {

class GpuMlp {
 public:
  // Allocates every buffer for up to `max_batch` samples on the current device and
  // uploads `parameters` (make_parameter_layout(shape).total floats). All work is
  // enqueued on `stream`, which the caller owns and which outlives the model.
  // Throws CudaError (e.g. out of memory) or MlpConfigError.
  GpuMlp(const MlpShape& shape, const OptimizerConfig& optimizer, MlpDtype dtype, std::size_t max_batch,
         std::span<const float> parameters, cudaStream_t stream);
  ~GpuMlp();
  GpuMlp(const GpuMlp&) = delete;
  GpuMlp& operator=(const GpuMlp&) = delete;

  // Device bytes the model would allocate: what a benchmark checks against free memory
  // before it constructs one, to skip a batch too large for the device with the reason.
  static std::size_t device_bytes_needed(const MlpShape& shape, OptimizerKind optimizer, MlpDtype dtype,
                                         std::size_t max_batch);

  // Enqueues one training step (forward, loss, backward, update) on device-resident
  // images [batch × inputs] (float) and labels (int32). Asynchronous: nothing waits.
  void step(const float* images, const std::int32_t* labels, std::size_t batch);

  // The step in two halves (both enqueue only): for tests, and for a data-parallel
  // step, which all-reduces the gradients between them.
  void compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch);
  void apply_optimizer();

  // Called while compute_gradients (or a capture) enqueues the backward pass, once per
  // layer from the last to the first, as soon as that layer's weight and bias
  // gradients are enqueued on the stream and before anything below it: where a
  // data-parallel step starts a bucket's all-reduce, overlapped with the layers still
  // to go (as DDP's autograd hooks do). An empty hook removes it.
  using GradientReadyHook = std::function<void(std::size_t layer)>;
  void set_gradient_ready_hook(GradientReadyHook hook);
  // The fp32 gradients on the device, in the flat layout of mlp_model.hpp (layer l's
  // weight and bias fill [layers[l].weight, layers[l+1].weight)): what an all-reduce
  // works on in place, between compute_gradients and apply_optimizer.
  float* device_gradients() noexcept;

  // Enqueues one step as step() does (a real one: the model trains) with a CUDA event
  // recorded between its parts, waits for it, and returns each part's time on the GPU in
  // the step's order (mlp_gpu_parts.hpp): where the step's time goes, in place.
  std::vector<StepPart> time_step_parts(const float* images, const std::int32_t* labels, std::size_t batch);

  // Where step() (and a capture of it) runs the update. false (the default): one update
  // across the whole flat parameter array once the backward pass is done. true: each
  // layer's update on a second stream of the model's own, as soon as the backward pass has
  // last read that layer's weights (its input gradient; layer 0's weight gradient), so
  // it overlaps the GEMMs of the layers below; the stream waits for the last of them before
  // the step ends, so the next step (or a read of the parameters) sees them all. Both give
  // the same parameters bit for bit: the update is element by element either way. Not for
  // compute_gradients/apply_optimizer, whose caller may change the gradients in between,
  // nor with a gradient-ready hook (a data-parallel step's all-reduce must end first), nor
  // in time_step_parts, whose parts follow one another: those keep the update after.
  void set_update_overlap(bool overlap);
  bool update_overlap() const noexcept;

  // Captures step(images, labels, batch) into a CUDA graph (the pointers and batch are
  // baked in), replacing any earlier capture. replay() enqueues it on the stream.
  void capture_step(const float* images, const std::int32_t* labels, std::size_t batch);
  void replay();
  bool captured() const noexcept;
  std::size_t graph_nodes() const;  // of the captured step; 0 before capture_step

  // Names the step's NVTX phase ranges (forward, backward, optimizer; host-side
  // enqueue, which Nsight projects onto the GPU work) after `benchmark` (default
  // "mlp/gpu"). A captured graph's replay is one launch and has none.
  void name_ranges(const std::string& benchmark);

  // Waits for the stream, then reads the last forward pass's loss and correct count.
  StepResult last_result();
  // Wait for the stream, then download (for tests and checks): the fp32 master
  // parameters, the fp32 gradients of the last backward pass, the last logits.
  std::vector<float> parameters();
  std::vector<float> gradients();
  std::vector<float> logits();

  // For tests: fills every buffer a step writes (the gradients' weight and bias
  // blocks, activations, logits, ReLU masks, output gradients, the loss and count) with
  // 0xFF bytes, a NaN in fp32 and bf16, so an element a step leaves unwritten cannot
  // pass. The gradients' padding keeps its zeros. Waits for the stream.
  void poison_step_outputs();

  // How the plan chooses between fused epilogues and plain GEMMs plus hdbench's
  // kernels, and whether the output layer is stored padded (mlp_gpu_choice.hpp):
  // measured by default; tests force either side. Before the first step or capture
  // only (std::logic_error after).
  void set_plan_policy(const PlanPolicy& policy);
  // What the plan of the last step (or the replayed graph) chose, with the time each
  // candidate took at plan time; empty before any step.
  PlanChoices plan_choices() const;
  // How many GEMMs of that plan run with a fused cuBLASLt epilogue (the rest run plain
  // and are followed by hdbench's kernel); 0 before any step.
  std::size_t fused_epilogue_count() const noexcept;
  // False when any GEMM of any plan so far runs plain plus a separate kernel, because
  // cuBLASLt offered no fused algorithm or the plain way measured faster, or is replaced
  // by hdbench's own kernel (the output layer's input gradient, where that measured faster). GEMMs are
  // planned on a batch size's first step (or capture), so this speaks for the batch
  // sizes run so far.
  bool fused_epilogues() const noexcept;
  const MlpShape& shape() const noexcept;
  MlpDtype dtype() const noexcept;
  std::size_t device_bytes() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One GEMM D[m×n] = A[m×k]·B[k×n] (row-major, as cpu_sgemm) through cuBLASLt in the
// step's arithmetic (fp32, tf32, or bf16 operands with fp32 accumulation and bf16
// output), on operands filled with random values in [-1, 1) on the device: the GEMM
// rate a step's TFLOP/s is compared with.
class GpuGemm {
 public:
  GpuGemm(int m, int n, int k, MlpDtype dtype, cudaStream_t stream);
  ~GpuGemm();
  GpuGemm(const GpuGemm&) = delete;
  GpuGemm& operator=(const GpuGemm&) = delete;
  void run();                     // enqueues one GEMM on the stream
  double flops() const noexcept;  // 2·m·n·k
  // Wait for the stream, then download as floats (bf16 widened exactly), to check D
  // against a reference after timing: A [m×k], B [k×n], D [m×n], row-major.
  std::vector<float> a_values();
  std::vector<float> b_values();
  std::vector<float> d_values();
  // Which of cuBLASLt's algorithms the plan kept, as "algorithm 2 of 8 offered (6 timed:
  // 512.3us kept, the first 530.1us)": every GEMM keeps the fastest it timed
  // (cublaslt.hpp, Tuning).
  std::string describe_algorithm() const;
  // The plan-time times of the algorithms it ran (µs, in the heuristic's order) and the
  // index of the one kept among them.
  std::vector<double> algorithm_microseconds() const;
  std::size_t kept_algorithm_index() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hdbench
