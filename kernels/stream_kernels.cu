#include "launch_check.hpp"
#include "stream_kernels.hpp"
#include "stream_work.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;
// A grid-stride loop needs no more blocks than keep every SM busy several times over;
// capping keeps the launch valid for any count.
constexpr std::size_t kMaxBlocks = 65535;

__global__ void process_words_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out,
                                     std::size_t count, int rounds) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = stream_work::process_word(in[i], rounds);
  }
}

__global__ void empty() {}

__global__ void tally_kernel(unsigned int* counter) { atomicAdd(counter, 1u); }

}  // namespace

void process_words(const std::uint32_t* in, std::uint32_t* out, std::size_t count, int rounds, cudaStream_t stream) {
  if (count == 0) return;
  std::size_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  process_words_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, count, rounds);
  check_launch("process_words_kernel");
}

void empty_kernel(cudaStream_t stream) {
  empty<<<1, 1, 0, stream>>>();
  check_launch("empty");
}

void tally(unsigned int* counter, cudaStream_t stream) {
  tally_kernel<<<1, 1, 0, stream>>>(counter);
  check_launch("tally_kernel");
}

}  // namespace hdbench::kernels
