// What an epoch of the data loader delivers: the sampler's order of sample indices,
// how it splits into batches (drop_last), and the byte layout of one batch, which is
// what travels to the device in one copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hdbench {

// Sample indices of one epoch: 0..count-1 in order, or a permutation drawn from
// (seed, epoch), the same on every machine and for every worker count.
std::vector<std::uint32_t> epoch_order(std::size_t count, bool shuffle, std::uint64_t seed, std::size_t epoch);

// The samples an epoch delivers, in sampler order: epoch_order without the short final
// batch when drop_last is set.
std::vector<std::uint32_t> delivered_ids(std::size_t count, std::size_t batch_size, bool shuffle, bool drop_last,
                                         std::uint64_t seed, std::size_t epoch);

// Batches in an epoch of `count` samples; with drop_last the short final batch is left out.
std::size_t batches_per_epoch(std::size_t count, std::size_t batch_size, bool drop_last);

// Samples of batch `index`: batch_size, or fewer for the final batch without drop_last.
std::size_t samples_in_batch(std::size_t count, std::size_t batch_size, std::size_t index);

// A batch of n samples is n normalised images (float, n × pixels) followed directly by
// n labels (int32), so a batch of any size is one contiguous copy of batch_bytes(n).
struct BatchLayout {
  std::size_t pixels_per_sample = 0;

  std::size_t image_bytes(std::size_t samples) const noexcept { return samples * pixels_per_sample * sizeof(float); }
  std::size_t batch_bytes(std::size_t samples) const noexcept {
    return image_bytes(samples) + samples * sizeof(std::int32_t);
  }
  // The labels of a batch of `samples` laid out this way at `batch`.
  const std::int32_t* labels(const void* batch, std::size_t samples) const noexcept {
    return reinterpret_cast<const std::int32_t*>(static_cast<const unsigned char*>(batch) + image_bytes(samples));
  }
};

// Order-independent checksum: the sum of a buffer's 32-bit words modulo 2^64. Batches
// arriving in any order, on host or device, add up to the same epoch total.
// `bytes` must be a multiple of 4.
std::uint64_t word_sum(const void* data, std::size_t bytes) noexcept;

}  // namespace hdbench
