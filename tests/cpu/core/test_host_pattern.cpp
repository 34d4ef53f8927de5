#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/host_pattern.hpp"
#include "core/verify.hpp"
#include "pattern.hpp"

namespace hdbench {
namespace {

constexpr std::uint64_t kSeed = 0xC0FFEE'1234ULL;

const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> values = {0, 1, 2, 7, 8, 9, 15, 63, 64, 65, 4095, 4097, (1 << 16) + 3};
  return values;
}

// The places a flipped byte is most likely to be missed: both ends, word edges and
// the tail after the last whole 8-byte word.
std::vector<std::size_t> probe_offsets(std::size_t size) {
  std::vector<std::size_t> offsets;
  for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, size / 2,
                             size / 8 * 8, size - 8, size - 2, size - 1}) {
    if (offset < size) offsets.push_back(offset);
  }
  return offsets;
}

TEST(Pattern, KnownAnswers) {
  // splitmix64: the first two outputs of a generator seeded with 0.
  EXPECT_EQ(pattern::word(0, 0), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(pattern::word(0, 1), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(pattern::word(42, 0), 0xBDD732262FEB6E95ULL);
  // Bytes are the words' bytes, least significant first.
  for (std::uint64_t offset = 0; offset < 16; ++offset) {
    EXPECT_EQ(pattern::byte_at(0, offset),
              static_cast<std::uint8_t>(pattern::word(0, offset / 8) >> (8 * (offset % 8))));
  }
  EXPECT_EQ(pattern::byte_at(0, 0), 0xAF);
  EXPECT_EQ(pattern::byte_at(0, 7), 0xE2);
  EXPECT_EQ(pattern::byte_at(0, 8), 0xF4);
}

TEST(HostPattern, FillWritesPatternBytesAtAnyAlignment) {
  for (std::size_t size : sizes()) {
    for (std::size_t misalign : {0, 1, 3, 7}) {
      SCOPED_TRACE(::testing::Message() << "size " << size << " misalignment " << misalign);
      std::vector<unsigned char> storage(size + 16, 0x5A);
      unsigned char* data = storage.data() + misalign;
      fill_pattern_host(data, size, kSeed);
      for (std::size_t i = 0; i < size; ++i) {
        ASSERT_EQ(data[i], pattern::byte_at(kSeed, i)) << "byte " << i;
      }
      // Nothing outside the range is touched.
      for (std::size_t i = 0; i < misalign; ++i) ASSERT_EQ(storage[i], 0x5A) << i;
      for (std::size_t i = misalign + size; i < storage.size(); ++i) ASSERT_EQ(storage[i], 0x5A) << i;
      EXPECT_EQ(find_pattern_mismatch(data, size, kSeed), std::nullopt);
    }
  }
}

TEST(HostPattern, EveryFlippedByteIsReportedAtItsOffset) {
  for (std::size_t size : sizes()) {
    for (std::size_t misalign : {0, 1, 5}) {
      std::vector<unsigned char> storage(size + 16);
      unsigned char* data = storage.data() + misalign;
      fill_pattern_host(data, size, kSeed);
      for (std::size_t offset : probe_offsets(size)) {
        for (unsigned char flip : {0x01, 0x80, 0xFF}) {
          SCOPED_TRACE(::testing::Message() << "size " << size << " misalignment " << misalign << " offset " << offset
                                            << " flip " << int{flip});
          data[offset] ^= flip;
          EXPECT_EQ(find_pattern_mismatch(data, size, kSeed), std::optional<std::size_t>(offset));
          data[offset] ^= flip;
          EXPECT_EQ(find_pattern_mismatch(data, size, kSeed), std::nullopt);
        }
      }
    }
  }
}

TEST(HostPattern, EveryByteOfASmallBufferIsChecked) {
  constexpr std::size_t kSize = 67;  // eight words and a three-byte tail
  std::vector<unsigned char> data(kSize);
  fill_pattern_host(data.data(), kSize, kSeed);
  for (std::size_t offset = 0; offset < kSize; ++offset) {
    data[offset] ^= 0x10;
    EXPECT_EQ(find_pattern_mismatch(data.data(), kSize, kSeed), std::optional<std::size_t>(offset));
    data[offset] ^= 0x10;
  }
}

TEST(HostPattern, FirstOfSeveralMismatchesIsReported) {
  std::vector<unsigned char> data(4097);
  fill_pattern_host(data.data(), data.size(), kSeed);
  data[4096] ^= 1;
  data[1000] ^= 1;
  data[2001] ^= 1;
  EXPECT_EQ(find_pattern_mismatch(data.data(), data.size(), kSeed), std::optional<std::size_t>(1000));
  // A shorter check stops before the damage.
  EXPECT_EQ(find_pattern_mismatch(data.data(), 1000, kSeed), std::nullopt);
}

TEST(HostPattern, DifferentSeedsGiveDifferentBytes) {
  constexpr std::size_t kSize = 4096 + 5;
  for (std::uint64_t other : {kSeed + 1, kSeed ^ (std::uint64_t{1} << 63), std::uint64_t{0}}) {
    std::vector<unsigned char> a(kSize), b(kSize);
    fill_pattern_host(a.data(), kSize, kSeed);
    fill_pattern_host(b.data(), kSize, other);
    EXPECT_NE(a, b);
    std::size_t same = 0;
    for (std::size_t i = 0; i < kSize; ++i) same += a[i] == b[i] ? 1 : 0;
    EXPECT_LT(same, kSize / 32) << "seeds " << kSeed << " and " << other << " agree on " << same << " bytes";
    EXPECT_TRUE(find_pattern_mismatch(a.data(), kSize, other).has_value());
    EXPECT_TRUE(find_pattern_mismatch(b.data(), kSize, kSeed).has_value());
  }
}

TEST(HostPattern, StaleZeroBufferFails) {
  std::vector<unsigned char> zeros(4096, 0);
  std::size_t expected = 0;
  while (pattern::byte_at(kSeed, expected) == 0) ++expected;
  EXPECT_EQ(find_pattern_mismatch(zeros.data(), zeros.size(), kSeed), std::optional<std::size_t>(expected));
}

TEST(HostPattern, EmptyRangeMatches) {
  fill_pattern_host(nullptr, 0, kSeed);
  EXPECT_EQ(find_pattern_mismatch(nullptr, 0, kSeed), std::nullopt);
}

TEST(CheckHostPatternOnCpu, PassesAndNamesTheBadByte) {
  constexpr std::size_t kSize = 4097;
  std::vector<unsigned char> storage(kSize + 1);
  unsigned char* data = storage.data() + 1;
  fill_pattern_host(data, kSize, kSeed);
  EXPECT_EQ(check_host_pattern_on_cpu(data, kSize, kSeed), "");

  data[1234] ^= 0x42;
  const std::string message = check_host_pattern_on_cpu(data, kSize, kSeed);
  EXPECT_NE(message.find("verification failed"), std::string::npos) << message;
  EXPECT_NE(message.find("byte 1234 "), std::string::npos) << message;
  EXPECT_NE(message.find("4097"), std::string::npos) << message;
  data[1234] ^= 0x42;

  data[kSize - 1] ^= 1;  // the last tail byte
  const std::string tail = check_host_pattern_on_cpu(data, kSize, kSeed);
  EXPECT_NE(tail.find("byte 4096 "), std::string::npos) << tail;

  EXPECT_NE(check_host_pattern_on_cpu(data, kSize - 1, kSeed + 1), "");
  EXPECT_EQ(check_host_pattern_on_cpu(data, kSize - 1, kSeed), "");
}

}  // namespace
}  // namespace hdbench

