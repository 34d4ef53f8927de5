#include "pipeline/sample_transform.hpp"

#include <cstring>
#include <ctime>

#include "core/parallel.hpp"
#include "pattern.hpp"

namespace hdbench {

void transform_sample(const Dataset& dataset, std::uint32_t index, std::size_t epoch, const TransformConfig& config,
                      float* out) {
  const std::size_t rows = dataset.rows;
  const std::size_t cols = dataset.cols;
  const std::uint8_t* image = dataset.image(index);
  constexpr float scale = 1.0f / (255.0f * kMnistStd);
  constexpr float offset = -kMnistMean / kMnistStd;
  if (config.augment == Augment::none) {
    for (std::size_t i = 0; i < rows * cols; ++i) out[i] = static_cast<float>(image[i]) * scale + offset;
    return;
  }
  const std::uint64_t draw = pattern::word(pattern::word(config.seed, epoch), index);
  constexpr long span = 2 * kCropPadding + 1;
  const long dy = static_cast<long>(draw % span) - kCropPadding;
  const long dx = static_cast<long>((draw / span) % span) - kCropPadding;
  const bool flip = ((draw >> 32) & 1u) != 0;
  for (std::size_t y = 0; y < rows; ++y) {
    const long sy = static_cast<long>(y) + dy;
    for (std::size_t x = 0; x < cols; ++x) {
      const long fx = flip ? static_cast<long>(cols - 1 - x) : static_cast<long>(x);
      const long sx = fx + dx;
      // Outside the image is the zero padding of the crop.
      const bool inside = sy >= 0 && sy < static_cast<long>(rows) && sx >= 0 && sx < static_cast<long>(cols);
      const std::uint8_t pixel = inside ? image[static_cast<std::size_t>(sy) * cols + static_cast<std::size_t>(sx)] : 0;
      out[y * cols + x] = static_cast<float>(pixel) * scale + offset;
    }
  }
}

double thread_cpu_seconds() noexcept {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void burn_cpu(double microseconds) noexcept {
  if (microseconds <= 0.0) return;
  // The thread's own CPU clock, not the wall clock: decoding is a fixed amount of CPU
  // work, and a thread that is descheduled on a busy machine has not done it yet.
  const double end = thread_cpu_seconds() + 1e-6 * microseconds;
  while (thread_cpu_seconds() < end) {
  }
}

void collate_batch(const Dataset& dataset, const std::vector<std::uint32_t>& ids, std::size_t epoch,
                   const TransformConfig& config, void* out) {
  collate_samples(dataset, ids, 0, ids.size(), epoch, config, out);
}

void collate_samples(const Dataset& dataset, const std::vector<std::uint32_t>& ids, std::size_t first, std::size_t last,
                     std::size_t epoch, const TransformConfig& config, void* out) {
  const BatchLayout layout{dataset.pixels_per_sample()};
  auto* images = static_cast<float*>(out);
  auto* labels_out = reinterpret_cast<unsigned char*>(out) + layout.image_bytes(ids.size());
  for (std::size_t i = first; i < last; ++i) {
    burn_cpu(config.cost_us);
    transform_sample(dataset, ids[i], epoch, config, images + i * layout.pixels_per_sample);
    const std::int32_t label = dataset.labels[ids[i]];
    std::memcpy(labels_out + i * sizeof(label), &label, sizeof(label));
  }
}

std::uint64_t epoch_checksum_reference(const Dataset& dataset, const std::vector<std::uint32_t>& delivered_ids,
                                       std::size_t epoch, const TransformConfig& config) {
  const std::size_t parts = std::min<std::size_t>(host_worker_count(), std::max<std::size_t>(1, delivered_ids.size()));
  std::vector<std::uint64_t> sums(parts, 0);
  parallel_for_shares(delivered_ids.size(), parts, 1, [&](std::size_t part, Chunk share) {
    std::vector<float> sample(dataset.pixels_per_sample());
    std::uint64_t sum = 0;
    for (std::size_t i = share.offset; i < share.offset + share.bytes; ++i) {
      transform_sample(dataset, delivered_ids[i], epoch, config, sample.data());
      sum += word_sum(sample.data(), sample.size() * sizeof(float)) + dataset.labels[delivered_ids[i]];
    }
    sums[part] = sum;
  });
  std::uint64_t total = 0;
  for (std::uint64_t s : sums) total += s;
  return total;
}

}  // namespace hdbench
