#include "streams/stream_reference.hpp"

#include <cstring>
#include <vector>

#include "core/parallel.hpp"
#include "stream_work.hpp"

namespace hdbench {
namespace {

// Below this much work (words × rounds) threads cost more than they save.
constexpr double kParallelWork = 1 << 22;
// Words processed side by side: independent chains the compiler can vectorise,
// instead of one long dependency chain per word.
constexpr std::size_t kLanes = 8;

// An AVX2 clone where the CPU has it: 32-bit multiplies on 8 lanes at once.
[[gnu::target_clones("avx2", "default")]] void process_range(const std::uint32_t* in, std::uint32_t* out,
                                                             std::size_t count, int rounds) noexcept {
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    std::uint32_t x[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) x[l] = in[i + l];
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t l = 0; l < kLanes; ++l) x[l] = stream_work::round(x[l]);
    }
    for (std::size_t l = 0; l < kLanes; ++l) out[i + l] = x[l];
  }
  for (; i < count; ++i) out[i] = stream_work::process_word(in[i], rounds);
}

}  // namespace

void process_words_cpu(const std::uint32_t* in, std::uint32_t* out, std::size_t count, int rounds) {
  const double work = static_cast<double>(count) * (rounds > 0 ? rounds : 1);
  const std::size_t parts = work < kParallelWork ? 1 : host_worker_count();
  // Shares are counted in words here (Chunk's fields name bytes elsewhere).
  parallel_for_shares(count, parts, kLanes, [&](std::size_t, Chunk share) {
    process_range(in + share.offset, out + share.offset, share.bytes, rounds);
  });
}

std::optional<std::size_t> find_word_mismatch(const std::uint32_t* actual, const std::uint32_t* expected,
                                              std::size_t count) {
  if (count == 0) return std::nullopt;
  const std::size_t parts = count < (std::size_t{8} << 20) ? 1 : host_worker_count();
  std::vector<std::optional<std::size_t>> found(parts);
  parallel_for_shares(count, parts, 1024, [&](std::size_t i, Chunk share) {
    if (std::memcmp(actual + share.offset, expected + share.offset, share.bytes * sizeof(std::uint32_t)) == 0) return;
    for (std::size_t w = share.offset; w < share.offset + share.bytes; ++w) {
      if (actual[w] != expected[w]) {
        found[i] = w;
        return;
      }
    }
  });
  for (const auto& bad : found) {
    if (bad) return bad;
  }
  return std::nullopt;
}

}  // namespace hdbench
