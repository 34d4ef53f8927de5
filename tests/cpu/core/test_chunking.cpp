#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/chunking.hpp"
#include "streams/stream_pipeline.hpp"

namespace hdbench {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

const std::vector<std::size_t>& odd_totals() {
  static const std::vector<std::size_t> totals = {0,   1,    2,    7,    63,   64,        65,
                                                  127, 1000, 4095, 4096, 4097, 65536 + 3, (1 << 20) + 12345};
  return totals;
}

// Every byte of [0, total) is covered exactly once, pieces follow each other in
// order without gaps or overlap.
void expect_exact_cover(const std::vector<Chunk>& pieces, std::size_t total) {
  std::vector<unsigned char> hits(total, 0);
  std::size_t expected_offset = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Chunk& piece = pieces[i];
    ASSERT_EQ(piece.offset, expected_offset) << "piece " << i;
    ASSERT_LE(piece.bytes, total - piece.offset) << "piece " << i;
    for (std::size_t b = piece.offset; b < piece.offset + piece.bytes; ++b) ++hits[b];
    expected_offset += piece.bytes;
  }
  EXPECT_EQ(expected_offset, total);
  const auto first_bad = std::find_if(hits.begin(), hits.end(), [](unsigned char h) { return h != 1; });
  EXPECT_EQ(first_bad, hits.end()) << "byte " << (first_bad - hits.begin()) << " covered "
                                   << (first_bad == hits.end() ? 1 : int{*first_bad}) << " times";
}

TEST(PlanChunks, CoversEveryByteOnceInFixedChunks) {
  for (std::size_t total : odd_totals()) {
    for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{4096}, std::size_t{4097},
                              std::size_t{1} << 20, std::size_t{1} << 22, kMax}) {
      SCOPED_TRACE(::testing::Message() << "total " << total << " chunk " << chunk);
      if (total > 100000 && chunk < 64) continue;  // keeps the test quick; smaller totals cover it
      const std::vector<Chunk> chunks = plan_chunks(total, chunk);
      expect_exact_cover(chunks, total);
      const std::size_t expected_count = total / chunk + (total % chunk != 0 ? 1 : 0);
      ASSERT_EQ(chunks.size(), expected_count);
      for (std::size_t i = 0; i + 1 < chunks.size(); ++i) EXPECT_EQ(chunks[i].bytes, chunk) << i;
      if (!chunks.empty()) {
        EXPECT_GT(chunks.back().bytes, 0u);
        EXPECT_LE(chunks.back().bytes, chunk);
      }
    }
  }
}

TEST(PlanChunks, ExactMultipleHasNoShortChunk) {
  const std::vector<Chunk> chunks = plan_chunks(4 * 4096, 4096);
  EXPECT_EQ(chunks, (std::vector<Chunk>{{0, 4096}, {4096, 4096}, {8192, 4096}, {12288, 4096}}));
  EXPECT_EQ(plan_chunks(10, 4), (std::vector<Chunk>{{0, 4}, {4, 4}, {8, 2}}));
  EXPECT_EQ(plan_chunks(3, 100), (std::vector<Chunk>{{0, 3}}));
}

TEST(PlanChunks, TotalZeroGivesNoChunks) {
  EXPECT_TRUE(plan_chunks(0, 1).empty());
  EXPECT_TRUE(plan_chunks(0, 4096).empty());
}

TEST(PlanChunks, ChunkZeroThrows) {
  EXPECT_THROW(plan_chunks(100, 0), std::invalid_argument);
  EXPECT_THROW(plan_chunks(0, 0), std::invalid_argument);
}

TEST(PlanChunks, HugeTotalsDoNotWrapAround) {
  // offset + chunk passes SIZE_MAX after the second chunk; the plan must still end.
  const std::size_t half = kMax / 2 + 1;
  EXPECT_EQ(plan_chunks(kMax, half), (std::vector<Chunk>{{0, half}, {half, kMax - half}}));
  EXPECT_EQ(plan_chunks(kMax, kMax), (std::vector<Chunk>{{0, kMax}}));
}

constexpr std::size_t KiB = 1024;

