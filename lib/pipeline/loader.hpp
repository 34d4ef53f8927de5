// The data loader: dataset → sampler → N worker threads building whole batches →
// a bounded ring of ready batches → the consumer. It is built the way a fast loader
// should be and can also be run the way PyTorch's is, so the two can be compared:
//
//   pageable    workers collate into pageable slots; the driver stages the copy.
//   pin_thread  PyTorch's pin_memory=True: workers collate into pageable slots and one
//               pin thread copies each batch into a pinned slot (an extra memcpy).
//   direct      workers collate straight into a ring of pinned slots; no extra copy.
//
// Each batch is built by one worker (whole, as PyTorch's workers do) or split in parts
// that the workers take in batch order (split). Whoever opens a batch first runs its
// slot's fence; the batch is ready when its last part is built.
//
// The consumer takes one batch at a time with next() and hands it back with
// release(fence). A fence (e.g. "wait for the event recorded after the H2D copy") is
// run by whoever reuses the slot next, so a slot is never overwritten while a copy
// still reads it. With 0 workers the consumer's own thread builds each batch inside
// next(), as PyTorch does with num_workers=0. With workers, a sampler thread shuffles the
// next epoch's order (epoch + 1, and epoch 0 from the start) while the current one runs,
// so start_epoch() of that epoch only takes it; any other epoch is shuffled there.
//
// Thread safety: next(), release(), start_epoch() and stop() belong to one consumer
// thread. Destroying the loader stops and joins every thread it started, mid-epoch
// or not; the memory it holds goes with it. When the benchmark in flight is cancelled
// (its deadline or the run's budget, core/run_watch.hpp) the loader fails as a worker
// failure would: its threads end and next() throws LoaderError, so an epoch that would
// never complete still returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"
#include "core/run_watch.hpp"
#include "pipeline/data_axes.hpp"
#include "pipeline/dataset.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {

// True when the mode needs page-locked memory, hence a CUDA device.
bool needs_gpu(PinMode mode) noexcept;

struct LoaderConfig {
  std::size_t batch_size = 128;
  int workers = 0;
  int prefetch_per_worker = 2;  // ready batches kept ahead per worker (PyTorch's prefetch_factor)
  bool shuffle = true;
  bool drop_last = false;
  bool in_order = true;  // deliver in sampler order; false: whichever batch is ready first
  PinMode pin_mode = PinMode::pageable;
  BatchBuild build = BatchBuild::whole;
  TransformConfig transform;  // augmentation, synthetic cost, seed of the random choices
  std::uint64_t seed = 0;     // seed of the sampler's shuffle
  std::string nvtx_prefix = "loader";
};

// Throws std::invalid_argument naming the bad field (batch 0, negative workers, …).
void validate(const LoaderConfig& config, const Dataset& dataset);

// Samples a part of a split batch holds at least, so a part's work (about 20 µs at
// no per-sample cost) dwarfs the two lock round trips of handing it out.
inline constexpr std::size_t kMinSamplesPerPart = 64;

// The parts a batch of `samples` is built in: 1 for whole batches or fewer than two
// workers; split: one a worker, but no part under kMinSamplesPerPart samples.
std::size_t parts_per_batch(BatchBuild build, int workers, std::size_t samples) noexcept;

// A worker's failure (or a bad fence) as the consumer sees it: which thread, which
// batch, and the original message. The loader has stopped when this is thrown.
class LoaderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A ready batch, valid until release() or the next call of next().
struct Batch {
  std::size_t epoch = 0;
  std::size_t index = 0;    // position in the epoch's sampler order
  std::size_t samples = 0;  // batch_size, or fewer for a final short batch
  int slot = 0;             // which ring slot holds it: 0 .. slot_count()-1
  void* data = nullptr;     // samples images (float) then samples labels (int32)
  std::size_t bytes = 0;
  const std::uint32_t* sample_ids = nullptr;  // dataset indices, in batch order
  HostMemoryKind memory = HostMemoryKind::pageable;
};

using SlotFence = std::function<void()>;

// Totals since construction or reset_stats(), in seconds unless named otherwise.
struct LoaderStats {
  std::size_t batches = 0;  // delivered to the consumer
  std::size_t samples = 0;
  double build_seconds = 0.0;          // wall time workers spent building batches
  double build_cpu_seconds = 0.0;      // CPU time of the same (thread clocks)
  double pin_seconds = 0.0;            // the pin step (pin_thread mode)
  double consumer_wait_seconds = 0.0;  // time next() spent waiting for a batch
  double fence_seconds = 0.0;          // builders and the pin thread waiting in slot fences
  double first_batch_seconds = 0.0;    // from start_epoch() to its first batch, summed over epochs
  std::size_t epochs = 0;              // epochs whose first batch was delivered
  std::size_t epochs_prepared = 0;     // epochs started with the order the sampler thread shuffled ahead
  std::size_t parts_built = 0;         // batch parts built (one per batch when whole)
  double ready_batches_sum = 0.0;      // ready batches seen by each next(), summed
  std::size_t worker_wakeups = 0;      // times a waiting worker (or the pin thread) woke up
  std::size_t idle_wakeups = 0;        // of those, the ones that found nothing to do
};

class Loader {
 public:
  // Allocates the slots (page-locked ones need a GPU: CudaError otherwise) and starts
  // the threads, which wait for start_epoch(). Throws std::invalid_argument for a bad config.
  Loader(const Dataset& dataset, LoaderConfig config);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Starts `epoch` (workers begin building at once), abandoning what is left of the
  // current one. Before the first call next() has nothing to deliver.
  void start_epoch(std::size_t epoch);
  // The next batch of the epoch, waiting for it if needed; nullopt when the epoch is
  // done. Releases the previous batch (without a fence) if release() was not called.
  // Throws LoaderError when a worker failed.
  std::optional<Batch> next();
  // The consumer is done reading the batch; `fence` runs before the slot is reused.
  void release(SlotFence fence = {});
  // Stops and joins every thread; idempotent. next() then throws LoaderError.
  void stop() noexcept;

  std::size_t batches_per_epoch() const noexcept;
  std::size_t slot_count() const noexcept;         // consumer-facing slots (for per-slot events)
  std::size_t pinned_bytes_held() const noexcept;  // page-locked bytes the loader holds
  std::size_t host_bytes_held() const noexcept;    // all slot bytes the loader holds
  const LoaderConfig& config() const noexcept;
  LoaderStats stats() const;
  void reset_stats();
  // The epoch whose order the sampler thread has shuffled ahead and start_epoch() of that
  // epoch will take, if any (never with 0 workers).
  std::optional<std::size_t> prepared_epoch() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::unique_ptr<CancelHook> cancel_hook_;  // declared after state_: gone before it
};

// Host bytes a loader with `config` allocates for its slots (all of them page-locked
// for pin_thread's and direct's consumer-facing ring).
std::size_t planned_slot_bytes(const LoaderConfig& config, std::size_t pixels_per_sample);

// Loader slot bytes alive in this process (all loaders together); 0 after every loader
// is destroyed. For tests that check nothing is held after a stop.
std::size_t live_loader_slot_bytes() noexcept;

}  // namespace hdbench
