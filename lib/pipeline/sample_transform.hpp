// The per-sample work a loader worker does: uint8 → float normalisation (MNIST's
// mean and standard deviation), optional augmentation (random crop from a zero-padded
// image, horizontal flip), and a synthetic CPU cost standing in for decoding. Random
// choices come from (seed, epoch, sample index), so a sample is built the same way by
// any worker, in any order, on any machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pipeline/batch_plan.hpp"
#include "pipeline/data_axes.hpp"
#include "pipeline/dataset.hpp"

namespace hdbench {

inline constexpr int kCropPadding = 2;
inline constexpr float kMnistMean = 0.1307f;
inline constexpr float kMnistStd = 0.3081f;

struct TransformConfig {
  Augment augment = Augment::none;
  double cost_us = 0.0;  // synthetic CPU work per sample, in microseconds
  std::uint64_t seed = 0;
};

// Writes sample `index` of `dataset` as pixels_per_sample() floats to `out`, without
// the synthetic cost (the reference uses this directly).
void transform_sample(const Dataset& dataset, std::uint32_t index, std::size_t epoch, const TransformConfig& config,
                      float* out);

// CPU seconds the calling thread has used.
double thread_cpu_seconds() noexcept;

// Keeps the calling thread busy for `microseconds` of its own CPU time (a stand-in
// for JPEG decoding): busy, not asleep, so it competes for cores as decoding would.
void burn_cpu(double microseconds) noexcept;

// Builds a batch of `ids.size()` samples into `out` (layout: BatchLayout), paying the
// synthetic cost once per sample.
void collate_batch(const Dataset& dataset, const std::vector<std::uint32_t>& ids, std::size_t epoch,
                   const TransformConfig& config, void* out);
// Builds samples [first, last) of that batch into their places in `out`: the parts of
// a batch, built by any threads in any order, make the same bytes as collate_batch.
void collate_samples(const Dataset& dataset, const std::vector<std::uint32_t>& ids, std::size_t first, std::size_t last,
                     std::size_t epoch, const TransformConfig& config, void* out);

// The word_sum of everything an epoch delivers (every batch's bytes), computed
// sample by sample without the loader or the synthetic cost: what a consumer's
// checksums must add up to.
std::uint64_t epoch_checksum_reference(const Dataset& dataset, const std::vector<std::uint32_t>& delivered_ids,
                                       std::size_t epoch, const TransformConfig& config);

}  // namespace hdbench
