#include "pipeline/loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "core/nvtx.hpp"
#include "core/timing.hpp"
#include "pipeline/loader_nvtx.hpp"

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

// A batch being built in parts: its slot and the parts handed out and finished.
struct OpenBatch {
  int slot = 0;
  std::size_t batch = 0;
  std::uint64_t generation = 0;
  std::size_t parts = 1;  // to hand out; cut to `claimed` when its epoch is abandoned
  std::size_t claimed = 0;
  std::size_t finished = 0;
};

std::size_t staging_slot_count(const LoaderConfig& c) {
  if (c.pin_mode != PinMode::pin_thread) return 0;
  return c.workers == 0 ? 1 : static_cast<std::size_t>(c.workers) * c.prefetch_per_worker;
}

}  // namespace

bool needs_gpu(PinMode mode) noexcept { return mode != PinMode::pageable; }

std::size_t parts_per_batch(BatchBuild build, int workers, std::size_t samples) noexcept {
  if (build == BatchBuild::whole || workers < 2) return 1;
  return std::max<std::size_t>(1, std::min(static_cast<std::size_t>(workers), samples / kMinSamplesPerPart));
}

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
  // With workers, a sampler thread shuffles the next epoch's order while this one runs:
  // shuffling 60,000 samples took ~0.2 ms (on this project's CPU machine), the most of an
  // epoch's fill on the H200 host of 2026-11-26 (first batch after 187-315 µs at 8-16
  // workers), and it ran in start_epoch(), under the lock, on the consumer's thread.
  std::condition_variable order_cv;         // the sampler thread waits for an epoch to shuffle
  std::optional<std::size_t> order_wanted;  // the epoch it is to shuffle next
  std::optional<std::size_t> prepared_epoch;
  std::vector<std::uint32_t> prepared_order;  // prepared_epoch's order, when there is one
  std::uint64_t generation = 0;               // bumped per epoch; stale batches are dropped
  std::size_t epoch = 0;
  std::vector<std::uint32_t> order;
  std::size_t next_claim = 0;    // next batch a builder opens
  std::list<OpenBatch> open;     // batches being built, oldest first; parts go out in this order
  std::size_t next_pin = 0;      // next batch the pin thread copies (in order)
  std::size_t next_deliver = 0;  // next batch the consumer gets (in order)
  std::size_t delivered = 0;
  int held_slot = -1;     // the consumer's current batch
  bool active = false;    // an epoch has been started
  HostTimer epoch_timer;  // since start_epoch(), for the time to the first batch
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

  bool prepares_orders() const { return config.workers > 0; }

  void begin_epoch_locked(std::size_t e) {
    ++generation;
    active = true;
    epoch = e;
    if (prepared_epoch == e) {
      order = std::move(prepared_order);
      ++stats.epochs_prepared;
    } else {
      order = epoch_order(dataset.size(), config.shuffle, config.seed, e);
    }
    prepared_epoch.reset();
    prepared_order.clear();
    if (prepares_orders()) order_wanted = e + 1;  // the caller notifies order_cv
    next_claim = next_pin = next_deliver = delivered = 0;
    front.recycle_ready();
    staging.recycle_ready();
    // Parts of the abandoned epoch's batches are no longer handed out; a batch whose
    // parts are all back gives its slot back now, the others when their last part is.
    for (auto it = open.begin(); it != open.end();) {
      it->parts = it->claimed;
      if (it->finished == it->parts) {
        build_ring().free.push_back(it->slot);
        it = open.erase(it);
      } else {
        ++it;
      }
    }
  }

  void wake_everyone() {
    build_cv.notify_all();
    pin_cv.notify_all();
    ready_cv.notify_all();
    order_cv.notify_all();
  }

  // Shuffles the epoch start_epoch() asked for next (epoch + 1) outside the lock; the next
  // start_epoch() takes it if it is for that epoch, else shuffles its own.
  void sampler_loop() {
    nvtx::name_current_thread("loader/sampler");
    std::unique_lock lock(mutex);
    while (true) {
      order_cv.wait(lock, [&] { return stopping || order_wanted.has_value(); });
      if (stopping) return;
      const std::size_t e = *std::exchange(order_wanted, std::nullopt);
      lock.unlock();
      std::vector<std::uint32_t> prepared;
      try {
        prepared = epoch_order(dataset.size(), config.shuffle, config.seed, e);
      } catch (const std::exception& error) {
        fail(fmt::format("loader/sampler failed on the order of epoch {}: {}", e, error.what()));
        return;
      }
      lock.lock();
      if (!order_wanted && !(active && e == epoch)) {  // still wanted: no later ask, not started meanwhile
        prepared_epoch = e;
        prepared_order = std::move(prepared);
      }
    }
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

  // Runs a slot's fence (waits until whatever last read the slot is done with it);
  // returns the seconds it waited. The caller adds them to fence_seconds under the lock.
  static double run_fence(const SlotFence& fence) {
    if (!fence) return 0.0;
    HostTimer timer;
    fence();
    return timer.elapsed_seconds();
  }

  // Collates samples [first, last) of the slot's batch; returns the wall and CPU seconds.
  std::pair<double, double> build(Slot& slot, std::size_t first, std::size_t last) {
    const std::size_t all = slot.ids.size();
    nvtx::ScopedRange range(kLoaderNvtx,
                            first == 0 && last == all
                                ? fmt::format("{}/batch {}/collate", config.nvtx_prefix, slot.batch)
                                : fmt::format("{}/batch {}/collate {}-{}", config.nvtx_prefix, slot.batch, first, last),
                            (last - first) * layout.batch_bytes(1));
    const double cpu_start = thread_cpu_seconds();
    HostTimer timer;
    collate_samples(dataset, slot.ids, first, last, slot.epoch, config.transform, slot.data);
    return {timer.elapsed_seconds(), thread_cpu_seconds() - cpu_start};
  }

  // Copies a staged batch into a pinned slot: the extra memcpy of PyTorch's pin thread.
  double pin(const Slot& from, Slot& to) {
    const std::size_t bytes = layout.batch_bytes(from.ids.size());
    nvtx::ScopedRange range(kLoaderNvtx, fmt::format("{}/batch {}/pin", config.nvtx_prefix, from.batch), bytes);
    HostTimer timer;
    std::memcpy(to.data, from.data, bytes);
    to.ids = from.ids;
    to.epoch = from.epoch;
    to.batch = from.batch;
    return timer.elapsed_seconds();
  }

  // The oldest open batch with a part left to hand out, or open.end().
  std::list<OpenBatch>::iterator next_part_locked() {
    return std::find_if(open.begin(), open.end(), [](const OpenBatch& b) { return b.claimed < b.parts; });
  }
  bool can_open_locked(const Ring& ring) const { return active && next_claim < batch_count && !ring.free.empty(); }

  struct Wake {
    bool consumer = false;
    bool pin = false;
    bool builder = false;
  };
  // A built batch goes to the pin thread or the consumer, or its slot back to the free
  // list when its epoch was abandoned. The caller holds the lock and notifies after it.
  Wake publish_locked(Ring& ring, int slot, std::size_t batch, std::uint64_t gen) {
    Wake wake;
    if (gen != generation) {
      ring.free.push_back(slot);
      wake.builder = true;
    } else {
      ring.ready.emplace(batch, slot);
      if (pin_step()) {
        wake.pin = true;
      } else {
        wake.consumer = consumer_wants(batch);
      }
    }
    return wake;
  }
  // Notified without the lock, so the woken thread does not wake only to wait for it.
  void notify(const Wake& wake) {
    if (wake.consumer) ready_cv.notify_one();
    if (wake.pin) pin_cv.notify_one();
    if (wake.builder) build_cv.notify_one();
  }

  // A worker takes the next part of the oldest open batch; when there is none it opens
  // the next batch: claims a free slot, runs the slot's fence, and hands out its parts.
  void worker_loop(int worker) {
    const std::string name = fmt::format("loader/worker {}", worker);
    nvtx::name_current_thread(name);
    Ring& ring = build_ring();
    std::unique_lock lock(mutex);
    while (true) {
      wait_counted(lock, build_cv,
                   [&] { return stopping || next_part_locked() != open.end() || can_open_locked(ring); });
      if (stopping) return;
      auto it = next_part_locked();
      if (it == open.end()) {
        std::size_t batch = 0;
        const int slot = claim_locked(ring, batch);
        const std::uint64_t gen = generation;
        Slot& s = ring.slots[static_cast<std::size_t>(slot)];
        const SlotFence fence = std::exchange(s.fence, {});
        lock.unlock();
        double waited = 0.0;
        try {
          waited = run_fence(fence);
        } catch (const std::exception& error) {
          fail(fmt::format("{} failed on batch {} of epoch {}: {}", name, batch, s.epoch, error.what()));
          return;
        }
        lock.lock();
        stats.fence_seconds += waited;
        if (gen != generation) {  // abandoned while the fence ran
          ring.free.push_back(slot);
          continue;
        }
        const std::size_t parts = parts_per_batch(config.build, config.workers, s.ids.size());
        open.push_back({slot, batch, gen, parts});
        if (parts > 1) {  // the other parts are for idle workers; this one takes a part next
          lock.unlock();
          for (std::size_t i = 1; i < parts; ++i) build_cv.notify_one();
          lock.lock();
        }
        continue;
      }
      const std::size_t part = it->claimed++;
      Slot& s = ring.slots[static_cast<std::size_t>(it->slot)];
      const std::size_t samples = s.ids.size();
      const std::size_t first = samples * part / it->parts;
      const std::size_t last = samples * (part + 1) / it->parts;
      lock.unlock();
      std::pair<double, double> seconds;
      try {
        seconds = build(s, first, last);
      } catch (const std::exception& error) {
        fail(fmt::format("{} failed on batch {} of epoch {}: {}", name, s.batch, s.epoch, error.what()));
        return;
      }
      lock.lock();
      stats.build_seconds += seconds.first;
      stats.build_cpu_seconds += seconds.second;
      ++stats.parts_built;
      // Nobody else erases a batch with a part out, so `it` is still valid.
      if (++it->finished < it->parts) continue;
      const OpenBatch done = *it;
      open.erase(it);
      const Wake wake = publish_locked(ring, done.slot, done.batch, done.generation);
      lock.unlock();
      notify(wake);
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
      double waited = 0.0;
      try {
        waited = run_fence(fence);
        seconds = pin(source, target);
      } catch (const std::exception& error) {
        fail(fmt::format("loader/pin failed on batch {} of epoch {}: {}", source.batch, source.epoch, error.what()));
        return;
      }
      std::unique_lock lock(mutex);
      stats.pin_seconds += seconds;
      stats.fence_seconds += waited;
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
      double waited = run_fence(fence);
      const auto seconds = build(s, 0, s.ids.size());
      double pin_seconds = 0.0;
      int slot = built;
      if (pin_step()) {
        std::unique_lock lock(mutex);
        slot = front.free.front();
        front.free.pop_front();
        const SlotFence front_fence = std::move(front.slots[static_cast<std::size_t>(slot)].fence);
        lock.unlock();
        waited += run_fence(front_fence);
        pin_seconds = pin(s, front.slots[static_cast<std::size_t>(slot)]);
        lock.lock();
        staging.free.push_back(built);
      }
      std::lock_guard lock(mutex);
      stats.build_seconds += seconds.first;
      stats.build_cpu_seconds += seconds.second;
      stats.fence_seconds += waited;
      ++stats.parts_built;
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
  if (s.prepares_orders()) {
    {
      std::lock_guard lock(s.mutex);
      s.order_wanted = 0;  // the first epoch's too, while the caller gets ready
    }
    s.threads.emplace_back([&s] { s.sampler_loop(); });
  }
  cancel_hook_ = std::make_unique<CancelHook>([&s](const std::string& why) { s.fail("loader: cancelled: " + why); });
}

Loader::~Loader() { stop(); }

void Loader::start_epoch(std::size_t epoch) {
  State& s = *state_;
  s.release_held({});
  {
    std::lock_guard lock(s.mutex);
    s.begin_epoch_locked(epoch);
    s.epoch_timer.restart();
  }
  s.build_cv.notify_all();  // every free slot has a batch to build
  s.pin_cv.notify_all();
  s.order_cv.notify_one();  // the next epoch's order
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
  if (s.delivered == 0) {  // the pipeline's fill: what a consumer waits before its first batch
    s.stats.first_batch_seconds += s.epoch_timer.elapsed_seconds();
    ++s.stats.epochs;
  }
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

std::optional<std::size_t> Loader::prepared_epoch() const {
  std::lock_guard lock(state_->mutex);
  return state_->prepared_epoch;
}

void Loader::reset_stats() {
  std::lock_guard lock(state_->mutex);
  state_->stats = {};
}

}  // namespace hdbench
