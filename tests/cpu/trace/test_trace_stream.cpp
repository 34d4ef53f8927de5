// The streamed trace path on hand-made records: the sort-and-sweep analysis against
// the scan it replaced, the writer across batches and gzipped, and the per-benchmark
// record budget with what the report rows say about it.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/overlap.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_stream.hpp"
#include "trace/trace_writer.hpp"

namespace hdbench::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// summarize_gpu_activity as it was before the sweep: every span rescans every record.
GpuActivity scan_reference(const std::vector<Record>& records, int device, std::vector<TimeSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const TimeSpan& a, const TimeSpan& b) { return a.from_ns < b.from_ns; });
  std::vector<TimeSpan> merged;
  for (const TimeSpan& s : spans) {
    if (!merged.empty() && s.from_ns <= merged.back().to_ns) {
      merged.back().to_ns = std::max(merged.back().to_ns, s.to_ns);
    } else {
      merged.push_back(s);
    }
  }
  GpuActivity a;
  double busy = 0, copy = 0, kernel = 0, overlap = 0;
  std::vector<bool> counted(records.size(), false);
  for (const TimeSpan& span : merged) {
    if (span.to_ns == span.from_ns) continue;
    const double span_us = static_cast<double>(span.to_ns - span.from_ns) / 1e3;
    std::vector<StageInterval> split_in, all_in;
    std::vector<std::pair<double, double>> clipped;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      if (!is_gpu_record(r.kind) || r.device != device) continue;
      const std::uint64_t start = std::max(r.start_ns, span.from_ns), end = std::min(r.end_ns, span.to_ns);
      if (!(start < end || (r.start_ns == r.end_ns && span.from_ns <= r.start_ns && r.start_ns <= span.to_ns)))
        continue;
      const double s = static_cast<double>(start - span.from_ns) / 1e3,
                   e = static_cast<double>(end - span.from_ns) / 1e3;
      clipped.push_back({s, e});
      all_in.push_back({Stage::kernel, 0, s, e});
      const bool first = !counted[i];
      counted[i] = true;
      if (r.kind == RecordKind::memcpy) {
        a.copies += first ? 1 : 0;
        split_in.push_back({Stage::h2d, 0, s, e});
      } else if (r.kind == RecordKind::kernel) {
        a.kernels += first ? 1 : 0;
        split_in.push_back({Stage::kernel, 0, s, e});
      }
    }
    const OverlapSummary split = summarize_overlap(split_in);
    busy += summarize_overlap(all_in).kernel_busy_ms;
    copy += split.copy_busy_ms;
    kernel += split.kernel_busy_ms;
    overlap += split.overlap_ms;
    a.window_us += span_us;
    std::sort(clipped.begin(), clipped.end());
    double covered = 0, largest = 0;
    for (const auto& [s, e] : clipped) {
      largest = std::max(largest, s - covered);
      covered = std::max(covered, e);
    }
    a.largest_idle_gap_us = std::max({a.largest_idle_gap_us, largest, span_us - covered});
  }
  if (a.window_us == 0.0) return a;
  const double percent = 100.0 / a.window_us;
  a.busy_percent = busy * percent;
  a.copy_percent = copy * percent;
  a.kernel_percent = kernel * percent;
  OverlapSummary totals;
  std::tie(totals.copy_busy_ms, totals.kernel_busy_ms, totals.overlap_ms) = std::tuple(copy, kernel, overlap);
  a.copy_compute_overlap_percent = totals.overlap_percent();
  a.total_idle_us = std::max(0.0, a.window_us - busy);
  return a;
}

