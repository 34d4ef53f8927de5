#include "mlp/cublaslt.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>

#include "core/cuda.hpp"

namespace hdbench::lt {
namespace {

const char* hint_for(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "cuBLASLt could not start: check the driver and that the GPU is usable (nvidia-smi)";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "free device memory (smaller --hdbench_mlp_batches or --hdbench_mlp_models) or memory held by other "
             "processes";
    case CUBLAS_STATUS_ARCH_MISMATCH:
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "this device or cuBLASLt version has no kernel for this GEMM (tf32 and bf16 need compute capability "
             "8.0 or newer); try --hdbench_mlp_dtypes=fp32, and report the GEMM named here";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "hdbench passed cuBLASLt a bad argument for this GEMM; please report it with the details above";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GEMM kernel failed to launch or run; rerun under compute-sanitizer";
    default:
      return "see the cuBLASLt documentation for this status; rerun under compute-sanitizer";
  }
}

const char* type_name(cudaDataType_t type) {
  switch (type) {
    case CUDA_R_32F:
      return "fp32";
    case CUDA_R_16BF:
      return "bf16";
    case CUDA_R_16F:
      return "fp16";
    default:
      return "other";
  }
}

const char* compute_name(cublasComputeType_t compute) {
  switch (compute) {
    case CUBLAS_COMPUTE_32F:
      return "32F";
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return "32F_FAST_TF32";
    default:
      return "other";
  }
}

// No algorithm for this combination: what a fused epilogue missing on a device looks like.
bool means_unsupported(cublasStatus_t status) {
  return status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE;
}

template <typename T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value,
              const GemmSpec& spec) {
  HDBENCH_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)),
                       fmt::format("attribute {} of {}", static_cast<int>(attribute), describe(spec)));
}

template <typename T>
void set_preference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute,
                    const T& value, const GemmSpec& spec) {
  HDBENCH_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof(value)),
                       fmt::format("preference {} of {}", static_cast<int>(attribute), describe(spec)));
}

Layout make_layout(cudaDataType_t type, int rows, int cols, std::int64_t ld, const GemmSpec& spec) {
  cublasLtMatrixLayout_t layout = nullptr;
  HDBENCH_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
      fmt::format("layout {}×{} ld {} of {}", rows, cols, ld, describe(spec)));
  return Layout(layout);
}

}  // namespace

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line,
                                     const std::string& detail) {
  throw CublasError(status, fmt::format("cuBLASLt error {} ({}) in {}{} at {}:{}; what to do: {}",
                                        cublasLtGetStatusName(status), cublasLtGetStatusString(status), call,
                                        detail.empty() ? "" : " [" + detail + "]", file, line, hint_for(status)));
}

void log_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "hdbench: cuBLASLt error %s in %s at %s:%d\n", cublasLtGetStatusName(status), call, file, line);
}

void HandleDeleter::operator()(cublasLtHandle_t handle) const noexcept {
  HDBENCH_CUBLAS_CHECK_NOTHROW(cublasLtDestroy(handle));
}
void MatmulDescDeleter::operator()(cublasLtMatmulDesc_t desc) const noexcept {
  HDBENCH_CUBLAS_CHECK_NOTHROW(cublasLtMatmulDescDestroy(desc));
}
void LayoutDeleter::operator()(cublasLtMatrixLayout_t layout) const noexcept {
  HDBENCH_CUBLAS_CHECK_NOTHROW(cublasLtMatrixLayoutDestroy(layout));
}
void PreferenceDeleter::operator()(cublasLtMatmulPreference_t preference) const noexcept {
  HDBENCH_CUBLAS_CHECK_NOTHROW(cublasLtMatmulPreferenceDestroy(preference));
}

Handle make_handle() {
  cublasLtHandle_t handle = nullptr;
  HDBENCH_CUBLAS_CHECK(cublasLtCreate(&handle), "creating the cuBLASLt handle");
  return Handle(handle);
}

