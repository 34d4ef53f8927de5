// GPU tests of the streams family: every variant's output equals the CPU reference,
// the pipelined timeline shows copies under kernels and the sync one shows none, and
// a graph replay produces what the eager run does. Skip with the reason without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/cuda.hpp"
#include "core/overlap.hpp"
#include "gpu_test_support.hpp"
#include "streams/stream_pipeline.hpp"
#include "streams/stream_workload.hpp"

namespace hdbench {
namespace {

constexpr std::uint64_t kSeed = 0xC0FFEE5EEDULL;
constexpr int kRounds = 5;

PipelineShape shape(CopyApi api, int streams, int chunks, IssueOrder order = IssueOrder::by_chunk,
                    bool blocking = false, SideLaunch side = SideLaunch::none) {
  return {api, streams, chunks, order, blocking, side};
}

// Runs the pipeline once over a freshly poisoned output and checks it word by word.
void expect_matches_cpu(const StreamWorkload& work, const Pipeline& pipeline, int rounds) {
  work.poison_outputs();
  // The poison must fail the check, or a passing check would prove nothing.
  const auto expected = expected_output(work.host_input(), work.words(), rounds);
  ASSERT_NE(work.verify(expected), "");
  pipeline.enqueue();
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(pipeline.origin()));
  EXPECT_EQ(work.verify(expected), "");
}

using VariantCase = std::tuple<HostMemoryKind, PipelineShape, std::size_t>;

class StreamsOutput : public ::testing::TestWithParam<VariantCase> {};

TEST_P(StreamsOutput, EqualsTheCpuResult) {
  SKIP_WITHOUT_GPU();
  const auto& [kind, s, bytes] = GetParam();
  const StreamWorkload work(kind, bytes, kSeed + bytes);
  const Pipeline pipeline(work.buffers(), s, kRounds, "test");
  expect_matches_cpu(work, pipeline, kRounds);
  EXPECT_LE(pipeline.chunk_count(), static_cast<std::size_t>(s.chunks));
}

std::string variant_case_name(const ::testing::TestParamInfo<VariantCase>& info) {
  const HostMemoryKind kind = std::get<0>(info.param);
  const PipelineShape& s = std::get<1>(info.param);
  return std::string(to_string(kind)) + (s.api == CopyApi::sync ? "_sync" : "_async") + "_streams" +
         std::to_string(s.streams) + "_chunks" + std::to_string(s.chunks) + "_" + to_string(s.order) + "_" +
         std::to_string(std::get<2>(info.param)) + "B";
}

// Sizes whose word counts are not multiples of the chunk counts, one smaller than a
// chunk, and one with fewer words than chunks.
const std::size_t kSizes[] = {(std::size_t{1} << 20) + 12, 4 * 1000 + 4, 20};

INSTANTIATE_TEST_SUITE_P(EveryVariant, StreamsOutput,
                         ::testing::Combine(::testing::Values(HostMemoryKind::pageable, HostMemoryKind::pinned),
                                            ::testing::Values(shape(CopyApi::sync, 1, 1), shape(CopyApi::async, 1, 1),
                                                              shape(CopyApi::async, 1, 4),
                                                              shape(CopyApi::async, 2, 4, IssueOrder::by_stage),
                                                              shape(CopyApi::async, 3, 7),
                                                              shape(CopyApi::async, 4, 16, IssueOrder::by_stage),
                                                              shape(CopyApi::async, 8, 64)),
                                            ::testing::ValuesIn(kSizes)),
                         variant_case_name);

class DefaultStreamPitfall : public ::testing::TestWithParam<std::tuple<bool, SideLaunch>> {};

TEST_P(DefaultStreamPitfall, OutputAndSideLaunchesAreComplete) {
  SKIP_WITHOUT_GPU();
  const auto [blocking, side] = GetParam();
  const StreamWorkload work(HostMemoryKind::pinned, (std::size_t{2} << 20) + 8, kSeed);
  const Pipeline pipeline(work.buffers(), shape(CopyApi::async, 4, 16, IssueOrder::by_chunk, blocking, side), kRounds,
                          "test");
  expect_matches_cpu(work, pipeline, kRounds);
  EXPECT_EQ(pipeline.side_launches_completed(), 16u);
  // Each chunk stage alone runs no side launches.
  pipeline.enqueue_stage_alone(Stage::kernel);
  EXPECT_EQ(pipeline.side_launches_completed(), 16u);
}

INSTANTIATE_TEST_SUITE_P(Modes, DefaultStreamPitfall,
                         ::testing::Values(std::make_tuple(true, SideLaunch::legacy_default),
                                           std::make_tuple(true, SideLaunch::per_thread_default),
                                           std::make_tuple(false, SideLaunch::legacy_default)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "blocking_" : "non_blocking_") +
                                  to_string(std::get<1>(info.param));
                         });

