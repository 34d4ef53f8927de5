#include "transfer/staged_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>

#include "core/chunking.hpp"
#include "core/nvtx.hpp"
#include "transfer/transfer_description.hpp"

namespace hdbench {

StagedCopier::StagedCopier(const StagedCopyConfig& config)
    : config_(config), stream_("staged"), team_(std::max(1, config.threads), "staged") {
  if (config.chunk_bytes == 0 || config.slots < 1 || config.threads < 1) {
    throw std::invalid_argument("StagedCopier: chunk size, thread count and slot count must be positive");
  }
  slots_per_lane_ = std::max(2, config.slots / config.threads);
  for (int t = 0; t < config.threads; ++t) {
    Lane lane{Stream(fmt::format("staged/lane {}", t)), {}, {}, {}};
    for (int s = 0; s < slots_per_lane_; ++s) {
      lane.slots.emplace_back(HostMemoryKind::pinned, config.chunk_bytes);
      lane.done.emplace_back(cudaEventDisableTiming);
    }
    for (int p = 0; p < kRampedPieces; ++p) lane.piece_done.emplace_back(cudaEventDisableTiming);
    lanes_.push_back(std::move(lane));
  }
}

int StagedCopier::lane_of(std::size_t chunk) const noexcept {
  return static_cast<int>(chunk % static_cast<std::size_t>(config_.threads));
}

void* StagedCopier::slot_of(std::size_t chunk) const noexcept {
  const std::size_t round = chunk / static_cast<std::size_t>(config_.threads);
  return lanes_[static_cast<std::size_t>(lane_of(chunk))]
      .slots[round % static_cast<std::size_t>(slots_per_lane_)]
      .data();
}

void StagedCopier::host_to_device(void* device_dst, const void* pageable_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(pageable_src);
  auto* dst = static_cast<unsigned char*>(device_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  const auto threads = static_cast<std::size_t>(config_.threads);
  team_.run(config_.threads, [&](int lane_index) {
    Lane& lane = lanes_[static_cast<std::size_t>(lane_index)];
    std::size_t used = 0;  // chunks this lane has issued
    for (std::size_t i = static_cast<std::size_t>(lane_index); i < chunks.size(); i += threads, ++used) {
      const std::size_t s = used % static_cast<std::size_t>(slots_per_lane_);
      if (used >= static_cast<std::size_t>(slots_per_lane_)) lane.done[s].synchronize();  // its last DMA is done
      auto* slot = static_cast<unsigned char*>(lane.slots[s].data());
      // The lane's first chunk in growing pieces: the copy engine starts after a sixteenth of
      // a chunk, not after every lane's whole first chunk (staged_copy.hpp).
      const std::vector<Chunk> pieces =
          used == 0 ? ramp_pieces(chunks[i], kMinStagedPiece, false, kRampedPieces - 1) : std::vector{chunks[i]};
      for (const Chunk& piece : pieces) {
        unsigned char* staged = slot + (piece.offset - chunks[i].offset);
        {
          nvtx::ScopedRange range(kStagedNvtx, "staged/h2d/memcpy", piece.bytes);
          std::memcpy(staged, src + piece.offset, piece.bytes);
        }
        HDBENCH_CUDA_CHECK(
            cudaMemcpyAsync(dst + piece.offset, staged, piece.bytes, cudaMemcpyHostToDevice, lane.stream.get()));
      }
      lane.done[s].record(lane.stream.get());
    }
    lane.stream.synchronize();
  });
}

void StagedCopier::device_to_host(void* pageable_dst, const void* device_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(device_src);
  auto* dst = static_cast<unsigned char*>(pageable_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  const auto threads = static_cast<std::size_t>(config_.threads);
  const auto per_lane = static_cast<std::size_t>(slots_per_lane_);
  team_.run(config_.threads, [&](int lane_index) {
    Lane& lane = lanes_[static_cast<std::size_t>(lane_index)];
    const auto first = static_cast<std::size_t>(lane_index);
    const std::size_t mine = first < chunks.size() ? (chunks.size() - first + threads - 1) / threads : 0;
    // The lane's last chunk in shrinking pieces, each with an event of its own: the host
    // drains all but the last sixteenth while the copy engine moves the rest, so the copy
    // ends a small piece's memcpy after the last DMA, not a whole chunk's (staged_copy.hpp).
    const std::vector<Chunk> last_pieces =
        mine == 0 ? std::vector<Chunk>{}
                  : ramp_pieces(chunks[first + (mine - 1) * threads], kMinStagedPiece, true, kRampedPieces - 1);
    // The lane's k-th chunk is chunk first + k * threads, in slot k % per_lane: whole, with
    // its slot's event, or the last one in its pieces, each with an event of its own.
    const auto pieces_of = [&](std::size_t k) {
      return k + 1 < mine ? std::span<const Chunk>(&chunks[first + k * threads], 1)
                          : std::span<const Chunk>(last_pieces);
    };
    const auto event_of = [&](std::size_t k, std::size_t p) -> Event& {
      return k + 1 < mine ? lane.done[k % per_lane] : lane.piece_done[p];
    };
    const auto staged = [&](std::size_t k, const Chunk& piece) {
      return static_cast<unsigned char*>(slot_of(first + k * threads)) +
             (piece.offset - chunks[first + k * threads].offset);
    };
    const auto issue = [&](std::size_t k) {
      const std::span<const Chunk> pieces = pieces_of(k);
      for (std::size_t p = 0; p < pieces.size(); ++p) {
        HDBENCH_CUDA_CHECK(cudaMemcpyAsync(staged(k, pieces[p]), src + pieces[p].offset, pieces[p].bytes,
                                           cudaMemcpyDeviceToHost, lane.stream.get()));
        event_of(k, p).record(lane.stream.get());
      }
    };
    // Every slot's DMA in flight; drain chunk k while the next ones are moving.
    for (std::size_t k = 0; k < mine && k < per_lane; ++k) issue(k);
    for (std::size_t k = 0; k < mine; ++k) {
      const std::span<const Chunk> pieces = pieces_of(k);
      for (std::size_t p = 0; p < pieces.size(); ++p) {
        event_of(k, p).synchronize();
        nvtx::ScopedRange range(kStagedNvtx, "staged/d2h/memcpy", pieces[p].bytes);
        std::memcpy(dst + pieces[p].offset, staged(k, pieces[p]), pieces[p].bytes);
      }
      if (k + per_lane < mine) issue(k + per_lane);
    }
  });
}

void StagedCopier::memcpy_only(const void* pageable_src, void* pageable_dst, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(pageable_src);
  auto* dst = static_cast<unsigned char*>(pageable_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  const auto threads = static_cast<std::size_t>(config_.threads);
  team_.run(config_.threads, [&](int lane_index) {
    for (std::size_t i = static_cast<std::size_t>(lane_index); i < chunks.size(); i += threads) {
      void* slot = slot_of(i);
      if (src != nullptr) {
        std::memcpy(slot, src + chunks[i].offset, chunks[i].bytes);
      } else {
        std::memcpy(dst + chunks[i].offset, slot, chunks[i].bytes);
      }
    }
  });
}

void StagedCopier::dma_only(const void* device_src, void* device_dst, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(device_src);
  auto* dst = static_cast<unsigned char*>(device_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    void* slot = slot_of(i);
    if (dst != nullptr) {
      HDBENCH_CUDA_CHECK(
          cudaMemcpyAsync(dst + chunks[i].offset, slot, chunks[i].bytes, cudaMemcpyHostToDevice, stream_.get()));
    } else {
      HDBENCH_CUDA_CHECK(
          cudaMemcpyAsync(slot, src + chunks[i].offset, chunks[i].bytes, cudaMemcpyDeviceToHost, stream_.get()));
    }
  }
  stream_.synchronize();
}

}  // namespace hdbench
