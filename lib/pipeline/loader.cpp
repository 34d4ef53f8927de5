#include "pipeline/loader.hpp"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include "core/nvtx.hpp"
#include "core/timing.hpp"

namespace hdbench {
namespace {

std::atomic<std::size_t> g_live_slot_bytes{0};

// One batch-sized buffer and what it currently holds.
struct Slot {
  void* data = nullptr;
  HostMemoryKind memory = HostMemoryKind::pageable;
  std::vector<std::uint32_t> ids;
  std::size_t epoch = 0;
  std::size_t batch = 0;
  SlotFence fence;  // run before the slot is written again
};

// A set of slots, the memory behind them and the free list.
struct Ring {
  std::vector<Slot> slots;
  std::vector<HostBuffer> pinned;
  std::vector<PageableBuffer> pageable;
  std::deque<int> free;
  std::map<std::size_t, int> ready;  // batch index → slot, built and waiting
  std::size_t bytes_held = 0;

  Ring(std::size_t count, std::size_t slot_bytes, bool page_locked) {
    for (std::size_t i = 0; i < count; ++i) {
      Slot slot;
      if (page_locked) {
        pinned.emplace_back(HostMemoryKind::pinned, slot_bytes);
        slot.data = pinned.back().data();
        slot.memory = HostMemoryKind::pinned;
      } else {
        pageable.emplace_back(slot_bytes);
        slot.data = pageable.back().data();
      }
      std::memset(slot.data, 0, slot_bytes);  // first touch here, not in a timed epoch
      slots.push_back(std::move(slot));
      free.push_back(static_cast<int>(i));
    }
    // Counted once every slot exists: a failed allocation frees the others unseen.
    bytes_held = count * slot_bytes;
    g_live_slot_bytes += bytes_held;
  }
  ~Ring() { g_live_slot_bytes -= bytes_held; }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // The slot ready for `batch` (in order) or the first ready one; -1 if none.
  int take_ready(bool in_order, std::size_t batch) {
    const auto it = in_order ? ready.find(batch) : ready.begin();
    if (it == ready.end()) return -1;
    const int slot = it->second;
    ready.erase(it);
    return slot;
  }
  void recycle_ready() {
    for (const auto& [batch, slot] : ready) free.push_back(slot);
    ready.clear();
  }
};

std::size_t front_slot_count(const LoaderConfig& c) {
  // Workers keep prefetch_per_worker batches each ahead; +1 is the consumer's batch.
  // With no workers the consumer builds into one slot while the other may still be
  // read by the previous batch's copy.
  return c.workers == 0 ? 2 : static_cast<std::size_t>(c.workers) * c.prefetch_per_worker + 1;
}

std::size_t staging_slot_count(const LoaderConfig& c) {
  if (c.pin_mode != PinMode::pin_thread) return 0;
  return c.workers == 0 ? 1 : static_cast<std::size_t>(c.workers) * c.prefetch_per_worker;
}

}  // namespace

bool needs_gpu(PinMode mode) noexcept { return mode != PinMode::pageable; }

void validate(const LoaderConfig& c, const Dataset& dataset) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("loader: " + what); };
  if (dataset.size() == 0) bad("the dataset is empty");
  if (c.batch_size == 0) bad("batch size must be at least 1");
  if (c.batch_size > (std::size_t{1} << 20))
    bad(fmt::format("batch size {} is above the limit of 1048576", c.batch_size));
  if (c.workers < 0) bad(fmt::format("workers must be 0 or more, not {}", c.workers));
  if (c.workers > 1024) bad(fmt::format("workers {} is above the limit of 1024", c.workers));
  if (c.prefetch_per_worker < 1 || c.prefetch_per_worker > 64) {
    bad(fmt::format("prefetch depth per worker must be 1..64, not {}", c.prefetch_per_worker));
  }
  if (!(c.transform.cost_us >= 0.0) || c.transform.cost_us > 1e6) {
    bad(fmt::format("per-sample cost must be 0..1e6 µs, not {}", c.transform.cost_us));
  }
  if (dataset.size() > std::numeric_limits<std::uint32_t>::max()) bad("the dataset has more than 2^32 samples");
}

std::size_t planned_slot_bytes(const LoaderConfig& config, std::size_t pixels_per_sample) {
  const std::size_t slot_bytes = BatchLayout{pixels_per_sample}.batch_bytes(config.batch_size);
  return (front_slot_count(config) + staging_slot_count(config)) * slot_bytes;
}

std::size_t live_loader_slot_bytes() noexcept { return g_live_slot_bytes.load(); }

struct Loader::State {
  const Dataset& dataset;
  LoaderConfig config;
  BatchLayout layout;
  std::size_t slot_bytes;
  std::size_t batch_count;

