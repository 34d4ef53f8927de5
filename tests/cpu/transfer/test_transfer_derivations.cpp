// The transfer area's derived figures, on synthetic report entries.
#include <gtest/gtest.h>

#include <string>

#include "report_entries.hpp"
#include "transfer/transfer_derivations.hpp"

namespace hdbench {
namespace {

using nlohmann::json;
using testing::entry;

json copy_params(const std::string& direction, const std::string& memory, std::size_t bytes,
                 const std::string& variant = "per_copy") {
  return {{"family", "transfer"}, {"direction", direction}, {"memory", memory},
          {"engine", "copy"},     {"variant", variant},     {"bytes", bytes}};
}

TEST(BreakEven, IsPinCostOverPerTransferSaving) {
  const json benchmarks = json::array({
      entry("a", copy_params("h2d", "pageable", 1024), {{"latency_us", 30.0}}),
      entry("b", copy_params("h2d", "pinned", 1024), {{"latency_us", 10.0}}),
      entry("c", copy_params("h2d", "registered", 1024), {{"latency_us", 12.0}}),
      entry("d", {{"family", "pinning"}, {"method", "malloc_host"}, {"bytes", 1024}}, {{"pin_unpin_us", 101.0}}),
      entry("e", {{"family", "pinning"}, {"method", "register"}, {"bytes", 1024}}, {{"pin_unpin_us", 36.0}}),
  });
  json derived = json::object();
  derive_break_even(benchmarks, derived);
  ASSERT_EQ(derived["pinning_break_even"].size(), 2u);  // only h2d has both copies
  for (const auto& row : derived["pinning_break_even"]) {
    EXPECT_EQ(row["direction"], "h2d");
    if (row["method"] == "malloc_host") {
      EXPECT_DOUBLE_EQ(row["transfers_to_break_even"].get<double>(), 6.0);  // ceil(101 / 20)
      EXPECT_DOUBLE_EQ(row["pinned_copy_us"].get<double>(), 10.0);
    } else {
      EXPECT_DOUBLE_EQ(row["transfers_to_break_even"].get<double>(), 2.0);  // ceil(36 / 18)
      EXPECT_DOUBLE_EQ(row["pinned_copy_us"].get<double>(), 12.0);
    }
  }
}

TEST(BreakEven, IsNullWhenPinnedIsNotFaster) {
  const json benchmarks = json::array({
      entry("a", copy_params("d2h", "pageable", 64), {{"latency_us", 5.0}}),
      entry("b", copy_params("d2h", "pinned", 64), {{"latency_us", 6.0}}),
      entry("d", {{"family", "pinning"}, {"method", "malloc_host"}, {"bytes", 64}}, {{"pin_unpin_us", 50.0}}),
  });
  json derived = json::object();
  derive_break_even(benchmarks, derived);
  ASSERT_EQ(derived["pinning_break_even"].size(), 1u);
  EXPECT_TRUE(derived["pinning_break_even"][0]["transfers_to_break_even"].is_null());
}

TEST(BreakEven, PrefersTheMedianOfRepetitionsAndIgnoresSkipped) {
  const json benchmarks = json::array({
      entry("p", copy_params("h2d", "pageable", 8), {{"latency_us", 1000.0}}),  // a noisy repetition
      entry("p", copy_params("h2d", "pageable", 8), {{"latency_us", 30.0}}, "ok", "median"),
      entry("p", copy_params("h2d", "pageable", 8), {{"latency_us", 500.0}}, "ok", "mean"),
      entry("q", copy_params("h2d", "pinned", 8), {{"latency_us", 10.0}}),
      entry("r", {{"family", "pinning"}, {"method", "malloc_host"}, {"bytes", 8}}, {{"pin_unpin_us", 40.0}}),
      entry("s", {{"family", "pinning"}, {"method", "register"}, {"bytes", 8}}, json::object(), "skipped"),
  });
  json derived = json::object();
  derive_break_even(benchmarks, derived);
  ASSERT_EQ(derived["pinning_break_even"].size(), 1u);
  EXPECT_DOUBLE_EQ(derived["pinning_break_even"][0]["pageable_copy_us"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(derived["pinning_break_even"][0]["transfers_to_break_even"].get<double>(), 2.0);
}

TEST(StagedVsPinned, PicksTheBestStagedConfiguration) {
  const json staged = {{"family", "staged"}, {"direction", "h2d"}, {"bytes", 1 << 20}};
  const json benchmarks = json::array({
      entry("pinned", copy_params("h2d", "pinned", 1 << 20), {{"bandwidth_GB/s", 50.0}}),
      entry("pageable", copy_params("h2d", "pageable", 1 << 20), {{"bandwidth_GB/s", 20.0}}),
      entry("staged1", staged, {{"bandwidth_GB/s", 30.0}}),
      entry("staged2", staged, {{"bandwidth_GB/s", 46.0}}),
      entry("staged3", staged, {{"bandwidth_GB/s", 99.0}}, "error"),
  });
  json derived = json::object();
  derive_staged_vs_pinned(benchmarks, derived);
  ASSERT_EQ(derived["staged_vs_pinned"].size(), 1u);
  const json& row = derived["staged_vs_pinned"][0];
  EXPECT_EQ(row["best_staged_benchmark"], "staged2");
  EXPECT_DOUBLE_EQ(row["fraction_of_pinned"].get<double>(), 46.0 / 50.0);
  EXPECT_DOUBLE_EQ(row["speedup_over_pageable"].get<double>(), 46.0 / 20.0);
}

json staged_params(const std::string& direction, std::size_t bytes, int threads, std::size_t chunk) {
  return {
      {"family", "staged"}, {"direction", direction}, {"bytes", bytes}, {"threads", threads}, {"chunk_bytes", chunk}};
}

json memcpy_params(int threads, std::size_t bytes) {
  return {{"family", "host_memcpy"}, {"memory", "pageable"}, {"threads", threads}, {"bytes", bytes}};
}

// The bound of a staged copy at T threads is min(pinned copy, host memcpy at T).
// Hand-made: pinned 55 GB/s; host memcpy 20 GB/s at 4 threads, 26 at 8, 40 at 16;
// staged best 28.7 at 4 (16M chunks; 21.8 with 4M), 32.3 at 8, 27.5 at 16.
//   4 threads: bound = min(55, 20) = 20, host memcpy; 28.7 / 20 = 1.435
//   8 threads: bound = min(55, 26) = 26, host memcpy; 32.3 / 26 = 1.2423...
//  16 threads: bound = min(55, 40) = 40, host memcpy; 27.5 / 40 = 0.6875
// The best staged run is 8 threads' 32.3: 32.3 / 55 of pinned, bound 26 (host memcpy).
TEST(StagedVsPinned, RatesEachThreadCountAgainstTheSlowerOfPinnedCopyAndHostMemcpy) {
  constexpr std::size_t kBytes = 256u << 20, k4M = 4u << 20, k16M = 16u << 20;
  const json benchmarks = json::array({
      entry("pinned", copy_params("h2d", "pinned", kBytes), {{"bandwidth_GB/s", 55.0}}),
      entry("memcpy4", memcpy_params(4, kBytes), {{"bandwidth_GB/s", 20.0}}),
      entry("memcpy8", memcpy_params(8, kBytes), {{"bandwidth_GB/s", 26.0}}),
      entry("memcpy16", memcpy_params(16, kBytes), {{"bandwidth_GB/s", 40.0}}),
      entry("memcpy16-1M", memcpy_params(16, 1u << 20), {{"bandwidth_GB/s", 99.0}}),  // another size: not used
      entry("s4-4M", staged_params("h2d", kBytes, 4, k4M), {{"bandwidth_GB/s", 21.8}}),
      entry("s4-16M", staged_params("h2d", kBytes, 4, k16M), {{"bandwidth_GB/s", 28.7}}),
      entry("s8", staged_params("h2d", kBytes, 8, k4M), {{"bandwidth_GB/s", 32.3}}),
      entry("s16", staged_params("h2d", kBytes, 16, k16M), {{"bandwidth_GB/s", 27.5}}),
  });
  json derived = json::object();
  derive_staged_vs_pinned(benchmarks, derived);
  ASSERT_EQ(derived["staged_vs_pinned"].size(), 1u);
  const json& row = derived["staged_vs_pinned"][0];
  EXPECT_EQ(row["best_staged_benchmark"], "s8");
  EXPECT_EQ(row["best_staged_threads"], 8);
  EXPECT_EQ(row["best_staged_chunk_bytes"], k4M);
  EXPECT_DOUBLE_EQ(row["fraction_of_pinned"].get<double>(), 32.3 / 55.0);
  EXPECT_DOUBLE_EQ(row["host_memcpy_GB/s_at_threads"].get<double>(), 26.0);
  EXPECT_EQ(row["bound"], "host memcpy");
  EXPECT_DOUBLE_EQ(row["bound_GB/s"].get<double>(), 26.0);
  EXPECT_DOUBLE_EQ(row["fraction_of_bound"].get<double>(), 32.3 / 26.0);
  const json& by = row["by_threads"];
  ASSERT_EQ(by.size(), 3u);
  EXPECT_EQ(by[0]["threads"], 4);
  EXPECT_EQ(by[0]["benchmark"], "s4-16M");  // the faster chunk size at 4 threads
  EXPECT_EQ(by[0]["chunk_bytes"], k16M);
  EXPECT_DOUBLE_EQ(by[0]["fraction_of_bound"].get<double>(), 28.7 / 20.0);
  EXPECT_DOUBLE_EQ(by[1]["fraction_of_bound"].get<double>(), 32.3 / 26.0);
  EXPECT_EQ(by[2]["threads"], 16);
  EXPECT_EQ(by[2]["bound"], "host memcpy");
  EXPECT_DOUBLE_EQ(by[2]["bound_GB/s"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(by[2]["fraction_of_bound"].get<double>(), 27.5 / 40.0);
}

// A host whose memcpy outruns the link: the pinned copy is the bound. Without a host
// memcpy figure for a thread count the pinned copy is the only bound known; with
// neither, no bound is claimed.
//   2 threads: min(50, 80) = 50, pinned copy; 45 / 50 = 0.9
//   1 thread: no memcpy at 1 thread: bound 50, pinned copy; 30 / 50 = 0.6
//   d2h: no pinned copy and no memcpy at 1 thread: no bound fields.
TEST(StagedVsPinned, NamesThePinnedCopyWhenItIsTheSlowerSideAndClaimsNoBoundWithoutFigures) {
  constexpr std::size_t kBytes = 64u << 20, kChunk = 1u << 20;
  const json benchmarks = json::array({
      entry("pinned", copy_params("h2d", "pinned", kBytes), {{"bandwidth_GB/s", 50.0}}),
      entry("memcpy2", memcpy_params(2, kBytes), {{"bandwidth_GB/s", 80.0}}),
      entry("s1", staged_params("h2d", kBytes, 1, kChunk), {{"bandwidth_GB/s", 30.0}}),
      entry("s2", staged_params("h2d", kBytes, 2, kChunk), {{"bandwidth_GB/s", 45.0}}),
      entry("d1", staged_params("d2h", kBytes, 1, kChunk), {{"bandwidth_GB/s", 12.0}}),
  });
  json derived = json::object();
  derive_staged_vs_pinned(benchmarks, derived);
  const json& rows = derived["staged_vs_pinned"];
  ASSERT_EQ(rows.size(), 2u);
  const json& d2h = rows[0]["direction"] == "d2h" ? rows[0] : rows[1];
  const json& h2d = rows[0]["direction"] == "h2d" ? rows[0] : rows[1];
  EXPECT_EQ(h2d["bound"], "pinned copy");
  EXPECT_DOUBLE_EQ(h2d["fraction_of_bound"].get<double>(), 0.9);
  EXPECT_EQ(h2d["by_threads"][0]["bound"], "pinned copy");
  EXPECT_TRUE(h2d["by_threads"][0]["host_memcpy_GB/s_at_threads"].is_null());
  EXPECT_DOUBLE_EQ(h2d["by_threads"][0]["fraction_of_bound"].get<double>(), 0.6);
  EXPECT_TRUE(d2h["host_memcpy_GB/s_at_threads"].is_null());
  EXPECT_FALSE(d2h.contains("bound"));
  EXPECT_FALSE(d2h.contains("fraction_of_bound"));
  EXPECT_FALSE(d2h.contains("fraction_of_pinned"));
  EXPECT_DOUBLE_EQ(d2h["best_staged_GB/s"].get<double>(), 12.0);
}

TEST(ReferenceAgreement, ComparesPerCopyWithTheLoopOfTheSameSize) {
  const json benchmarks = json::array({
      entry("a", copy_params("h2d", "pinned", 256, "per_copy"), {{"bandwidth_GB/s", 49.0}}),
      entry("b", copy_params("h2d", "pinned", 256, "reference_loop"), {{"bandwidth_GB/s", 50.0}}),
      entry("c", copy_params("d2h", "pinned", 256, "reference_loop"), {{"bandwidth_GB/s", 50.0}}),
      entry("d", copy_params("h2d", "pageable", 256, "per_copy"), {{"bandwidth_GB/s", 10.0}}),
  });
  json derived = json::object();
  derive_reference_agreement(benchmarks, derived);
  ASSERT_EQ(derived["per_copy_vs_reference_loop"].size(), 1u);  // d2h has no per-copy run
  EXPECT_DOUBLE_EQ(derived["per_copy_vs_reference_loop"][0]["ratio"].get<double>(), 0.98);
}

TEST(Derivations, AddNothingWithoutInputs) {
  json derived = json::object();
  derive_break_even(json::array(), derived);
  derive_staged_vs_pinned(json::array(), derived);
  derive_reference_agreement(json::array(), derived);
  EXPECT_TRUE(derived.empty());
}

}  // namespace
}  // namespace hdbench
