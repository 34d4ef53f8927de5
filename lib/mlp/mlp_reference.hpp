// The MLP training step in float64 with plain loops: the reference the CPU step
// (and, through it, the GPU step) is checked against. Slow and obvious on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mlp/mlp_model.hpp"

namespace hdbench {

class ReferenceMlp {
 public:
  ReferenceMlp(const MlpShape& shape, const OptimizerConfig& optimizer, std::span<const float> parameters);

  // Mean cross-entropy and correct count at the current parameters; fills
  // gradients() (same layout as the parameters, padding zero) and logits().
  StepResult compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch);
  void apply_optimizer();
  // The loss alone at `parameters` (for finite differences).
  double loss_at(std::span<const double> parameters, const float* images, const std::int32_t* labels,
                 std::size_t batch) const;

  std::span<const double> parameters() const noexcept { return parameters_; }
  std::span<const double> gradients() const noexcept { return gradients_; }
  std::span<const double> logits() const noexcept { return logits_; }

 private:
  // Activations of every layer for a batch: [0] the images, [l+1] layer l's output
  // (post-ReLU for hidden layers, logits for the last).
  std::vector<std::vector<double>> forward(std::span<const double> parameters, const float* images,
                                           std::size_t batch) const;

  MlpShape shape_;
  ParameterLayout layout_;
  OptimizerConfig optimizer_;
  std::size_t steps_ = 0;
  std::vector<double> parameters_;
  std::vector<double> gradients_;
  std::vector<double> first_moment_;
  std::vector<double> second_moment_;
  std::vector<double> logits_;
};

}  // namespace hdbench
