// A managed (unified) buffer and the calls that move or place its pages: prefetch to
// the GPU or the host, and the advice a variant gives. Every call is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "managed/managed_options.hpp"

namespace hdbench {

// Why `device`'s managed memory cannot be measured as this family does (no managed
// memory, or no concurrent managed access: pre-Pascal, Windows, or a hypervisor that
// forbids it), or "" when it can.
std::string managed_unsupported_reason(int device);

class ManagedBuffer {
 public:
  explicit ManagedBuffer(std::size_t bytes);  // cudaMallocManaged(cudaMemAttachGlobal)
  ~ManagedBuffer();
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;

  void* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return bytes_; }

  // Moves the pages to `device`, or to the host when device < 0, in stream order.
  void prefetch(int device, cudaStream_t stream) const;
  // The advice of `variant` for `device` (none for demand and prefetch).
  void advise(ManagedVariant variant, int device) const;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace hdbench
