#include "thread_team.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "nvtx.hpp"

namespace hdbench {

ThreadTeam::ThreadTeam(int threads, const std::string& name) : threads_(threads) {
  if (threads < 1) throw std::invalid_argument(fmt::format("thread team '{}' needs at least one thread", name));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this, i, name] {
      nvtx::name_current_thread(fmt::format("{}/worker {}", name, i));
      worker_loop(i);
    });
  }
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  // jthread joins on destruction.
}

void ThreadTeam::run(const std::function<void(int)>& body) {
  if (threads_ == 1) {
    body(0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    pending_ = threads_ - 1;
    ++generation_;
  }
  work_ready_.notify_all();
  body(0);
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [this] { return pending_ == 0; });
  body_ = nullptr;
}

void ThreadTeam::worker_loop(int index) {
  std::uint64_t seen = 0;
  while (true) {
    const std::function<void(int)>* body = nullptr;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      body = body_;
    }
    (*body)(index);
    {
      std::lock_guard lock(mutex_);
      --pending_;
    }
    work_done_.notify_one();
  }
}

}  // namespace hdbench
