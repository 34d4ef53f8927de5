// Records what the GPU did while hdbench ran, through CUPTI's activity API: memory
// copies (with the kinds of memory at both ends), memsets and kernels, optionally
// every CUDA runtime call, plus hdbench's own NVTX ranges and stream and thread names
// (as an nvtx::Observer). The records feed the Chrome trace (trace_writer) and the
// GPU activity figures (trace_analysis).
//
// CUPTI is process-wide: one Recorder at a time. It must outlive every thread that
// opens an NVTX range while it records.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/nvtx.hpp"
#include "trace/trace_records.hpp"

namespace hdbench::trace {

// CUPTI could not start (no GPU or driver, another profiler attached, no permission
// to profile); the message says which and what to do.
class TraceUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// False when hdbench was built without CUPTI: --hdbench_trace is then a usage error.
bool cupti_built_in() noexcept;

class Recorder final : public nvtx::Observer {
 public:
  // Starts recording; throws TraceUnavailable with the reason. With a `sink` (which
  // must outlive the recorder), records go there batch by batch as CUPTI completes
  // its buffers, and finish() returns none: memory stays bounded by a buffer.
  explicit Recorder(bool api_calls, RecordSink* sink = nullptr);
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Stops recording, flushes CUPTI's buffers and returns every record, by start time
  // (none with a sink: the sink has them).
  std::vector<Record> finish();
  // Hands everything recorded so far to the sink (CUPTI's buffers forced out): call
  // between benchmarks, never in a timed region.
  void flush();
  // Names of streams and threads seen, and the time the recording began.
  TraceMetadata metadata(const std::string& host_name, const std::vector<std::string>& gpu_names) const;
  // Records CUPTI could not keep (its buffers were full).
  std::size_t dropped_records() const;
  // Why the sink failed, empty when it did not.
  std::string sink_error() const;

  std::uint64_t now_ns() noexcept override;
  void range(std::uint64_t thread, const std::string& name, std::uint64_t bytes, std::uint64_t start_ns,
             std::uint64_t end_ns) noexcept override;
  void thread_named(std::uint64_t thread, const std::string& name) noexcept override;
  void stream_named(cudaStream_t stream, const std::string& name) noexcept override;

  // Called by CUPTI's buffer callback (any thread).
  void add_records(std::vector<Record> records, std::size_t dropped);

 private:
  // With a sink, NVTX ranges wait in records_ for the next CUPTI buffer or flush, or
  // until this many are waiting (then the thread that ends one hands them over).
  static constexpr std::size_t kRangesHandedOver = 16384;
  void hand_over(std::vector<Record>& records) noexcept;

  RecordSink* sink_ = nullptr;
  std::string sink_error_;  // the first failure of the sink (disk full): recording stops there
  mutable std::mutex mutex_;
  std::vector<Record> records_;  // everything (no sink), or the ranges waiting
  std::map<std::uint32_t, std::string> stream_names_;
  std::map<std::uint64_t, std::string> thread_names_;
  std::uint64_t origin_ns_ = 0;
  std::size_t dropped_ = 0;
  bool recording_ = false;
};

}  // namespace hdbench::trace
