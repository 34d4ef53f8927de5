#include "streams/pipeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hdbench {

double ideal_pipeline_seconds(const StageSeconds& alone, int chunks, int copy_engines, CopyIssue issue) {
  if (chunks < 1) throw std::invalid_argument("ideal_pipeline_seconds: chunks must be at least 1");
  if (alone.h2d < 0.0 || alone.kernel < 0.0 || alone.d2h < 0.0) {
    throw std::invalid_argument("ideal_pipeline_seconds: stage times must not be negative");
  }
  const double c = static_cast<double>(chunks);
  if (chunks == 1 || copy_engines <= 0) return alone.sum();
  // Copies one at a time: as if a single engine carried both directions.
  if (issue == CopyIssue::host_synchronous) copy_engines = 1;
  if (copy_engines >= 2) {
    const double busiest = std::max({alone.h2d, alone.kernel, alone.d2h});
    return busiest + (alone.sum() - busiest) / c;
  }
  // One engine: it carries every copy, and each stage still needs the chunks before
  // and after it: all kernels after the first chunk in and before the last out, all
  // H2D before the last chunk's kernel and copy back, all D2H after the first chunk's
  // copy in and kernel. (The last three are the two-engine bound's terms, so one
  // engine is never rated faster than two.)
  const double engine = alone.h2d + alone.d2h;
  const double kernels = alone.h2d / c + alone.kernel + alone.d2h / c;
  const double last_chunk = alone.h2d + alone.kernel / c + alone.d2h / c;
  const double first_chunk = alone.h2d / c + alone.kernel / c + alone.d2h;
  return std::max({engine, kernels, last_chunk, first_chunk});
}

std::optional<RoundsModel> fit_rounds_model(int rounds_a, double seconds_a, int rounds_b, double seconds_b) {
  if (rounds_a == rounds_b) throw std::invalid_argument("fit_rounds_model: needs two different round counts");
  const double slope = (seconds_b - seconds_a) / static_cast<double>(rounds_b - rounds_a);
  if (!(slope > 0.0)) return std::nullopt;
  return RoundsModel{std::max(0.0, seconds_a - slope * rounds_a), slope};
}

int rounds_for_seconds(const RoundsModel& model, double target_seconds, int max_rounds) {
  if (max_rounds < 1) throw std::invalid_argument("rounds_for_seconds: max_rounds must be at least 1");
  const double rounds = std::round((target_seconds - model.fixed_seconds) / model.seconds_per_round);
  if (!(rounds >= 1.0)) return 1;
  return static_cast<int>(std::min(rounds, static_cast<double>(max_rounds)));
}

}  // namespace hdbench
