// The figures a data-parallel run derives, as nccl-tests and scaling studies define
// them, and the checks it makes of its parameters.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace hdbench::dataparallel {

// nccl-tests' all-reduce bandwidths: algbw = bytes / seconds; busbw = algbw ·
// 2(n-1)/n, the rate each link carries in a ring, comparable across rank counts.
// One rank moves nothing: busbw 0. GB/s is 1e9 bytes per second.
double allreduce_algbw_gbps(std::size_t bytes, double seconds);
double allreduce_busbw_gbps(std::size_t bytes, double seconds, int ranks);

// The bandwidths a report publishes: none for one rank, whose all-reduce crosses no
// link (NCCL runs nothing for an in-place sum, a local device copy out of place, one
// scaling pass for a mean; MPI copies or does nothing), so bytes / time would be the
// rate of a no-op or of a copy, never of a collective.
struct AllReduceBandwidth {
  double algbw_gbps = 0.0;
  double busbw_gbps = 0.0;
};
std::optional<AllReduceBandwidth> allreduce_bandwidth(std::size_t bytes, double seconds, int ranks);

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

// Gradient buckets as DDP forms them: layers are visited in the order the backward
// pass produces their gradients (last layer first), and a bucket closes once it holds
// at least `bucket_floats` (the layer that crosses the cap ends it; the last bucket
// takes what is left). `layer_begin[l]` is where layer l's gradients start in the flat
// array and `total` where the last one ends; a layer's gradients run up to the next
// layer's start. Each bucket is one contiguous range, ready once its lowest layer is.
struct GradientBucket {
  std::size_t lowest_layer = 0;  // the all-reduce may start once this layer's gradients are
  std::size_t begin = 0;         // floats, [begin, end)
  std::size_t end = 0;
};
std::vector<GradientBucket> bucket_gradients(std::span<const std::size_t> layer_begin, std::size_t total,
                                             std::size_t bucket_floats);

}  // namespace hdbench::dataparallel
