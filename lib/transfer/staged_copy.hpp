// Copying pageable memory to and from the GPU through rings of pinned chunks: each host
// thread (a lane) takes whole chunks of its own (chunk i goes to lane i % threads) and
// memcpys one into a pinned slot of its ring while the copy engine moves its previous
// ones, issued on the lane's own stream. No lane ever waits for another: a barrier
// across the threads at every chunk (each chunk split over all of them) held the copy to
// 0.59-0.74 of its bound on the H100 host. It is what a user can do when pinning the
// whole buffer is not an option, and what the driver does internally for pageable
// copies, with our chunk size and thread count instead of its own.
#pragma once

#include <cstddef>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/thread_team.hpp"

namespace hdbench {

struct StagedCopyConfig {
  std::size_t chunk_bytes = 4u << 20;
  int threads = 1;  // host threads, each with a ring and a stream of its own
  int slots = 4;    // pinned chunks in all, shared out over the threads (2 a thread at least)
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
  // buffer and the rings' slots with no DMA, every lane at once (into the rings for H2D,
  // out of them for D2H), and the DMA between the slots and the device with no memcpy.
  // Both map chunk i to the same slot as the copy does, so with rings that hold the
  // whole buffer the two halves compose into the copy.
  void memcpy_only(const void* pageable_src, void* pageable_dst, std::size_t bytes);  // one of the two: nullptr
  void dma_only(const void* device_src, void* device_dst, std::size_t bytes);         // one of the two: nullptr

  cudaStream_t stream() const noexcept { return stream_.get(); }
  int slots_per_lane() const noexcept { return slots_per_lane_; }

 private:
  struct Lane {
    Stream stream;
    std::vector<HostBuffer> slots;
    std::vector<Event> done;  // the DMA that last used each slot
  };
  // Chunk i's lane and slot.
  int lane_of(std::size_t chunk) const noexcept;
  void* slot_of(std::size_t chunk) const noexcept;

  StagedCopyConfig config_;
  int slots_per_lane_ = 2;
  Stream stream_;  // the halves' DMA, and what callers order their own work on
  std::vector<Lane> lanes_;
  ThreadTeam team_;
};

}  // namespace hdbench
