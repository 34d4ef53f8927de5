// Per-sample work and the epoch checksum: normalisation to the exact values,
// augmentation that is a crop of the padded image (and a flip) decided by (seed,
// epoch, index) alone, the synthetic cost, and word sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include "pipeline/batch_plan.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {
namespace {

const Dataset& dataset() {
  static const Dataset d = make_synthetic_mnist(64, 9);
  return d;
}

float normalised(std::uint8_t pixel) { return (static_cast<float>(pixel) / 255.0f - kMnistMean) / kMnistStd; }

TEST(SampleTransform, NormalisesEveryPixel) {
  const Dataset& d = dataset();
  std::vector<float> out(d.pixels_per_sample());
  transform_sample(d, 5, 0, {}, out.data());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], normalised(d.image(5)[i]), 1e-5f) << i;
}

// The (dy, dx, flip) that turns the image into `out`, or nullopt.
std::optional<std::tuple<int, int, bool>> find_crop(const Dataset& d, std::uint32_t index,
                                                    const std::vector<float>& out) {
  const int rows = static_cast<int>(d.rows);
  const int cols = static_cast<int>(d.cols);
  for (int dy = -kCropPadding; dy <= kCropPadding; ++dy) {
    for (int dx = -kCropPadding; dx <= kCropPadding; ++dx) {
      for (bool flip : {false, true}) {
        bool match = true;
        for (int y = 0; y < rows && match; ++y) {
          for (int x = 0; x < cols && match; ++x) {
            const int sy = y + dy;
            const int sx = (flip ? cols - 1 - x : x) + dx;
            const std::uint8_t pixel =
                (sy >= 0 && sy < rows && sx >= 0 && sx < cols) ? d.image(index)[sy * cols + sx] : 0;
            match = std::fabs(out[static_cast<std::size_t>(y * cols + x)] - normalised(pixel)) < 1e-5f;
          }
        }
        if (match) return std::make_tuple(dy, dx, flip);
      }
    }
  }
  return std::nullopt;
}

TEST(SampleTransform, CropFlipIsACropOfThePaddedImageDecidedBySeedEpochAndIndex) {
  const Dataset& d = dataset();
  TransformConfig config{Augment::crop_flip, 0.0, 77};
  std::vector<float> out(d.pixels_per_sample());
  std::vector<float> again(d.pixels_per_sample());
  int flips = 0;
  int shifted = 0;
  int changed_between_epochs = 0;
  for (std::uint32_t index = 0; index < 40; ++index) {
    transform_sample(d, index, 3, config, out.data());
    const auto crop = find_crop(d, index, out);
    ASSERT_TRUE(crop.has_value()) << "sample " << index << " is not a crop/flip of its image";
    flips += std::get<2>(*crop) ? 1 : 0;
    shifted += (std::get<0>(*crop) != 0 || std::get<1>(*crop) != 0) ? 1 : 0;
    transform_sample(d, index, 3, config, again.data());
    EXPECT_EQ(out, again);  // deterministic
    transform_sample(d, index, 4, config, again.data());
    changed_between_epochs += out != again ? 1 : 0;
  }
  // Forty fair draws: all-or-nothing outcomes would mean the draws are broken.
  EXPECT_GT(flips, 5);
  EXPECT_LT(flips, 35);
  EXPECT_GT(shifted, 20);
  EXPECT_GT(changed_between_epochs, 20);
}

TEST(SampleTransform, BurnCpuSpendsAtLeastTheCpuTimeAsked) {
  const double before = thread_cpu_seconds();
  burn_cpu(2000.0);
  EXPECT_GE(thread_cpu_seconds() - before, 2e-3);
  burn_cpu(0.0);
  burn_cpu(-1.0);  // no cost: returns at once
}

TEST(SampleTransform, CollateWritesImagesThenLabels) {
  const Dataset& d = dataset();
  const std::vector<std::uint32_t> ids = {3, 1, 60};
  const BatchLayout layout{d.pixels_per_sample()};
  std::vector<unsigned char> batch(layout.batch_bytes(ids.size()));
  collate_batch(d, ids, 0, {}, batch.data());
  std::vector<float> sample(d.pixels_per_sample());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    transform_sample(d, ids[i], 0, {}, sample.data());
    EXPECT_EQ(
        std::memcmp(batch.data() + i * sample.size() * sizeof(float), sample.data(), sample.size() * sizeof(float)), 0);
    std::int32_t label = 0;
    std::memcpy(&label, batch.data() + layout.image_bytes(ids.size()) + i * 4, 4);
    EXPECT_EQ(label, d.labels[ids[i]]);
  }
}

TEST(BatchPlan, WordSumIsTheSumOfWordsModulo2To64) {
  std::vector<std::uint32_t> words(1001);
  std::iota(words.begin(), words.end(), 0xFFFFFF00u);
  std::uint64_t expected = 0;
  for (std::uint32_t w : words) expected += w;
  EXPECT_EQ(word_sum(words.data(), words.size() * 4), expected);
  EXPECT_EQ(word_sum(words.data(), 3 * 4), std::uint64_t{0xFFFFFF00u} + 0xFFFFFF01u + 0xFFFFFF02u);
  EXPECT_EQ(word_sum(words.data(), 0), 0u);
}

TEST(BatchPlan, BatchesAndDeliveredSamples) {
  EXPECT_EQ(batches_per_epoch(10, 3, false), 4u);
  EXPECT_EQ(batches_per_epoch(10, 3, true), 3u);
  EXPECT_EQ(batches_per_epoch(2, 3, true), 0u);
  EXPECT_EQ(samples_in_batch(10, 3, 3), 1u);
  EXPECT_EQ(samples_in_batch(10, 3, 4), 0u);
  EXPECT_EQ(delivered_ids(10, 3, false, true, 0, 0), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(BatchLayout{784}.batch_bytes(2), 2u * (784 * 4 + 4));
}

TEST(BatchPlan, EpochChecksumReferenceIsTheSumOfTheBatches) {
  const Dataset& d = dataset();
  const TransformConfig config{Augment::crop_flip, 0.0, 5};
  const auto ids = delivered_ids(d.size(), 10, true, true, 1, 2);
  const BatchLayout layout{d.pixels_per_sample()};
  std::uint64_t sum = 0;
  for (std::size_t first = 0; first < ids.size(); first += 10) {
    const std::vector<std::uint32_t> batch_ids(ids.begin() + static_cast<long>(first),
                                               ids.begin() + static_cast<long>(first + 10));
    std::vector<unsigned char> batch(layout.batch_bytes(10));
    collate_batch(d, batch_ids, 2, config, batch.data());
    sum += word_sum(batch.data(), batch.size());
  }
  EXPECT_EQ(epoch_checksum_reference(d, ids, 2, config), sum);
}

}  // namespace
}  // namespace hdbench