  Ring front;    // the slots the consumer reads
  Ring staging;  // pageable slots the workers fill in pin_thread mode

  // One lock; a condition per kind of waiter, each woken only for what it waits for: a
  // freed slot wakes one worker (not all of them: with 8 workers at batch 128 every
  // freed slot woke 8 threads that fought the consumer for the lock and went back to
  // sleep, and the loader got slower with more workers), a built batch wakes the pin
  // thread or, when it is the one the consumer waits for, the consumer.
  mutable std::mutex mutex;
  std::condition_variable build_cv;  // workers wait for a free slot and a batch to claim
  std::condition_variable pin_cv;    // the pin thread waits for a staged batch and a free slot
  std::condition_variable ready_cv;  // the consumer waits for its next batch
  std::uint64_t generation = 0;      // bumped per epoch; stale batches are dropped
  std::size_t epoch = 0;
  std::vector<std::uint32_t> order;
  std::size_t next_claim = 0;    // next batch a builder takes
  std::size_t next_pin = 0;      // next batch the pin thread copies (in order)
  std::size_t next_deliver = 0;  // next batch the consumer gets (in order)
  std::size_t delivered = 0;
  int held_slot = -1;   // the consumer's current batch
  bool active = false;  // an epoch has been started
  bool stopping = false;
  bool failed = false;
  std::string failure;
  LoaderStats stats;
  std::vector<std::jthread> threads;

  State(const Dataset& d, LoaderConfig c)
      : dataset(d),
        config(std::move(c)),
        layout{d.pixels_per_sample()},
        slot_bytes(layout.batch_bytes(config.batch_size)),
        batch_count(hdbench::batches_per_epoch(d.size(), config.batch_size, config.drop_last)),
        front(front_slot_count(config), slot_bytes, needs_gpu(config.pin_mode)),
        staging(staging_slot_count(config), slot_bytes, false) {}

  bool pin_step() const { return config.pin_mode == PinMode::pin_thread; }
  Ring& build_ring() { return pin_step() ? staging : front; }

  void begin_epoch_locked(std::size_t e) {
    ++generation;
    active = true;
    epoch = e;
    order = epoch_order(dataset.size(), config.shuffle, config.seed, e);
    next_claim = next_pin = next_deliver = delivered = 0;
    front.recycle_ready();
    staging.recycle_ready();
  }

  void wake_everyone() {
    build_cv.notify_all();
    pin_cv.notify_all();
    ready_cv.notify_all();
  }

  void fail(const std::string& message) {
    std::lock_guard lock(mutex);
    if (!failed) failure = message;
    failed = true;
    stopping = true;
    wake_everyone();
  }

  // Waits on `cv` until `ready()`, counting the wake-ups and the idle ones (woken, but
  // another thread took the work first, or woken spuriously).
  template <typename Ready>
  void wait_counted(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Ready ready) {
    while (!ready()) {
      cv.wait(lock);
      ++stats.worker_wakeups;
      if (!ready()) ++stats.idle_wakeups;
    }
  }

  // The consumer waits for this batch (in order) or any batch: wake it.
  bool consumer_wants(std::size_t batch) const { return !config.in_order || batch == next_deliver; }

  // Claims the next batch into a free slot of `ring`; the caller holds the lock.
  int claim_locked(Ring& ring, std::size_t& batch) {
    const int slot = ring.free.front();
    ring.free.pop_front();
    batch = next_claim++;
    Slot& s = ring.slots[static_cast<std::size_t>(slot)];
    const std::size_t first = batch * config.batch_size;
    const std::size_t samples = samples_in_batch(order.size(), config.batch_size, batch);
    s.ids.assign(order.begin() + static_cast<std::ptrdiff_t>(first),
                 order.begin() + static_cast<std::ptrdiff_t>(first + samples));
    s.epoch = epoch;
    s.batch = batch;
    return slot;
  }

  // Runs the slot's fence, then collates its batch; returns the wall and CPU seconds.
  std::pair<double, double> build(Slot& slot, SlotFence fence) {
    if (fence) fence();
    nvtx::ScopedRange range(nvtx::Family::loader, fmt::format("{}/batch {}/collate", config.nvtx_prefix, slot.batch),
                            layout.batch_bytes(slot.ids.size()));
    const double cpu_start = thread_cpu_seconds();
    HostTimer timer;
    collate_batch(dataset, slot.ids, slot.epoch, config.transform, slot.data);
    return {timer.elapsed_seconds(), thread_cpu_seconds() - cpu_start};
  }

