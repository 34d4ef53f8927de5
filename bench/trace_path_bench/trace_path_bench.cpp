// hdbench_trace_bench: the CPU half of --hdbench_trace, timed. Feeds N synthetic
// CUPTI-like records (copies and kernels on two streams) and S "<benchmark>/timed"
// ranges, in CUPTI-buffer-sized batches, through the real TraceStream: the record
// budget, the Chrome trace writer (gzip when --out ends in .gz) and the per-benchmark
// analysis. Prints records/s and peak memory (ru_maxrss). Needs no GPU; what it
// cannot show is CUPTI's own cost per record on a GPU.
//
// Ctrl-C (SIGINT) stops feeding and finishes the trace, which is then whole but
// shorter; exit code 130 says so.
//
//   hdbench_trace_bench [--records=N] [--spans=S] [--benchmarks=K] [--budget=B] [--out=PATH]
#include <fmt/format.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_stream.hpp"

namespace {

using namespace hdbench::trace;

std::atomic<bool> g_interrupted{false};

void on_interrupt(int) { g_interrupted.store(true); }

struct Settings {
  std::uint64_t records = 5'000'000, spans = 3'000, benchmarks = 10, budget = 0;  // budget 0: keep all
  std::string out = "hdbench-trace-bench.json";
};

bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&](std::string_view flag, std::uint64_t& into) {
      if (!arg.starts_with(flag)) return false;
      into = std::stoull(std::string(arg.substr(flag.size())));
      return true;
    };
    if (value("--records=", s.records) || value("--spans=", s.spans) || value("--benchmarks=", s.benchmarks) ||
        value("--budget=", s.budget)) {
      continue;
    }
    if (arg.starts_with("--out=")) {
      s.out = arg.substr(6);
      continue;
    }
    fmt::print(stderr, "hdbench_trace_bench: unknown argument '{}'\n", arg);
    return false;
  }
  if (s.records == 0 || s.spans == 0 || s.benchmarks == 0 || s.spans < s.benchmarks) {
    fmt::print(stderr, "hdbench_trace_bench: records, spans and benchmarks must be > 0, spans >= benchmarks\n");
    return false;
  }
  return true;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace

int main(int argc, char** argv) try {
  Settings s;
  if (!parse(argc, argv, s)) return 2;
  std::signal(SIGINT, on_interrupt);

  // One record every 1 µs, 1.5 µs long, alternating a copy on stream 7 and a kernel
  // on stream 8 (so the two overlap); S timed ranges tile the timeline with 10%
  // gaps, split evenly among K benchmarks.
  constexpr std::uint64_t kOrigin = 1'000'000'000, kStep = 1'000, kBatch = 50'000;  // ~ an 8 MiB CUPTI buffer
  const std::uint64_t total_ns = s.records * kStep, span_ns = total_ns / s.spans;
  const std::uint64_t spans_per_benchmark = s.spans / s.benchmarks;
  const auto benchmark_name = [](std::uint64_t b) { return fmt::format("synthetic/{}", b); };
  TraceStream stream(s.out, 0, s.budget != 0 ? s.budget : s.records + s.spans);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  stream.started(kOrigin);
  std::vector<Record> batch;
  std::uint64_t next_record = 0, next_span = 0, current_benchmark = UINT64_MAX, fed = 0;
  while (next_record < s.records && !g_interrupted.load()) {
    batch.clear();
    const std::uint64_t until = std::min(s.records, next_record + kBatch);
    for (; next_record < until; ++next_record) {
      const std::uint64_t start = kOrigin + next_record * kStep;
      // The benchmark this record's time falls in opens before its records arrive.
      const std::uint64_t b = std::min(s.benchmarks - 1, (start - kOrigin) / (span_ns * spans_per_benchmark));
      if (b != current_benchmark) {
        // As hdbench does between benchmarks: everything recorded so far is handed
        // over before the next one opens (and the finished one is analysed).
        fed += batch.size();
        stream.consume(batch);
        batch.clear();
        if (current_benchmark != UINT64_MAX) stream.window_ended(benchmark_name(current_benchmark), start - 1);
        current_benchmark = b;
        stream.window_started(benchmark_name(b), start);
      }
      Record r;
      r.start_ns = start;
      r.end_ns = start + 3 * kStep / 2;
      r.device = 0;
      r.correlation = static_cast<std::uint32_t>(next_record);
      if (next_record % 2 == 0) {
        r.kind = RecordKind::memcpy;
        r.name = "HtoD";
        r.stream = 7;
        r.bytes = 1 << 20;
        r.src = MemoryKind::pinned;
        r.dst = MemoryKind::device;
      } else {
        r.kind = RecordKind::kernel;
        r.name = "void hdbench::synthetic_kernel<float>(float const*, float*, unsigned long)";
        r.stream = 8;
      }
      batch.push_back(std::move(r));
      // A timed range reaches the recorder when it ends, as NVTX delivers it.
      while (next_span < s.spans && kOrigin + next_span * span_ns + span_ns * 9 / 10 <= start) {
        Record range;
        range.kind = RecordKind::range;
        range.start_ns = kOrigin + next_span * span_ns;
        range.end_ns = range.start_ns + span_ns * 9 / 10;
        range.name = benchmark_name(std::min(s.benchmarks - 1, next_span / spans_per_benchmark)) + "/timed";
        range.thread = 4242;
        range.bytes = 1 << 20;
        batch.push_back(std::move(range));
        ++next_span;
      }
    }
    fed += batch.size();
    stream.consume(batch);
  }
  if (current_benchmark != UINT64_MAX) {
    stream.window_ended(benchmark_name(current_benchmark), kOrigin + next_record * kStep);
  }
  const bool interrupted = g_interrupted.load();
  const TraceMetadata metadata{
      "synthetic-host", {"Synthetic GPU"}, {{7, "h2d"}, {8, "compute"}}, {{4242, "main"}}, kOrigin};
  const nlohmann::json rows = stream.finish(metadata, nlohmann::json::array());
  const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
  const TraceStreamTotals totals = stream.totals();
  const auto file_bytes = std::filesystem::file_size(s.out);
  fmt::print("{} records ({} kept, {} dropped over a budget of {} a benchmark), {} benchmarks analysed ({} rows)\n",
             totals.records, totals.kept, totals.dropped, stream.budget(), s.benchmarks, rows.size());
  fmt::print("fed, written and analysed in {:.2f} s: {:.2f} M records/s\n", seconds,
             static_cast<double>(fed) / seconds / 1e6);
  fmt::print("trace {}: {:.1f} MB of JSON ({:.0f} bytes a record), {:.1f} MB on disk\n", s.out,
             static_cast<double>(totals.text_bytes) / 1e6,
             static_cast<double>(totals.text_bytes) / static_cast<double>(std::max<std::size_t>(1, totals.kept)),
             static_cast<double>(file_bytes) / 1e6);
  fmt::print("peak memory (ru_maxrss): {:.1f} MiB\n", peak_rss_mib());
  if (!rows.empty()) fmt::print("first row: {}\n", rows[0].dump());
  if (interrupted) {
    fmt::print("interrupted: the trace holds the records fed before Ctrl-C\n");
    return 130;
  }
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "hdbench_trace_bench: %s\n", error.what());
  return 1;
}
