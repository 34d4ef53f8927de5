// The loader's device-side consumer when no training step is plugged in: a checksum
// that reads every byte of the batch that arrived, so the copy cannot be skipped and
// the bytes can be checked against what the host built.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hdbench::kernels {

// *total += sum of the `count` 32-bit words at `words` (device memory), modulo 2^64:
// the same order-independent sum as word_sum() on the host.
void add_word_sum(const std::uint32_t* words, std::size_t count, unsigned long long* total, cudaStream_t stream);

}  // namespace hdbench::kernels
