// A fixed team of threads that copy one buffer together. The caller takes the first
// share itself, so a pool of N threads starts N - 1 workers. Workers stay alive
// between copies: a staged transfer copies thousands of chunks, and thread start-up
// would otherwise dominate small ones.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "chunking.hpp"

namespace hdbench {

class MemcpyPool {
 public:
  // `threads` >= 1; workers are named "<name>/worker <i>" for NVTX timelines.
  explicit MemcpyPool(int threads, const std::string& name = "memcpy");
  ~MemcpyPool();
  MemcpyPool(const MemcpyPool&) = delete;
  MemcpyPool& operator=(const MemcpyPool&) = delete;

  int threads() const noexcept { return threads_; }
  // Copies `bytes` from src to dst, split near-evenly over the pool; returns when done.
  void copy(void* dst, const void* src, std::size_t bytes);

 private:
  void worker_loop(int index);

  int threads_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
  unsigned char* dst_ = nullptr;
  const unsigned char* src_ = nullptr;
  std::vector<Chunk> shares_;
  std::vector<std::jthread> workers_;
};

}  // namespace hdbench