TEST(StreamsGraph, ReplayEqualsTheEagerRun) {
  SKIP_WITHOUT_GPU();
  for (IssueOrder order : all_issue_orders()) {
    const StreamWorkload work(HostMemoryKind::pinned, (std::size_t{3} << 20) + 4, kSeed + 1);
    const Pipeline pipeline(work.buffers(), shape(CopyApi::async, 4, 16, order), kRounds, "test");
    pipeline.enqueue();
    HDBENCH_CUDA_CHECK(cudaStreamSynchronize(pipeline.origin()));
    const std::vector<std::uint32_t> eager(work.host_output(), work.host_output() + work.words());
    EXPECT_EQ(work.verify(expected_output(work.host_input(), work.words(), kRounds)), "");

    const GraphExec graph = pipeline.capture_graph();
    // 16 chunks x 3 stages, plus the fork and join waits the capture turns into edges.
    EXPECT_GE(graph.node_count(), 48u);
    for (int replay = 0; replay < 2; ++replay) {
      work.poison_outputs();
      ASSERT_NE(work.verify(eager), "");
      graph.launch(pipeline.origin());
      HDBENCH_CUDA_CHECK(cudaStreamSynchronize(pipeline.origin()));
      EXPECT_EQ(work.verify(eager), "") << to_string(order) << " replay " << replay;
    }
  }
}

TEST(StreamsGraph, SyncAndSideLaunchPipelinesAreNotCaptured) {
  SKIP_WITHOUT_GPU();
  const StreamWorkload work(HostMemoryKind::pinned, 4096, kSeed);
  EXPECT_THROW(Pipeline(work.buffers(), shape(CopyApi::sync, 1, 1), 1, "t").capture_graph(), std::logic_error);
  EXPECT_THROW(Pipeline(work.buffers(),
                        shape(CopyApi::async, 2, 4, IssueOrder::by_chunk, true, SideLaunch::legacy_default), 1, "t")
                   .capture_graph(),
               std::logic_error);
}

// Within one chunk the stages are ordered on their stream: each starts after the
// previous one ended. (Event order, not timing.)
void expect_stage_order(const std::vector<StageInterval>& intervals) {
  for (std::size_t i = 0; i + 2 < intervals.size(); i += 3) {
    EXPECT_EQ(intervals[i].stage, Stage::h2d);
    EXPECT_LE(intervals[i].start_ms, intervals[i].end_ms);
    EXPECT_LE(intervals[i].end_ms, intervals[i + 1].start_ms) << "chunk " << intervals[i].chunk;
    EXPECT_LE(intervals[i + 1].end_ms, intervals[i + 2].start_ms) << "chunk " << intervals[i].chunk;
  }
}

TEST(StreamsTimeline, PipelinedCopiesRunUnderKernels) {
  SKIP_WITHOUT_GPU();
  SKIP_IF_GPU_WORK_IS_SERIALISED();
  if (testing_support::machine().gpus.front().copy_engines < 1) GTEST_SKIP() << "device has no copy engine";
  const std::size_t bytes = std::size_t{64} << 20;
  // A kernel about as long as the copy: the case the pipeline is built for.
  const int rounds = calibrate_kernel(bytes).rounds_for(1.0);
  const StreamWorkload work(HostMemoryKind::pinned, bytes, kSeed);
  const Pipeline pipeline(work.buffers(), shape(CopyApi::async, 4, 16), rounds, "test");
  pipeline.enqueue();  // warm-up
  const StageTimeline timeline(pipeline.chunk_count());
  pipeline.enqueue(&timeline);
  const auto intervals = timeline.intervals();
  expect_stage_order(intervals);
  const OverlapSummary overlap = summarize_overlap(intervals);
  EXPECT_GT(overlap.overlap_ms, 0.0);
  EXPECT_GT(overlap.overlap_percent(), 25.0) << "kernels " << overlap.kernel_busy_ms << " ms, copies "
                                             << overlap.copy_busy_ms << " ms, overlap " << overlap.overlap_ms << " ms";
  EXPECT_EQ(work.verify(expected_output(work.host_input(), work.words(), rounds)), "");
}

TEST(StreamsTimeline, SyncCopiesNeverOverlapKernels) {
  SKIP_WITHOUT_GPU();
  for (HostMemoryKind kind : {HostMemoryKind::pageable, HostMemoryKind::pinned}) {
    const StreamWorkload work(kind, std::size_t{16} << 20, kSeed);
    const Pipeline pipeline(work.buffers(), shape(CopyApi::sync, 1, 1), 64, "test");
    const StageTimeline timeline(pipeline.chunk_count());
    pipeline.enqueue(&timeline);
    const auto intervals = timeline.intervals();
    expect_stage_order(intervals);
    const OverlapSummary overlap = summarize_overlap(intervals);
    EXPECT_EQ(overlap.overlap_ms, 0.0) << to_string(kind);
    EXPECT_EQ(overlap.copy_copy_ms, 0.0) << to_string(kind);
    EXPECT_GT(overlap.kernel_busy_ms, 0.0);
  }
}

TEST(StreamsCalibration, MoreComputeMeansMoreRounds) {
  SKIP_WITHOUT_GPU();
  // Calibration times the kernel; under racecheck (H100, 2026-11-23) the
  // instrumentation's cost swamped the work: 4 rounds took 170 ms, 16384 rounds 161 ms.
  if (testing_support::under_compute_sanitizer())
    GTEST_SKIP() << "under compute-sanitizer kernel times are the instrumentation's; checked in the plain run";
  const KernelCalibration calibration = calibrate_kernel(std::size_t{16} << 20);
  EXPECT_GT(calibration.h2d_seconds, 0.0);
  EXPECT_GT(calibration.model.seconds_per_round, 0.0);
  const int light = calibration.rounds_for(0.5);
  const int heavy = calibration.rounds_for(2.0);
  EXPECT_GE(light, 1);
  EXPECT_GE(heavy, light);
  EXPECT_LE(heavy, kMaxKernelRounds);
}

}  // namespace
}  // namespace hdbench
