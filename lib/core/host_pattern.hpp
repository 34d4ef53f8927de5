// Filling and checking host buffers with the verification pattern (kernels/pattern.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hdbench {

// Buffers of 32 MiB and more are filled and checked by up to 16 threads.
void fill_pattern_host(void* dst, std::size_t bytes, std::uint64_t seed);
// Offset of the first byte that differs from pattern(seed), or nullopt when all match.
std::optional<std::size_t> find_pattern_mismatch(const void* src, std::size_t bytes, std::uint64_t seed);

}  // namespace hdbench
