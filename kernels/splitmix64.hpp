// splitmix64 (Steele, Lea and Flood 2014): the one generator of every fixed sequence in
// the suite (the verification pattern, the synthetic dataset, the model's initial
// weights on the CPU and the GPU, the data-parallel shards). Its output is fixed by its
// definition, unlike std:: distributions, whose output differs between standard
// libraries; host and device code share it, so both sides draw the same numbers, and
// baselines/pytorch/pytorch_data.py computes the same sequence in Python.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define HDBENCH_HOST_DEVICE __host__ __device__
#else
#define HDBENCH_HOST_DEVICE
#endif

namespace hdbench {

// The step between consecutive states: 2^64 over the golden ratio.
inline constexpr std::uint64_t kSplitmixGamma = 0x9E3779B97F4A7C15ULL;

// The output function: a bijection of 64-bit words that mixes every bit into every other.
HDBENCH_HOST_DEVICE constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The generator's output for state `x`: the next state's mix (x + gamma), as a hash of x.
HDBENCH_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t x) { return splitmix64_mix(x + kSplitmixGamma); }

}  // namespace hdbench
