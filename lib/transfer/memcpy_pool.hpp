// A fixed team of threads that copy one buffer together. The caller takes the first
// share itself, so a pool of N threads starts N - 1 workers. Workers stay alive
// between copies: a staged transfer copies thousands of chunks, and thread start-up
// would otherwise dominate small ones.
#pragma once

#include <cstddef>
#include <string>

#include "core/thread_team.hpp"

namespace hdbench {

class MemcpyPool {
 public:
  // `threads` >= 1; workers are named "<name>/worker <i>" for NVTX timelines.
  explicit MemcpyPool(int threads, const std::string& name = "memcpy") : team_(threads, name) {}

  int threads() const noexcept { return team_.threads(); }
  // Copies `bytes` from src to dst, split near-evenly over the pool; returns when done.
  void copy(void* dst, const void* src, std::size_t bytes);

 private:
  ThreadTeam team_;
};

}  // namespace hdbench
