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

  // Each half of the copy alone over `bytes`, for the bound a staged copy is rated
  // against (it cannot beat the slower half): the host memcpy between the pageable
  // buffer and the ring's slots with no DMA (into the ring for H2D, out of it for D2H),
  // and the DMA between the slots and the device with no memcpy. The slots' contents
  // are not meaningful afterwards; a staged copy overwrites them.
  void memcpy_only(const void* pageable_src, void* pageable_dst, std::size_t bytes);  // one of the two: nullptr
  void dma_only(const void* device_src, void* device_dst, std::size_t bytes);         // one of the two: nullptr

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
