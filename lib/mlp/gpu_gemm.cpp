// GpuGemm: one cuBLASLt GEMM in a step's arithmetic, for the GEMM-rate benchmark.
#include <cuda_bf16.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/cuda.hpp"
#include "mlp/cublaslt.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp_kernels.hpp"

namespace hdbench {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
constexpr std::size_t kAlignment = 256;
constexpr std::uint64_t kSeedA = 0x5eed'a000;
constexpr std::uint64_t kSeedB = 0x5eed'b000;

std::size_t align_up(std::size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

struct GpuGemm::Impl {
  int m = 0;
  int n = 0;
  int k = 0;
  MlpDtype dtype = MlpDtype::fp32;
  cudaStream_t stream = nullptr;
  std::size_t operand_bytes = 4;  // A and B
  std::size_t output_bytes = 4;   // D
  std::size_t b_offset = 0;
  std::size_t d_offset = 0;
  std::size_t workspace_offset = 0;
  DeviceBuffer arena;
  lt::Handle handle;
  std::optional<lt::Gemm> gemm;

  char* at(std::size_t offset) const { return static_cast<char*>(arena.data()) + offset; }

  std::vector<float> download(std::size_t offset, std::size_t count, std::size_t element_bytes) const {
    std::vector<float> values(count);
    if (element_bytes == sizeof(float)) {
      HDBENCH_CUDA_CHECK(
          cudaMemcpyAsync(values.data(), at(offset), count * sizeof(float), cudaMemcpyDeviceToHost, stream));
      HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      return values;
    }
    std::vector<__nv_bfloat16> narrow(count);
    HDBENCH_CUDA_CHECK(
        cudaMemcpyAsync(narrow.data(), at(offset), count * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, stream));
    HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < count; ++i) values[i] = __bfloat162float(narrow[i]);
    return values;
  }
};

GpuGemm::GpuGemm(int m, int n, int k, MlpDtype dtype, cudaStream_t stream) : impl_(std::make_unique<Impl>()) {
  if (m < 1 || n < 1 || k < 1)
    throw MlpConfigError(fmt::format("GEMM {}×{}×{}: every size must be at least 1", m, n, k));
  Impl& g = *impl_;
  g.m = m;
  g.n = n;
  g.k = k;
  g.dtype = dtype;
  g.stream = stream;
  const bool bf16 = dtype == MlpDtype::bf16;
  g.operand_bytes = bf16 ? 2 : 4;
  g.output_bytes = bf16 ? 2 : 4;
  const auto mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
  const auto kn = static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
  const auto mn = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  g.b_offset = align_up(mk * g.operand_bytes);
  g.d_offset = g.b_offset + align_up(kn * g.operand_bytes);
  g.workspace_offset = g.d_offset + align_up(mn * g.output_bytes);
  g.arena = DeviceBuffer(g.workspace_offset + kWorkspaceBytes);
  g.handle = lt::make_handle();

  if (bf16) {
    kernels::fill_uniform(reinterpret_cast<__nv_bfloat16*>(g.at(0)), mk, kSeedA, -1.0f, 1.0f, stream);
    kernels::fill_uniform(reinterpret_cast<__nv_bfloat16*>(g.at(g.b_offset)), kn, kSeedB, -1.0f, 1.0f, stream);
  } else {
    kernels::fill_uniform(reinterpret_cast<float*>(g.at(0)), mk, kSeedA, -1.0f, 1.0f, stream);
    kernels::fill_uniform(reinterpret_cast<float*>(g.at(g.b_offset)), kn, kSeedB, -1.0f, 1.0f, stream);
  }

  // Row-major D = A·B is column-major Dᵀ (n×m) = Bᵀ (n×k, ld n) · Aᵀ (k×m, ld k):
  // cuBLASLt's A is our B and its B our A, neither transposed.
  const auto operand_type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const lt::GemmSpec spec{.m = n,
                          .n = m,
                          .k = k,
                          .lda = n,
                          .ldb = k,
                          .ldd = n,
                          .a_type = operand_type,
                          .b_type = operand_type,
                          .d_type = operand_type,
                          .compute = dtype == MlpDtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                          .a = g.at(g.b_offset),
                          .b = g.at(0),
                          .d = g.at(g.d_offset)};
  // Tuned as the step's GEMMs are, so the rate they are held against is the best cuBLASLt
  // offers for this GEMM too.
  g.gemm = lt::Gemm::plan_or_throw(g.handle.get(), spec, g.at(g.workspace_offset), kWorkspaceBytes, stream,
                                   lt::kTimeCandidates);
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

GpuGemm::~GpuGemm() {
  if (impl_ && impl_->arena.data() != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(impl_->stream));
}

void GpuGemm::run() { impl_->gemm->run(impl_->stream); }

double GpuGemm::flops() const noexcept {
  return 2.0 * static_cast<double>(impl_->m) * static_cast<double>(impl_->n) * static_cast<double>(impl_->k);
}

std::vector<float> GpuGemm::a_values() {
  const Impl& g = *impl_;
  return g.download(0, static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.k), g.operand_bytes);
}
std::vector<float> GpuGemm::b_values() {
  const Impl& g = *impl_;
  return g.download(g.b_offset, static_cast<std::size_t>(g.k) * static_cast<std::size_t>(g.n), g.operand_bytes);
}
std::vector<float> GpuGemm::d_values() {
  const Impl& g = *impl_;
  return g.download(g.d_offset, static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n), g.output_bytes);
}

std::string GpuGemm::describe_algorithm() const {
  const lt::AlgorithmChoice& a = impl_->gemm->algorithm();
  return fmt::format("algorithm {} of {} offered ({} timed: {} kept, the first {})", a.kept + 1, a.offered,
                     a.timed_microseconds.size(), microseconds_text(a.kept_microseconds()),
                     microseconds_text(a.first_microseconds()));
}

std::vector<double> GpuGemm::algorithm_microseconds() const { return impl_->gemm->algorithm().timed_microseconds; }

std::size_t GpuGemm::kept_algorithm_index() const {
  const lt::AlgorithmChoice& a = impl_->gemm->algorithm();
  const auto it = std::find(a.ranks.begin(), a.ranks.end(), a.kept);
  return static_cast<std::size_t>(it - a.ranks.begin());
}

}  // namespace hdbench