TEST(TraceSweep, EqualsTheScanItReplacedOnRandomTimelines) {
  std::mt19937_64 rng(18);
  for (int round = 0; round < 40; ++round) {
    std::uniform_int_distribution<std::uint64_t> at(0, 100'000), length(0, 3'000);
    std::vector<Record> records;
    for (int i = 0; i < 400; ++i) {
      Record r;
      r.kind = std::array{RecordKind::memcpy, RecordKind::kernel, RecordKind::memset, RecordKind::range}[rng() % 4];
      r.device = static_cast<int>(rng() % 2);
      r.start_ns = at(rng);
      r.end_ns = r.start_ns + (rng() % 10 == 0 ? 0 : length(rng));
      r.name = "HtoD";
      r.src = rng() % 2 ? MemoryKind::pinned : MemoryKind::pageable;
      r.bytes = 1000 + rng() % 100'000;
      records.push_back(r);
    }
    std::vector<TimeSpan> spans;
    for (int i = 0; i < 1 + round; ++i) {
      const std::uint64_t from = at(rng);
      spans.push_back({from, from + length(rng) * (rng() % 3)});
    }
    const GpuActivity want = scan_reference(records, 0, spans), got = summarize_gpu_activity(records, 0, spans);
    EXPECT_EQ(got.window_us, want.window_us) << round;
    EXPECT_EQ(got.busy_percent, want.busy_percent) << round;
    EXPECT_EQ(got.copy_percent, want.copy_percent) << round;
    EXPECT_EQ(got.kernel_percent, want.kernel_percent) << round;
    EXPECT_EQ(got.copy_compute_overlap_percent, want.copy_compute_overlap_percent) << round;
    EXPECT_EQ(got.largest_idle_gap_us, want.largest_idle_gap_us) << round;
    EXPECT_EQ(got.total_idle_us, want.total_idle_us) << round;
    EXPECT_EQ(got.copies, want.copies) << round;
    EXPECT_EQ(got.kernels, want.kernels) << round;
    // Copy bandwidth: wholly inside some span, by a plain scan.
    std::uint64_t bytes = 0, ns = 0;
    for (const Record& r : records) {
      if (r.kind != RecordKind::memcpy || r.src != MemoryKind::pinned || r.end_ns <= r.start_ns) continue;
      if (std::none_of(spans.begin(), spans.end(),
                       [&](const TimeSpan& s) { return s.from_ns <= r.start_ns && r.end_ns <= s.to_ns; })) {
        continue;
      }
      bytes += r.bytes;
      ns += r.end_ns - r.start_ns;
    }
    const auto gbps = copy_bandwidth_gbps(records, "HtoD", MemoryKind::pinned, spans);
    ASSERT_EQ(gbps.has_value(), ns != 0) << round;
    if (gbps) {
      EXPECT_EQ(*gbps, static_cast<double>(bytes) / static_cast<double>(ns)) << round;
    }
  }
}

Record kernel(std::uint32_t stream, std::uint64_t start, std::uint64_t end) {
  return {.kind = RecordKind::kernel, .start_ns = start, .end_ns = end, .name = "k", .device = 0, .stream = stream};
}

Record range(std::uint64_t start, std::uint64_t end, std::string name) {
  return {.kind = RecordKind::range, .start_ns = start, .end_ns = end, .name = std::move(name), .thread = 1};
}

TraceMetadata metadata() { return {"node1", {"GPU"}, {}, {}, 0}; }

