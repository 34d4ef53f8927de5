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
};

inline constexpr Family kAllFamilies[] = {Family::transfer,    Family::pinning, Family::staged, Family::host_memcpy,
                                          Family::streams, Family::loader,  Family::mlp};

const char* family_name(Family family) noexcept;
std::uint32_t family_color(Family family) noexcept;  // ARGB

// Pushes a range on construction and pops it on destruction.
class ScopedRange {
 public:
  ScopedRange(Family family, const std::string& name, std::uint64_t bytes = 0) noexcept;
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
  ScopedRange(ScopedRange&&) = delete;
  ScopedRange& operator=(ScopedRange&&) = delete;
};

// Names the calling OS thread, e.g. "loader/worker 3".
void name_current_thread(const std::string& name) noexcept;
// Names a stream, e.g. "h2d", so timelines read without a legend.
void name_stream(cudaStream_t stream, const std::string& name) noexcept;

}  // namespace hdbench::nvtx
