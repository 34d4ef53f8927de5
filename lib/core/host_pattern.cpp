#include "core/host_pattern.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "core/chunking.hpp"
#include "core/parallel.hpp"
#include "pattern.hpp"

namespace hdbench {
namespace {

// Large buffers are filled and checked by several threads: one thread manages a few
// GB/s, and a 1 GiB buffer is prepared several times per benchmark.
constexpr std::size_t kParallelFrom = std::size_t{32} << 20;

std::size_t worker_count(std::size_t bytes) { return bytes < kParallelFrom ? 1 : host_worker_count(); }

// Shares start on 8-byte boundaries, so whole pattern words start there.
constexpr std::size_t kShareAlignment = 8;

// `share.offset` is a multiple of 8, so whole pattern words start there.
void fill_share(unsigned char* out, Chunk share, std::uint64_t seed) noexcept {
  const std::size_t end = share.offset + share.bytes;
  std::size_t b = share.offset;
  for (; b + 8 <= end; b += 8) {
    const std::uint64_t w = pattern::word(seed, b / 8);
    std::memcpy(out + b, &w, 8);  // memcpy: dst need not be 8-byte aligned
  }
  for (; b < end; ++b) out[b] = pattern::byte_at(seed, b);
}

std::optional<std::size_t> find_in_share(const unsigned char* in, Chunk share, std::uint64_t seed) noexcept {
  const std::size_t end = share.offset + share.bytes;
  std::size_t b = share.offset;
  for (; b + 8 <= end; b += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, in + b, 8);
    if (w != pattern::word(seed, b / 8)) break;
  }
  for (; b < end; ++b) {
    if (in[b] != pattern::byte_at(seed, b)) return b;
  }
  return std::nullopt;
}

}  // namespace

void fill_pattern_host(void* dst, std::size_t bytes, std::uint64_t seed) {
  auto* out = static_cast<unsigned char*>(dst);
  parallel_for_shares(bytes, worker_count(bytes), kShareAlignment,
                      [&](std::size_t, Chunk share) { fill_share(out, share, seed); });
}

std::optional<std::size_t> find_pattern_mismatch(const void* src, std::size_t bytes, std::uint64_t seed) {
  const auto* in = static_cast<const unsigned char*>(src);
  const std::size_t count = worker_count(bytes);
  std::vector<std::optional<std::size_t>> found(count);
  parallel_for_shares(bytes, count, kShareAlignment,
                      [&](std::size_t i, Chunk share) { found[i] = find_in_share(in, share, seed); });
  for (const auto& bad : found) {
    if (bad) return bad;  // shares are in order, so the first hit is the first bad byte
  }
  return std::nullopt;
}

}  // namespace hdbench