TEST(TraceWriterStream, NestsAcrossBatchesAndCountsLateRecords) {
  std::string text;
  ChromeTraceWriter writer(text, 0);
  // Batch 1 leaves 0-10 µs open; batch 2's 5-20 µs starts inside it and is cut. An
  // outer range delivered after its inner ones (as NVTX ends them) is late: written as is.
  const std::vector<Record> first{kernel(3, 0, 10'000), range(2'000, 3'000, "inner")};
  const std::vector<Record> second{kernel(3, 5'000, 20'000), range(1'000, 4'000, "outer")};
  writer.write(first);
  writer.write(second);
  writer.close(metadata(), {{"extra", 1}});
  const json trace = json::parse(text);
  EXPECT_EQ(trace["otherData"]["trimmed_to_nest"], 1);
  EXPECT_EQ(trace["otherData"]["out_of_order"], 1);
  EXPECT_EQ(trace["otherData"]["extra"], 1);
  std::size_t x = 0;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++x;
    if (e["cat"] == "kernel" && e["ts"].get<double>() == 5.0) {
      EXPECT_EQ(e["dur"].get<double>(), 5.0);
    }
  }
  EXPECT_EQ(x, 4u);
}

std::string gunzip(const fs::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  std::string text;
  char chunk[1 << 16];
  int n = 0;
  while ((n = gzread(in, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<std::size_t>(n));
  gzclose(in);
  return text;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("hdbench_stream_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST(TraceWriterStream, GzipNameWritesTheSameJsonCompressedAndNothingUntilClosed) {
  TempDir dir;
  std::vector<Record> records;
  for (std::uint64_t i = 0; i < 5000; ++i) records.push_back(kernel(3, i * 1000, i * 1000 + 500));
  std::string plain;
  {
    ChromeTraceWriter writer(plain, 0);
    writer.write(records);
    writer.close(metadata());
  }
  {
    ChromeTraceWriter writer(dir.path / "t.json.gz", 0);
    writer.write(records);
    EXPECT_EQ(dir.names().size(), 1u);                 // the temp file
    EXPECT_FALSE(fs::exists(dir.path / "t.json.gz"));  // nothing in place yet
    writer.close(metadata());
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"t.json.gz"});
  EXPECT_LT(fs::file_size(dir.path / "t.json.gz"), plain.size() / 4);
  EXPECT_EQ(gunzip(dir.path / "t.json.gz"), plain);
  {
    ChromeTraceWriter abandoned(dir.path / "gone.json", 0);  // never closed: leaves nothing
    abandoned.write(records);
  }
  EXPECT_EQ(dir.names(), std::vector<std::string>{"t.json.gz"});
}

TEST(TraceStreamBudget, KeepsTheFirstRecordsCountsTheRestAndTheRowSaysItIsASample) {
  TempDir dir;
  TraceStream stream(dir.path / "t.json", 0, 25);
  stream.started(0);
  // "copy": 10 timed ranges of 10 µs, each with two kernels; budget 25 records.
  stream.window_started("copy", 0);
  std::vector<Record> batch;
  for (std::uint64_t i = 0; i < 10; ++i) {
    const std::uint64_t t = i * 20'000;
    batch.push_back(kernel(3, t, t + 5'000));
    batch.push_back(kernel(3, t + 5'000, t + 10'000));
    batch.push_back(range(t, t + 10'000, "copy/timed"));
  }
  stream.consume(batch);
  stream.window_ended("copy", 200'000);
  stream.window_started("small", 300'000);
  std::vector<Record> small{kernel(3, 300'000, 301'000)};
  stream.consume(small);
  stream.window_ended("small", 310'000);
  const json rows = stream.finish(metadata(), json::array());
  ASSERT_EQ(rows.size(), 2u);
  const json& copy = rows[0];
  // The 26th record (the 9th range's second kernel, at 165 µs) is the cut; the 9th
  // range started before it and is kept; the 10th range's three records are not.
  EXPECT_EQ(copy["records_kept"], 26);
  EXPECT_EQ(copy["records_dropped"], 4);
  EXPECT_EQ(copy["sampled"], true);
  EXPECT_EQ(copy["timed_ranges"], 8);  // the 9th ended after the cut
  EXPECT_EQ(copy["kernels"], 16);
  EXPECT_DOUBLE_EQ(copy["gpu_busy_percent"].get<double>(), 100.0);
  EXPECT_NE(copy["sample"].get<std::string>().find("first 8 of 9 timed ranges"), std::string::npos) << copy;
  EXPECT_EQ(rows[1]["sampled"], false);
  EXPECT_EQ(rows[1]["records_dropped"], 0);
  EXPECT_FALSE(rows[1].contains("sample"));
  EXPECT_EQ(stream.totals().dropped, 4u);
  std::ifstream in(dir.path / "t.json");
  const json trace = json::parse(in);
  EXPECT_EQ(trace["otherData"]["records_dropped_over_budget"], 4);
  EXPECT_EQ(trace["otherData"]["budget_per_benchmark"], 25);
}

TEST(TraceStreamDevices, EachWindowIsAnalysedOnItsOwnGpu) {
  TempDir dir;
  TraceStream stream(dir.path / "t.json", 0, 100);
  stream.started(0);
  Record on_gpu1 = kernel(3, 1'000, 2'000);
  on_gpu1.device = 1;
  stream.window_started("x/gpu:1", 0, 1);
  std::vector<Record> batch{kernel(3, 0, 1'000), on_gpu1};  // device 0's kernel is not this benchmark's
  stream.consume(batch);
  stream.window_ended("x/gpu:1", 4'000);
  stream.window_started("x/gpu:0", 5'000);  // no device named: the stream's (0)
  std::vector<Record> second{kernel(3, 5'000, 6'000), kernel(3, 6'000, 7'000)};
  stream.consume(second);
  stream.window_ended("x/gpu:0", 9'000);
  const json rows = stream.finish(metadata(), json::array());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["benchmark"], "x/gpu:1");
  EXPECT_EQ(rows[0]["kernels"], 1);
  EXPECT_DOUBLE_EQ(rows[0]["gpu_busy_percent"].get<double>(), 25.0);
  EXPECT_EQ(rows[1]["kernels"], 2);
}

TEST(TraceStreamKernels, TheRowNamesEachTopKernel) {
  TempDir dir;
  TraceStream stream(dir.path / "t.json", 0, 100);
  stream.started(0);
  stream.window_started("step", 0);
  Record gemm = kernel(3, 0, 6'000), update = kernel(3, 6'000, 8'000), gemm2 = kernel(3, 8'000, 14'000);
  gemm.name = gemm2.name = "sm90_gemm";
  update.name = "sgd_update";
  std::vector<Record> batch{gemm, update, gemm2, range(0, 14'000, "step/timed")};
  stream.consume(batch);
  stream.window_ended("step", 20'000);
  const json rows = stream.finish(metadata(), json::array());
  ASSERT_EQ(rows.size(), 1u);
  const json& top = rows[0]["top_kernels"];
  ASSERT_EQ(top.size(), 2u) << rows[0];
  EXPECT_EQ(top[0]["name"], "sm90_gemm");
  EXPECT_EQ(top[0]["launches"], 2);
  EXPECT_DOUBLE_EQ(top[0]["total_us"].get<double>(), 12.0);
  EXPECT_EQ(top[1]["name"], "sgd_update");
}

TEST(TraceStreamBudget, ZeroIsRejected) { EXPECT_THROW(TraceStream("x.json", 0, 0), std::invalid_argument); }

}  // namespace
}  // namespace hdbench::trace

namespace hdbench::trace {
namespace {

// A gpu_activity row as gpu_activity_row makes it, for the figures that need counters.
nlohmann::json timed_row(const std::string& benchmark, int ranges, int kernels, int copies) {
  return {{"benchmark", benchmark},
          {"measured_over", "timed ranges"},
          {"timed_ranges", ranges},
          {"kernels", kernels},
          {"copies", copies}};
}

TEST(TraceRowFigures, KernelsPerStepAreTheTimedRangesKernelsOverTheirSteps) {
  // Two timed ranges of an MLP step benchmark, each a group of 50 steps: 1200 kernels
  // and 100 copies recorded inside them are 12 kernels and 1 copy a step.
  const nlohmann::json benchmarks =
      nlohmann::json::array({{{"name", "mlp/step/x/manual_time"},
                              {"run_name", "mlp/step/x/manual_time"},
                              {"counters", {{"steps_per_sample", 50.0}, {"step_us", 30.0}}}},
                             {{"name", "transfer/y/manual_time"}, {"counters", {{"bandwidth_GB/s", 55.0}}}}});
  const auto counters = counters_by_benchmark(benchmarks);
  nlohmann::json step = timed_row("mlp/step/x", 2, 1200, 100);
  step["top_kernels"] = nlohmann::json::array({{{"name", "gemm"}, {"launches", 500}, {"total_us", 2000.0}}});
  add_figures_from_counters(step, counters);
  EXPECT_DOUBLE_EQ(step["kernels_per_step"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(step["top_kernels"][0]["per_step_us"].get<double>(), 20.0);  // 2000 us over 100 steps
  EXPECT_DOUBLE_EQ(step["copies_per_step"].get<double>(), 1.0);
  EXPECT_FALSE(step.contains("event_timed_GB/s"));

  nlohmann::json copy = timed_row("transfer/y", 3, 0, 3);
  add_figures_from_counters(copy, counters);
  EXPECT_DOUBLE_EQ(copy["event_timed_GB/s"].get<double>(), 55.0);
  EXPECT_FALSE(copy.contains("kernels_per_step"));  // not a grouped benchmark
}

TEST(TraceRowFigures, AWholeWindowRowHasNoPerStepFigure) {
  // Set-up and warm-up are inside a whole-benchmark window: no step count applies.
  const auto counters = counters_by_benchmark(
      nlohmann::json::array({{{"name", "mlp/step/x"}, {"counters", {{"steps_per_sample", 50.0}}}}}));
  nlohmann::json row = timed_row("mlp/step/x", 0, 900, 2);
  row["measured_over"] = "whole benchmark";
  add_figures_from_counters(row, counters);
  EXPECT_FALSE(row.contains("kernels_per_step"));
}

}  // namespace
}  // namespace hdbench::trace
