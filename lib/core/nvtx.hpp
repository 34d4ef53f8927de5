// NVTX conventions of hdbench: one domain ("hdbench"), a category and colour per
// family, ranges named "<benchmark>/<phase>" with the byte count as payload, and
// named streams and threads. Every call is a no-op unless a tool injects itself.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace hdbench::nvtx {

inline constexpr const char* kDomainName = "hdbench";

// A family's category of the domain and its colour, declared with the family's
// description (core/family_description.hpp), never in a list here. The id is the
// FNV-1a hash of the name, so no list numbers the families; the domain names a
// category the first time a range of it is pushed.
struct Category {
  const char* name;
  std::uint32_t argb;  // opaque: 0xFF in the top byte
  constexpr std::uint32_t id() const noexcept {
    std::uint32_t hash = 2166136261u;
    for (const char* c = name; *c != '\0'; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 16777619u;
    return hash;
  }
};

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
  ScopedRange(const Category& category, const std::string& name, std::uint64_t bytes = 0) noexcept;
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
