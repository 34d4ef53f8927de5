#include "launch_check.hpp"
#include "pattern.hpp"
#include "transfer_kernels.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t items) {
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 * 8 ? (blocks == 0 ? 1 : blocks) : 65535 * 8);
}

__global__ void fill_pattern_kernel(unsigned char* dst, std::size_t bytes, std::uint64_t seed) {
  const std::size_t words = bytes / 8;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  auto* dst_words = reinterpret_cast<std::uint64_t*>(dst);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words; i += stride) {
    dst_words[i] = pattern::word(seed, i);
  }
  const std::size_t tail = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (tail < bytes % 8) dst[words * 8 + tail] = pattern::byte_at(seed, words * 8 + tail);
}

__global__ void count_mismatches_kernel(const unsigned char* src, std::size_t bytes, std::uint64_t seed,
                                        unsigned long long* mismatches) {
  const std::size_t words = bytes / 8;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const auto* src_words = reinterpret_cast<const std::uint64_t*>(src);
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words; i += stride) {
    const std::uint64_t diff = src_words[i] ^ pattern::word(seed, i);
    for (int b = 0; b < 8; ++b) local += ((diff >> (8 * b)) & 0xFF) != 0;
  }
  const std::size_t tail = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (tail < bytes % 8) local += src[words * 8 + tail] != pattern::byte_at(seed, words * 8 + tail);
  if (local != 0) atomicAdd(mismatches, local);
}

// 16-byte vector loads and stores keep the number of PCIe transactions per byte low
// when one side is mapped host memory. Buffers from cudaMalloc/cudaHostAlloc are
// 256-byte aligned; the tail after the last whole vector is copied bytewise.
__global__ void sm_copy_kernel(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  auto* dst_vec = reinterpret_cast<uint4*>(dst);
  const auto* src_vec = reinterpret_cast<const uint4*>(src);
  for (std::size_t i = first; i < vectors; i += stride) dst_vec[i] = src_vec[i];
  const std::size_t tail_start = vectors * sizeof(uint4);
  if (first < bytes - tail_start) dst[tail_start + first] = src[tail_start + first];
}

__global__ void spin_kernel(const volatile int* release, int* timed_out, std::uint64_t timeout_ns) {
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release == 0) {
    std::uint64_t now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  fill_pattern_kernel<<<blocks_for(bytes / 8), kThreads, 0, stream>>>(static_cast<unsigned char*>(dst), bytes, seed);
  check_launch("fill_pattern_kernel");
}

void count_pattern_mismatches(const void* src, std::size_t bytes, std::uint64_t seed, unsigned long long* mismatches,
                              cudaStream_t stream) {
  count_mismatches_kernel<<<blocks_for(bytes / 8), kThreads, 0, stream>>>(static_cast<const unsigned char*>(src), bytes,
                                                                          seed, mismatches);
  check_launch("count_mismatches_kernel");
}

void sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream) {
  const int grid = blocks > 0 ? blocks : 1;
  sm_copy_kernel<<<grid, kThreads, 0, stream>>>(static_cast<unsigned char*>(dst),
                                                static_cast<const unsigned char*>(src), bytes);
  check_launch("sm_copy_kernel");
}

void spin_until_released(const volatile int* release, int* timed_out, std::uint64_t timeout_ns, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  check_launch("spin_kernel");
}

}  // namespace hdbench::kernels
