#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/host_pattern.hpp"
#include "transfer/memcpy_pool.hpp"

namespace hdbench {
namespace {

constexpr unsigned char kGuard = 0xA5;
constexpr std::size_t kGuardBytes = 64;

// Copies `size` bytes between buffers placed `src_shift`/`dst_shift` bytes past an
// aligned start and checks the copy byte for byte, with the bytes around the
// destination untouched.
void copy_and_check(MemcpyPool& pool, std::size_t size, std::size_t src_shift, std::size_t dst_shift,
                    std::uint64_t seed) {
  std::vector<unsigned char> src(size + kGuardBytes);
  std::vector<unsigned char> dst(size + 2 * kGuardBytes, kGuard);
  fill_pattern_host(src.data() + src_shift, size, seed);
  unsigned char* out = dst.data() + kGuardBytes + dst_shift;
  pool.copy(out, src.data() + src_shift, size);
  ASSERT_EQ(find_pattern_mismatch(out, size, seed), std::nullopt) << pool.threads() << " threads, " << size << " bytes";
  ASSERT_EQ(std::memcmp(out, src.data() + src_shift, size), 0);
  for (std::size_t i = 0; i < kGuardBytes + dst_shift; ++i) ASSERT_EQ(dst[i], kGuard) << "before, " << i;
  for (std::size_t i = kGuardBytes + dst_shift + size; i < dst.size(); ++i) {
    ASSERT_EQ(dst[i], kGuard) << "after, " << i;
  }
}

class MemcpyPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(MemcpyPoolTest, CopiesExactBytesRepeatedly) {
  MemcpyPool pool(GetParam(), "test");
  EXPECT_EQ(pool.threads(), GetParam());
  std::uint64_t seed = 1;
  int copies = 0;
  for (int round = 0; round < 12; ++round) {
    for (std::size_t size :
         {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4097}, (std::size_t{1} << 20) + 5}) {
      const std::size_t src_shift = static_cast<std::size_t>(round % 3);
      const std::size_t dst_shift = static_cast<std::size_t>(round % 5);
      copy_and_check(pool, size, src_shift, dst_shift, seed++);
      if (HasFatalFailure()) return;
      ++copies;
    }
  }
  EXPECT_GE(copies, 50);
}

TEST_P(MemcpyPoolTest, ManySmallCopiesBackToBack) {
  // Exercises the hand-off between generations: workers must pick up every copy.
  MemcpyPool pool(GetParam());
  std::vector<unsigned char> src(4096), dst(4096);
  for (int i = 0; i < 500; ++i) {
    const std::size_t size = static_cast<std::size_t>(i * 7 % 4096);
    fill_pattern_host(src.data(), size, static_cast<std::uint64_t>(i));
    std::memset(dst.data(), 0, dst.size());
    pool.copy(dst.data(), src.data(), size);
    ASSERT_EQ(find_pattern_mismatch(dst.data(), size, static_cast<std::uint64_t>(i)), std::nullopt) << "copy " << i;
  }
}

TEST_P(MemcpyPoolTest, UnusedPoolIsDestroyedPromptly) {
  // Hangs (and the test times out) when workers are not woken for shutdown.
  for (int i = 0; i < 20; ++i) {
    MemcpyPool pool(GetParam());
    EXPECT_EQ(pool.threads(), GetParam());
  }
}

TEST_P(MemcpyPoolTest, UsedPoolIsDestroyedPromptly) {
  std::vector<unsigned char> src(1000, 7), dst(1000, 0);
  for (int i = 0; i < 20; ++i) {
    MemcpyPool pool(GetParam());
    pool.copy(dst.data(), src.data(), src.size());
    ASSERT_EQ(dst, src);
    std::memset(dst.data(), 0, dst.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, MemcpyPoolTest, ::testing::Values(1, 2, 3, 8),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "_threads";
                         });

TEST(MemcpyPool, NeedsAtLeastOneThread) {
  EXPECT_THROW(MemcpyPool(0), std::invalid_argument);
  EXPECT_THROW(MemcpyPool(-1), std::invalid_argument);
}

}  // namespace
}  // namespace hdbench
