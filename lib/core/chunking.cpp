#include "core/chunking.hpp"

#include <algorithm>
#include <stdexcept>

namespace hdbench {

std::vector<Chunk> plan_chunks(std::size_t total, std::size_t chunk_bytes) {
  if (chunk_bytes == 0) throw std::invalid_argument("plan_chunks: chunk size must be positive");
  std::vector<Chunk> chunks;
  chunks.reserve(total / chunk_bytes + 1);
  // Step by the bytes taken, not chunk_bytes: offset + chunk_bytes may pass SIZE_MAX.
  for (std::size_t offset = 0; offset < total;) {
    const std::size_t bytes = std::min(chunk_bytes, total - offset);
    chunks.push_back({offset, bytes});
    offset += bytes;
  }
  return chunks;
}

std::vector<Chunk> split_evenly(std::size_t total, std::size_t parts, std::size_t alignment) {
  if (parts == 0) throw std::invalid_argument("split_evenly: parts must be positive");
  if (alignment == 0) throw std::invalid_argument("split_evenly: alignment must be positive");
  // Hand out whole aligned units as evenly as possible; the remainder bytes that do
  // not fill a unit go to the last part.
  const std::size_t units = total / alignment;
  const std::size_t base = units / parts;
  const std::size_t extra = units % parts;
  std::vector<Chunk> shares;
  shares.reserve(parts);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < parts; ++i) {
    std::size_t bytes = (base + (i < extra ? 1 : 0)) * alignment;
    if (i + 1 == parts) bytes = total - offset;
    shares.push_back({offset, bytes});
    offset += bytes;
  }
  return shares;
}

std::vector<Chunk> ramp_pieces(Chunk chunk, std::size_t min_piece, bool shrinking, int halvings,
                               std::size_t alignment) {
  if (alignment == 0) throw std::invalid_argument("ramp_pieces: alignment must be positive");
  // Sizes smallest first: halve the first piece, the smaller half going in front.
  std::vector<std::size_t> sizes{chunk.bytes};
  for (int i = 0; i < halvings; ++i) {
    const std::size_t half = sizes.front() / 2 / alignment * alignment;
    if (half == 0 || half < min_piece) break;
    sizes.front() -= half;
    sizes.insert(sizes.begin(), half);
  }
  if (shrinking) std::reverse(sizes.begin(), sizes.end());
  std::vector<Chunk> pieces;
  pieces.reserve(sizes.size());
  std::size_t offset = chunk.offset;
  for (const std::size_t bytes : sizes) {
    pieces.push_back({offset, bytes});
    offset += bytes;
  }
  return pieces;
}

}  // namespace hdbench
