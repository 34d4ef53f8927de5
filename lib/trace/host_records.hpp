// Host records (API calls, NVTX ranges) collected on the program's own threads, each
// thread into a buffer of its own, and handed to a RecordSink in batches: what a CUPTI
// callback or an NVTX pop pays is a push onto an uncontended per-thread buffer, not a
// process-wide lock, and never JSON or a file (the sink does that on a thread of its own).
//
// A thread's buffer goes to the sink when it holds `batch` records, when the thread
// exits, and at flush_all() (process exit: every thread's buffer, the registry keeps
// them all). After stop(), appends are ignored.
//
// Thread ids are the OS's (gettid), taken once per thread: the same ids NVTX ranges
// and thread names use.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "trace/trace_records.hpp"

namespace hdbench::trace {

// The calling thread's OS id (gettid), cached per thread.
std::uint64_t os_thread_id() noexcept;

class HostRecordBuffers {
 public:
  static constexpr std::size_t kDefaultBatch = 4096;

  // `sink` must outlive this object (or its stop()).
  explicit HostRecordBuffers(RecordSink& sink, std::size_t batch = kDefaultBatch);
  // Flushes every thread's buffer and detaches them (a thread that exits later hands
  // nothing over).
  ~HostRecordBuffers();
  HostRecordBuffers(const HostRecordBuffers&) = delete;
  HostRecordBuffers& operator=(const HostRecordBuffers&) = delete;

  // A finished API call on the calling thread.
  void api(const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t correlation) noexcept;
  // A finished NVTX range on the calling thread.
  void range(const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns) noexcept;

  // Hands every thread's buffer to the sink now (from any thread).
  void flush_all() noexcept;
  // Appends from now on are ignored (what is buffered stays until flush_all).
  void stop() noexcept { stopped_.store(true, std::memory_order_relaxed); }

  // Records appended but lost (out of memory).
  std::size_t lost() const noexcept { return lost_.load(std::memory_order_relaxed); }

  struct Buffer;  // one thread's records (host_records.cpp)

 private:
  void append(Record&& r) noexcept;
  Buffer& buffer_of_this_thread();

  RecordSink& sink_;
  const std::size_t batch_;
  const std::uint64_t id_;  // tells a thread's buffer for this object from one for an earlier object
  std::atomic<bool> stopped_{false};
  std::atomic<std::size_t> lost_{0};
  std::mutex registry_mutex_;
  std::vector<std::shared_ptr<Buffer>> registry_;  // every live thread's buffer
};

}  // namespace hdbench::trace
