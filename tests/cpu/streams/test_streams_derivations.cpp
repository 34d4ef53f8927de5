// The streams family's derived figures, on synthetic report entries.
#include <gtest/gtest.h>

#include <string>

#include "report_entries.hpp"
#include "streams/streams_derivations.hpp"

namespace hdbench {
namespace {

using nlohmann::json;
using testing::entry;

// A transfer run, which the streams derivation must leave alone.
json copy_params(const std::string& direction, const std::string& memory, std::size_t bytes) {
  return {{"family", "transfer"}, {"direction", direction}, {"memory", memory},
          {"engine", "copy"},     {"variant", "per_copy"},  {"bytes", bytes}};
}

json stream_params(const std::string& variant, const std::string& memory, int streams = 1, int chunks = 1,
                   const std::string& mode = "") {
  json p = {{"family", "streams"},  {"variant", variant}, {"memory", memory}, {"bytes", 1 << 20},
            {"compute_ratio", 1.0}, {"streams", streams}, {"chunks", chunks}, {"issue_order", "by_chunk"}};
  if (!mode.empty()) p["default_stream_mode"] = mode;
  return p;
}

TEST(StreamOverlap, ComparesTheFastestOfEachVariantWithSync) {
  const json benchmarks = json::array({
      entry("sync", stream_params("sync", "pinned"), {{"latency_us", 300.0}, {"fraction_of_ideal", 0.99}}),
      entry("async", stream_params("async", "pinned"), {{"latency_us", 290.0}}),
      entry("p1", stream_params("pipelined", "pinned", 2, 4), {{"latency_us", 200.0}, {"fraction_of_ideal", 0.7}}),
      entry("p2", stream_params("pipelined", "pinned", 4, 16), {{"latency_us", 150.0}, {"fraction_of_ideal", 0.93}}),
      entry("p3", stream_params("pipelined", "pinned", 8, 64), {{"latency_us", 100.0}}, "error"),  // failed: left out
      entry("g", stream_params("graph", "pinned", 4, 16), {{"latency_us", 140.0}}),
      entry("legacy", stream_params("default_stream", "pinned", 4, 16, "legacy"), {{"latency_us", 280.0}}),
      entry("per_thread", stream_params("default_stream", "pinned", 4, 16, "per_thread"), {{"latency_us", 140.0}}),
      entry("pageable", stream_params("sync", "pageable"), {{"latency_us", 500.0}}),
      entry("other", copy_params("h2d", "pinned", 1 << 20), {{"latency_us", 1.0}}),
  });
  json derived = json::object();
  derive_stream_overlap(benchmarks, derived);
  ASSERT_EQ(derived["stream_overlap"].size(), 2u);  // pageable and pinned rows
  const json& pinned = derived["stream_overlap"][1];
  ASSERT_EQ(pinned["memory"], "pinned");
  EXPECT_EQ(pinned["pipelined"]["benchmark"], "p2");
  EXPECT_EQ(pinned["pipelined"]["streams"], 4);
  EXPECT_DOUBLE_EQ(pinned["pipelined"]["fraction_of_ideal"].get<double>(), 0.93);
  EXPECT_DOUBLE_EQ(pinned["pipelined_saving_vs_sync_percent"].get<double>(), 50.0);
  EXPECT_NEAR(pinned["graph_saving_vs_sync_percent"].get<double>(), 100.0 * (1 - 140.0 / 300.0), 1e-9);
  EXPECT_NEAR(pinned["async_saving_vs_sync_percent"].get<double>(), 100.0 * (1 - 290.0 / 300.0), 1e-9);
  EXPECT_DOUBLE_EQ(pinned["legacy_default_stream_slowdown"].get<double>(), 2.0);
  const json& pageable = derived["stream_overlap"][0];
  EXPECT_EQ(pageable["memory"], "pageable");
  EXPECT_FALSE(pageable.contains("pipelined_saving_vs_sync_percent"));  // no pipelined run to compare
}

TEST(StreamOverlap, AddsNothingWithoutStreamRuns) {
  json derived = json::object();
  derive_stream_overlap(json::array({entry("x", copy_params("h2d", "pinned", 64), {{"latency_us", 1.0}})}), derived);
  EXPECT_FALSE(derived.contains("stream_overlap"));
}

}  // namespace
}  // namespace hdbench
