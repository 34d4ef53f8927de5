// The CUPTI recorder on a real GPU: a pinned and a pageable host-to-device copy show
// up as HtoD copies with the right memory kinds and byte counts, on the stream we
// named, and CUPTI's bandwidth agrees with the event-timed one within 5%. Each kind is
// copied once untimed after the recorder starts: the first copy under CUPTI carries its
// one-time set-up on the host (an event-timed 10.3 GB/s against CUPTI's 55.3 on an H100),
// so the reference is the second copy of each kind. The warm-ups are recorded too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/host_memory.hpp"
#include "gpu_test_support.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_recorder.hpp"
#include "trace/trace_writer.hpp"

namespace hdbench {
namespace {

TEST(TraceGpu, CopiesAreRecordedWithTheirMemoryKindsBytesAndStream) {
  SKIP_WITHOUT_GPU();
  if (!trace::cupti_built_in()) GTEST_SKIP() << "built without CUPTI";
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  HostBuffer pinned(HostMemoryKind::pinned, kBytes);
  HostBuffer pageable(HostMemoryKind::pageable, kBytes);
  std::memset(pinned.data(), 1, kBytes);
  std::memset(pageable.data(), 2, kBytes);
  DeviceBuffer device(kBytes);
  std::unique_ptr<trace::Recorder> recorder;
  try {
    recorder = std::make_unique<trace::Recorder>(false);
  } catch (const trace::TraceUnavailable& error) {
    GTEST_SKIP() << "CUPTI cannot record here: " << error.what();
  }
  Stream stream("trace-test/h2d");
  for (const HostBuffer* source : {&pinned, &pageable}) {
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(device.data(), source->data(), kBytes, cudaMemcpyHostToDevice, stream.get()));
  }
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  Event start;
  Event stop;
  float pinned_ms = 0.0f;
  float pageable_ms = 0.0f;
  for (auto [source, ms] : {std::pair{&pinned, &pinned_ms}, std::pair{&pageable, &pageable_ms}}) {
    start.record(stream.get());
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(device.data(), source->data(), kBytes, cudaMemcpyHostToDevice, stream.get()));
    stop.record(stream.get());
    *ms = elapsed_ms(start, stop);
  }
  const std::vector<trace::Record> records = recorder->finish();
  const trace::TraceMetadata metadata = recorder->metadata("test-host", {"gpu"});
  std::vector<const trace::Record*> copies;
  for (const auto& r : records) {
    if (r.kind == trace::RecordKind::memcpy && r.name == "HtoD" && r.bytes == kBytes) copies.push_back(&r);
  }
  // Two warm-ups, then the two timed copies, in the order they were issued on one stream.
  ASSERT_EQ(copies.size(), 4u);
  std::sort(copies.begin(), copies.end(), [](const auto* a, const auto* b) { return a->start_ns < b->start_ns; });
  EXPECT_EQ(copies[0]->src, trace::MemoryKind::pinned);
  EXPECT_EQ(copies[1]->src, trace::MemoryKind::pageable);
  EXPECT_EQ(copies[2]->src, trace::MemoryKind::pinned);
  EXPECT_EQ(copies[3]->src, trace::MemoryKind::pageable);
  for (const auto* copy : copies) {
    EXPECT_EQ(copy->dst, trace::MemoryKind::device);
    ASSERT_TRUE(metadata.stream_names.contains(copy->stream));
    EXPECT_EQ(metadata.stream_names.at(copy->stream), "trace-test/h2d");
  }
  // CUPTI's figure for the timed pinned copy alone, not the warm-up.
  const auto pinned_gbps =
      trace::copy_bandwidth_gbps(records, "HtoD", trace::MemoryKind::pinned, copies[2]->start_ns, copies[2]->end_ns);
  ASSERT_TRUE(pinned_gbps.has_value());
  const double event_gbps = static_cast<double>(kBytes) / (pinned_ms * 1e-3) / 1e9;
  EXPECT_NEAR(*pinned_gbps, event_gbps, 0.05 * event_gbps);
}

}  // namespace
}  // namespace hdbench
