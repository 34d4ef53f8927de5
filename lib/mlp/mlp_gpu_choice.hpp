// The GPU step's plan-time choices as pure functions, so the rules are tested on the
// CPU with made-up timings: per GEMM, a fused cuBLASLt epilogue or the plain GEMM plus
// hdbench's own kernel; for the output layer, its logits and their gradient stored
// with the class count as leading dimension or padded to an aligned one (the H100
// sweep: BGRADB on a 10-wide bf16 layout has one algorithm, magma_sgemmEx at 557 us,
// against 45 us with the leading dimension padded to 16). The plan times each
// candidate with CUDA events (mlp_gpu_plan.cpp) and keeps the fastest; tests force
// either side through PlanPolicy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mlp/mlp_model.hpp"

namespace hdbench {

enum class EpiloguePolicy { measure, fused, unfused };
enum class PaddingPolicy { measure, padded, unpadded };
// hdbench's kernel in place of the output layer's input-gradient GEMM
// (kernels/mlp_narrow_kernels.hpp): timed against the GEMM's ways when the epilogues are
// measured, kept whenever the shape allows it, or never tried.
enum class OwnKernelPolicy { measure, always, never };
// tf32 weight gradients reading their layer's input transposed (batch-contiguous, made by a
// transpose kernel before the GEMM) so one operand is K-major: timed against the GEMM on
// the input as stored, kept whenever it exists, or never tried. Only tf32: with both
// operands contiguous along M or N its GEMMs ran at 0.63-0.65 of the square's best on an
// H200 (baselines/pytorch/gemm_layouts.py), bf16's at 0.98-1.01.
enum class TransposePolicy { measure, always, never };

// How a GpuMlp chooses; measure both unless a test forces one side. A forced choice
// that does not exist (no fused algorithm on this device) falls back to what does.
struct PlanPolicy {
  EpiloguePolicy epilogues = EpiloguePolicy::measure;
  PaddingPolicy padding = PaddingPolicy::measure;
  int timing_repeats = 3;  // timed runs per candidate, after one untimed warm-up
  // Each GEMM keeps the fastest of cuBLASLt's algorithms it times (lt::Tuning), or with
  // false the heuristic's first: two models that must agree bit for bit (a graph's replay
  // against eager steps) cannot leave it to their timings.
  bool time_algorithms = true;
  OwnKernelPolicy own_kernels = OwnKernelPolicy::measure;
  TransposePolicy transposed_inputs = TransposePolicy::measure;
};

const char* to_string(EpiloguePolicy policy) noexcept;
const char* to_string(PaddingPolicy policy) noexcept;
const char* to_string(OwnKernelPolicy policy) noexcept;
const char* to_string(TransposePolicy policy) noexcept;

// One way to run a GEMM: nullopt microseconds when it does not exist (cuBLASLt offered
// no algorithm for the fused epilogue) or was not timed (a forced policy).
struct EpilogueCandidate {
  bool fused = false;
  std::optional<double> microseconds;
  bool available = true;
};

// The index of the candidate to keep: the fastest available one (ties to the earlier),
// or under a forced policy the first available one of that kind, else the first
// available one. nullopt only when none is available.
std::optional<std::size_t> choose_epilogue(std::span<const EpilogueCandidate> candidates, EpiloguePolicy policy);

// A GEMM that hdbench's own kernel can replace: candidates [fused, plain, own kernel].
// OwnKernelPolicy::always keeps the kernel where it is available, never leaves it out;
// measure lets it compete by its time where the epilogues are measured too (under a
// forced epilogue policy, that policy's GEMM is kept).
std::optional<std::size_t> choose_with_own_kernel(std::span<const EpilogueCandidate> candidates,
                                                  EpiloguePolicy epilogues, OwnKernelPolicy own_kernels);

// Whether a tf32 weight gradient reads its input transposed: `available` when the plan
// made that way (tf32, and cuBLASLt had an algorithm for it); measured, only when both ways
// were timed and the transposed one (the transpose included) took less.
bool choose_transposed_input(TransposePolicy policy, bool available, std::optional<double> direct_microseconds,
                             std::optional<double> transposed_microseconds) noexcept;

// The leading dimension a padded output layer uses: the width rounded up to 16
// elements in bf16 and 8 in fp32/tf32 (32 bytes: what the aligned cutlass kernels
// load). Equal to the width when it is already a multiple.
int padded_width(int width, MlpDtype dtype) noexcept;

// Whether to pad: only when padding changes the layout. Measured: the layout whose
// output-layer GEMMs (each with its chosen epilogue, fallback kernels included) took
// less in all, the unpadded one on a tie or when either total is missing.
bool choose_padding(int width, MlpDtype dtype, PaddingPolicy policy, std::optional<double> unpadded_microseconds,
                    std::optional<double> padded_microseconds) noexcept;

// What the plan chose for one GEMM and what each candidate took, for the report.
struct GemmChoice {
  std::size_t layer = 0;
  std::string gemm;  // "forward", "weight_gradient", "input_gradient"
  bool fused = false;
  std::optional<double> fused_microseconds;  // nullopt: no fused algorithm, or not timed
  std::optional<double> plain_microseconds;  // plain GEMM + hdbench's kernel
  // hdbench's kernel in place of the GEMM (the output layer's input gradient only): kept,
  // and its time (nullopt where it was not a candidate or not timed).
  bool own_kernel = false;
  std::optional<double> kernel_microseconds = std::nullopt;
  // A tf32 weight gradient may read its input transposed (TransposePolicy): whether that
  // way was kept (the times above are then its own, the transpose included), and the best
  // time of the way not kept (nullopt where there was no other way, or it was not timed).
  bool transposed_input = false;
  std::optional<double> other_way_microseconds = std::nullopt;
  // The kept way's cuBLASLt algorithm (lt::Gemm::algorithm()): whether timing kept
  // another than the heuristic's first that ran, its rank in the heuristic's list (0: the
  // first), how many were timed, and the GEMM alone (no fallback kernel) with the first
  // algorithm and with the kept one.
  bool algorithm_retuned = false;
  int algorithm_rank = 0;
  int algorithms_timed = 0;
  std::optional<double> heuristic_first_microseconds = std::nullopt;
  std::optional<double> kept_algorithm_microseconds = std::nullopt;
};
struct PlanChoices {
  std::vector<GemmChoice> gemms;
  int logits_ld = 0;  // the output layer's leading dimension (classes, or padded)
  int classes = 0;
  std::optional<double> unpadded_microseconds;  // output layer's GEMMs in all, each layout
  std::optional<double> padded_microseconds;
  std::size_t fused_count() const noexcept;
  // The chosen GEMMs' plan-time times summed (each with its epilogue, fused or hdbench's
  // kernel), µs: what the step's GEMMs take when each runs alone; nullopt when any of
  // them was not timed (a forced policy) or there are none.
  std::optional<double> chosen_microseconds() const noexcept;
  // GEMMs that kept an algorithm other than the heuristic's first.
  std::size_t retuned_count() const noexcept;
  // chosen_microseconds() had every GEMM kept the heuristic's first algorithm (from the
  // plan's own timings of both); nullopt where chosen_microseconds() is.
  std::optional<double> heuristic_microseconds() const noexcept;
};

// "512.3us", or "n/a" for a time not measured: how the plan's labels print a time.
std::string microseconds_text(const std::optional<double>& microseconds);

// One line for a benchmark's label: "fused 7/9; L2 weight_gradient plain (fused
// 557.2us, plain 43.9us); L3 input_gradient kernel (fused n/a, plain 109.7us, kernel
// 31.0us); ...; logits ld 16 (padded 120.0us, unpadded 640.1us)". GEMMs with nothing
// timed (a forced policy) are counted, not listed.
std::string describe(const PlanChoices& choices);

}  // namespace hdbench
