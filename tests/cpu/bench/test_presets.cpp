// --hdbench_preset (quick, default, full), its override by explicit axis flags,
// --hdbench_max_minutes and its budget: bad values exit 2 with the flag named, and
// benchmarks not started within the budget are reported as skipped with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "capture_runs.hpp"
#include "core/suite.hpp"
#include "option_test_support.hpp"
#include "parsed_flags.hpp"

namespace hdbench {
namespace {

using namespace hdbench::testing;  // NOLINT: the harness and helpers of every option test

constexpr std::size_t kKiB = 1024, kMiB = kKiB * 1024;

OptionLimits limits_with(int cores) {
  OptionLimits limits;
  limits.hardware_threads = cores;
  return limits;
}

Parsed parse(const std::vector<std::string>& args, const OptionLimits& limits = limits_with(8)) {
  return parse_flags(args, limits, 1);
}

std::vector<std::string> model_names(const std::vector<MlpShape>& models) {
  std::vector<std::string> names;
  for (const MlpShape& m : models) names.push_back(to_string(m));
  return names;
}

TEST(Presets, DefaultIsTheQuestionsAxes) {
  const Parsed o = parse({});
  EXPECT_EQ(o.core.preset, Preset::standard);
  EXPECT_EQ(o.json["preset"], "default");
  EXPECT_EQ(o.transfer.sizes, (std::vector<std::size_t>{4 * kKiB, kMiB, 64 * kMiB, 256 * kMiB}));
  EXPECT_EQ(o.transfer.directions, all_directions());
  EXPECT_EQ(o.transfer.staged_threads, (std::vector<int>{1, 8}));  // one thread and the core count
  EXPECT_EQ(o.transfer.memcpy_threads, (std::vector<int>{1, 8}));
  EXPECT_EQ(o.core.memory_kinds,
            (std::vector<HostMemoryKind>{HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::mapped}));
  EXPECT_EQ(o.streams.stream_counts, (std::vector<int>{1, 4}));
  EXPECT_EQ(o.loader.batches, (std::vector<int>{128, 1024}));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int w : {0, 2, 8, cores}) {
    EXPECT_NE(std::find(o.loader.workers.begin(), o.loader.workers.end(), w), o.loader.workers.end()) << w;
  }
  EXPECT_TRUE(std::is_sorted(o.loader.workers.begin(), o.loader.workers.end()));
  EXPECT_EQ(model_names(o.mlp.models), (std::vector<std::string>{"784x32x10", "784x4096x4096x10"}));
  EXPECT_EQ(o.mlp.batches, (std::vector<int>{128, 1024}));
  // The fused step is the full preset's and --hdbench_mlp_modes=fused's: the default run keeps its cases.
  EXPECT_EQ(o.mlp.modes, (std::vector<StepMode>{StepMode::eager, StepMode::graph}));
  EXPECT_EQ(o.json["sizes_bytes"].size(), 4u);  // the report records what ran
}

TEST(Presets, QuickIsSmallerThanDefaultOnEveryFamily) {
  const Parsed quick = parse({"--hdbench_preset=quick"});
  const Parsed standard = parse({"--hdbench_preset=default"});
  EXPECT_EQ(quick.json["preset"], "quick");
  EXPECT_EQ(quick.transfer.sizes, (std::vector<std::size_t>{4 * kKiB, kMiB}));
  EXPECT_LT(quick.transfer.sizes.size(), standard.transfer.sizes.size());
  EXPECT_LT(quick.streams.stream_counts.size(), standard.streams.stream_counts.size());
  EXPECT_LT(quick.loader.batches.size(), standard.loader.batches.size());
  EXPECT_LT(quick.loader.workers.size(), standard.loader.workers.size());
  EXPECT_LT(quick.mlp.models.size(), standard.mlp.models.size());
  EXPECT_LT(quick.mlp.dtypes.size(), standard.mlp.dtypes.size());
  EXPECT_EQ(quick.mlp.modes, (std::vector<StepMode>{StepMode::eager}));
  EXPECT_LT(quick.core.memory_kinds.size(), standard.core.memory_kinds.size());
}

TEST(Presets, FullKeepsTheDeclaredDefaults) {
  const Parsed o = parse({"--hdbench_preset=full"});
  EXPECT_EQ(o.transfer.sizes, parse_size_list("sizes", "4K:1G:x4"));
  EXPECT_EQ(o.core.memory_kinds, all_host_memory_kinds());
  EXPECT_EQ(o.loader.workers, (std::vector<int>{0, 1, 2, 4, 8, 16}));
  EXPECT_EQ(o.mlp.models.size(), 3u);
  EXPECT_EQ(o.mlp.modes, (std::vector<StepMode>{StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap}));
}

TEST(Presets, AnExplicitAxisFlagOverridesItsPresetInEitherOrder) {
  for (const auto& args : {std::vector<std::string>{"--hdbench_preset=quick", "--hdbench_sizes=64M"},
                           std::vector<std::string>{"--hdbench_sizes=64M", "--hdbench_preset=quick"}}) {
    const Parsed o = parse(args);
    EXPECT_EQ(o.transfer.sizes, (std::vector<std::size_t>{64 * kMiB}));
    EXPECT_EQ(o.streams.stream_counts, (std::vector<int>{1}));  // the rest stays quick
  }
  const Parsed o = parse({"--hdbench_loader_workers=3", "--hdbench_mlp_models=784x64x10", "--hdbench_memory=pinned"});
  EXPECT_EQ(o.loader.workers, (std::vector<int>{3}));
  EXPECT_EQ(model_names(o.mlp.models), (std::vector<std::string>{"784x64x10"}));
  EXPECT_EQ(o.core.memory_kinds, (std::vector<HostMemoryKind>{HostMemoryKind::pinned}));
  EXPECT_EQ(o.loader.batches, (std::vector<int>{128, 1024}));  // not given: the default preset's
}

TEST(Presets, AnUnknownPresetNamesTheFlagAndWhatItAccepts) {
  for (const char* bad : {"--hdbench_preset=fast", "--hdbench_preset=", "--hdbench_preset=Quick"}) {
    const std::string message = usage_error_of([&] { parse({bad}); });
    EXPECT_TRUE(contains(message, "--hdbench_preset")) << message;
    EXPECT_TRUE(contains(message, "quick, default or full")) << message;
  }
}

TEST(MaxMinutes, AcceptsAPositiveNumberAndRejectsTheRest) {
  EXPECT_EQ(parse({}).core.max_minutes, 0.0);  // no budget
  EXPECT_EQ(parse({"--hdbench_max_minutes=2.5"}).core.max_minutes, 2.5);
  EXPECT_EQ(parse({"--hdbench_max_minutes=2.5"}).json["max_minutes"], 2.5);
  for (const char* bad : {"--hdbench_max_minutes=-1", "--hdbench_max_minutes=abc", "--hdbench_max_minutes=0",
                          "--hdbench_max_minutes=1,2", "--hdbench_max_minutes="}) {
    const std::string message = usage_error_of([&] { parse({bad}); });
    EXPECT_TRUE(contains(message, "--hdbench_max_minutes")) << bad << ": " << message;
    EXPECT_TRUE(contains(message, "minutes")) << bad << ": " << message;
  }
}

using testing::CaptureRuns;

TEST(MaxMinutes, ABenchmarkNotStartedWithinTheBudgetIsSkippedWithTheReason) {
  Options options;
  const system::SystemInfo info;
  Suite suite(options, info);
  bool expired = false;
  suite.set_budget([&expired] { return expired; });
  int first_calls = 0, second_calls = 0;
  // The first runs; the budget runs out during it (its later trials still run); the
  // second has not started and is skipped.
  suite
      .add("budget_test/first", {{"family", "test"}},
           [&](benchmark::State& state) {
             ++first_calls;
             for (auto _ : state) state.SetIterationTime(1.0);
             expired = true;
           })
      ->Iterations(1)
      ->Repetitions(2);
  suite.add("budget_test/second", {{"family", "test"}}, [&](benchmark::State& state) {
    ++second_calls;
    for (auto _ : state) state.SetIterationTime(1.0);
  });
  CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^budget_test/");
  EXPECT_EQ(first_calls, 2);
  EXPECT_EQ(second_calls, 0);
  ASSERT_FALSE(capture.runs.empty());
  const auto& last = capture.runs.back();
  EXPECT_EQ(last.run_name.function_name, "budget_test/second");
  EXPECT_TRUE(last.error_occurred);
  EXPECT_EQ(last.error_message, std::string(kSkippedPrefix) + kBudgetSkipReason);
  for (const auto& run : capture.runs) {
    if (run.run_name.function_name == "budget_test/first") {
      EXPECT_FALSE(run.error_occurred);
    }
  }
}

}  // namespace
}  // namespace hdbench
