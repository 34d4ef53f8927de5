// With several GPUs selected, each family's derivations group runs by params.device:
// one GPU's pinned copy never meets another's pageable copy in one figure. A fake
// report with two devices whose figures differ shows it.
#include <gtest/gtest.h>

#include <string>

#include "loader/loader_derivations.hpp"
#include "report_entries.hpp"
#include "streams/streams_derivations.hpp"
#include "transfer/transfer_derivations.hpp"

namespace hdbench {
namespace {

using nlohmann::json;
using testing::entry;

json on(int device, json params) {
  params["device"] = device;
  return params;
}

json copy(const std::string& memory, const std::string& variant = "per_copy") {
  return {{"family", "transfer"}, {"direction", "h2d"}, {"memory", memory},
          {"engine", "copy"},     {"variant", variant}, {"bytes", 1024}};
}

// The row of `rows` for `device`; fails the test when there is not exactly one.
json row_of(const json& rows, int device) {
  json found;
  int count = 0;
  for (const json& row : rows) {
    if (row.value("device", -1) == device) found = row, ++count;
  }
  EXPECT_EQ(count, 1) << rows;
  return found;
}

TEST(DerivationsPerDevice, BreakEvenUsesEachGpusOwnCopiesAndPinCost) {
  const json benchmarks = json::array({
      entry("a/gpu:0", on(0, copy("pageable")), {{"latency_us", 30.0}}),
      entry("b/gpu:0", on(0, copy("pinned")), {{"latency_us", 10.0}}),
      entry("a/gpu:1", on(1, copy("pageable")), {{"latency_us", 50.0}}),
      entry("b/gpu:1", on(1, copy("pinned")), {{"latency_us", 10.0}}),
      entry("p/gpu:0", on(0, {{"family", "pinning"}, {"method", "malloc_host"}, {"bytes", 1024}}),
            {{"pin_unpin_us", 100.0}}),
      entry("p/gpu:1", on(1, {{"family", "pinning"}, {"method", "malloc_host"}, {"bytes", 1024}}),
            {{"pin_unpin_us", 100.0}}),
  });
  json derived = json::object();
  derive_break_even(benchmarks, derived);
  ASSERT_EQ(derived["pinning_break_even"].size(), 2u);
  EXPECT_DOUBLE_EQ(row_of(derived["pinning_break_even"], 0)["transfers_to_break_even"].get<double>(), 5.0);  // 100/20
  EXPECT_DOUBLE_EQ(row_of(derived["pinning_break_even"], 1)["transfers_to_break_even"].get<double>(), 3.0);  // 100/40
}

TEST(DerivationsPerDevice, ReferenceAgreementAndStagedArePerGpu) {
  json staged = {{"family", "staged"}, {"direction", "h2d"}, {"bytes", 1024}, {"threads", 1}, {"chunk_bytes", 512}};
  const json benchmarks = json::array({
      entry("c/gpu:0", on(0, copy("pinned")), {{"bandwidth_GB/s", 20.0}}),
      entry("l/gpu:0", on(0, copy("pinned", "reference_loop")), {{"bandwidth_GB/s", 25.0}}),
      entry("c/gpu:1", on(1, copy("pinned")), {{"bandwidth_GB/s", 40.0}}),
      entry("l/gpu:1", on(1, copy("pinned", "reference_loop")), {{"bandwidth_GB/s", 50.0}}),
      entry("s/gpu:0", on(0, staged), {{"bandwidth_GB/s", 10.0}, {"bound_GB/s", 12.0}, {"bound_is_memcpy", 0.0}}),
      entry("s/gpu:1", on(1, staged), {{"bandwidth_GB/s", 30.0}, {"bound_GB/s", 35.0}, {"bound_is_memcpy", 1.0}}),
      // Host memcpy has no GPU: both rows show it (for reference).
      entry("m", {{"family", "host_memcpy"}, {"threads", 1}, {"bytes", 1024}}, {{"bandwidth_GB/s", 35.0}}),
  });
  json derived = json::object();
  derive_reference_agreement(benchmarks, derived);
  derive_staged_vs_pinned(benchmarks, derived);
  const json& agreement = derived["per_copy_vs_reference_loop"];
  ASSERT_EQ(agreement.size(), 2u);
  EXPECT_DOUBLE_EQ(row_of(agreement, 0)["ratio"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(row_of(agreement, 1)["reference_loop_GB/s"].get<double>(), 50.0);
  const json& vs_pinned = derived["staged_vs_pinned"];
  ASSERT_EQ(vs_pinned.size(), 2u);
  EXPECT_DOUBLE_EQ(row_of(vs_pinned, 0)["fraction_of_pinned"].get<double>(), 0.5);   // 10 / 20
  EXPECT_DOUBLE_EQ(row_of(vs_pinned, 1)["fraction_of_pinned"].get<double>(), 0.75);  // 30 / 40
  EXPECT_EQ(row_of(vs_pinned, 0)["bound"], "DMA stage alone");                       // each GPU's run its own bound
  EXPECT_EQ(row_of(vs_pinned, 1)["bound"], "memcpy stage alone");
  EXPECT_DOUBLE_EQ(row_of(vs_pinned, 1)["fraction_of_bound"].get<double>(), 30.0 / 35.0);
  EXPECT_DOUBLE_EQ(row_of(vs_pinned, 0)["host_memcpy_GB/s_at_threads"].get<double>(), 35.0);
}

TEST(DerivationsPerDevice, StreamOverlapComparesSyncAndAsyncOnTheSameGpu) {
  const auto streams = [](int device, const std::string& variant) {
    return on(device, {{"family", "streams"},
                       {"variant", variant},
                       {"bytes", 1 << 20},
                       {"compute_ratio", 1.0},
                       {"memory", "pinned"}});
  };
  const json benchmarks = json::array({
      entry("sync/gpu:0", streams(0, "sync"), {{"latency_us", 100.0}}),
      entry("async/gpu:0", streams(0, "async"), {{"latency_us", 50.0}}),
      entry("sync/gpu:1", streams(1, "sync"), {{"latency_us", 200.0}}),
      entry("async/gpu:1", streams(1, "async"), {{"latency_us", 150.0}}),
  });
  json derived = json::object();
  derive_stream_overlap(benchmarks, derived);
  ASSERT_EQ(derived["stream_overlap"].size(), 2u);
  EXPECT_DOUBLE_EQ(row_of(derived["stream_overlap"], 0)["async_saving_vs_sync_percent"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(row_of(derived["stream_overlap"], 1)["async_saving_vs_sync_percent"].get<double>(), 25.0);
}

TEST(DerivationsPerDevice, LoaderScalingKeepsEachGpuConsumerApart) {
  const auto loader = [](int device, int workers) {
    json p = {{"family", "loader"},    {"consumer", "gpu"},  {"pinning", "direct"},
              {"batch", 32},           {"workers", workers}, {"prefetch_depth", 2},
              {"sample_cost_us", 0.0}, {"shuffle", true},    {"augment", "none"}};
    return on(device, p);
  };
  const json benchmarks = json::array({
      entry("w0/gpu:0", loader(0, 0), {{"samples/s", 100.0}}),
      entry("w2/gpu:0", loader(0, 2), {{"samples/s", 300.0}}),
      entry("w0/gpu:1", loader(1, 0), {{"samples/s", 200.0}}),
      entry("w2/gpu:1", loader(1, 2), {{"samples/s", 300.0}}),
  });
  json derived = json::object();
  derive_loader_scaling(benchmarks, derived);
  ASSERT_EQ(derived["loader_scaling"].size(), 2u);
  EXPECT_DOUBLE_EQ(row_of(derived["loader_scaling"], 0)["by_workers"]["2"]["speedup_vs_0_workers"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(row_of(derived["loader_scaling"], 1)["by_workers"]["2"]["speedup_vs_0_workers"].get<double>(), 1.5);
}

}  // namespace
}  // namespace hdbench