const char* epilogue_name(cublasLtEpilogue_t epilogue) noexcept {
  switch (epilogue) {
    case CUBLASLT_EPILOGUE_DEFAULT:
      return "DEFAULT";
    case CUBLASLT_EPILOGUE_RELU:
      return "RELU";
    case CUBLASLT_EPILOGUE_BIAS:
      return "BIAS";
    case CUBLASLT_EPILOGUE_RELU_BIAS:
      return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_RELU_AUX:
      return "RELU_AUX";
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
      return "RELU_AUX_BIAS";
    case CUBLASLT_EPILOGUE_DRELU:
      return "DRELU";
    case CUBLASLT_EPILOGUE_DRELU_BGRAD:
      return "DRELU_BGRAD";
    case CUBLASLT_EPILOGUE_BGRADA:
      return "BGRADA";
    case CUBLASLT_EPILOGUE_BGRADB:
      return "BGRADB";
    default:
      return "other";
  }
}

std::string describe(const GemmSpec& spec) {
  std::string text = fmt::format("m={} n={} k={} A={}{} B={}{} D={} compute={} epilogue={}", spec.m, spec.n, spec.k,
                                 type_name(spec.a_type), spec.transpose_a ? "(T)" : "", type_name(spec.b_type),
                                 spec.transpose_b ? "(T)" : "", type_name(spec.d_type), compute_name(spec.compute),
                                 epilogue_name(spec.epilogue));
  if (spec.bias != nullptr) text += fmt::format(" bias={}", type_name(spec.bias_type));
  if (spec.aux != nullptr) text += fmt::format(" aux_ld={}", spec.aux_ld);
  return text;
}

std::uint32_t alignment_of(const void* pointer) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  std::uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

std::optional<double> AlgorithmChoice::first_microseconds() const {
  if (timed_microseconds.empty()) return std::nullopt;
  return timed_microseconds.front();
}

std::optional<double> AlgorithmChoice::kept_microseconds() const {
  for (std::size_t i = 0; i < ranks.size() && i < timed_microseconds.size(); ++i)
    if (ranks[i] == kept) return timed_microseconds[i];
  return std::nullopt;
}

std::optional<std::size_t> fastest_of(std::span<const double> microseconds) noexcept {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < microseconds.size(); ++i)
    if (!best || microseconds[i] < microseconds[*best]) best = i;
  return best;
}

