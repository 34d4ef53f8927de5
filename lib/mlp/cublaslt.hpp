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
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

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

// How plan() picks among the algorithms cuBLASLt's heuristic offers (up to 8, best first
// by its own estimate). The estimate is not a measurement: on the H100 of 2026-11-26 the
// tf32 step's 4096×4096 weight gradients (K = 8192) ran at 0.61 of the 8192³ GEMM's rate
// and the 784-wide one at 0.38 with the heuristic's first algorithm, so the step's GEMMs
// time up to `candidates` of them and keep the fastest (PyTorch keeps the first).
struct Tuning {
  int candidates = 1;  // the most algorithms timed; 1: keep the first that runs, untimed
  int repeats = 3;     // timed runs of each, after its untimed trial run
};
inline constexpr Tuning kTimeCandidates{.candidates = 8, .repeats = 3};

// What plan() was offered, timed and kept: for the report, and to say what the timing
// saved against the heuristic's first choice.
struct AlgorithmChoice {
  int offered = 0;                         // algorithms the heuristic returned
  int kept = 0;                            // the heuristic's rank of the one kept (0: its first)
  std::vector<int> ranks;                  // the ranks timed, in order (those cuBLASLt ran)
  std::vector<double> timed_microseconds;  // their times, one run each (empty: untimed)
  // The first that ran, and the one kept, as timed here; nullopt when untimed.
  std::optional<double> first_microseconds() const;
  std::optional<double> kept_microseconds() const;
  // Whether timing kept another than the first that ran.
  bool retuned() const noexcept { return !ranks.empty() && kept != ranks.front(); }
};

// The index of the fastest time (ties to the earlier, so the heuristic's order breaks
// them); nullopt for none.
std::optional<std::size_t> fastest_of(std::span<const double> microseconds) noexcept;

// A GEMM with its algorithm chosen once. The handle and the workspace must outlive it.
class Gemm {
 public:
  // Queries the heuristic with the spec's pointers' alignment and the workspace size,
  // then runs each candidate once on `stream` (writing D and the epilogue outputs):
  // with tuning.candidates 1 it keeps the first cuBLASLt accepts; with more it times up
  // to that many accepted ones (CUDA events, tuning.repeats runs each) and keeps the
  // fastest. nullopt when no algorithm exists for the spec (typically a fused epilogue
  // with these types on this device): the caller falls back. Any other failure throws
  // CublasError naming the GEMM.
  static std::optional<Gemm> plan(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace,
                                  std::size_t workspace_bytes, cudaStream_t stream, Tuning tuning = {});
  // The same, throwing when no algorithm exists: for plain GEMMs, which must work.
  static Gemm plan_or_throw(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace, std::size_t workspace_bytes,
                            cudaStream_t stream, Tuning tuning = {});

  // One cublasLtMatmul on the planned D, with A and B possibly moved (the step's input
  // batch); they must be at least as aligned as the planned ones.
  void run(const void* a, const void* b, cudaStream_t stream) const;
  void run(cudaStream_t stream) const { run(spec_.a, spec_.b, stream); }
  const GemmSpec& spec() const noexcept { return spec_; }
  const AlgorithmChoice& algorithm() const noexcept { return algorithm_; }

 private:
  Gemm() = default;
  cublasStatus_t matmul(const void* a, const void* b, cudaStream_t stream) const;

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  AlgorithmChoice algorithm_;
  GemmSpec spec_;
  MatmulDesc desc_;
  Layout a_layout_;
  Layout b_layout_;
  Layout d_layout_;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace hdbench::lt
