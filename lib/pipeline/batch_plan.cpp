#include "pipeline/batch_plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "pattern.hpp"

namespace hdbench {

std::vector<std::uint32_t> epoch_order(std::size_t count, bool shuffle, std::uint64_t seed, std::size_t epoch) {
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  if (!shuffle) return order;
  // Fisher–Yates with our own generator: std::shuffle's output differs between
  // standard libraries, and a report's epochs should be reproducible anywhere.
  const std::uint64_t stream = pattern::word(seed, epoch);
  for (std::size_t i = count; i > 1; --i) {
    const std::uint64_t r = pattern::word(stream, i);
    const std::size_t j = static_cast<std::size_t>(r % i);  // bias below 1e-12 for any dataset that fits
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<std::uint32_t> delivered_ids(std::size_t count, std::size_t batch_size, bool shuffle, bool drop_last,
                                         std::uint64_t seed, std::size_t epoch) {
  std::vector<std::uint32_t> ids = epoch_order(count, shuffle, seed, epoch);
  if (drop_last && batch_size > 0) ids.resize(count / batch_size * batch_size);
  return ids;
}

std::size_t batches_per_epoch(std::size_t count, std::size_t batch_size, bool drop_last) {
  if (batch_size == 0) return 0;
  return drop_last ? count / batch_size : (count + batch_size - 1) / batch_size;
}

std::size_t samples_in_batch(std::size_t count, std::size_t batch_size, std::size_t index) {
  const std::size_t first = index * batch_size;
  if (first >= count) return 0;
  return std::min(batch_size, count - first);
}

std::uint64_t word_sum(const void* data, std::size_t bytes) noexcept {
  const auto* bytes_in = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 4;
  // Four independent sums let the compiler vectorise the loop.
  std::uint64_t sums[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    for (std::size_t k = 0; k < 4; ++k) {
      std::uint32_t w;
      std::memcpy(&w, bytes_in + 4 * (i + k), 4);
      sums[k] += w;
    }
  }
  for (; i < words; ++i) {
    std::uint32_t w;
    std::memcpy(&w, bytes_in + 4 * i, 4);
    sums[0] += w;
  }
  return sums[0] + sums[1] + sums[2] + sums[3];
}

}  // namespace hdbench
