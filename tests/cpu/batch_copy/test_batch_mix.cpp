#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "batch_copy/batch_mix.hpp"

namespace hdbench {
namespace {

TEST(BatchMix, TensorsCycleThroughTheStatedSizes) {
  EXPECT_EQ(batch_tensor_sizes(1), (std::vector<std::size_t>{256}));
  EXPECT_EQ(batch_tensor_sizes(3), (std::vector<std::size_t>{256, 1024, 4096}));
  const std::vector<std::size_t> ten = batch_tensor_sizes(10);
  EXPECT_EQ(ten[7], std::size_t{4} << 20);  // the eighth is the largest
  EXPECT_EQ(ten[8], 256u);                  // then the cycle starts again
  EXPECT_EQ(std::accumulate(ten.begin(), ten.end(), std::size_t{0}),
            std::size_t{256 + 1024 + 4096 + 16384 + 65536 + 262144 + 1048576 + 4194304 + 256 + 1024});
  EXPECT_TRUE(batch_tensor_sizes(0).empty());
}

TEST(BatchMix, PackedOffsetsKeepEveryTensorAlignedAndApart) {
  const std::vector<std::size_t> sizes = {100, 256, 1, 300};
  const std::vector<std::size_t> offsets = packed_offsets(sizes, 256);
  EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 256, 512, 768}));
  EXPECT_EQ(packed_bytes(sizes, offsets), 768u + 300u);
  EXPECT_EQ(packed_offsets(sizes, 1), (std::vector<std::size_t>{0, 100, 356, 357}));
  EXPECT_EQ(packed_bytes({}, {}), 0u);
  EXPECT_THROW(packed_offsets(sizes, 3), std::invalid_argument);
  EXPECT_THROW(packed_offsets(sizes, 0), std::invalid_argument);
}

TEST(BatchMix, TheGatherPutsEachTensorAtItsOffsetAndNothingElseMoves) {
  std::vector<std::vector<unsigned char>> tensors = {{1, 2, 3}, {4}, {5, 6, 7, 8, 9}};
  std::vector<const void*> sources;
  std::vector<std::size_t> sizes;
  for (const auto& t : tensors) {
    sources.push_back(t.data());
    sizes.push_back(t.size());
  }
  const std::vector<std::size_t> offsets = packed_offsets(sizes, 4);
  std::vector<unsigned char> packed(packed_bytes(sizes, offsets), 0xEE);
  gather_tensors(sources, sizes, offsets, packed.data());
  EXPECT_EQ(packed, (std::vector<unsigned char>{1, 2, 3, 0xEE, 4, 0xEE, 0xEE, 0xEE, 5, 6, 7, 8, 9}));
}

}  // namespace
}  // namespace hdbench
