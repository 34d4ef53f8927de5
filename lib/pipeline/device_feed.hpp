// Moves loader batches to the device, the way a training loop should: each batch is
// copied asynchronously on a copy stream ("loader/copy") into one of two device
// buffers, the consumer's stream waits for that copy through an event, and the
// loader's host slot is released with a fence on the copy's completion, so the next
// batch can be built while this one is in flight and no slot is overwritten early.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "pipeline/loader.hpp"

namespace hdbench {

// The event a loader slot's fence waits on: blocking sync, so a builder waiting for the
// copy that last read its slot sleeps instead of spinning (cudaEventSynchronize spins by
// default) on a core the consumer, which issues every copy, may need. On the H100 host the
// consumer's time read 80 µs a batch with 16 workers against 39 with 8, with batches
// waiting; builders spinning in fences was the suspect. That reading counted the epoch's
// drain (the device finishing queued copies) as the consumer's: the benchmark's
// consumer_us_per_batch leaves it out since 2026-11-27 (epoch_drain_us).
Event slot_fence_event();

struct DeviceBatch {
  const void* data = nullptr;  // device memory: images (float) then labels (int32)
  std::size_t bytes = 0;
  std::size_t samples = 0;
  std::size_t index = 0;  // the batch's index in its epoch
  int buffer = 0;         // which of the feed's two device buffers
};

class DeviceFeed {
 public:
  // Buffers for batches up to `max_batch_bytes`; one fence event per loader slot.
  DeviceFeed(std::size_t max_batch_bytes, std::size_t loader_slots, std::string nvtx_prefix = "loader");
  ~DeviceFeed();
  DeviceFeed(const DeviceFeed&) = delete;
  DeviceFeed& operator=(const DeviceFeed&) = delete;

  // Queues the H2D copy of `batch`, makes `consumer` wait for it, and releases the
  // batch's loader slot with a fence on the copy. The returned buffer holds the batch
  // for work queued on `consumer` until consumed() is called for it.
  DeviceBatch push(Loader& loader, const Batch& batch, cudaStream_t consumer);
  // All work reading `batch` is queued on `consumer`; its buffer may be refilled after it.
  void consumed(const DeviceBatch& batch, cudaStream_t consumer);
  // Waits until every copy queued so far has finished.
  void synchronize() const;

 private:
  std::string nvtx_prefix_;
  Stream copy_;
  DeviceBuffer buffers_[2];
  Event consumed_[2]{Event(cudaEventDisableTiming), Event(cudaEventDisableTiming)};
  // One per loader slot, recorded after the slot's copy. Shared with the fences the
  // loader keeps, which may run after this feed is gone.
  std::shared_ptr<std::vector<Event>> slot_copied_;
  int next_buffer_ = 0;
};

}  // namespace hdbench
