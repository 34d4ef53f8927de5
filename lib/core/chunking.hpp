// Splitting a byte range into pieces: fixed-size chunks for pipelines, and near-equal
// shares for threads. Every byte lands in exactly one piece, in order.
#pragma once

#include <cstddef>
#include <vector>

namespace hdbench {

struct Chunk {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  bool operator==(const Chunk&) const = default;
};

// Chunks of `chunk_bytes` (the last one shorter) covering [0, total). No chunks for
// total == 0. Throws std::invalid_argument for chunk_bytes == 0.
std::vector<Chunk> plan_chunks(std::size_t total, std::size_t chunk_bytes);

// `parts` near-equal shares of [0, total), aligned to `alignment` bytes where the size
// allows (so threads copy whole cache lines); shares may be empty when there are
// more parts than bytes. Throws std::invalid_argument for parts == 0 or alignment == 0.
std::vector<Chunk> split_evenly(std::size_t total, std::size_t parts, std::size_t alignment = 64);

}  // namespace hdbench
