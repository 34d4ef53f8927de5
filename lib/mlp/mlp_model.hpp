// What a multilayer perceptron is, independent of where it runs: its widths
// ("784x32x10"), where each layer's weights and bias sit in one flat parameter array,
// their initial values, the optimizer's settings and the FLOPs a training step does.
// The CPU model (mlp_cpu), the GPU model (mlp_gpu) and the float64 reference
// (mlp_reference) all share it, so the same seed gives the same network everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench {

// A malformed layer string, a zero width, an unknown dtype or optimizer.
class MlpConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Layer widths from input to classes: {784, 32, 10} is Linear(784,32) → ReLU →
// Linear(32,10). Every hidden layer is followed by ReLU; the last feeds softmax
// cross-entropy.
struct MlpShape {
  std::vector<int> widths;

  std::size_t layers() const noexcept { return widths.empty() ? 0 : widths.size() - 1; }
  int inputs() const noexcept { return widths.front(); }
  int classes() const noexcept { return widths.back(); }
  int fan_in(std::size_t layer) const noexcept { return widths[layer]; }
  int fan_out(std::size_t layer) const noexcept { return widths[layer + 1]; }
  int widest() const noexcept;
  bool operator==(const MlpShape&) const = default;
};

// "784x32x10" → {784, 32, 10}. At least two widths, each 1..2^20, separated by 'x'.
// Throws MlpConfigError naming the string and what is wrong with it.
MlpShape parse_mlp_shape(std::string_view text);
std::string to_string(const MlpShape& shape);

// The arithmetic of the GEMMs: fp32 everywhere; tf32 takes fp32 operands through the
// tensor cores' 10-bit mantissa; bf16 keeps fp32 master weights and runs the GEMMs
// on bf16 copies (activations in bf16, gradients accumulated in fp32).
enum class MlpDtype { fp32, tf32, bf16 };
enum class OptimizerKind { sgd, adam };  // sgd is SGD with (heavy-ball) momentum, as torch.optim.SGD
// A GPU step enqueued call by call (eager), captured once into a CUDA graph and
// replayed (graph), or computed by two fused kernels of hdbench's own (forward, loss,
// backward and the SGD-momentum update; small two-layer fp32 models only, mlp_fused.hpp)
// captured into a graph and replayed (fused), or replayed from a graph as `graph` is with
// each layer's update on a second stream as soon as the backward pass has last read that
// layer's weights, overlapped with the GEMMs of the layers below (overlap; GpuMlp's
// set_update_overlap).
enum class StepMode { eager, graph, fused, overlap };

const char* to_string(MlpDtype dtype) noexcept;
const char* to_string(OptimizerKind kind) noexcept;
const char* to_string(StepMode mode) noexcept;
std::optional<MlpDtype> mlp_dtype_from_string(std::string_view name);
std::optional<OptimizerKind> optimizer_from_string(std::string_view name);
std::optional<StepMode> step_mode_from_string(std::string_view name);

// torch.optim semantics. SGD: v = momentum·v + g; p -= lr·v. Adam: m = β1·m + (1-β1)·g;
// v = β2·v + (1-β2)·g²; p -= lr·(m / (1-β1^t)) / (sqrt(v / (1-β2^t)) + eps).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::sgd;
  float learning_rate = 0.05f;
  float momentum = 0.9f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
};
// The learning rates the benchmarks and examples use: 0.05 for SGD, 1e-3 for Adam.
OptimizerConfig default_optimizer(OptimizerKind kind);

// Where layer l lives in the flat parameter array: its weight, row-major
// [fan_out × fan_in] as torch.nn.Linear stores it, then its bias [fan_out]. Every
// block starts on a 64-float (256-byte) boundary so vector loads and cuBLASLt see
// aligned pointers; the gaps are zero and stay zero (their gradient is zero).
struct LayerOffsets {
  std::size_t weight = 0;
  std::size_t bias = 0;
};
struct ParameterLayout {
  std::vector<LayerOffsets> layers;
  std::size_t total = 0;  // floats, padding included
};
ParameterLayout make_parameter_layout(const MlpShape& shape);
// MlpConfigError unless `given` floats fill `layout` (the CPU and GPU steps' starting point).
void check_parameter_count(const MlpShape& shape, const ParameterLayout& layout, std::size_t given);
// Weights and biases actually used (no padding): what the model "has".
std::size_t parameter_count(const MlpShape& shape);

// torch.nn.Linear's default initialisation: weight and bias uniform in
// ±1/sqrt(fan_in), here drawn from a counter-based generator keyed by (seed, index),
// so every device and every thread count starts from the same values.
std::vector<float> initial_parameters(const MlpShape& shape, std::uint64_t seed);

// Floating-point operations of the GEMMs in one training step of `batch` samples:
// forward 2·B·in·out per layer, backward 2·B·in·out for the weight gradient and again
// for the input gradient, except the first layer, whose input needs no gradient. The
// element-wise work (bias, ReLU, softmax, optimizer) is O(B·width + parameters) and
// is not counted, as PyTorch's and MLPerf's FLOP counts leave it out.
double training_step_flops(const MlpShape& shape, std::size_t batch);
double forward_flops(const MlpShape& shape, std::size_t batch);

// What one training step reports: the batch-mean cross-entropy before the update,
// and how many samples the forward pass classified correctly.
struct StepResult {
  double loss = 0.0;
  std::size_t correct = 0;
};

// The NVTX ranges of a training step's phases, "<benchmark>/forward" (forward pass
// and loss), "<benchmark>/backward" (gradients; on the CPU with the fused update) and
// "<benchmark>/optimizer" (the GPU's separate update): made once, so a step formats
// no string.
struct StepRangeNames {
  explicit StepRangeNames(const std::string& benchmark)
      : forward(benchmark + "/forward"), backward(benchmark + "/backward"), optimizer(benchmark + "/optimizer") {}
  std::string forward, backward, optimizer;
};

}  // namespace hdbench