namespace hdbench {
namespace {

// 64 MiB + 5 takes the multi-threaded path; shares end on 8-byte boundaries and the
// last one carries the odd tail.
TEST(HostPatternParallel, LargeOddBuffersMatchThePatternByteForByte) {
  const std::size_t bytes = (std::size_t{64} << 20) + 5;
  std::vector<unsigned char> buffer(bytes + 1);
  unsigned char* data = buffer.data() + 1;  // unaligned on purpose
  fill_pattern_host(data, bytes, 77);
  EXPECT_EQ(find_pattern_mismatch(data, bytes, 77), std::nullopt);
  for (std::size_t offset : {std::size_t{0}, bytes / 2 - 1, bytes / 2, bytes / 3 * 2 + 3, bytes - 1}) {
    ASSERT_EQ(data[offset], pattern::byte_at(77, offset)) << offset;
  }
  // Two corruptions in different shares: the first one is reported.
  data[bytes - 2] ^= 0x10;
  data[bytes / 4 + 3] ^= 0x01;
  EXPECT_EQ(find_pattern_mismatch(data, bytes, 77), bytes / 4 + 3);
  data[bytes / 4 + 3] ^= 0x01;
  EXPECT_EQ(find_pattern_mismatch(data, bytes, 77), bytes - 2);
}

}  // namespace
}  // namespace hdbench
