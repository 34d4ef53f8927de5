// The verification pattern: byte `offset` of a buffer filled with `seed` is byte
// (offset % 8) of splitmix64(seed + offset / 8). Shared by host and device code so a
// buffer filled on one side is checked on the other. A fresh seed per run means a
// stale buffer from an earlier run can never pass for moved data.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define HDBENCH_HOST_DEVICE __host__ __device__
#else
#define HDBENCH_HOST_DEVICE
#endif

namespace hdbench::pattern {

HDBENCH_HOST_DEVICE inline std::uint64_t word(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

HDBENCH_HOST_DEVICE inline std::uint8_t byte_at(std::uint64_t seed, std::uint64_t offset) {
  return static_cast<std::uint8_t>(word(seed, offset / 8) >> (8 * (offset % 8)));
}

}  // namespace hdbench::pattern
