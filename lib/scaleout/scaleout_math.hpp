// The figures a data-parallel run derives, as nccl-tests and scaling studies define
// them, and the checks it makes of its parameters.
#pragma once

#include <cstddef>
#include <span>

namespace hdbench::scaleout {

// nccl-tests' all-reduce bandwidths: algbw = bytes / seconds; busbw = algbw ·
// 2(n-1)/n, the rate each link carries in a ring, comparable across rank counts.
// One rank moves nothing: busbw 0. GB/s is 1e9 bytes per second.
double allreduce_algbw_gbps(std::size_t bytes, double seconds);
double allreduce_busbw_gbps(std::size_t bytes, double seconds, int ranks);

// Strong scaling at a fixed global batch: one rank takes `one_rank_s` per step, each
// of `ranks` ranks `ranks_s` (the slowest rank's). 1.0 is ideal: t1 / (n · tn).
double scaling_efficiency(double one_rank_s, double ranks_s, int ranks);

// Rank r's share of a global batch of `batch` samples over `ranks`: [begin, end).
// The batch must divide evenly (so the mean of the ranks' mean gradients is the
// combined batch's mean gradient); throws std::invalid_argument otherwise.
struct Shard {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const noexcept { return end - begin; }
};
Shard shard_of(std::size_t batch, int rank, int ranks);

// Largest |a - b| and the largest excess over abs + rel·|b| (≤ 0: within tolerance).
struct Agreement {
  double max_abs_difference = 0.0;
  double worst_excess = 0.0;
  bool within() const noexcept { return worst_excess <= 0.0; }
};
Agreement compare(std::span<const float> a, std::span<const float> b, double abs_tol, double rel_tol);

}  // namespace hdbench::scaleout
