#include "memcpy_pool.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "nvtx.hpp"

namespace hdbench {

MemcpyPool::MemcpyPool(int threads, const std::string& name) : threads_(threads) {
  if (threads < 1) throw std::invalid_argument("MemcpyPool needs at least one thread");
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this, i, name] {
      nvtx::name_current_thread(fmt::format("{}/worker {}", name, i));
      worker_loop(i);
    });
  }
}

MemcpyPool::~MemcpyPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  // jthread joins on destruction.
}

void MemcpyPool::copy(void* dst, const void* src, std::size_t bytes) {
  if (threads_ == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  Chunk mine;
  {
    std::lock_guard lock(mutex_);
    dst_ = static_cast<unsigned char*>(dst);
    src_ = static_cast<const unsigned char*>(src);
    shares_ = split_evenly(bytes, static_cast<std::size_t>(threads_));
    mine = shares_.front();
    pending_ = threads_ - 1;
    ++generation_;
  }
  work_ready_.notify_all();
  std::memcpy(dst_ + mine.offset, src_ + mine.offset, mine.bytes);
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [this] { return pending_ == 0; });
}

void MemcpyPool::worker_loop(int index) {
  std::uint64_t seen = 0;
  while (true) {
    Chunk share;
    unsigned char* dst = nullptr;
    const unsigned char* src = nullptr;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      share = shares_[static_cast<std::size_t>(index)];
      dst = dst_;
      src = src_;
    }
    std::memcpy(dst + share.offset, src + share.offset, share.bytes);
    {
      std::lock_guard lock(mutex_);
      --pending_;
    }
    work_done_.notify_one();
  }
}

}  // namespace hdbench
