// Copying pageable memory to and from the GPU through a ring of pinned chunks: host
// threads memcpy chunk i into a pinned slot while the copy engine moves chunk i - 1.
// It is what a user can do when pinning the whole buffer is not an option, and it is
// what the driver does internally for pageable copies, with our chunk size and thread
// count instead of its own.
#pragma once

#include <cstddef>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "transfer/memcpy_pool.hpp"

namespace hdbench {

struct StagedCopyConfig {
  std::size_t chunk_bytes = 4u << 20;
  int threads = 1;  // host threads copying each chunk
  int slots = 4;    // pinned chunks in the ring (>= 2 for any overlap)
};

class StagedCopier {
 public:
  explicit StagedCopier(const StagedCopyConfig& config);

  // Both return when every byte has arrived. A slot is refilled only after the DMA
  // that reads it has completed (its event), so no chunk is overwritten in flight.
  void host_to_device(void* device_dst, const void* pageable_src, std::size_t bytes);
  void device_to_host(void* pageable_dst, const void* device_src, std::size_t bytes);

  cudaStream_t stream() const noexcept { return stream_.get(); }

 private:
  StagedCopyConfig config_;
  Stream stream_;
  std::vector<HostBuffer> slots_;
  std::vector<Event> slot_done_;
  std::vector<bool> slot_busy_;
  MemcpyPool pool_;
};

}  // namespace hdbench
