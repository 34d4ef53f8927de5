// A fixed team of threads that run one piece of work together, again and again:
// run(parts, body) calls body(p) once for every part p in [0, parts), spread over the
// calling thread and the team's workers, and returns when every part is done. Workers
// stay alive between runs, because the work they share (a memcpy chunk, one GEMM or
// element-wise pass of a training step) is often only microseconds long and a thread
// start would cost more.
//
// Parts are claimed, not assigned: each thread takes the next part left until none is.
// On a busy host (the hypervisor or another thread holding one of the team's cores) a
// thread that is not running takes no part, so the others do its share and the run
// ends when the parts are done, not when the slowest thread gets its core back; with
// more parts than threads, one that stalls mid-run holds up only the part it took. A
// run never waits for a worker that has taken nothing.
//
// Waking a sleeping thread costs tens of microseconds on a virtual machine, as much
// as the work itself, so both sides spin briefly before they sleep: workers for the
// next run (a training step runs several back to back), the caller for the workers
// to finish. The spin is bounded (kSpinMicroseconds) so an idle team gives its
// cores back, e.g. to loader workers. A team with more threads than the CPUs this
// process may run on does not spin at all: a spinning thread there holds the CPU that
// the thread it waits for (one holding a part, or the caller) needs, and every run can
// stall for a scheduler slice. Whoever sizes a team leaves cores for the threads that
// run beside it (the CPU step in an epoch: the loader's workers).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hdbench {

// The CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus() noexcept;

class ThreadTeam {
 public:
  static constexpr double kSpinMicroseconds = 100.0;

  // `threads` >= 1 (std::invalid_argument otherwise); workers are named
  // "<name>/worker <i>" for NVTX timelines.
  explicit ThreadTeam(int threads, const std::string& name);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int threads() const noexcept { return threads_; }
  // Whether its threads spin before they sleep: threads <= usable_cpus() at construction.
  bool spins() const noexcept { return spin_; }
  // Runs body(p) once for each p in [0, parts), on any of the team's threads, this one
  // included; returns when all are done. `body` must not throw: a worker has nobody to
  // hand an exception to. One run at a time (not reentrant).
  void run(int parts, const std::function<void(int)>& body);
  // One part per thread.
  void run(const std::function<void(int)>& body) { run(threads_, body); }
  // Which of this team's threads calls it: i for worker i (1 .. threads - 1), 0 for any
  // other thread (the one that calls run). For per-thread accounting inside a body.
  int thread_index() const noexcept;

 private:
  void worker_loop();
  // Takes and runs parts of generation `generation` until none is left (or a newer run
  // began); returns how many it ran.
  void work_on(std::uint64_t generation);

  int threads_;
  bool spin_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  // The run's generation (high 32 bits) and its next unclaimed part (low 32 bits), in
  // one word: a part is claimed by a compare-and-swap that also checks the generation,
  // so a worker that wakes late can never take a part of a newer run for an older one.
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<std::uint64_t> generation_{0};  // what sleeping workers wait to change
  std::atomic<int> parts_done_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int> parts_{0};                       // written before generation_ is bumped
  const std::function<void(int)>* body_ = nullptr;  // likewise; valid while a part is unfinished
  std::vector<std::jthread> workers_;
};

}  // namespace hdbench
