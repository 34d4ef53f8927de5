#include "mlp/mlp_gpu_choice.hpp"

#include <fmt/format.h>

namespace hdbench {

const char* to_string(EpiloguePolicy policy) noexcept {
  switch (policy) {
    case EpiloguePolicy::measure:
      return "measure";
    case EpiloguePolicy::fused:
      return "fused";
    case EpiloguePolicy::unfused:
      return "unfused";
  }
  return "?";
}

const char* to_string(PaddingPolicy policy) noexcept {
  switch (policy) {
    case PaddingPolicy::measure:
      return "measure";
    case PaddingPolicy::padded:
      return "padded";
    case PaddingPolicy::unpadded:
      return "unpadded";
  }
  return "?";
}

const char* to_string(OwnKernelPolicy policy) noexcept {
  switch (policy) {
    case OwnKernelPolicy::measure:
      return "measure";
    case OwnKernelPolicy::always:
      return "always";
    case OwnKernelPolicy::never:
      return "never";
  }
  return "?";
}

const char* to_string(TransposePolicy policy) noexcept {
  switch (policy) {
    case TransposePolicy::measure:
      return "measure";
    case TransposePolicy::always:
      return "always";
    case TransposePolicy::never:
      return "never";
  }
  return "?";
}

bool choose_transposed_input(TransposePolicy policy, bool available, std::optional<double> direct_microseconds,
                             std::optional<double> transposed_microseconds) noexcept {
  if (!available || policy == TransposePolicy::never) return false;
  if (policy == TransposePolicy::always) return true;
  return direct_microseconds && transposed_microseconds && *transposed_microseconds < *direct_microseconds;
}

std::optional<std::size_t> choose_epilogue(std::span<const EpilogueCandidate> candidates, EpiloguePolicy policy) {
  std::optional<std::size_t> first_available;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].available) continue;
    if (!first_available) first_available = i;
    const bool wanted_fused = policy == EpiloguePolicy::fused;
    if (policy != EpiloguePolicy::measure && candidates[i].fused == wanted_fused) return i;
  }
  if (policy != EpiloguePolicy::measure) return first_available;

  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const EpilogueCandidate& c = candidates[i];
    if (!c.available || !c.microseconds) continue;
    if (!best || *c.microseconds < *candidates[*best].microseconds) best = i;
  }
  // Nothing timed (should not happen when measuring): keep what exists.
  return best ? best : first_available;
}

std::optional<std::size_t> choose_with_own_kernel(std::span<const EpilogueCandidate> candidates,
                                                  EpiloguePolicy epilogues, OwnKernelPolicy own_kernels) {
  constexpr std::size_t kOwn = 2;
  if (candidates.size() <= kOwn) return choose_epilogue(candidates, epilogues);
  if (own_kernels == OwnKernelPolicy::always && candidates[kOwn].available) return kOwn;
  if (own_kernels == OwnKernelPolicy::never) return choose_epilogue(candidates.first(kOwn), epilogues);
  return choose_epilogue(candidates, epilogues);
}

int padded_width(int width, MlpDtype dtype) noexcept {
  const int multiple = dtype == MlpDtype::bf16 ? 16 : 8;
  return (width + multiple - 1) / multiple * multiple;
}

bool choose_padding(int width, MlpDtype dtype, PaddingPolicy policy, std::optional<double> unpadded_microseconds,
                    std::optional<double> padded_microseconds) noexcept {
  if (padded_width(width, dtype) == width) return false;  // nothing to pad
  switch (policy) {
    case PaddingPolicy::padded:
      return true;
    case PaddingPolicy::unpadded:
      return false;
    case PaddingPolicy::measure:
      return unpadded_microseconds && padded_microseconds && *padded_microseconds < *unpadded_microseconds;
  }
  return false;
}

std::size_t PlanChoices::fused_count() const noexcept {
  std::size_t n = 0;
  for (const GemmChoice& g : gemms) n += g.fused ? 1 : 0;
  return n;
}

std::optional<double> PlanChoices::chosen_microseconds() const noexcept {
  if (gemms.empty()) return std::nullopt;
  double sum = 0.0;
  for (const GemmChoice& g : gemms) {
    const std::optional<double>& chosen =
        g.own_kernel ? g.kernel_microseconds : (g.fused ? g.fused_microseconds : g.plain_microseconds);
    if (!chosen) return std::nullopt;
    sum += *chosen;
  }
  return sum;
}

std::size_t PlanChoices::retuned_count() const noexcept {
  std::size_t n = 0;
  for (const GemmChoice& g : gemms) n += g.algorithm_retuned ? 1 : 0;
  return n;
}

std::optional<double> PlanChoices::heuristic_microseconds() const noexcept {
  std::optional<double> total = chosen_microseconds();
  if (!total) return std::nullopt;
  for (const GemmChoice& g : gemms)
    if (g.heuristic_first_microseconds && g.kept_algorithm_microseconds)
      *total += *g.heuristic_first_microseconds - *g.kept_algorithm_microseconds;
  return total;
}

std::string microseconds_text(const std::optional<double>& microseconds) {
  return microseconds ? fmt::format("{:.1f}us", *microseconds) : std::string("n/a");
}

std::string describe(const PlanChoices& choices) {
  std::string text = fmt::format("fused {}/{}", choices.fused_count(), choices.gemms.size());
  const auto us = microseconds_text;
  for (const GemmChoice& g : choices.gemms) {
    // A fused GEMM with nothing timed against it (forced, or the only candidate
    // measured) says nothing new; any measured pair is listed.
    if (!g.fused_microseconds && !g.plain_microseconds && !g.kernel_microseconds) continue;
    const char* kept = g.own_kernel ? "kernel" : (g.fused ? "fused" : "plain");
    text += fmt::format("; L{} {} {} (fused {}, plain {}", g.layer, g.gemm, kept, us(g.fused_microseconds),
                        us(g.plain_microseconds));
    text += g.kernel_microseconds ? fmt::format(", kernel {}", us(g.kernel_microseconds)) : std::string();
    if (g.transposed_input) text += fmt::format(", input transposed; as stored {}", us(g.other_way_microseconds));
    if (!g.transposed_input && g.other_way_microseconds)
      text += fmt::format(", input transposed {}", us(g.other_way_microseconds));
    text += ")";
    // The algorithm, where timing kept another than the heuristic's first.
    if (g.algorithm_retuned)
      text += fmt::format(" algorithm {} of {} timed ({} against the first's {})", g.algorithm_rank + 1,
                          g.algorithms_timed, us(g.kept_algorithm_microseconds), us(g.heuristic_first_microseconds));
  }
  if (choices.classes > 0) {
    text += fmt::format("; logits ld {}", choices.logits_ld);
    if (choices.unpadded_microseconds || choices.padded_microseconds)
      text +=
          fmt::format(" (padded {}, unpadded {})", us(choices.padded_microseconds), us(choices.unpadded_microseconds));
  }
  return text;
}

}  // namespace hdbench
