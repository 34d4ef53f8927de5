// Sync vs async: one host buffer copied to the GPU, processed by a kernel whose
// arithmetic is set so it takes a chosen multiple of the copy time, and copied back.
// Variants: sync (cudaMemcpy on the legacy stream), async on one stream, pipelined
// (chunks over streams, both issue orders), the pipeline replayed as a CUDA graph, and
// the default-stream pitfall (a stray launch on the legacy default stream between
// chunks, against the per-thread default stream and non-blocking streams). Each
// reports its stages alone, the ideal a pipeline could reach, and how close it got.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/report_rows.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "streams/pipeline_model.hpp"
#include "streams/stream_pipeline.hpp"
#include "streams/stream_workload.hpp"
#include "streams/streams_derivations.hpp"
#include "streams/streams_description.hpp"
#include "streams_bench.hpp"

namespace hdbench {
namespace {

enum class Variant { sync, async, pipelined, graph, default_stream };

const char* to_string(Variant v) {
  switch (v) {
    case Variant::sync:
      return "sync";
    case Variant::async:
      return "async";
    case Variant::pipelined:
      return "pipelined";
    case Variant::graph:
      return "graph";
    case Variant::default_stream:
      return "default_stream";
  }
  return "unknown";
}

// The default-stream pitfall: which streams the pipeline uses and where the stray
// launches go.
enum class DefaultStreamMode {
  legacy,        // blocking streams + launches on the legacy default stream: serialises
  per_thread,    // blocking streams + launches on the per-thread default stream
  non_blocking,  // non-blocking streams + launches on the legacy default stream
};

const char* to_string(DefaultStreamMode m) {
  switch (m) {
    case DefaultStreamMode::legacy:
      return "legacy";
    case DefaultStreamMode::per_thread:
      return "per_thread";
    case DefaultStreamMode::non_blocking:
      return "non_blocking";
  }
  return "unknown";
}

// The pitfall is shown on one representative pipeline.
constexpr int kPitfallStreams = 4;
constexpr int kPitfallChunks = 16;
// Repetitions of each stage alone, chunked and whole; the fastest enters the ideal.
constexpr int kStageRepetitions = 5;

struct StreamsCase {
  Variant variant;
  HostMemoryKind memory;
  std::size_t bytes;
  double compute_ratio;
  PipelineShape shape;
  DefaultStreamMode mode = DefaultStreamMode::legacy;  // default_stream variant only
  std::string name = {};                               // the case's, from its axes (for_each_case)
  nlohmann::json params = {};
};

// What the family's benchmarks share: one calibration per GPU and buffer size and one
// CPU reference per (size, rounds), so every variant of a size runs the same kernel
// on a GPU and is checked against the same answer without recomputing it.
class FamilyState {
 public:
  // Calibrated on `device`, which is current.
  const KernelCalibration& calibration(int device, std::size_t bytes) {
    auto it = calibrations_.find({device, bytes});
    if (it == calibrations_.end()) it = calibrations_.emplace(std::pair{device, bytes}, calibrate_kernel(bytes)).first;
    return it->second;
  }

  // The copies alone at their fastest in this case or any before it of the same GPU, host
  // memory and size (the kernel stays this case's: its rounds differ). Whatever the kernel
  // beside them, they are the same copies, and a pageable copy's speed drifts far more than
  // one case's ten timings catch: on an H100 host the fastest 64 MiB pageable H2D alone was
  // 4,649 us in one case and 7,231 us in the next, whose synchronous pipeline then ran at
  // 1.035x its "ideal".
  StageSeconds fastest_copies_seen(int device, HostMemoryKind memory, std::size_t bytes, const StageSeconds& alone) {
    const auto [it, first] = copies_seen_.try_emplace({device, static_cast<int>(memory), bytes}, alone);
    StageSeconds& seen = it->second;
    if (!first) {
      seen.h2d = std::min(seen.h2d, alone.h2d);
      seen.d2h = std::min(seen.d2h, alone.d2h);
    }
    return {seen.h2d, alone.kernel, seen.d2h};
  }

  const std::vector<std::uint32_t>& expected(const StreamWorkload& work, int rounds) {
    if (expected_bytes_ != work.words() * 4 || expected_rounds_ != rounds) {
      expected_.clear();  // one reference at a time: they are as large as the buffer
      expected_ = expected_output(work.host_input(), work.words(), rounds);
      expected_bytes_ = work.words() * 4;
      expected_rounds_ = rounds;
    }
    return expected_;
  }

