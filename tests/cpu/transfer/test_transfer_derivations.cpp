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
  return {{"family", "transfer"}, {"direction", direction}, {"memory", memory}, {"engine", "copy"},
          {"variant", variant},   {"bytes", bytes}};
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