std::optional<Gemm> Gemm::plan(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace,
                               std::size_t workspace_bytes, cudaStream_t stream, Tuning tuning) {
  Gemm gemm;
  gemm.handle_ = handle;
  gemm.workspace_ = workspace;
  gemm.workspace_bytes_ = workspace_bytes;
  gemm.spec_ = spec;

  cublasLtMatmulDesc_t desc = nullptr;
  HDBENCH_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, spec.compute, CUDA_R_32F), describe(spec));
  gemm.desc_.reset(desc);
  const cublasOperation_t op_a = spec.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = spec.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a, spec);
  set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b, spec);
  set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, spec.epilogue, spec);
  if (spec.bias != nullptr) {
    set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, spec.bias, spec);
    const std::int32_t bias_type = spec.bias_type;
    set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type, spec);
  }
  if (spec.aux != nullptr) {
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, spec.aux, spec);
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, spec.aux_ld, spec);
  }

  // The stored matrices: op(A) is m×k, so A itself is k×m when transposed.
  gemm.a_layout_ = spec.transpose_a ? make_layout(spec.a_type, spec.k, spec.m, spec.lda, spec)
                                    : make_layout(spec.a_type, spec.m, spec.k, spec.lda, spec);
  gemm.b_layout_ = spec.transpose_b ? make_layout(spec.b_type, spec.n, spec.k, spec.ldb, spec)
                                    : make_layout(spec.b_type, spec.k, spec.n, spec.ldb, spec);
  gemm.d_layout_ = make_layout(spec.d_type, spec.m, spec.n, spec.ldd, spec);

  cublasLtMatmulPreference_t raw_preference = nullptr;
  HDBENCH_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_preference), describe(spec));
  const Preference preference(raw_preference);
  const std::uint64_t max_workspace = workspace_bytes;
  set_preference(raw_preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, max_workspace, spec);
  // The default assumes 256-byte alignment; the bf16 weight copy and a caller's batch
  // may be less aligned, so say what they are and let cuBLASLt pick accordingly.
  set_preference(raw_preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(spec.a), spec);
  set_preference(raw_preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(spec.b), spec);
  set_preference(raw_preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_of(spec.d), spec);
  set_preference(raw_preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(spec.d), spec);

  std::array<cublasLtMatmulHeuristicResult_t, 8> results{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, desc, gemm.a_layout_.get(), gemm.b_layout_.get(), gemm.d_layout_.get(), gemm.d_layout_.get(),
      raw_preference, static_cast<int>(results.size()), results.data(), &found);
  if (means_unsupported(status)) return std::nullopt;
  HDBENCH_CUBLAS_CHECK(status, "heuristic query for " + describe(spec));

  // The heuristic can offer an algorithm that cublasLtMatmul then refuses for these
  // exact arguments; a trial run now turns that into a fallback instead of a failed step.
  // It is also each candidate's warm-up before it is timed.
  AlgorithmChoice& choice = gemm.algorithm_;
  choice.offered = found;
  const bool timing = tuning.candidates > 1;
  std::optional<Event> start;  // only when timing: no CUDA events for a plan that keeps the first
  std::optional<Event> stop;
  if (timing) {
    start.emplace();
    stop.emplace();
  }
  for (int i = 0; i < found && static_cast<int>(choice.ranks.size()) < std::max(tuning.candidates, 1); ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS || results[i].workspaceSize > workspace_bytes) continue;
    gemm.algo_ = results[i].algo;
    const cublasStatus_t trial = gemm.matmul(spec.a, spec.b, stream);
    if (trial != CUBLAS_STATUS_SUCCESS) {
      if (!means_unsupported(trial)) HDBENCH_CUBLAS_CHECK(trial, "trial run of " + describe(spec));
      continue;
    }
    choice.ranks.push_back(i);
    if (!timing) break;
    start->record(stream);
    for (int r = 0; r < std::max(tuning.repeats, 1); ++r)
      HDBENCH_CUBLAS_CHECK(gemm.matmul(spec.a, spec.b, stream),
                           "timing algorithm " + std::to_string(i) + " of " + describe(spec));
    stop->record(stream);
    choice.timed_microseconds.push_back(1e3 * static_cast<double>(elapsed_ms(*start, *stop)) /
                                        std::max(tuning.repeats, 1));
  }
  if (choice.ranks.empty()) return std::nullopt;
  choice.kept = choice.ranks[fastest_of(choice.timed_microseconds).value_or(0)];
  gemm.algo_ = results[static_cast<std::size_t>(choice.kept)].algo;
  return gemm;
}

Gemm Gemm::plan_or_throw(cublasLtHandle_t handle, const GemmSpec& spec, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream, Tuning tuning) {
  std::optional<Gemm> gemm = plan(handle, spec, workspace, workspace_bytes, stream, tuning);
  if (!gemm) {
    throw_cublas_error(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__,
                       "no algorithm for " + describe(spec));
  }
  return std::move(*gemm);
}

cublasStatus_t Gemm::matmul(const void* a, const void* b, cudaStream_t stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;  // C is D's buffer, never read
  return cublasLtMatmul(handle_, desc_.get(), &alpha, a, a_layout_.get(), b, b_layout_.get(), &beta, spec_.d,
                        d_layout_.get(), spec_.d, d_layout_.get(), &algo_, workspace_, workspace_bytes_, stream);
}

void Gemm::run(const void* a, const void* b, cudaStream_t stream) const {
  if (alignment_of(a) < alignment_of(spec_.a) || alignment_of(b) < alignment_of(spec_.b)) {
    throw std::logic_error("cuBLASLt GEMM planned for " + std::to_string(alignment_of(spec_.a)) + "/" +
                           std::to_string(alignment_of(spec_.b)) + "-byte aligned operands run on less aligned ones (" +
                           describe(spec_) + "); this is a bug in hdbench's plan cache");
  }
  HDBENCH_CUBLAS_CHECK(matmul(a, b, stream), describe(spec_));
}

}  // namespace hdbench::lt
