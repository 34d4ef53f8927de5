// NVTX conventions of hdbench: one domain ("hdbench"), a category and colour per
// family, ranges named "<benchmark>/<phase>" with the byte count as payload, and
// named streams and threads. Every call is a no-op unless a tool injects itself.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace hdbench::nvtx {

inline constexpr const char* kDomainName = "hdbench";

// Category ids of the domain; each family owns one and a colour.
enum class Family : std::uint32_t {
  transfer = 1,
  pinning = 2,
  staged = 3,
  host_memcpy = 4,
  streams = 5,
  loader = 6,
  mlp = 7,
  device_local = 8,
  latency = 9,
  managed = 10,
  batch_copy = 11,
  strided = 12,
};

inline constexpr Family kAllFamilies[] = {Family::transfer, Family::pinning, Family::staged,     Family::host_memcpy,
                                          Family::streams,  Family::loader,  Family::mlp,        Family::device_local,
                                          Family::latency,  Family::managed, Family::batch_copy, Family::strided};

const char* family_name(Family family) noexcept;
std::uint32_t family_color(Family family) noexcept;  // ARGB

// Receives hdbench's ranges and names while it is set, from any thread: the CUPTI
// trace recorder (trace/) is one, so its timeline shows the ranges Nsight would. It
// must stay alive until every thread that may open a range has finished.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual std::uint64_t now_ns() noexcept = 0;  // the observer's clock, for range bounds
  virtual void range(std::uint64_t thread, const std::string& name, std::uint64_t bytes, std::uint64_t start_ns,
                     std::uint64_t end_ns) noexcept = 0;
  virtual void thread_named(std::uint64_t thread, const std::string& name) noexcept = 0;
  virtual void stream_named(cudaStream_t stream, const std::string& name) noexcept = 0;
};
// nullptr stops observing. Ranges open when it changes are reported to the observer
// they started with.
void set_observer(Observer* observer) noexcept;

// Pushes a range on construction and pops it on destruction.
class ScopedRange {
 public:
  ScopedRange(Family family, const std::string& name, std::uint64_t bytes = 0) noexcept;
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
  ScopedRange(ScopedRange&&) = delete;
  ScopedRange& operator=(ScopedRange&&) = delete;

 private:
  Observer* observer_ = nullptr;  // set when observed: then the range is kept for it
  std::string name_;
  std::uint64_t bytes_ = 0;
  std::uint64_t start_ns_ = 0;
};

// The calling OS thread's id (what name_current_thread names).
std::uint64_t current_thread_id() noexcept;

// Names the calling OS thread, e.g. "loader/worker 3".
void name_current_thread(const std::string& name) noexcept;
// Names a stream, e.g. "h2d", so timelines read without a legend.
void name_stream(cudaStream_t stream, const std::string& name) noexcept;

}  // namespace hdbench::nvtx
