#include "mlp/mlp_reference.hpp"

#include <algorithm>
#include <cmath>

namespace hdbench {

ReferenceMlp::ReferenceMlp(const MlpShape& shape, const OptimizerConfig& optimizer, std::span<const float> parameters)
    : shape_(shape),
      layout_(make_parameter_layout(shape)),
      optimizer_(optimizer),
      parameters_(parameters.begin(), parameters.end()),
      gradients_(parameters.size(), 0.0),
      first_moment_(parameters.size(), 0.0),
      second_moment_(parameters.size(), 0.0) {}

std::vector<std::vector<double>> ReferenceMlp::forward(std::span<const double> p, const float* images,
                                                       std::size_t batch) const {
  std::vector<std::vector<double>> a(shape_.layers() + 1);
  a[0].assign(images, images + batch * static_cast<std::size_t>(shape_.inputs()));
  for (std::size_t l = 0; l < shape_.layers(); ++l) {
    const auto in = static_cast<std::size_t>(shape_.fan_in(l));
    const auto out = static_cast<std::size_t>(shape_.fan_out(l));
    a[l + 1].assign(batch * out, 0.0);
    for (std::size_t r = 0; r < batch; ++r) {
      for (std::size_t o = 0; o < out; ++o) {
        double z = p[layout_.layers[l].bias + o];
        for (std::size_t i = 0; i < in; ++i) z += a[l][r * in + i] * p[layout_.layers[l].weight + o * in + i];
        a[l + 1][r * out + o] = l + 1 < shape_.layers() ? std::max(z, 0.0) : z;
      }
    }
  }
  return a;
}

double ReferenceMlp::loss_at(std::span<const double> p, const float* images, const std::int32_t* labels,
                             std::size_t batch) const {
  const auto a = forward(p, images, batch);
  const auto classes = static_cast<std::size_t>(shape_.classes());
  double loss = 0.0;
  for (std::size_t r = 0; r < batch; ++r) {
    const double* z = a.back().data() + r * classes;
    const double top = *std::max_element(z, z + classes);
    double total = 0.0;
    for (std::size_t c = 0; c < classes; ++c) total += std::exp(z[c] - top);
    loss += std::log(total) + top - z[labels[r]];
  }
  return loss / static_cast<double>(batch);
}

StepResult ReferenceMlp::compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch) {
  const auto a = forward(parameters_, images, batch);
  const auto classes = static_cast<std::size_t>(shape_.classes());
  StepResult result;
  std::vector<double> g(batch * classes);
  for (std::size_t r = 0; r < batch; ++r) {
    const double* z = a.back().data() + r * classes;
    const std::size_t best = static_cast<std::size_t>(std::max_element(z, z + classes) - z);  // first maximum
    const double top = z[best];
    double total = 0.0;
    for (std::size_t c = 0; c < classes; ++c) total += std::exp(z[c] - top);
    const auto label = static_cast<std::size_t>(labels[r]);
    result.loss += std::log(total) + top - z[label];
    result.correct += best == label ? 1 : 0;
    for (std::size_t c = 0; c < classes; ++c)
      g[r * classes + c] = (std::exp(z[c] - top) / total - (c == label ? 1.0 : 0.0)) / static_cast<double>(batch);
  }
  result.loss /= static_cast<double>(batch);
  logits_ = a.back();

  std::fill(gradients_.begin(), gradients_.end(), 0.0);
  for (std::size_t l = shape_.layers(); l-- > 0;) {
    const auto in = static_cast<std::size_t>(shape_.fan_in(l));
    const auto out = static_cast<std::size_t>(shape_.fan_out(l));
    for (std::size_t r = 0; r < batch; ++r) {
      for (std::size_t o = 0; o < out; ++o) {
        const double go = g[r * out + o];
        gradients_[layout_.layers[l].bias + o] += go;
        for (std::size_t i = 0; i < in; ++i) gradients_[layout_.layers[l].weight + o * in + i] += go * a[l][r * in + i];
      }
    }
    if (l == 0) break;
    std::vector<double> below(batch * in, 0.0);
    for (std::size_t r = 0; r < batch; ++r)
      for (std::size_t i = 0; i < in; ++i) {
        if (a[l][r * in + i] <= 0.0) continue;  // ReLU's gradient: zero where it clipped
        double sum = 0.0;
        for (std::size_t o = 0; o < out; ++o)
          sum += g[r * out + o] * parameters_[layout_.layers[l].weight + o * in + i];
        below[r * in + i] = sum;
      }
    g = std::move(below);
  }
  return result;
}

void ReferenceMlp::apply_optimizer() {
  ++steps_;
  const OptimizerConfig& o = optimizer_;
  const auto t = static_cast<double>(steps_);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const double g = gradients_[i];
    if (o.kind == OptimizerKind::sgd) {
      first_moment_[i] = o.momentum * first_moment_[i] + g;
      parameters_[i] -= o.learning_rate * first_moment_[i];
    } else {
      first_moment_[i] = o.beta1 * first_moment_[i] + (1.0 - o.beta1) * g;
      second_moment_[i] = o.beta2 * second_moment_[i] + (1.0 - o.beta2) * g * g;
      const double m_hat = first_moment_[i] / (1.0 - std::pow(static_cast<double>(o.beta1), t));
      const double v_hat = second_moment_[i] / (1.0 - std::pow(static_cast<double>(o.beta2), t));
      parameters_[i] -= o.learning_rate * m_hat / (std::sqrt(v_hat) + o.epsilon);
    }
  }
}

}  // namespace hdbench
