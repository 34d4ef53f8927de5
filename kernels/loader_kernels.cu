#include "launch_check.hpp"
#include "loader_kernels.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;
// Enough blocks to fill an H200 several times; each block adds one atomic.
constexpr std::size_t kMaxBlocks = 1024;

__global__ void word_sum_kernel(const std::uint32_t* __restrict__ words, std::size_t count, unsigned long long* total) {
  __shared__ unsigned long long partial[kThreads];
  unsigned long long sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    sum += words[i];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

}  // namespace

void add_word_sum(const std::uint32_t* words, std::size_t count, unsigned long long* total, cudaStream_t stream) {
  if (count == 0) return;
  std::size_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  word_sum_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(words, count, total);
  check_launch("word_sum_kernel");
}

}  // namespace hdbench::kernels
