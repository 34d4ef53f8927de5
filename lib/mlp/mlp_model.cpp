#include "mlp/mlp_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "splitmix64.hpp"

namespace hdbench {
namespace {

constexpr int kMaxWidth = 1 << 20;
constexpr std::size_t kBlockAlignmentFloats = 64;

std::size_t align_up(std::size_t n) {
  return (n + kBlockAlignmentFloats - 1) / kBlockAlignmentFloats * kBlockAlignmentFloats;
}

// Uniform in [-bound, bound) from the top 24 bits: exactly representable steps.
float uniform_at(std::uint64_t seed, std::uint64_t index, float bound) {
  const std::uint64_t bits = splitmix64(splitmix64(seed) ^ index) >> 40;
  const float unit = static_cast<float>(bits) * (1.0f / 16777216.0f);
  return (2.0f * unit - 1.0f) * bound;
}

}  // namespace

int MlpShape::widest() const noexcept { return widths.empty() ? 0 : *std::max_element(widths.begin(), widths.end()); }

MlpShape parse_mlp_shape(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    throw MlpConfigError(fmt::format("bad model '{}': {} (expected widths joined by 'x', e.g. 784x32x10)", text, why));
  };
  if (text.empty()) fail("empty");
  MlpShape shape;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string_view part = text.substr(start, end - start);
    if (part.empty()) fail("an empty width");
    long long width = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), width);
    if (ec != std::errc() || ptr != part.data() + part.size()) fail(fmt::format("'{}' is not a whole number", part));
    if (width < 1) fail(fmt::format("width {} is not positive", width));
    if (width > kMaxWidth) fail(fmt::format("width {} is over the limit of {}", width, kMaxWidth));
    shape.widths.push_back(static_cast<int>(width));
    if (end == text.size()) break;
    start = end + 1;
  }
  if (shape.widths.size() < 2) fail("it needs at least an input width and a class count");
  return shape;
}

std::string to_string(const MlpShape& shape) { return fmt::format("{}", fmt::join(shape.widths, "x")); }

const char* to_string(MlpDtype dtype) noexcept {
  switch (dtype) {
    case MlpDtype::fp32:
      return "fp32";
    case MlpDtype::tf32:
      return "tf32";
    case MlpDtype::bf16:
      return "bf16";
  }
  return "?";
}

const char* to_string(OptimizerKind kind) noexcept { return kind == OptimizerKind::sgd ? "sgd" : "adam"; }
const char* to_string(StepMode mode) noexcept {
  switch (mode) {
    case StepMode::eager:
      return "eager";
    case StepMode::graph:
      return "graph";
    case StepMode::fused:
      return "fused";
    case StepMode::overlap:
      return "overlap";
  }
  return "?";
}

std::optional<MlpDtype> mlp_dtype_from_string(std::string_view name) {
  for (MlpDtype d : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16})
    if (name == to_string(d)) return d;
  return std::nullopt;
}

std::optional<OptimizerKind> optimizer_from_string(std::string_view name) {
  for (OptimizerKind k : {OptimizerKind::sgd, OptimizerKind::adam})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

std::optional<StepMode> step_mode_from_string(std::string_view name) {
  for (StepMode m : {StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

OptimizerConfig default_optimizer(OptimizerKind kind) {
  OptimizerConfig config;
  config.kind = kind;
  config.learning_rate = kind == OptimizerKind::sgd ? 0.05f : 1e-3f;
  return config;
}

void check_parameter_count(const MlpShape& shape, const ParameterLayout& layout, std::size_t given) {
  if (given != layout.total) {
    throw MlpConfigError(fmt::format("model '{}' has {} parameter floats (padding included), {} were given",
                                     to_string(shape), layout.total, given));
  }
}

ParameterLayout make_parameter_layout(const MlpShape& shape) {
  ParameterLayout layout;
  std::size_t next = 0;
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    LayerOffsets offsets;
    offsets.weight = next;
    next = align_up(next + static_cast<std::size_t>(shape.fan_out(l)) * shape.fan_in(l));
    offsets.bias = next;
    next = align_up(next + static_cast<std::size_t>(shape.fan_out(l)));
    layout.layers.push_back(offsets);
  }
  layout.total = next;
  return layout;
}

std::size_t parameter_count(const MlpShape& shape) {
  std::size_t n = 0;
  for (std::size_t l = 0; l < shape.layers(); ++l)
    n += static_cast<std::size_t>(shape.fan_out(l)) * (static_cast<std::size_t>(shape.fan_in(l)) + 1);
  return n;
}

std::vector<float> initial_parameters(const MlpShape& shape, std::uint64_t seed) {
  const ParameterLayout layout = make_parameter_layout(shape);
  std::vector<float> parameters(layout.total, 0.0f);
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(shape.fan_in(l)));
    const std::size_t weights = static_cast<std::size_t>(shape.fan_out(l)) * shape.fan_in(l);
    for (std::size_t i = 0; i < weights; ++i)
      parameters[layout.layers[l].weight + i] = uniform_at(seed, layout.layers[l].weight + i, bound);
    for (int i = 0; i < shape.fan_out(l); ++i)
      parameters[layout.layers[l].bias + i] = uniform_at(seed, layout.layers[l].bias + i, bound);
  }
  return parameters;
}

double forward_flops(const MlpShape& shape, std::size_t batch) {
  double flops = 0.0;
  for (std::size_t l = 0; l < shape.layers(); ++l)
    flops += 2.0 * static_cast<double>(batch) * shape.fan_in(l) * shape.fan_out(l);
  return flops;
}

double training_step_flops(const MlpShape& shape, std::size_t batch) {
  double flops = 3.0 * forward_flops(shape, batch);
  if (shape.layers() > 0) flops -= 2.0 * static_cast<double>(batch) * shape.fan_in(0) * shape.fan_out(0);
  return flops;
}

}  // namespace hdbench
