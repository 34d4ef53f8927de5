// Where a GPU step's time goes, measured inside the step. GpuMlp::time_step_parts runs
// one eager step with a CUDA event recorded between its parts and returns each part's
// time on the GPU, in the step's order. The plan's timings (mlp_gpu_choice.hpp) run each
// GEMM alone and repeated, on warm caches, and leave the rest (the input's cast, the
// loss, the update, gaps) to be inferred as the step less their sum; these are the same
// kernels where they run, each after the part before it, so the rest is measured too.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "mlp/mlp_model.hpp"

namespace hdbench {

enum class StepPartKind { gemm, update, other };

struct StepPart {
  // "L2 weight_gradient" (a GEMM, named as the plan's label names it), "cast", "loss", "update".
  std::string name;
  StepPartKind kind = StepPartKind::other;
  // From the event before the part to the event after it: the part's kernels (a GEMM with
  // its fused epilogue or hdbench's kernel after it) and any wait before they started.
  double microseconds = 0.0;
};

struct StepPartTotals {
  double gemm_microseconds = 0.0;
  double update_microseconds = 0.0;
  double other_microseconds = 0.0;
  double total_microseconds() const noexcept { return gemm_microseconds + update_microseconds + other_microseconds; }
};

StepPartTotals total_parts(std::span<const StepPart> parts) noexcept;

// One line for a benchmark's label: "L0 forward 118.2us, L1 forward 350.0us, …, update
// 251.0us".
std::string describe_parts(std::span<const StepPart> parts);

// The bytes the GPU step's update reads and writes for each parameter (its kernels in
// kernels/mlp_kernels.cu): SGD with momentum reads the weight, its gradient and its
// velocity and writes the weight and velocity back (20 bytes in fp32); Adam reads four
// arrays and writes three (28); in bf16 both also write the 2-byte copy the GEMMs read.
// The update's floor is these bytes over the device's memory bandwidth.
std::size_t update_bytes_per_parameter(OptimizerKind optimizer, MlpDtype dtype) noexcept;

}  // namespace hdbench
