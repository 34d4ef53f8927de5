// A fixed team of threads that run one piece of work together, again and again:
// run(body) calls body(0) on the calling thread and body(1..threads-1) on the team's
// workers, and returns when all are done. Workers stay alive between runs, because
// the work they share (a memcpy chunk, one GEMM or element-wise pass of a training
// step) is often only microseconds long and a thread start would cost more.
//
// Waking a sleeping thread costs tens of microseconds on a virtual machine, as much
// as the work itself, so both sides spin briefly before they sleep: workers for the
// next run (a training step runs several back to back), the caller for the workers
// to finish. The spin is bounded (kSpinMicroseconds) so an idle team gives its
// cores back, e.g. to loader workers.
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
  // Runs body(i) for i in [0, threads), body(0) here. `body` must not throw: a worker
  // has nobody to hand an exception to. One run at a time (not reentrant).
  void run(const std::function<void(int)>& body);

 private:
  void worker_loop(int index);

  int threads_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
  const std::function<void(int)>* body_ = nullptr;  // written before generation_ is bumped
  std::vector<std::jthread> workers_;
};

}  // namespace hdbench
