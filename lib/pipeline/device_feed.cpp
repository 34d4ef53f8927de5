#include "pipeline/device_feed.hpp"

#include <fmt/format.h>

#include "core/nvtx.hpp"
#include "pipeline/loader_nvtx.hpp"

namespace hdbench {

Event slot_fence_event() { return Event(cudaEventDisableTiming | cudaEventBlockingSync); }

DeviceFeed::DeviceFeed(std::size_t max_batch_bytes, std::size_t loader_slots, std::string nvtx_prefix)
    : nvtx_prefix_(std::move(nvtx_prefix)),
      copy_(nvtx_prefix_ + "/copy"),
      buffers_{DeviceBuffer(max_batch_bytes), DeviceBuffer(max_batch_bytes)},
      slot_copied_(std::make_shared<std::vector<Event>>()) {
  for (std::size_t i = 0; i < loader_slots; ++i) slot_copied_->push_back(slot_fence_event());
}

DeviceFeed::~DeviceFeed() { HDBENCH_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(copy_.get())); }

DeviceBatch DeviceFeed::push(Loader& loader, const Batch& batch, cudaStream_t consumer) {
  if (batch.slot < 0 || static_cast<std::size_t>(batch.slot) >= slot_copied_->size()) {
    throw std::out_of_range(
        fmt::format("DeviceFeed: loader slot {} but the feed was made for {} slots", batch.slot, slot_copied_->size()));
  }
  const int b = next_buffer_;
  next_buffer_ ^= 1;
  if (batch.bytes > buffers_[b].size()) {
    throw std::out_of_range(
        fmt::format("DeviceFeed: batch of {} bytes, buffers hold {}", batch.bytes, buffers_[b].size()));
  }
  // The buffer's previous batch must be fully read by the consumer before it is overwritten.
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), consumed_[b].get(), 0));
  {
    nvtx::ScopedRange range(kLoaderNvtx, fmt::format("{}/batch {}/copy", nvtx_prefix_, batch.index), batch.bytes);
    HDBENCH_CUDA_CHECK_DETAIL(
        cudaMemcpyAsync(buffers_[b].data(), batch.data, batch.bytes, cudaMemcpyHostToDevice, copy_.get()),
        fmt::format("batch {} of {} bytes from {} memory", batch.index, batch.bytes, to_string(batch.memory)));
  }
  // One event says the copy is done to both who wait for it: the consumer's stream
  // (the wait takes the event as recorded now) and the fence of the loader's slot.
  const Event& copied = (*slot_copied_)[static_cast<std::size_t>(batch.slot)];
  copied.record(copy_.get());
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(consumer, copied.get(), 0));
  loader.release([events = slot_copied_, event = copied.get()] { HDBENCH_CUDA_CHECK(cudaEventSynchronize(event)); });
  return DeviceBatch{buffers_[b].data(), batch.bytes, batch.samples, batch.index, b};
}

void DeviceFeed::consumed(const DeviceBatch& batch, cudaStream_t consumer) { consumed_[batch.buffer].record(consumer); }

void DeviceFeed::synchronize() const { copy_.synchronize(); }

}  // namespace hdbench
