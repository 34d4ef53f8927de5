#include "host_pattern.hpp"

#include <cstring>

#include "pattern.hpp"

namespace hdbench {

void fill_pattern_host(void* dst, std::size_t bytes, std::uint64_t seed) noexcept {
  auto* out = static_cast<unsigned char*>(dst);
  const std::size_t words = bytes / 8;
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint64_t w = pattern::word(seed, i);
    std::memcpy(out + i * 8, &w, 8);  // memcpy: dst need not be 8-byte aligned
  }
  for (std::size_t b = words * 8; b < bytes; ++b) out[b] = pattern::byte_at(seed, b);
}

std::optional<std::size_t> find_pattern_mismatch(const void* src, std::size_t bytes,
                                                 std::uint64_t seed) noexcept {
  const auto* in = static_cast<const unsigned char*>(src);
  const std::size_t words = bytes / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w = 0;
    std::memcpy(&w, in + i * 8, 8);
    if (w != pattern::word(seed, i)) {
      for (std::size_t b = i * 8;; ++b) {
        if (in[b] != pattern::byte_at(seed, b)) return b;
      }
    }
  }
  for (std::size_t b = words * 8; b < bytes; ++b) {
    if (in[b] != pattern::byte_at(seed, b)) return b;
  }
  return std::nullopt;
}

}  // namespace hdbench
