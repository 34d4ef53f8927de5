// The MLP training step on the CPU: OpenBLAS sgemm for the three GEMMs of each
// layer (AVX-512 or AVX2 kernels of our own, narrow_gemm.hpp, for the forward and weight-gradient
// GEMMs of a layer with at most 32 outputs and 64 inputs or more), fused loops for
// everything else (bias + ReLU in one pass, softmax +
// cross-entropy + its gradient in one pass, ReLU gradient + bias gradient in one
// pass, one optimizer pass over the whole flat parameter array).
//
// Row-major throughout, as torch.nn.Linear: activations [batch × width], weights
// [fan_out × fan_in]. The thread count is the model's: OpenBLAS and the element-wise
// loops use exactly that many threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "mlp/mlp_model.hpp"

namespace hdbench {

class ThreadTeam;

// The parts of a CPU step, in the order they run (the optimizer's weight updates run
// inside the weight-gradient GEMM's blocks, its bias updates after).
enum class CpuStepPhase {
  forward_gemm,          // each layer's x · Wᵀ
  forward_elementwise,   // bias + ReLU (bias alone on the last layer)
  loss,                  // softmax, cross-entropy, its gradient and the last bias gradient
  backward_input_gemm,   // each hidden layer's input gradient g · W
  backward_elementwise,  // ReLU gradient + bias gradient
  weight_gradient_gemm,  // each layer's gᵀ · x
  optimizer,             // SGD or Adam on the weights and biases
};
inline constexpr int kCpuStepPhases = 7;
std::string_view to_string(CpuStepPhase phase) noexcept;

// Where the steps' time went, summed over the steps taken while CpuMlp::profile_into
// pointed here. Timing adds two clock reads per phase and per part of a team run.
struct CpuStepProfile {
  std::size_t steps = 0;
  double step_seconds = 0.0;                                     // the steps' wall time
  std::array<double, kCpuStepPhases> wall_seconds{};             // per phase, on the calling thread; the optimizer's
                                                                 // fused weight updates count as weight_gradient_gemm
  std::array<double, kCpuStepPhases> handover_seconds{};         // per phase: team runs' wall time past their busiest
                                                                 // thread (waking the team, taking parts, finishing)
  std::array<int, kCpuStepPhases> team_runs{};                   // per phase: runs split over more than one part
  std::vector<std::array<double, kCpuStepPhases>> busy_seconds;  // [thread][phase]: time in the phase's work
  std::vector<double> run_busy;                                  // scratch: [thread] in the current team run

  void reset(int threads);
};

class CpuMlp {
 public:
  // `parameters` has make_parameter_layout(shape).total floats (initial_parameters()).
  // Buffers for up to `max_batch` samples are allocated and touched here, not in step().
  CpuMlp(const MlpShape& shape, const OptimizerConfig& optimizer, std::size_t max_batch, int threads,
         std::span<const float> parameters);
  ~CpuMlp();
  CpuMlp(const CpuMlp&) = delete;
  CpuMlp& operator=(const CpuMlp&) = delete;

  // One training step on `batch` ≤ max_batch samples: images [batch × inputs] (the
  // loader's normalised floats), labels in [0, classes). Forward, loss, backward,
  // optimizer update (fused into the backward pass: each weight block is updated as
  // soon as its gradient is computed; the result equals compute_gradients followed
  // by apply_optimizer, bit for bit). Returns the loss and accuracy of the forward pass (before the
  // update). Throws std::invalid_argument for a bad batch or label.
  StepResult step(const float* images, const std::int32_t* labels, std::size_t batch);

  // The step in two halves, for tests: gradients() holds dLoss/dparameters (mean over
  // the batch) after compute_gradients; apply_optimizer() then updates the parameters.
  StepResult compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch);
  void apply_optimizer();

  // Forward only: loss and correct count with the current parameters.
  StepResult evaluate(const float* images, const std::int32_t* labels, std::size_t batch);

  std::span<const float> parameters() const noexcept { return parameters_; }
  std::span<const float> gradients() const noexcept { return gradients_; }
  // Writable, for a data-parallel step that replaces them with the ranks' mean.
  std::span<float> mutable_gradients() noexcept { return gradients_; }
  // Logits of the last forward pass, [batch × classes].
  std::span<const float> logits() const noexcept;
  const MlpShape& shape() const noexcept { return shape_; }
  // Names the step's NVTX phase ranges after `benchmark` (default "mlp/cpu").
  void name_ranges(const std::string& benchmark) { ranges_ = StepRangeNames(benchmark); }
  int threads() const noexcept { return threads_; }
  // Runs the following steps on `threads` threads (the thread sweep's knob).
  void set_threads(int threads);
  std::size_t steps_taken() const noexcept { return steps_; }
  // Records where the following steps' time goes into `profile` (reset to this model's
  // threads, here and by set_threads); nullptr stops it.
  void profile_into(CpuStepProfile* profile);

 private:
  StepResult step_unprofiled(const float* images, const std::int32_t* labels, std::size_t batch);
  StepResult forward(const float* images, const std::int32_t* labels, std::size_t batch, bool keep_gradient);
  // With `fused_update` (the step's optimizer update, internal to mlp_cpu.cpp), each
  // weight block is updated by the thread that computed its gradient, right after.
  void backward(const float* images, std::size_t batch, const void* fused_update);
  void check_batch(const std::int32_t* labels, std::size_t batch) const;
  // Whether layer `layer` runs the narrow kernels (its packed weights exist).
  bool narrow_layer(std::size_t layer) const noexcept;
  // Renews every narrow layer's packed weights from parameters_ (after an update that
  // did not renew them block by block).
  void pack_weights();

  MlpShape shape_;
  ParameterLayout layout_;
  OptimizerConfig optimizer_;
  std::size_t max_batch_;
  int threads_;
  std::size_t steps_ = 0;  // optimizer updates applied (Adam's t)
  std::size_t last_batch_ = 0;
  std::vector<float> parameters_;
  std::vector<float> gradients_;
  std::vector<float> first_moment_;                 // SGD's momentum buffer, Adam's m
  std::vector<float> second_moment_;                // Adam's v
  std::vector<std::vector<float>> activations_;     // [l]: output of layer l (post-ReLU; logits for the last)
  std::vector<float> grad_a_;                       // gradient w.r.t. the current layer's output, [batch × widest]
  std::vector<float> grad_b_;                       // and w.r.t. its input, swapped layer by layer
  std::vector<std::vector<float>> packed_weights_;  // [l]: a narrow layer's weights, transposed and padded
                                                    // (narrow_gemm.hpp); empty for the others
  std::unique_ptr<ThreadTeam> team_;
  std::vector<float> partial_sums_;      // per thread: its rows' column sums (a bias gradient share)
  std::vector<StepResult> loss_shares_;  // per thread: its rows' summed loss and correct count
  StepRangeNames ranges_{"mlp/cpu"};
  CpuStepProfile* profile_ = nullptr;
};

// Pins OpenBLAS to `threads` for the calling process (its pool is global). CpuMlp
// calls it before each step; exposed for the GEMM-rate benchmark.
void set_blas_threads(int threads);
// C[m×n] = A[m×k] · B[k×n], row-major fp32, through OpenBLAS: the GEMM rate the CPU
// step's TFLOP/s is compared with.
void cpu_sgemm(const float* a, const float* b, float* c, int m, int n, int k);

}  // namespace hdbench
