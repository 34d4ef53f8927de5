#include "mlp/mlp_gpu_parts.hpp"

#include <fmt/format.h>

#include "mlp/mlp_gpu_choice.hpp"

namespace hdbench {

StepPartTotals total_parts(std::span<const StepPart> parts) noexcept {
  StepPartTotals totals;
  for (const StepPart& part : parts) {
    switch (part.kind) {
      case StepPartKind::gemm:
        totals.gemm_microseconds += part.microseconds;
        break;
      case StepPartKind::update:
        totals.update_microseconds += part.microseconds;
        break;
      case StepPartKind::other:
        totals.other_microseconds += part.microseconds;
        break;
    }
  }
  return totals;
}

std::string describe_parts(std::span<const StepPart> parts) {
  std::string text;
  for (const StepPart& part : parts) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", part.name, microseconds_text(part.microseconds));
  }
  return text;
}

std::size_t update_bytes_per_parameter(OptimizerKind optimizer, MlpDtype dtype) noexcept {
  const std::size_t fp32 = sizeof(float);
  const std::size_t arrays_moved = optimizer == OptimizerKind::sgd ? 3 + 2 : 4 + 3;
  return arrays_moved * fp32 + (dtype == MlpDtype::bf16 ? 2 : 0);
}

}  // namespace hdbench