 private:
  std::map<std::pair<int, std::size_t>, KernelCalibration> calibrations_;
  std::map<std::tuple<int, int, std::size_t>, StageSeconds> copies_seen_;  // (device, memory, bytes)
  std::vector<std::uint32_t> expected_;
  std::size_t expected_bytes_ = 0;
  int expected_rounds_ = -1;
};

// Each stage alone as the ideal (a lower bound) needs it: the fastest the stage ran over
// the whole buffer, either chunked as this pipeline chunks it (all chunks back to back
// on one stream) or as one copy and one kernel. Fed chunked medians instead, the model
// was beaten: on an H100 16 chunk copies back to back took 1,540 us where the whole
// 64 MiB took 1,228 us, so pipelines over 4 streams (whose chunks queue beside each
// other) reached 105% of their "ideal"; and three noisy pageable copies put
// async/pageable at 268% of its. `chunked` receives the chunked medians.
// It runs twice, before and after the timed samples (fastest_of), because a stage's
// speed drifts over a benchmark: on an H200 the five pageable 64 MiB H2D copies timed
// before sync/pageable/compute:2 took 9.7-10.5 ms, the same copies inside its 37
// samples at most 8.9 ms, so the "ideal" was beaten (1.05).
StageSeconds fastest_alone(const Pipeline& pipeline, const Pipeline& whole, const std::string& name, std::size_t bytes,
                           StageSeconds& chunked) {
  const auto times = [&](const Pipeline& p, Stage stage, const char* how) {
    nvtx::ScopedRange range(kStreamsNvtx, fmt::format("{}/{} alone {}", name, to_string(stage), how), bytes);
    std::vector<double> samples;
    for (int i = 0; i < kStageRepetitions; ++i)
      samples.push_back(median_stream_seconds(p.origin(), 1, [&] { p.enqueue_stage_alone(stage); }));
    return summarize(samples);
  };
  StageSeconds fastest;
  for (const auto& [stage, chunked_s, fastest_s] :
       {std::tuple{Stage::h2d, &chunked.h2d, &fastest.h2d}, std::tuple{Stage::kernel, &chunked.kernel, &fastest.kernel},
        std::tuple{Stage::d2h, &chunked.d2h, &fastest.d2h}}) {
    const SampleStats by_chunk = times(pipeline, stage, "chunked");
    const SampleStats in_one = times(whole, stage, "whole");
    *chunked_s = by_chunk.median;
    *fastest_s = std::min(by_chunk.min, in_one.min);
  }
  return fastest;
}

// Each stage's fastest of two timings (before and after the samples), each chunked
// median the lower: the ideal must hold over the whole time the samples were taken.
StageSeconds fastest_of(const StageSeconds& a, const StageSeconds& b) {
  return {std::min(a.h2d, b.h2d), std::min(a.kernel, b.kernel), std::min(a.d2h, b.d2h)};
}

void set_pipeline_counters(benchmark::State& state, const Pipeline& pipeline, const StageSeconds& alone,
                           const StageSeconds& chunked, double median, int copy_engines, HostMemoryKind memory) {
  // Pageable copies block the issuing thread (CopyIssue): they never overlap each other.
  const CopyIssue issue = memory == HostMemoryKind::pageable ? CopyIssue::host_synchronous : CopyIssue::async;
  const double ideal = ideal_pipeline_seconds(alone, static_cast<int>(pipeline.chunk_count()), copy_engines, issue);
  state.counters["h2d_alone_us"] = alone.h2d * 1e6;
  state.counters["kernel_alone_us"] = alone.kernel * 1e6;
  state.counters["d2h_alone_us"] = alone.d2h * 1e6;
  state.counters["h2d_chunked_us"] = chunked.h2d * 1e6;  // what this chunking costs a stage
  state.counters["kernel_chunked_us"] = chunked.kernel * 1e6;
  state.counters["d2h_chunked_us"] = chunked.d2h * 1e6;
  state.counters["sum_of_stages_us"] = alone.sum() * 1e6;
  state.counters["ideal_us"] = ideal * 1e6;
  state.counters["fraction_of_ideal"] = ideal / median;
  state.counters["time_over_sum_of_stages"] = median / alone.sum();
  state.counters["kernel_to_h2d_ratio"] = alone.kernel / alone.h2d;
  state.counters["copy_engines"] = copy_engines;
  state.counters["host_synchronous_copies"] = issue == CopyIssue::host_synchronous ? 1.0 : 0.0;
  state.counters["chunks_used"] = static_cast<double>(pipeline.chunk_count());
  state.counters["streams_used"] = static_cast<double>(std::max<std::size_t>(1, pipeline.stream_count()));
}

void run_streams_case(benchmark::State& state, const Suite& suite, FamilyState& family, const StreamsCase& c,
                      const std::string& name) {
  const system::GpuInfo& gpu = *suite.current_gpu();
  // Input, output and the CPU reference on the host; input and output on the device.
  if (const auto shortfall = memory_shortfall(3 * c.bytes, 2 * c.bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const int rounds = family.calibration(suite.current_device(), c.bytes).rounds_for(c.compute_ratio);
  const StreamWorkload work(c.memory, c.bytes, suite.options().seed);
  const Pipeline pipeline(work.buffers(), c.shape, rounds, name);
  const cudaStream_t origin = pipeline.origin();
  Event start;
  Event stop;
  unsigned runs = 0;  // whole-workload runs, to check the side launches afterwards

  GraphExec graph;
  if (c.variant == Variant::graph) {
    HostTimer build;
    graph = pipeline.capture_graph();
    state.counters["graph_build_us"] = build.elapsed_seconds() * 1e6;
    state.counters["graph_nodes"] = static_cast<double>(graph.node_count());
  }
  const auto run_once = [&] {
    ++runs;
    if (c.variant == Variant::graph) {
      graph.launch(origin);
    } else {
      pipeline.enqueue();
    }
  };
  run_once();  // warm-up: module load, first-touch of device pages, graph upload
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(origin));

  const Pipeline whole(work.buffers(), PipelineShape{.api = CopyApi::async}, rounds, name + "/whole");
  StageSeconds chunked_before;
  const StageSeconds alone_before = fastest_alone(pipeline, whole, name, c.bytes, chunked_before);

  const std::string timed_range = name + "/timed";
  const std::vector<double> seconds = run_samples(state, suite.stopping_rule(), [&] {
    nvtx::ScopedRange range(kStreamsNvtx, timed_range, c.bytes);
    start.record(origin);
    run_once();
    stop.record(origin);
    return elapsed_ms(start, stop) / 1e3;
  });

  StageSeconds chunked_after;
  const StageSeconds alone_after = fastest_alone(pipeline, whole, name, c.bytes, chunked_after);
  const StageSeconds alone =
      family.fastest_copies_seen(suite.current_device(), c.memory, c.bytes, fastest_of(alone_before, alone_after));
  const StageSeconds chunked = fastest_of(chunked_before, chunked_after);

  // One more eager run with an event around every stage shows whether copies and
  // kernels overlapped (a graph replays the same work; its own timeline needs CUPTI).
  if (c.variant != Variant::graph) {
    const StageTimeline timeline(pipeline.chunk_count());
    ++runs;
    pipeline.enqueue(&timeline);
    const OverlapSummary overlap = summarize_overlap(timeline.intervals());
    state.counters["event_overlap_percent"] = overlap.overlap_percent();
    state.counters["event_idle_percent"] = overlap.span_ms > 0 ? 100.0 * overlap.idle_ms / overlap.span_ms : 0.0;
  }

  {
    nvtx::ScopedRange range(kStreamsNvtx, name + "/verify", c.bytes);
    work.poison_outputs();
    run_once();
    HDBENCH_CUDA_CHECK(cudaStreamSynchronize(origin));
    if (const std::string problem = work.verify(family.expected(work, rounds)); !problem.empty()) {
      fail_benchmark(state, problem);
      return;
    }
    if (c.shape.side != SideLaunch::none) {
      const unsigned expected = runs * static_cast<unsigned>(pipeline.chunk_count());
      if (const unsigned done = pipeline.side_launches_completed(); done != expected) {
        fail_benchmark(state, fmt::format("{} of {} side launches completed", done, expected));
        return;
      }
      state.counters["side_launches_per_buffer"] = static_cast<double>(pipeline.chunk_count());
    }
  }
  set_bandwidth_counters(state, c.bytes, seconds);
  state.counters["kernel_rounds"] = rounds;
  set_pipeline_counters(state, pipeline, alone, chunked, summarize(seconds).median, gpu.copy_engines, c.memory);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.bytes));
}

// The position of `value` in `values` (the run order of an axis's values).
template <class T>
std::ptrdiff_t position(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) - values.begin();
}

