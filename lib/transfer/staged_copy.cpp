#include "transfer/staged_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
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
    Lane lane{Stream(fmt::format("staged/lane {}", t)), {}, {}};
    for (int s = 0; s < slots_per_lane_; ++s) {
      lane.slots.emplace_back(HostMemoryKind::pinned, config.chunk_bytes);
      lane.done.emplace_back(cudaEventDisableTiming);
    }
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
      {
        nvtx::ScopedRange range(kStagedNvtx, "staged/h2d/memcpy", chunks[i].bytes);
        std::memcpy(lane.slots[s].data(), src + chunks[i].offset, chunks[i].bytes);
      }
      HDBENCH_CUDA_CHECK(cudaMemcpyAsync(dst + chunks[i].offset, lane.slots[s].data(), chunks[i].bytes,
                                         cudaMemcpyHostToDevice, lane.stream.get()));
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
    // The lane's k-th chunk is chunk first + k * threads, in slot k % per_lane.
    const auto issue = [&](std::size_t k) {
      const std::size_t i = first + k * threads;
      const std::size_t s = k % per_lane;
      HDBENCH_CUDA_CHECK(cudaMemcpyAsync(lane.slots[s].data(), src + chunks[i].offset, chunks[i].bytes,
                                         cudaMemcpyDeviceToHost, lane.stream.get()));
      lane.done[s].record(lane.stream.get());
    };
    const std::size_t mine = first < chunks.size() ? (chunks.size() - first + threads - 1) / threads : 0;
    // Every slot's DMA in flight; drain chunk k while the next ones are moving.
    for (std::size_t k = 0; k < mine && k < per_lane; ++k) issue(k);
    for (std::size_t k = 0; k < mine; ++k) {
      const std::size_t i = first + k * threads;
      const std::size_t s = k % per_lane;
      lane.done[s].synchronize();
      {
        nvtx::ScopedRange range(kStagedNvtx, "staged/d2h/memcpy", chunks[i].bytes);
        std::memcpy(dst + chunks[i].offset, lane.slots[s].data(), chunks[i].bytes);
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
