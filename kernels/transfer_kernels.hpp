// Launchers for the transfer family's kernels. Plain C++ declarations so host code
// compiled without nvcc can call them; every launcher takes the stream to run on
// and checks the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hdbench::kernels {

// Fills `bytes` at `dst` (device or mapped host memory) with pattern(seed).
void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed, cudaStream_t stream);

// Counts bytes of `src` that differ from pattern(seed) into *mismatches (device or
// mapped memory, zeroed by the caller).
void count_pattern_mismatches(const void* src, std::size_t bytes, std::uint64_t seed, unsigned long long* mismatches,
                              cudaStream_t stream);

// SM-driven copy: a grid of `blocks` blocks streams 16-byte words from src to dst;
// either side may be a mapped host pointer (zero-copy).
void sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream);

// Blocks `stream` until the host writes a non-zero value to *release (mapped host
// memory) or `timeout_ns` passes; on timeout it sets *timed_out = 1 so the host can
// discard the measurement. Work queued behind it on this and waiting streams then
// starts together.
void spin_until_released(const volatile int* release, int* timed_out, std::uint64_t timeout_ns, cudaStream_t stream);

}  // namespace hdbench::kernels