// The family's cases: three grids whose shapes differ (sync and async have one stream
// and one chunk, a pipeline the axes' streams, chunks and issue orders, the pitfall its
// mode on one representative pipeline), each over every buffer size and compute ratio.
std::vector<StreamsCase> plan_cases(const Options& o, const StreamsOptions& s) {
  std::vector<HostMemoryKind> kinds;
  for (HostMemoryKind kind : {HostMemoryKind::pageable, HostMemoryKind::pinned}) {
    if (std::find(o.memory_kinds.begin(), o.memory_kinds.end(), kind) != o.memory_kinds.end()) kinds.push_back(kind);
  }
  std::vector<HostMemoryKind> pinned;  // the pitfall's memory, where selected
  std::copy_if(kinds.begin(), kinds.end(), std::back_inserter(pinned),
               [](HostMemoryKind kind) { return kind == HostMemoryKind::pinned; });
  // The name shows the default-stream mode of the pitfall only, and the shape of a
  // pipeline only: the other variants' params hold theirs (an axis of one hidden value).
  const std::vector<std::string> name_order = {
      "variant", "default_stream_mode", "memory", "bytes", "compute_ratio", "streams", "chunks", "issue_order"};
  const CaseAxis<std::size_t> sizes = size_case_axis("bytes", s.stream_sizes);
  const CaseAxis<double> ratios = labelled_case_axis("compute_ratio", s.compute_ratios, "compute");
  const auto variants = [](std::vector<Variant> v) { return named_case_axis("variant", std::move(v)); };
  const auto memory = [](std::vector<HostMemoryKind> v) { return named_case_axis("memory", std::move(v)); };
  const auto streams = [](std::vector<int> v) { return labelled_case_axis("streams", std::move(v)); };
  const auto chunks = [](std::vector<int> v) { return labelled_case_axis("chunks", std::move(v)); };
  const auto orders = [](std::vector<IssueOrder> v) { return named_case_axis("issue_order", std::move(v)); };
  std::vector<StreamsCase> cases;
  const auto keep = [&](const CaseId& id, StreamsCase c) {
    c.name = id.name();
    c.params = id.params();
    cases.push_back(std::move(c));
  };

  // sync (cudaMemcpy on the legacy stream) and async: the whole buffer at once.
  for_each_case(
      "streams", name_order,
      [&](CaseId& id, std::size_t bytes, double ratio, HostMemoryKind kind, Variant variant, int n_streams,
          int n_chunks, IssueOrder order) {
        const CopyApi api = variant == Variant::sync ? CopyApi::sync : CopyApi::async;
        id.param("copy_api", api == CopyApi::sync ? "sync" : "async");
        keep(id, {variant, kind, bytes, ratio, {api, n_streams, n_chunks, order, false, SideLaunch::none}});
      },
      sizes, ratios, memory(kinds), variants({Variant::sync, Variant::async}), shown_as(streams({1}), Shown::hidden),
      shown_as(chunks({1}), Shown::hidden), shown_as(orders({IssueOrder::by_chunk}), Shown::hidden));

  // Pipelines: chunks over streams, eager or replayed as a CUDA graph.
  for_each_case(
      "streams", name_order,
      [&](CaseId& id, std::size_t bytes, double ratio, Variant variant, HostMemoryKind kind, int n_streams,
          int n_chunks, IssueOrder order) {
        // Graph capture takes copies between device and page-locked memory only.
        if (variant == Variant::graph && kind != HostMemoryKind::pinned) return;
        if (n_chunks < n_streams) return;  // streams beyond the chunk count would sit idle
        id.param("copy_api", "async");
        keep(id, {variant, kind, bytes, ratio, {CopyApi::async, n_streams, n_chunks, order, false, SideLaunch::none}});
      },
      sizes, ratios, variants({Variant::pipelined, Variant::graph}), memory(kinds), streams(s.stream_counts),
      chunks(s.chunk_counts), orders(s.issue_orders));

  // The default-stream pitfall, on pinned memory.
  for_each_case(
      "streams", name_order,
      [&](CaseId& id, std::size_t bytes, double ratio, Variant variant, DefaultStreamMode mode, HostMemoryKind kind,
          int n_streams, int n_chunks, IssueOrder order) {
        const bool blocking = mode != DefaultStreamMode::non_blocking;
        const SideLaunch side =
            mode == DefaultStreamMode::per_thread ? SideLaunch::per_thread_default : SideLaunch::legacy_default;
        id.param("side_launch", to_string(side)).param("copy_api", "async");
        keep(id, {variant, kind, bytes, ratio, {CopyApi::async, n_streams, n_chunks, order, blocking, side}, mode});
      },
      sizes, ratios, variants({Variant::default_stream}),
      named_case_axis("default_stream_mode",
                      std::vector<DefaultStreamMode>{DefaultStreamMode::legacy, DefaultStreamMode::per_thread,
                                                     DefaultStreamMode::non_blocking}),
      memory(pinned), shown_as(streams({kPitfallStreams}), Shown::hidden),
      shown_as(chunks({kPitfallChunks}), Shown::hidden), shown_as(orders({IssueOrder::by_chunk}), Shown::hidden));

  // Run by size and compute ratio, the three grids' cases of each together: a size's CPU
  // reference is kept for one kernel length at a time (FamilyState::expected).
  std::stable_sort(cases.begin(), cases.end(), [&](const StreamsCase& a, const StreamsCase& b) {
    return std::pair(position(s.stream_sizes, a.bytes), position(s.compute_ratios, a.compute_ratio)) <
           std::pair(position(s.stream_sizes, b.bytes), position(s.compute_ratios, b.compute_ratio));
  });
  return cases;
}