TEST(RampPieces, GrowFromASixteenthOfTheChunk) {
  EXPECT_EQ(ramp_pieces({0, 4096 * KiB}, 64 * KiB), (std::vector<Chunk>{{0, 256 * KiB},
                                                                        {256 * KiB, 256 * KiB},
                                                                        {512 * KiB, 512 * KiB},
                                                                        {1024 * KiB, 1024 * KiB},
                                                                        {2048 * KiB, 2048 * KiB}}));
  // Shrinking: the same sizes largest first, from the chunk's own offset.
  EXPECT_EQ(ramp_pieces({8192 * KiB, 4096 * KiB}, 64 * KiB, true), (std::vector<Chunk>{{8192 * KiB, 2048 * KiB},
                                                                                       {10240 * KiB, 1024 * KiB},
                                                                                       {11264 * KiB, 512 * KiB},
                                                                                       {11776 * KiB, 256 * KiB},
                                                                                       {12032 * KiB, 256 * KiB}}));
}

TEST(RampPieces, StopHalvingAtTheSmallestPiece) {
  EXPECT_EQ(ramp_pieces({0, 256 * KiB}, 64 * KiB),
            (std::vector<Chunk>{{0, 64 * KiB}, {64 * KiB, 64 * KiB}, {128 * KiB, 128 * KiB}}));
  EXPECT_EQ(ramp_pieces({0, 127 * KiB}, 64 * KiB), (std::vector<Chunk>{{0, 127 * KiB}}));  // whole
  EXPECT_EQ(ramp_pieces({0, 1000}, 0), (std::vector<Chunk>{{0, 1000}}));  // under one aligned unit: whole
  EXPECT_EQ(ramp_pieces({0, 0}, 0), (std::vector<Chunk>{{0, 0}}));
}

TEST(RampPieces, CoverOddChunksInAlignedPiecesButTheLargest) {
  for (std::size_t total : odd_totals()) {
    for (bool shrinking : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "total " << total << " shrinking " << shrinking);
      const std::vector<Chunk> pieces = ramp_pieces({0, total}, 4096, shrinking);
      expect_exact_cover(pieces, total);
      EXPECT_LE(pieces.size(), 5u);
      const std::size_t largest = shrinking ? 0 : pieces.size() - 1;
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (pieces.size() > 1) {
          EXPECT_GE(pieces[i].bytes, 4096u) << i;
        }
        if (i != largest) {
          EXPECT_EQ(pieces[i].bytes % 4096, 0u) << i;
        }
      }
    }
  }
  EXPECT_THROW(ramp_pieces({0, 100}, 1, false, 4, 0), std::invalid_argument);
}

TEST(SplitEvenly, CoversEveryByteOnceInNearEqualAlignedShares) {
  for (std::size_t total : odd_totals()) {
    for (std::size_t parts : {1, 2, 3, 4, 7, 8, 16, 64, 1000, 5000}) {
      for (std::size_t alignment : {1, 8, 64, 4096}) {
        SCOPED_TRACE(::testing::Message() << "total " << total << " parts " << parts << " alignment " << alignment);
        const std::vector<Chunk> shares = split_evenly(total, parts, alignment);
        ASSERT_EQ(shares.size(), parts);
        expect_exact_cover(shares, total);
        for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
          EXPECT_EQ(shares[i].bytes % alignment, 0u) << "share " << i;
        }
        const auto [smallest, largest] = std::minmax_element(
            shares.begin(), shares.end(), [](const Chunk& a, const Chunk& b) { return a.bytes < b.bytes; });
        EXPECT_LE(largest->bytes - smallest->bytes, alignment);
      }
    }
  }
}

TEST(SplitEvenly, DefaultAlignmentIsACacheLine) {
  const std::vector<Chunk> shares = split_evenly((1 << 20) + 12345, 3);
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0].bytes % 64, 0u);
  EXPECT_EQ(shares[1].bytes % 64, 0u);
  expect_exact_cover(shares, (1 << 20) + 12345);
}

