// Launchers for the streams family's kernels. Plain C++ declarations so host code
// compiled without nvcc can call them; each takes the stream to run on and checks
// its launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hdbench::kernels {

// out[i] = stream_work::process_word(in[i], rounds) for i < count (device memory).
void process_words(const std::uint32_t* in, std::uint32_t* out, std::size_t count, int rounds, cudaStream_t stream);

// A kernel that does nothing: what a launch costs on its own.
void empty_kernel(cudaStream_t stream);

// One thread adds 1 to *counter (device memory): the small "bookkeeping" launch a
// program puts on the default stream between its real work.
void tally(unsigned int* counter, cudaStream_t stream);

}  // namespace hdbench::kernels
