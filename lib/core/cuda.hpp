// Checked CUDA calls and move-only RAII owners for device buffers, streams and events.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace hdbench {

// Thrown by HDBENCH_CUDA_CHECK: carries the error code so callers can tell
// "out of memory" (skip the configuration) from a real failure.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// "cudaErrorX (description) in CALL at FILE:LINE; what to do: HINT"
// `detail` names the values involved, e.g. "2GiB requested".
std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                                const std::string& detail = {});
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                                   const std::string& detail = {});
void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace hdbench

#define HDBENCH_CUDA_CHECK(call)                                                                                 \
  do {                                                                                                           \
    const cudaError_t hdbench_status_ = (call);                                                                  \
    if (hdbench_status_ != cudaSuccess) ::hdbench::throw_cuda_error(hdbench_status_, #call, __FILE__, __LINE__); \
  } while (0)

// The same, with the values involved in the message: HDBENCH_CUDA_CHECK_DETAIL(
// cudaMalloc(&p, n), format_size(n) + " requested").
#define HDBENCH_CUDA_CHECK_DETAIL(call, detail)                                          \
  do {                                                                                   \
    const cudaError_t hdbench_status_ = (call);                                          \
    if (hdbench_status_ != cudaSuccess)                                                  \
      ::hdbench::throw_cuda_error(hdbench_status_, #call, __FILE__, __LINE__, (detail)); \
  } while (0)

// For destructors: reports the failure on stderr and carries on.
#define HDBENCH_CUDA_CHECK_NOTHROW(call)                                                                       \
  do {                                                                                                         \
    const cudaError_t hdbench_status_ = (call);                                                                \
    if (hdbench_status_ != cudaSuccess) ::hdbench::log_cuda_error(hdbench_status_, #call, __FILE__, __LINE__); \
  } while (0)

namespace hdbench {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return bytes_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  // Non-blocking by default so the legacy default stream never serialises it.
  explicit Stream(const std::string& nvtx_name = {}, unsigned flags = cudaStreamNonBlocking);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const noexcept { return event_; }
  void record(cudaStream_t stream) const;
  void synchronize() const;

 private:
  cudaEvent_t event_ = nullptr;
};

// A CUDA graph captured from a stream and instantiated, ready to replay.
class GraphExec {
 public:
  GraphExec() = default;
  // Captures what `enqueue` queues on `stream` (and on streams forked from it through
  // events, which must join back) and instantiates it. If `enqueue` throws, the
  // capture is ended and discarded so the stream stays usable, and the error passes on.
  static GraphExec capture(cudaStream_t stream, const std::function<void()>& enqueue);
  ~GraphExec();
  GraphExec(GraphExec&& other) noexcept;
  GraphExec& operator=(GraphExec&& other) noexcept;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  void launch(cudaStream_t stream) const;
  std::size_t node_count() const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Sets `bytes` of device memory to `value` and waits until they are set. A plain
// cudaMemset runs on the legacy default stream and may return before it lands; work on a
// non-blocking stream (hdbench's streams are) does not wait for it, so the fill can land
// after that work and corrupt it (seen under compute-sanitizer on an H100). Use this,
// or cudaMemsetAsync on the stream that uses the buffer; tests/python/tools/test_cuda_usage.py
// checks that no code calls cudaMemset directly.
void fill_device_bytes(void* device_ptr, int value, std::size_t bytes);

// Copies `bytes` from host to device memory and waits until they have landed. A plain
// cudaMemcpy from pageable memory may return once the bytes are staged, before the DMA
// lands, and a non-blocking stream's next kernel does not wait for it. The same check
// keeps host-to-device cudaMemcpy calls out of the code.
void upload_bytes(void* device_dst, const void* host_src, std::size_t bytes);

// Milliseconds between two recorded events (waits for `stop`).
float elapsed_ms(const Event& start, const Event& stop);

// Free and total device memory of the current device, in bytes.
struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
DeviceMemoryInfo device_memory_info();

}  // namespace hdbench