TEST(SplitEvenly, KnownSplits) {
  EXPECT_EQ(split_evenly(256, 4, 64), (std::vector<Chunk>{{0, 64}, {64, 64}, {128, 64}, {192, 64}}));
  EXPECT_EQ(split_evenly(300, 4, 64), (std::vector<Chunk>{{0, 64}, {64, 64}, {128, 64}, {192, 108}}));
  EXPECT_EQ(split_evenly(10, 3, 1), (std::vector<Chunk>{{0, 4}, {4, 3}, {7, 3}}));
  EXPECT_EQ(split_evenly(7, 1, 64), (std::vector<Chunk>{{0, 7}}));
}

TEST(SplitEvenly, MorePartsThanBytesGivesEmptyShares) {
  const std::vector<Chunk> shares = split_evenly(3, 8, 1);
  ASSERT_EQ(shares.size(), 8u);
  expect_exact_cover(shares, 3);
  std::size_t non_empty = 0;
  for (const Chunk& share : shares) non_empty += share.bytes != 0 ? 1 : 0;
  EXPECT_EQ(non_empty, 3u);

  // Less than one aligned unit: everything goes to the last share.
  const std::vector<Chunk> small = split_evenly(63, 4, 64);
  EXPECT_EQ(small, (std::vector<Chunk>{{0, 0}, {0, 0}, {0, 0}, {0, 63}}));
}

TEST(SplitEvenly, TotalZeroGivesEmptyShares) {
  const std::vector<Chunk> shares = split_evenly(0, 5, 64);
  EXPECT_EQ(shares, std::vector<Chunk>(5, Chunk{0, 0}));
}

TEST(SplitEvenly, ZeroPartsOrAlignmentThrows) {
  EXPECT_THROW(split_evenly(100, 0), std::invalid_argument);
  EXPECT_THROW(split_evenly(100, 4, 0), std::invalid_argument);
  EXPECT_THROW(split_evenly(0, 0, 0), std::invalid_argument);
}

// --- pipeline_chunks: the streams family's chunks, counted in 32-bit words ---------

TEST(PipelineChunks, CoverEveryWordOnceWhenTheSizeIsNotAMultipleOfTheChunkCount) {
  for (std::size_t words : odd_totals()) {
    for (int chunks : {1, 2, 3, 7, 16, 63, 64}) {
      SCOPED_TRACE(testing::Message() << "words=" << words << " chunks=" << chunks);
      const std::vector<Chunk> pieces = pipeline_chunks(words, chunks);
      expect_exact_cover(pieces, words);
      EXPECT_LE(pieces.size(), static_cast<std::size_t>(chunks));
      for (const Chunk& piece : pieces) {
        EXPECT_GT(piece.bytes, 0u);        // no empty copies or launches
        EXPECT_EQ(piece.offset % 64, 0u);  // each chunk starts on a 256-byte boundary
      }
    }
  }
}

TEST(PipelineChunks, MoreChunksThanWordsGiveFewerNonEmptyChunks) {
  EXPECT_EQ(pipeline_chunks(5, 64), (std::vector<Chunk>{{0, 5}}));
  EXPECT_TRUE(pipeline_chunks(0, 8).empty());
  // 200 words hold three whole 64-word units: three chunks of 64 and the rest.
  EXPECT_EQ(pipeline_chunks(200, 64), (std::vector<Chunk>{{0, 64}, {64, 64}, {128, 64}, {192, 8}}));
}

TEST(PipelineChunks, LargeBuffersSplitIntoTheRequestedCount) {
  const std::size_t words = (std::size_t{256} << 20) / 4;
  const std::vector<Chunk> pieces = pipeline_chunks(words, 64);
  ASSERT_EQ(pieces.size(), 64u);
  for (const Chunk& piece : pieces) EXPECT_EQ(piece.bytes, words / 64);
  // Not a multiple: the extra units go to the first chunks, the odd words to the last.
  const std::vector<Chunk> odd = pipeline_chunks(words + 100, 3);
  ASSERT_EQ(odd.size(), 3u);
  expect_exact_cover(odd, words + 100);
}

TEST(PipelineChunks, RejectsAChunkCountBelowOne) {
  EXPECT_THROW(pipeline_chunks(100, 0), std::invalid_argument);
  EXPECT_THROW(pipeline_chunks(100, -3), std::invalid_argument);
}

}  // namespace
}  // namespace hdbench
