// The CUDA calls hdbench_profile keeps, recorded through CUPTI's callback API rather
// than its runtime activity records: only the kept calls (trace_records.hpp's
// kept_api_call: copies, memsets, synchronisations, pinned allocations and frees, and
// the launches) are subscribed to, so the hundreds of other runtime calls a framework
// makes a step (cudaGetDevice, cudaStreamIsCapturing, ...) cost it nothing.
//
// Each kept call's entry takes a CUPTI timestamp (the clock of the activity records)
// into the call's own correlation slot; its exit appends an api record (name as
// called, OS thread id, CUPTI's correlation id, which the copy and kernel records
// carry too) to the calling thread's HostRecordBuffers buffer.
//
// With driver launches on, cuLaunchKernel and cuLaunchKernelEx are recorded too (Triton
// and some libraries launch through the driver), except inside a kept runtime call on
// the same thread: the runtime's own launch reaches the driver, and its record is the
// runtime call's. A driver launch's correlation id is the driver's: the kernel it
// launched carries the same one.
//
// CUPTI allows one subscriber per process (Nsight Systems is one): the constructor then
// throws TraceUnavailable with the reason.
#pragma once

#include <cstddef>
#include <memory>

#include "trace/host_records.hpp"

namespace hdbench::trace {

class ApiCallbacks {
 public:
  // Subscribes; throws TraceUnavailable (trace_recorder.hpp) with the reason. `buffers`
  // must outlive this object.
  ApiCallbacks(HostRecordBuffers& buffers, bool driver_launches);
  // Unsubscribes. Only when no CUDA call may be in flight on another thread (the
  // injection library never destroys its own; it calls stop()).
  ~ApiCallbacks();
  ApiCallbacks(const ApiCallbacks&) = delete;
  ApiCallbacks& operator=(const ApiCallbacks&) = delete;

  // Calls subscribed to: runtime and driver callback ids.
  std::size_t runtime_calls() const noexcept;
  std::size_t driver_calls() const noexcept;
  // Unsubscribes (a call in flight may still finish its record).
  void stop() noexcept;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace hdbench::trace
