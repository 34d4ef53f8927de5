#include "launch_check.hpp"
#include "movement_kernels.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;

// Each block walks the segments and copies its share of each: 16-byte words where both
// ends are aligned, bytes otherwise (a segment's tail, or an unaligned tensor).
__global__ void gather_segments_kernel(const Segment* segments, int count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (int s = 0; s < count; ++s) {
    const Segment seg = segments[s];
    const auto* src = static_cast<const unsigned char*>(seg.src);
    auto* dst = static_cast<unsigned char*>(seg.dst);
    const bool aligned = (reinterpret_cast<std::uintptr_t>(src) % sizeof(uint4)) == 0 &&
                         (reinterpret_cast<std::uintptr_t>(dst) % sizeof(uint4)) == 0;
    const std::size_t vectors = aligned ? seg.bytes / sizeof(uint4) : 0;
    for (std::size_t i = first; i < vectors; i += stride) {
      reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
    }
    for (std::size_t i = vectors * sizeof(uint4) + first; i < seg.bytes; i += stride) dst[i] = src[i];
  }
}

// A block per row (grid-strided over rows), its threads over the row's bytes; 4-byte
// words when the row and both pointers allow.
__global__ void gather_rows_kernel(const unsigned char* src, std::size_t src_pitch, unsigned char* dst,
                                   std::size_t row_bytes, std::size_t rows) {
  const bool words = row_bytes % 4 == 0 && src_pitch % 4 == 0 && reinterpret_cast<std::uintptr_t>(src) % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(dst) % 4 == 0;
  for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const unsigned char* from = src + r * src_pitch;
    unsigned char* to = dst + r * row_bytes;
    if (words) {
      for (std::size_t i = threadIdx.x; i < row_bytes / 4; i += blockDim.x) {
        reinterpret_cast<std::uint32_t*>(to)[i] = reinterpret_cast<const std::uint32_t*>(from)[i];
      }
    } else {
      for (std::size_t i = threadIdx.x; i < row_bytes; i += blockDim.x) to[i] = from[i];
    }
  }
}

__global__ void pointer_chase_kernel(const std::uint64_t* next, std::uint64_t steps, std::uint64_t* last) {
  std::uint64_t node = 0;
  // volatile: every step is a real load (no caching of a value the compiler thinks it knows).
  const volatile std::uint64_t* chain = next;
  for (std::uint64_t i = 0; i < steps; ++i) node = chain[node];
  *last = node;
}

}  // namespace

void gather_segments(const Segment* segments, int count, std::size_t total_bytes, cudaStream_t stream) {
  if (count <= 0) return;
  const std::size_t vectors = total_bytes / sizeof(uint4) + 1;
  const std::size_t wanted = (vectors + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 1024 ? wanted : 1024);  // enough to keep the link busy
  gather_segments_kernel<<<blocks, kThreads, 0, stream>>>(segments, count);
  check_launch("gather_segments");
}

void gather_rows(const void* src, std::size_t src_pitch, void* dst, std::size_t row_bytes, std::size_t rows,
                 cudaStream_t stream) {
  if (rows == 0 || row_bytes == 0) return;
  const int blocks = static_cast<int>(rows < 4096 ? rows : 4096);
  gather_rows_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const unsigned char*>(src), src_pitch,
                                                      static_cast<unsigned char*>(dst), row_bytes, rows);
  check_launch("gather_rows");
}

void pointer_chase(const std::uint64_t* next, std::uint64_t steps, std::uint64_t* last, cudaStream_t stream) {
  pointer_chase_kernel<<<1, 1, 0, stream>>>(next, steps, last);
  check_launch("pointer_chase");
}

}  // namespace hdbench::kernels