// One line per buffer size, compute ratio and memory kind: the sync time against the
// best pipeline, and what a launch on the legacy default stream costs.
void print_stream_overlap(const nlohmann::json& derived, bool several_gpus) {
  if (!derived.contains("stream_overlap")) return;
  const nlohmann::json& rows = derived["stream_overlap"];
  fmt::print("Copy/compute overlap (streams):\n");
  for (const auto& row : rows) {
    std::string line = fmt::format("  {}{:>8} compute x{} {:<8}", device_tag(row, several_gpus),
                                   format_size(row["bytes"].get<std::size_t>()), row["compute_ratio"].get<double>(),
                                   row["memory"].get<std::string>());
    if (row.contains("sync")) line += fmt::format(" sync {:.0f} us", row["sync"]["latency_us"].get<double>());
    if (row.contains("pipelined")) {
      const auto& best = row["pipelined"];
      line += fmt::format(", best pipelined {:.0f} us ({} streams, {} chunks, {:.0f}% of ideal",
                          best["latency_us"].get<double>(), best["streams"].get<int>(), best["chunks"].get<int>(),
                          100.0 * best.value("fraction_of_ideal", 0.0));
      if (row.contains("pipelined_saving_vs_sync_percent")) {
        line += fmt::format(", saves {:.0f}%", row["pipelined_saving_vs_sync_percent"].get<double>());
      }
      line += ")";
    }
    if (row.contains("legacy_default_stream_slowdown")) {
      line +=
          fmt::format(", legacy default stream x{:.2f} slower", row["legacy_default_stream_slowdown"].get<double>());
    }
    fmt::print("{}\n", line);
  }
}

}  // namespace

void register_streams(Suite& suite, const StreamsOptions& s) {
  auto family = std::make_shared<FamilyState>();
  // One GPU's cases after another's: the CPU reference, kept one at a time, depends on
  // the rounds each GPU's calibration chose.
  const std::vector<StreamsCase> cases = plan_cases(suite.options(), s);
  for (const int device : suite.devices()) {
    for (const StreamsCase& c : cases) {
      suite.add_gpu_on(device, c.name, c.params, [&suite, family, c](benchmark::State& state) {
        run_streams_case(state, suite, *family, c, c.name);
      });
    }
  }
  suite.add_derivation(derive_stream_overlap);
  suite.add_console_summary(print_stream_overlap);
}

}  // namespace hdbench

namespace hdbench {
namespace {

class StreamsFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"streams"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_streams_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string&) const override { return streams_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    register_streams(suite, options_);
    register_stream_host_costs(suite);
  }

 private:
  StreamsOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_streams_family() { return std::make_unique<StreamsFamily>(); }

}  // namespace hdbench
