// Launchers for the kernels that move data over the link by loads: gathers that read
// mapped host memory (a batch's tensors, a matrix's rows), and the pointer chase that
// measures one load's round trip. Plain C++ declarations, as every launcher here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hdbench::kernels {

// One piece of a gather: `bytes` from `src` (device-accessible: mapped host or device
// memory) to `dst` (device memory).
struct Segment {
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;
};

// Copies every segment of `segments` (a device-accessible array of `count`) with one
// launch: the blocks share the segments' 16-byte words, so many small pieces cost one
// launch, not one each.
void gather_segments(const Segment* segments, int count, std::size_t total_bytes, cudaStream_t stream);

// Copies `rows` rows of `row_bytes`, `src_pitch` bytes apart in `src` (mapped host or
// device memory), to `dst` packed (row i at i * row_bytes).
void gather_rows(const void* src, std::size_t src_pitch, void* dst, std::size_t row_bytes, std::size_t rows,
                 cudaStream_t stream);

// One thread follows `steps` links of the chain `next` (next[i] is the index of the
// node after i) from node 0 and writes the node it stops at to *last: every load waits
// for the one before, so the time per step is one load's latency from wherever `next`
// lives (mapped host memory or device memory).
void pointer_chase(const std::uint64_t* next, std::uint64_t steps, std::uint64_t* last, cudaStream_t stream);

}  // namespace hdbench::kernels
