#include "dataparallel/dataparallel_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace hdbench::dataparallel {

double allreduce_algbw_gbps(std::size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

double allreduce_busbw_gbps(std::size_t bytes, double seconds, int ranks) {
  if (ranks <= 1) return 0.0;
  return allreduce_algbw_gbps(bytes, seconds) * 2.0 * (ranks - 1) / ranks;
}

std::optional<AllReduceBandwidth> allreduce_bandwidth(std::size_t bytes, double seconds, int ranks) {
  if (ranks < 2 || seconds <= 0) return std::nullopt;
  return AllReduceBandwidth{allreduce_algbw_gbps(bytes, seconds), allreduce_busbw_gbps(bytes, seconds, ranks)};
}

double scaling_efficiency(double one_rank_s, double ranks_s, int ranks) {
  if (ranks_s <= 0 || ranks <= 0) return 0.0;
  return one_rank_s / (ranks * ranks_s);
}

Shard shard_of(std::size_t batch, int rank, int ranks) {
  if (ranks <= 0 || rank < 0 || rank >= ranks) {
    throw std::invalid_argument(fmt::format("rank {} is not one of {} ranks", rank, ranks));
  }
  const auto n = static_cast<std::size_t>(ranks);
  if (batch % n != 0 || batch < n) {
    throw std::invalid_argument(fmt::format(
        "the global batch {} does not split evenly over {} ranks; use a multiple of {}", batch, ranks, ranks));
  }
  const std::size_t each = batch / n;
  return {each * static_cast<std::size_t>(rank), each * static_cast<std::size_t>(rank + 1)};
}

Agreement compare(std::span<const float> a, std::span<const float> b, double abs_tol, double rel_tol) {
  if (a.size() != b.size()) throw std::invalid_argument("compare: the arrays differ in length");
  Agreement agreement;
  agreement.worst_excess = a.empty() ? 0.0 : -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double difference = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    const double excess = std::isfinite(difference) ? difference - (abs_tol + rel_tol * std::abs(b[i]))
                                                    : std::numeric_limits<double>::infinity();
    agreement.max_abs_difference = std::max(agreement.max_abs_difference, difference);
    agreement.worst_excess = std::max(agreement.worst_excess, excess);
  }
  return agreement;
}

std::vector<GradientBucket> bucket_gradients(std::span<const std::size_t> layer_begin, std::size_t total,
                                             std::size_t bucket_floats) {
  std::vector<GradientBucket> buckets;
  std::size_t end = total;
  std::size_t held = 0;
  for (std::size_t l = layer_begin.size(); l-- > 0;) {
    const std::size_t layer_end = l + 1 < layer_begin.size() ? layer_begin[l + 1] : total;
    held += layer_end - layer_begin[l];
    if (held >= bucket_floats || l == 0) {
      buckets.push_back({l, layer_begin[l], end});
      end = layer_begin[l];
      held = 0;
    }
  }
  return buckets;
}

}  // namespace hdbench::dataparallel
