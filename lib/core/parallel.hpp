// Splitting host work over threads: body(index, share) runs for each near-equal share
// of [0, total), the first on the calling thread, the rest on their own threads, all
// joined before returning.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "core/chunking.hpp"

namespace hdbench {

// Up to 16 threads: the host-side checks scale to about that before memory bandwidth
// runs out, and more would crowd out the benchmark's own threads.
inline std::size_t host_worker_count() { return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16); }

template <typename Body>
void parallel_for_shares(std::size_t total, std::size_t parts, std::size_t alignment, Body body) {
  const std::vector<Chunk> shares = split_evenly(total, parts, alignment);
  std::vector<std::jthread> threads;
  for (std::size_t i = 1; i < shares.size(); ++i) threads.emplace_back([&, i] { body(i, shares[i]); });
  body(0, shares.front());
}

}  // namespace hdbench
