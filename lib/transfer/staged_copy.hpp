// Copying pageable memory to and from the GPU through rings of pinned chunks: each host
// thread (a lane) takes whole chunks of its own (chunk i goes to lane i % threads) and
// memcpys one into a pinned slot of its ring while the copy engine moves its previous
// ones, issued on the lane's own stream. No lane ever waits for another: a barrier
// across the threads at every chunk (each chunk split over all of them) held the copy to
// 0.59-0.74 of its bound on the H100 host. It is what a user can do when pinning the
// whole buffer is not an option, and what the driver does internally for pageable
// copies, with our chunk size and thread count instead of its own.
//
// The ends of the pipeline are ramped. With whole chunks an H2D copy's engine sat idle
// until the first chunk was in a slot, and with every lane memcpying at once that is
// every lane's first chunk: 16 lanes of 4 MiB on the H200 host of 2026-11-26 filled for
// about 0.7 ms of a 1.3 ms copy of 64 MiB (0.70 of the DMA bound; 0.86 at 256 MiB). So a
// lane's first H2D chunk goes in growing pieces (a sixteenth first, ramp_pieces) and the
// engine starts after 16 sixteenths. A D2H copy ended with one thread memcpying a whole
// chunk after the last DMA (4 MiB at a thread's 13 GB/s: 0.3 ms; 0.75 of the bound at
// 64 MiB): a lane's last D2H chunk comes in shrinking pieces, each drained once its own
// DMA is done. Pieces stop halving at kMinStagedPiece, where a DMA's fixed cost of a few
// microseconds would begin to show. A fluid model of an H2D copy's two stages (the host's memcpy
// bandwidth shared by the lanes, the DMAs first come first served at a fixed cost each)
// gives 0.64 / 0.87 of the bound at 64 / 256 MiB with whole chunks (0.70 / 0.86 measured)
// and 0.85-0.93 / 0.94-0.97 ramped, for 0.5-2 µs a DMA; four halvings did best over
// that range (two: 0.82-0.86 at 64 MiB). Not yet measured.
#pragma once

#include <cstddef>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/thread_team.hpp"

namespace hdbench {

inline constexpr std::size_t kMinStagedPiece = 64u << 10;
inline constexpr int kRampedPieces = 5;  // a ramped chunk's pieces at most: four halvings

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
    std::vector<Event> done;        // the DMA that last used each slot
    std::vector<Event> piece_done;  // each piece of a D2H copy's last chunk (kRampedPieces)
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