  // Copies a staged batch into a pinned slot: the extra memcpy of PyTorch's pin thread.
  double pin(const Slot& from, Slot& to, SlotFence fence) {
    if (fence) fence();
    const std::size_t bytes = layout.batch_bytes(from.ids.size());
    nvtx::ScopedRange range(nvtx::Family::loader, fmt::format("{}/batch {}/pin", config.nvtx_prefix, from.batch),
                            bytes);
    HostTimer timer;
    std::memcpy(to.data, from.data, bytes);
    to.ids = from.ids;
    to.epoch = from.epoch;
    to.batch = from.batch;
    return timer.elapsed_seconds();
  }

  void worker_loop(int worker) {
    const std::string name = fmt::format("loader/worker {}", worker);
    nvtx::name_current_thread(name);
    Ring& ring = build_ring();
    std::unique_lock lock(mutex);
    while (true) {
      wait_counted(lock, build_cv,
                   [&] { return stopping || (active && next_claim < batch_count && !ring.free.empty()); });
      if (stopping) return;
      std::size_t batch = 0;
      const int slot = claim_locked(ring, batch);
      const std::uint64_t gen = generation;
      SlotFence fence = std::move(ring.slots[static_cast<std::size_t>(slot)].fence);
      lock.unlock();
      Slot& s = ring.slots[static_cast<std::size_t>(slot)];
      std::pair<double, double> seconds;
      try {
        seconds = build(s, std::move(fence));
      } catch (const std::exception& error) {
        fail(fmt::format("{} failed on batch {} of epoch {}: {}", name, batch, s.epoch, error.what()));
        return;
      }
      lock.lock();
      stats.build_seconds += seconds.first;
      stats.build_cpu_seconds += seconds.second;
      bool wake_consumer = false;
      bool wake_pin = false;
      bool wake_builder = false;
      if (gen != generation) {
        ring.free.push_back(slot);  // a stale batch of an abandoned epoch
        wake_builder = true;
      } else if (pin_step()) {
        ring.ready.emplace(batch, slot);
        wake_pin = true;
      } else {
        ring.ready.emplace(batch, slot);
        wake_consumer = consumer_wants(batch);
      }
      // Notified without the lock, so the woken thread does not wake only to wait for it.
      lock.unlock();
      if (wake_consumer) ready_cv.notify_one();
      if (wake_pin) pin_cv.notify_one();
      if (wake_builder) build_cv.notify_one();
      lock.lock();
    }
  }

  void pin_loop() {
    nvtx::name_current_thread("loader/pin");
    while (true) {
      int from = -1;
      int to = -1;
      std::uint64_t gen = 0;
      SlotFence fence;
      {
        std::unique_lock lock(mutex);
        auto pinnable = [&] { return config.in_order ? staging.ready.contains(next_pin) : !staging.ready.empty(); };
        wait_counted(lock, pin_cv, [&] { return stopping || (pinnable() && !front.free.empty()); });
        if (stopping) return;
        from = staging.take_ready(config.in_order, next_pin);
        if (config.in_order) ++next_pin;
        to = front.free.front();
        front.free.pop_front();
        gen = generation;
        fence = std::move(front.slots[static_cast<std::size_t>(to)].fence);
      }
      Slot& source = staging.slots[static_cast<std::size_t>(from)];
      Slot& target = front.slots[static_cast<std::size_t>(to)];
      double seconds = 0.0;
      try {
        seconds = pin(source, target, std::move(fence));
      } catch (const std::exception& error) {
        fail(fmt::format("loader/pin failed on batch {} of epoch {}: {}", source.batch, source.epoch, error.what()));
        return;
      }
      std::unique_lock lock(mutex);
      stats.pin_seconds += seconds;
      staging.free.push_back(from);
      bool wake_consumer = false;
      if (gen == generation) {
        front.ready.emplace(target.batch, to);
        wake_consumer = consumer_wants(target.batch);
      } else {
        front.free.push_back(to);
      }
      lock.unlock();
      build_cv.notify_one();  // the staging slot it freed
      if (wake_consumer) ready_cv.notify_one();
    }
  }

  // With no workers the consumer builds (and pins) the batch itself.
  int build_on_consumer() {
    std::size_t batch = 0;
    int built = -1;
    SlotFence fence;
    {
      std::lock_guard lock(mutex);
      built = claim_locked(build_ring(), batch);
      fence = std::move(build_ring().slots[static_cast<std::size_t>(built)].fence);
    }
    Slot& s = build_ring().slots[static_cast<std::size_t>(built)];
    try {
      HostTimer timer;
      const auto seconds = build(s, std::move(fence));
      double pin_seconds = 0.0;
      int slot = built;
      if (pin_step()) {
        std::unique_lock lock(mutex);
        slot = front.free.front();
        front.free.pop_front();
        SlotFence front_fence = std::move(front.slots[static_cast<std::size_t>(slot)].fence);
        lock.unlock();
        pin_seconds = pin(s, front.slots[static_cast<std::size_t>(slot)], std::move(front_fence));
        lock.lock();
        staging.free.push_back(built);
      }
      std::lock_guard lock(mutex);
      stats.build_seconds += seconds.first;
      stats.build_cpu_seconds += seconds.second;
      stats.pin_seconds += pin_seconds;
      stats.consumer_wait_seconds += timer.elapsed_seconds();
      return slot;
    } catch (const std::exception& error) {
      fail(fmt::format("loader (consumer thread, 0 workers) failed on batch {} of epoch {}: {}", batch, s.epoch,
                       error.what()));
      throw LoaderError(failure);
    }
  }

