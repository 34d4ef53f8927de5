#include "core/thread_team.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/nvtx.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hdbench {
namespace {

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until done() or kSpinMicroseconds pass; true when done() held. Without `spin`,
// only looks once.
template <typename Done>
bool spin_until(bool spin, Done done) {
  if (!spin) return done();
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(ThreadTeam::kSpinMicroseconds);
  while (!done()) {
    for (int i = 0; i < 64; ++i) cpu_relax();
    // Let another runnable thread (a loader worker when threads outnumber cores) have
    // the core; with none waiting this returns at once.
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() >= give_up) return done();
  }
  return true;
}

// The team the calling thread works for and its index there (none: a thread no team started).
thread_local const ThreadTeam* tls_team = nullptr;
thread_local int tls_index = 0;

}  // namespace

int usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, CPU_COUNT(&set));
}

ThreadTeam::ThreadTeam(int threads, const std::string& name) : threads_(threads), spin_(threads <= usable_cpus()) {
  if (threads < 1) throw std::invalid_argument(fmt::format("thread team '{}' needs at least one thread", name));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this, i, name] {
      nvtx::name_current_thread(fmt::format("{}/worker {}", name, i));
      tls_team = this;
      tls_index = i;
      worker_loop();
    });
  }
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  work_ready_.notify_all();
  // jthread joins on destruction.
}

int ThreadTeam::thread_index() const noexcept { return tls_team == this ? tls_index : 0; }

void ThreadTeam::run(int parts, const std::function<void(int)>& body) {
  if (parts <= 0) return;
  if (threads_ == 1 || parts == 1) {
    for (int p = 0; p < parts; ++p) body(p);
    return;
  }
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    generation = generation_.load(std::memory_order_relaxed) + 1;
    // The new generation's ticket first: a worker still in the last run may hold its ticket
    // (past the last part) and, once parts_ grows, would claim a part of this run under the
    // old generation with a CAS on that stale value, running it twice and counting it twice
    // (the run then never sees parts_done_ == parts: a team stuck for ever). With the ticket
    // changed first, that CAS fails and the worker sees the new generation and leaves.
    ticket_.store(generation << 32, std::memory_order_seq_cst);
    body_ = &body;
    parts_.store(parts, std::memory_order_seq_cst);
    parts_done_.store(0, std::memory_order_seq_cst);
    generation_.store(generation, std::memory_order_release);
  }
  work_ready_.notify_all();
  work_on(generation);
  const auto all_done = [this, parts] { return parts_done_.load(std::memory_order_acquire) == parts; };
  if (spin_until(spin_, all_done)) return;
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, all_done);
}

void ThreadTeam::work_on(std::uint64_t generation) {
  std::uint64_t ticket = ticket_.load(std::memory_order_acquire);
  while (true) {
    if ((ticket >> 32) != generation) return;  // a newer run: this one's parts are all taken
    const auto part = static_cast<int>(ticket & 0xFFFFFFFFu);
    // Acquire: seeing a new run's parts_ makes its new ticket visible to the CAS below.
    if (part >= parts_.load(std::memory_order_acquire)) return;
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      continue;  // another thread took it; `ticket` holds the new value
    }
    // The part is ours and unfinished, so the run (and its body) cannot have ended.
    (*body_)(part);
    if (parts_done_.fetch_add(1, std::memory_order_acq_rel) + 1 == parts_.load(std::memory_order_relaxed)) {
      // Taking the lock orders this with a caller that is about to sleep.
      { std::lock_guard lock(mutex_); }
      work_done_.notify_one();
    }
    ticket = ticket_.load(std::memory_order_acquire);
  }
}

void ThreadTeam::worker_loop() {
  std::uint64_t seen = 0;
  while (true) {
    const auto has_work = [&] {
      return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(spin_, has_work)) {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, has_work);
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    work_on(seen);
  }
}

}  // namespace hdbench
