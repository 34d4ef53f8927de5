// The value parsers every flag is built from.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "option_test_support.hpp"

namespace hdbench {
namespace {

using namespace hdbench::testing;  // NOLINT

// --- parse_size ---------------------------------------------------------------

TEST(ParseSize, AcceptsPlainAndBinaryUnits) {
  EXPECT_EQ(parse_size("sizes", "4096"), 4096u);
  EXPECT_EQ(parse_size("sizes", "1"), 1u);
  EXPECT_EQ(parse_size("sizes", "1000B"), 1000u);
  EXPECT_EQ(parse_size("sizes", "4K"), 4 * kKiB);
  EXPECT_EQ(parse_size("sizes", "4KiB"), 4 * kKiB);
  EXPECT_EQ(parse_size("sizes", "4KB"), 4 * kKiB);
  EXPECT_EQ(parse_size("sizes", "64M"), 64 * kMiB);
  EXPECT_EQ(parse_size("sizes", "64MiB"), 64 * kMiB);
  EXPECT_EQ(parse_size("sizes", "1G"), kGiB);
  EXPECT_EQ(parse_size("sizes", "1GiB"), kGiB);
  EXPECT_EQ(parse_size("sizes", "3G"), 3 * kGiB);
  EXPECT_EQ(parse_size("sizes", "2T"), std::size_t{2} << 40);
}

TEST(ParseSize, RejectsBadValuesNamingTheFlag) {
  for (std::string_view text : {"0", "0K", "-1", "abc", "4X", "", "K", "4 K", " 4K", "4K ", "4k", "4Ki", "1.5G", "0x10",
                                "99999999999T", "16777216T", "18446744073709551616"}) {
    const std::string message = usage_error_of([&] { parse_size("sizes", text); });
    EXPECT_TRUE(contains(message, "--hdbench_sizes")) << text << ": " << message;
    EXPECT_TRUE(contains(message, "accepted")) << text << ": " << message;
    EXPECT_TRUE(contains(message, "4K")) << text << ": " << message;
  }
}

TEST(ParseSize, LargestRepresentableSizes) {
  // 2^64 >> 40 = 2^24: 16777215T still fits a 64-bit size, 16777216T does not.
  EXPECT_EQ(parse_size("sizes", "16777215T"), std::size_t{16777215} << 40);
  EXPECT_EQ(parse_size("sizes", "18446744073709551615"), ~std::size_t{0});
}

// --- parse_size_list ----------------------------------------------------------

TEST(ParseSizeList, DefaultRangeHasTenSizes) {
  const std::vector<std::size_t> sizes = parse_size_list("sizes", "4K:1G:x4");
  const std::vector<std::size_t> expected = {4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB, kMiB,
                                             4 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB, kGiB};
  EXPECT_EQ(sizes, expected);
}

TEST(ParseSizeList, RangeStopsAtOrBeforeTo) {
  EXPECT_EQ(parse_size_list("sizes", "4K:100K:x4"), (std::vector<std::size_t>{4 * kKiB, 16 * kKiB, 64 * kKiB}));
  EXPECT_EQ(parse_size_list("sizes", "4K:4K:x2"), (std::vector<std::size_t>{4 * kKiB}));
  EXPECT_EQ(parse_size_list("sizes", "1:10:x3"), (std::vector<std::size_t>{1, 3, 9}));
}

TEST(ParseSizeList, RangeNearTheTopDoesNotOverflow) {
  const std::vector<std::size_t> sizes = parse_size_list("sizes", "1T:16777215T:x2");
  ASSERT_EQ(sizes.size(), 24u);  // 2^40 .. 2^63
  EXPECT_EQ(sizes.front(), std::size_t{1} << 40);
  EXPECT_EQ(sizes.back(), std::size_t{1} << 63);
}

TEST(ParseSizeList, SortsAndDedupes) {
  EXPECT_EQ(parse_size_list("sizes", "1M,4K,1M,4096,16K:64K:x4"),
            (std::vector<std::size_t>{4 * kKiB, 16 * kKiB, 64 * kKiB, kMiB}));
  EXPECT_EQ(parse_size_list("sizes", "64M"), (std::vector<std::size_t>{64 * kMiB}));
}

TEST(ParseSizeList, RejectsBadRangesAndItems) {
  for (std::string_view text : {"1G:4K:x4", "4K:1G:x1", "4K:1G:x0", "4K:1G", "4K:1G:4", "4K:1G:x", "4K:1G:xx",
                                "4K:1G:x4:x4", "0:1G:x4", "4K:0:x4", ":1G:x4", "", "4K,,8K", "4K,", ",4K", "4K;8K"}) {
    const std::string message = usage_error_of([&] { parse_size_list("sizes", text); });
    EXPECT_TRUE(contains(message, "--hdbench_sizes")) << text << ": " << message;
    EXPECT_TRUE(contains(message, "accepted")) << text << ": " << message;
  }
}

TEST(ParseSizeList, BadRangeSaysWhatRangesLookLike) {
  EXPECT_TRUE(contains(usage_error_of([] { parse_size_list("sizes", "1G:4K:x4"); }), "FROM:TO:xFACTOR"));
  EXPECT_TRUE(contains(usage_error_of([] { parse_size_list("sizes", "4K:1G:x1"); }), "FACTOR >= 2"));
  EXPECT_TRUE(contains(usage_error_of([] { parse_size_list("sizes", "4K:1G"); }), "4K:1G:x4"));
}

// --- parse_int_list -----------------------------------------------------------

TEST(ParseIntList, AcceptsValuesWithinBoundsInOrderWithoutDuplicates) {
  EXPECT_EQ(parse_int_list("staged_threads", "1,2,4", 1, 8), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_int_list("staged_threads", "8", 1, 8), (std::vector<int>{8}));
  EXPECT_EQ(parse_int_list("staged_threads", "4,1,4,1", 1, 8), (std::vector<int>{4, 1}));
  EXPECT_EQ(parse_int_list("staged_slots", "2", 2, 64), (std::vector<int>{2}));
  EXPECT_EQ(parse_int_list("staged_slots", "64", 2, 64), (std::vector<int>{64}));
}

TEST(ParseIntList, RejectsOutOfBoundsAndGarbage) {
  for (std::string_view text :
       {"0", "9", "-1", "", "a", "1,,2", "1,", "1.5", "+1", "1 ", "2,9", "99999999999999999999", "4294967297"}) {
    const std::string message = usage_error_of([&] { parse_int_list("staged_threads", text, 1, 8); });
    EXPECT_TRUE(contains(message, "--hdbench_staged_threads")) << text << ": " << message;
    EXPECT_TRUE(contains(message, "from 1 to 8")) << text << ": " << message;
  }
}

TEST(ParseOneValue, AFlagThatTakesOneValueNeverSaysCommaSeparated) {
  for (std::string_view text : {"0", "abc", "1,2", ""}) {
    const std::string one_int = usage_error_of([&] { parse_one_int("dp_steps", text, 1, 100000); });
    EXPECT_TRUE(contains(one_int, "one integer from 1 to 100000")) << text << ": " << one_int;
    const std::string one_number =
        usage_error_of([&] { parse_one_number("dp_tolerance", text, 1e-9, 1.0, "one number from 1e-9 to 1"); });
    EXPECT_TRUE(contains(one_number, "one number from 1e-9 to 1")) << text << ": " << one_number;
    EXPECT_FALSE(contains(one_int + one_number, "comma-separated")) << text;
  }
}

// --- format_size --------------------------------------------------------------

TEST(FormatSize, UsesExactBinaryUnits) {
  EXPECT_EQ(format_size(4096), "4KiB");
  EXPECT_EQ(format_size(kGiB), "1GiB");
  EXPECT_EQ(format_size(1000), "1000B");
  EXPECT_EQ(format_size(3 * kMiB), "3MiB");
  EXPECT_EQ(format_size(256 * kMiB), "256MiB");
  EXPECT_EQ(format_size(1536 * kMiB), "1536MiB");
  EXPECT_EQ(format_size(1536), "1536B");
  EXPECT_EQ(format_size(kMiB + kKiB), "1025KiB");
  EXPECT_EQ(format_size(std::size_t{1} << 40), "1TiB");
  EXPECT_EQ(format_size(0), "0B");
  EXPECT_EQ(format_size(1), "1B");
}

TEST(FormatSize, RoundTripsThroughParseSize) {
  for (std::size_t size : parse_size_list("sizes", "1:1T:x2")) {
    EXPECT_EQ(parse_size("sizes", format_size(size)), size) << size;
  }
  for (std::size_t size : {std::size_t{1000}, std::size_t{4097}, 3 * kMiB, kMiB + kKiB}) {
    EXPECT_EQ(parse_size("sizes", format_size(size)), size) << size;
  }
}

}  // namespace
}  // namespace hdbench