  void release_held(SlotFence fence) {
    {
      std::lock_guard lock(mutex);
      if (held_slot < 0) return;
      front.slots[static_cast<std::size_t>(held_slot)].fence = std::move(fence);
      front.free.push_back(held_slot);
      held_slot = -1;
    }
    // One slot is free: one thread can use it (the pin thread, or one worker).
    if (pin_step()) {
      pin_cv.notify_one();
    } else {
      build_cv.notify_one();
    }
  }
};

Loader::Loader(const Dataset& dataset, LoaderConfig config) {
  validate(config, dataset);
  state_ = std::make_unique<State>(dataset, std::move(config));
  State& s = *state_;
  for (int w = 0; w < s.config.workers; ++w) s.threads.emplace_back([&s, w] { s.worker_loop(w); });
  if (s.pin_step() && s.config.workers > 0) s.threads.emplace_back([&s] { s.pin_loop(); });
}

Loader::~Loader() { stop(); }

void Loader::start_epoch(std::size_t epoch) {
  State& s = *state_;
  s.release_held({});
  {
    std::lock_guard lock(s.mutex);
    s.begin_epoch_locked(epoch);
  }
  s.build_cv.notify_all();  // every free slot has a batch to build
  s.pin_cv.notify_all();
}

std::optional<Batch> Loader::next() {
  State& s = *state_;
  s.release_held({});
  int slot = -1;
  {
    std::unique_lock lock(s.mutex);
    if (s.failed || s.stopping) {
      const std::string message = s.failed ? s.failure : "loader: next() after stop()";
      lock.unlock();
      stop();
      throw LoaderError(message);
    }
    if (!s.active || s.delivered == s.batch_count) return std::nullopt;
    if (s.config.workers > 0) {
      s.stats.ready_batches_sum += static_cast<double>(s.front.ready.size());
      HostTimer timer;
      s.ready_cv.wait(lock, [&] {
        return s.failed || s.stopping ||
               (s.config.in_order ? s.front.ready.contains(s.next_deliver) : !s.front.ready.empty());
      });
      s.stats.consumer_wait_seconds += timer.elapsed_seconds();
      if (s.failed || s.stopping) {
        const std::string message = s.failed ? s.failure : "loader: stopped while waiting for a batch";
        lock.unlock();
        stop();
        throw LoaderError(message);
      }
      // Taking a ready batch frees no slot (release() does): nobody to wake.
      slot = s.front.take_ready(s.config.in_order, s.next_deliver);
    }
  }
  if (slot < 0) slot = s.build_on_consumer();
  std::lock_guard lock(s.mutex);
  ++s.next_deliver;
  ++s.delivered;
  s.held_slot = slot;
  const Slot& held = s.front.slots[static_cast<std::size_t>(slot)];
  ++s.stats.batches;
  s.stats.samples += held.ids.size();
  Batch batch;
  batch.epoch = held.epoch;
  batch.index = held.batch;
  batch.samples = held.ids.size();
  batch.slot = slot;
  batch.data = held.data;
  batch.bytes = s.layout.batch_bytes(held.ids.size());
  batch.sample_ids = held.ids.data();
  batch.memory = held.memory;
  return batch;
}

void Loader::release(SlotFence fence) { state_->release_held(std::move(fence)); }

void Loader::stop() noexcept {
  State& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    s.stopping = true;
  }
  s.wake_everyone();
  s.threads.clear();  // joins
}

std::size_t Loader::batches_per_epoch() const noexcept { return state_->batch_count; }
std::size_t Loader::slot_count() const noexcept { return state_->front.slots.size(); }
std::size_t Loader::pinned_bytes_held() const noexcept {
  return needs_gpu(state_->config.pin_mode) ? state_->front.bytes_held : 0;
}
std::size_t Loader::host_bytes_held() const noexcept { return state_->front.bytes_held + state_->staging.bytes_held; }
const LoaderConfig& Loader::config() const noexcept { return state_->config; }

LoaderStats Loader::stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

void Loader::reset_stats() {
  std::lock_guard lock(state_->mutex);
  state_->stats = {};
}

}  // namespace hdbench
