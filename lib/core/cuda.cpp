#include "core/cuda.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <utility>

#include "core/nvtx.hpp"

namespace hdbench {
namespace {

// What a user can do about the most common failures.
const char* hint_for(cudaError_t code) {
  switch (code) {
    case cudaErrorInsufficientDriver:
      return "install or update the NVIDIA driver to one that supports this CUDA runtime";
    case cudaErrorNoDevice:
      return "check that a GPU is attached and visible (CUDA_VISIBLE_DEVICES, container --gpus)";
    case cudaErrorInvalidDevice:
      return "pick an existing device with --hdbench_device";
    case cudaErrorMemoryAllocation:
      return "use smaller sizes (--hdbench_sizes) or free memory held by other processes";
    case cudaErrorHostMemoryAlreadyRegistered:
    case cudaErrorHostMemoryNotRegistered:
      return "this is a bug in hdbench's buffer ownership; please report it";
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
      return "a kernel faulted; rerun under compute-sanitizer to locate it";
    case cudaErrorNotPermitted:
    case cudaErrorNotSupported:
      return "this device or driver does not support the operation; the benchmark needs other hardware";
    default:
      return "see the CUDA runtime documentation for this error; rerun under compute-sanitizer";
  }
}

}  // namespace

std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                                const std::string& detail) {
  return fmt::format("CUDA error {} ({}) in {}{} at {}:{}; what to do: {}", cudaGetErrorName(code),
                     cudaGetErrorString(code), call, detail.empty() ? "" : " [" + detail + "]", file, line,
                     hint_for(code));
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line, const std::string& detail) {
  // Clear a non-sticky error so the next launch check does not report it again.
  (void)cudaGetLastError();
  throw CudaError(code, describe_cuda_error(code, call, file, line, detail));
}

void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  try {
    std::fprintf(stderr, "hdbench: %s\n", describe_cuda_error(code, call, file, line).c_str());
  } catch (...) {
    std::fprintf(stderr, "hdbench: CUDA error %d in %s\n", static_cast<int>(code), call);
  }
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  HDBENCH_CUDA_CHECK_DETAIL(cudaMalloc(&ptr_, bytes), fmt::format("{} bytes of device memory", bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Stream::Stream(const std::string& nvtx_name, unsigned flags) {
  HDBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
  if (!nvtx_name.empty()) nvtx::name_stream(stream_, nvtx_name);
}

Stream::~Stream() {
  if (stream_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event(unsigned flags) { HDBENCH_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }

Event::~Event() {
  if (event_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaEventDestroy(event_));
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) const { HDBENCH_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void Event::synchronize() const { HDBENCH_CUDA_CHECK(cudaEventSynchronize(event_)); }

GraphExec GraphExec::capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  // Thread-local mode: other threads' unrelated CUDA calls do not invalidate the capture.
  HDBENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  GraphExec result;
  try {
    enqueue();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(stream, &partial);
    if (partial != nullptr) (void)cudaGraphDestroy(partial);
    (void)cudaGetLastError();
    throw;
  }
  HDBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &result.graph_));
  HDBENCH_CUDA_CHECK(cudaGraphInstantiate(&result.exec_, result.graph_, 0));
  return result;
}

GraphExec::~GraphExec() {
  if (exec_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
  if (graph_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph_));
}

GraphExec::GraphExec(GraphExec&& other) noexcept
    : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    GraphExec old(std::move(*this));
    graph_ = std::exchange(other.graph_, nullptr);
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}

void GraphExec::launch(cudaStream_t stream) const { HDBENCH_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

std::size_t GraphExec::node_count() const {
  std::size_t count = 0;
  HDBENCH_CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &count));
  return count;
}

float elapsed_ms(const Event& start, const Event& stop) {
  stop.synchronize();
  float ms = 0.0F;
  HDBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

void fill_device_bytes(void* device_ptr, int value, std::size_t bytes) {
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(device_ptr, value, bytes, cudaStreamLegacy));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

void upload_bytes(void* device_dst, const void* host_src, std::size_t bytes) {
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

DeviceMemoryInfo device_memory_info() {
  DeviceMemoryInfo info;
  HDBENCH_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

}  // namespace hdbench
