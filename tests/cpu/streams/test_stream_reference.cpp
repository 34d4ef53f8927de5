// The CPU reference of the streams kernel: the threaded, lane-interleaved version
// must equal the plain per-word definition the GPU kernel also uses.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "pattern.hpp"
#include "stream_work.hpp"
#include "streams/stream_reference.hpp"

namespace hdbench {
namespace {

std::vector<std::uint32_t> pattern_words(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> words(count);
  for (std::size_t i = 0; i < count; ++i) words[i] = static_cast<std::uint32_t>(pattern::word(seed, i));
  return words;
}

TEST(StreamWork, OneRoundIsTheDocumentedMultiplyAddXorShift) {
  // 0 * 0x9E3779B1 + 0x7F4A7C15 = 0x7F4A7C15; 0x7F4A7C15 >> 15 = 0xFE94.
  EXPECT_EQ(stream_work::process_word(0, 1), 0x7F4A7C15u ^ 0xFE94u);
  EXPECT_EQ(stream_work::process_word(0xDEADBEEFu, 0), 0xDEADBEEFu);
  EXPECT_EQ(stream_work::process_word(5, 3), stream_work::round(stream_work::round(stream_work::round(5))));
}

TEST(StreamReference, MatchesThePerWordDefinition) {
  for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 1000u, 4099u}) {
    for (int rounds : {0, 1, 37}) {
      const auto in = pattern_words(count, 42 + count);
      std::vector<std::uint32_t> out(count, 0xA5A5A5A5u);
      process_words_cpu(in.data(), out.data(), count, rounds);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(out[i], stream_work::process_word(in[i], rounds))
            << "count=" << count << " rounds=" << rounds << " i=" << i;
      }
    }
  }
}

TEST(StreamReference, ThreadedPathMatchesToo) {
  // 1M words x 8 rounds is past the threshold where threads are used.
  const std::size_t count = (std::size_t{1} << 20) + 13;
  const auto in = pattern_words(count, 7);
  std::vector<std::uint32_t> out(count, 0);
  process_words_cpu(in.data(), out.data(), count, 8);
  for (std::size_t i = 0; i < count; i += 997) ASSERT_EQ(out[i], stream_work::process_word(in[i], 8)) << i;
  ASSERT_EQ(out.back(), stream_work::process_word(in.back(), 8));
  ASSERT_EQ(out.front(), stream_work::process_word(in.front(), 8));
}

TEST(FindWordMismatch, FindsTheFirstDifferenceOrNone) {
  for (std::size_t count : {std::size_t{10}, (std::size_t{9} << 20)}) {  // one thread, then several
    std::vector<std::uint32_t> expected(count);
    std::iota(expected.begin(), expected.end(), 1u);
    std::vector<std::uint32_t> actual = expected;
    EXPECT_FALSE(find_word_mismatch(actual.data(), expected.data(), count).has_value());
    actual[count - 1] ^= 1;
    actual[count / 2] ^= 0x80000000u;
    const auto bad = find_word_mismatch(actual.data(), expected.data(), count);
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(*bad, count / 2);
  }
  EXPECT_FALSE(find_word_mismatch(nullptr, nullptr, 0).has_value());
}

}  // namespace
}  // namespace hdbench
