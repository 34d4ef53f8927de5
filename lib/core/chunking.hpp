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

// `chunk` cut into pieces that grow from a small first one, for a pipeline whose other
// stage waits for a chunk's first bytes: [c/16, c/16, c/8, c/4, c/2] of a chunk of c bytes
// with the default four halvings, each piece a whole number of `alignment` bytes but the
// largest, and fewer halvings where a piece would fall under `min_piece` (a chunk under
// 2 x min_piece stays whole). `shrinking` gives the same pieces in the other order, for a
// pipeline whose other stage waits for a chunk's last bytes. Throws std::invalid_argument
// for alignment == 0.
std::vector<Chunk> ramp_pieces(Chunk chunk, std::size_t min_piece, bool shrinking = false, int halvings = 4,
                               std::size_t alignment = 4096);

}  // namespace hdbench
