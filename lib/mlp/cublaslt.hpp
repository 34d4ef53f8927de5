// cuBLASLt for the GPU training step and the GEMM-rate benchmark: checked calls whose
// message names the GEMM (m, n, k, types, epilogue), move-only owners for the handle
// and descriptors, and a GEMM planned once (heuristic query, alignment, a trial run)
// so that running it is a single cublasLtMatmul: no host queries, graph-capturable.
//
// Everything is in cuBLASLt's column-major terms: D[m×n] = op(A)[m×k] · op(B)[k×n].
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace hdbench::lt {

class CublasError : public std::runtime_error {
 public:
  CublasError(cublasStatus_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  cublasStatus_t status() const noexcept { return status_; }

 private:
  cublasStatus_t status_;
};

// "cuBLASLt error CUBLAS_STATUS_X (description) in CALL [DETAIL] at FILE:LINE; what to do: HINT"
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line,
                                     const std::string& detail);
void log_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept;

}  // namespace hdbench::lt

// `detail` names the GEMM involved (describe(spec)); evaluated only on failure.
#define HDBENCH_CUBLAS_CHECK(call, detail)                                                            \
  do {                                                                                                \
    const cublasStatus_t hdbench_cublas_status_ = (call);                                             \
    if (hdbench_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                              \
      ::hdbench::lt::throw_cublas_error(hdbench_cublas_status_, #call, __FILE__, __LINE__, (detail)); \
  } while (0)

#define HDBENCH_CUBLAS_CHECK_NOTHROW(call)                                                \
  do {                                                                                    \
    const cublasStatus_t hdbench_cublas_status_ = (call);                                 \
    if (hdbench_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                  \
      ::hdbench::lt::log_cublas_error(hdbench_cublas_status_, #call, __FILE__, __LINE__); \
  } while (0)

namespace hdbench::lt {

struct HandleDeleter {
  void operator()(cublasLtHandle_t handle) const noexcept;
};
struct MatmulDescDeleter {
  void operator()(cublasLtMatmulDesc_t desc) const noexcept;
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayout_t layout) const noexcept;
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreference_t preference) const noexcept;
};
using Handle = std::unique_ptr<std::remove_pointer_t<cublasLtHandle_t>, HandleDeleter>;
using MatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, MatmulDescDeleter>;
using Layout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDeleter>;
using Preference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDeleter>;

Handle make_handle();

// One GEMM as cuBLASLt sees it, with the pointers it will run on: their alignment
// narrows the algorithms, and the plan's trial run uses them.
struct GemmSpec {
  bool transpose_a = false;
  bool transpose_b = false;
  int m = 0;
  int n = 0;
  int k = 0;
  std::int64_t lda = 0;  // leading dimensions of the stored (untransposed) matrices
  std::int64_t ldb = 0;
  std::int64_t ldd = 0;
  cudaDataType_t a_type = CUDA_R_32F;
  cudaDataType_t b_type = CUDA_R_32F;
  cudaDataType_t d_type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  // The bias read by *BIAS epilogues, or the bias gradient written by *BGRAD* ones.
  void* bias = nullptr;
  cudaDataType_t bias_type = CUDA_R_32F;
  // ReLU bit-mask written by RELU_AUX*, read by DRELU*; aux_ld in bits, a multiple of 128.
  void* aux = nullptr;
  std::int64_t aux_ld = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
};

// "m=64 n=128 k=784 A=bf16(T) B=bf16 D=fp32 compute=32F epilogue=RELU_AUX_BIAS bias=fp32"
std::string describe(const GemmSpec& spec);
const char* epilogue_name(cublasLtEpilogue_t epilogue) noexcept;
// Largest power of two up to 256 dividing the address: what MIN_ALIGNMENT_*_BYTES takes.
std::uint32_t alignment_of(const void* pointer) noexcept;

// A GEMM with its algorithm chosen once. The handle and the workspace must outlive it.
class Gemm {
 public:
  // Queries the heuristic with the spec's pointers' alignment and the workspace size,
  // then runs each candidate once on `stream` (writing D and the epilogue outputs) and
  // keeps the first cuBLASLt accepts. nullopt when no algorithm exists for the spec
  // (typically a fused epilogue with these types on this device): the caller falls
  // back. Any other failure throws CublasError naming the GEMM.
  static std::optional<Gemm> plan(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace,
                                  std::size_t workspace_bytes, cudaStream_t stream);
  // The same, throwing when no algorithm exists: for plain GEMMs, which must work.
  static Gemm plan_or_throw(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace, std::size_t workspace_bytes,
                            cudaStream_t stream);

  // One cublasLtMatmul on the planned D, with A and B possibly moved (the step's input
  // batch); they must be at least as aligned as the planned ones.
  void run(const void* a, const void* b, cudaStream_t stream) const;
  void run(cudaStream_t stream) const { run(spec_.a, spec_.b, stream); }
  const GemmSpec& spec() const noexcept { return spec_; }

 private:
  Gemm() = default;
  cublasStatus_t matmul(const void* a, const void* b, cudaStream_t stream) const;

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  GemmSpec spec_;
  MatmulDesc desc_;
  Layout a_layout_;
  Layout b_layout_;
  Layout d_layout_;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace hdbench::lt
