#include "transfer/staged_copy.hpp"

#include <stdexcept>

#include "core/chunking.hpp"
#include "core/nvtx.hpp"

namespace hdbench {

StagedCopier::StagedCopier(const StagedCopyConfig& config)
    : config_(config), stream_("staged"), pool_(config.threads, "staged") {
  if (config.chunk_bytes == 0 || config.slots < 1) {
    throw std::invalid_argument("StagedCopier: chunk size and slot count must be positive");
  }
  for (int i = 0; i < config.slots; ++i) {
    slots_.emplace_back(HostMemoryKind::pinned, config.chunk_bytes);
    slot_done_.emplace_back(cudaEventDisableTiming);
  }
  slot_busy_.assign(static_cast<std::size_t>(config.slots), false);
}

void StagedCopier::host_to_device(void* device_dst, const void* pageable_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(pageable_src);
  auto* dst = static_cast<unsigned char*>(device_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::size_t s = i % slots_.size();
    if (slot_busy_[s]) slot_done_[s].synchronize();
    {
      nvtx::ScopedRange range(nvtx::Family::staged, "staged/h2d/memcpy", chunks[i].bytes);
      pool_.copy(slots_[s].data(), src + chunks[i].offset, chunks[i].bytes);
    }
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(dst + chunks[i].offset, slots_[s].data(), chunks[i].bytes,
                                       cudaMemcpyHostToDevice, stream_.get()));
    slot_done_[s].record(stream_.get());
    slot_busy_[s] = true;
  }
  stream_.synchronize();
  slot_busy_.assign(slot_busy_.size(), false);
}

void StagedCopier::device_to_host(void* pageable_dst, const void* device_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(device_src);
  auto* dst = static_cast<unsigned char*>(pageable_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  const auto issue = [&](std::size_t i) {
    const std::size_t s = i % slots_.size();
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(slots_[s].data(), src + chunks[i].offset, chunks[i].bytes,
                                       cudaMemcpyDeviceToHost, stream_.get()));
    slot_done_[s].record(stream_.get());
  };
  // Keep every slot's DMA in flight; drain chunk i while chunks i+1.. are moving.
  for (std::size_t i = 0; i < chunks.size() && i < slots_.size(); ++i) issue(i);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::size_t s = i % slots_.size();
    slot_done_[s].synchronize();
    {
      nvtx::ScopedRange range(nvtx::Family::staged, "staged/d2h/memcpy", chunks[i].bytes);
      pool_.copy(dst + chunks[i].offset, slots_[s].data(), chunks[i].bytes);
    }
    if (i + slots_.size() < chunks.size()) issue(i + slots_.size());
  }
}

void StagedCopier::memcpy_only(const void* pageable_src, void* pageable_dst, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(pageable_src);
  auto* dst = static_cast<unsigned char*>(pageable_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    void* slot = slots_[i % slots_.size()].data();
    if (src != nullptr) {
      pool_.copy(slot, src + chunks[i].offset, chunks[i].bytes);
    } else {
      pool_.copy(dst + chunks[i].offset, slot, chunks[i].bytes);
    }
  }
}

void StagedCopier::dma_only(const void* device_src, void* device_dst, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(device_src);
  auto* dst = static_cast<unsigned char*>(device_dst);
  const std::vector<Chunk> chunks = plan_chunks(bytes, config_.chunk_bytes);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    void* slot = slots_[i % slots_.size()].data();
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
