// The verification pattern: byte `offset` of a buffer filled with `seed` is byte
// (offset % 8) of splitmix64(seed + offset / 8). Shared by host and device code so a
// buffer filled on one side is checked on the other. A fresh seed per run means a
// stale buffer from an earlier run can never pass for moved data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "splitmix64.hpp"

namespace hdbench::pattern {

HDBENCH_HOST_DEVICE inline std::uint64_t word(std::uint64_t seed, std::uint64_t index) {
  return splitmix64(seed + index * kSplitmixGamma);  // the generator's output number `index`
}

HDBENCH_HOST_DEVICE inline std::uint8_t byte_at(std::uint64_t seed, std::uint64_t offset) {
  return static_cast<std::uint8_t>(word(seed, offset / 8) >> (8 * (offset % 8)));
}

}  // namespace hdbench::pattern
