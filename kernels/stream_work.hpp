// The per-word work of the streams family, shared by the GPU kernel and its CPU
// reference so both compute bit-identical results. Integer arithmetic: exact on both
// sides, so the check is equality, and no compiler can fold the loop away (the
// multiply-xorshift round has no closed form). `rounds` sets the arithmetic per byte,
// which lets a benchmark put the kernel's time below, at or above the copy time.
#pragma once

#include <cstdint>

#include "pattern.hpp"  // HDBENCH_HOST_DEVICE

namespace hdbench::stream_work {

HDBENCH_HOST_DEVICE inline std::uint32_t round(std::uint32_t x) {
  x = x * 0x9E3779B1u + 0x7F4A7C15u;
  return x ^ (x >> 15);
}

HDBENCH_HOST_DEVICE inline std::uint32_t process_word(std::uint32_t x, int rounds) {
  for (int r = 0; r < rounds; ++r) x = round(x);
  return x;
}

}  // namespace hdbench::stream_work
