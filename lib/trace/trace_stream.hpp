// The recording half of --hdbench_trace that needs no GPU: takes the recorder's
// batches, keeps each benchmark's records up to a budget, streams what it keeps into
// the Chrome trace, and analyses each benchmark once its window has closed, holding
// only that benchmark's GPU records and timed ranges meanwhile.
//
// The budget: a benchmark keeps its records until it has `budget` of them; the start
// of the first record beyond that is its cut, and from then on it keeps only records
// that started before the cut (stragglers of other streams) and counts the rest as
// dropped. Its timed ranges that ended before the cut are therefore whole, and the
// analysis uses those. Records outside every benchmark (between them) are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/suite.hpp"
#include "trace/trace_records.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_writer.hpp"

namespace hdbench::trace {

struct TraceStreamTotals {
  std::size_t records = 0;       // handed in
  std::size_t kept = 0;          // written to the trace
  std::size_t dropped = 0;       // over a benchmark's budget
  std::size_t late = 0;          // arrived after their benchmark was analysed (written, not analysed)
  std::uint64_t text_bytes = 0;  // JSON written, before compression
};

class TraceStream final : public RecordSink {
 public:
  // `device`: the GPU analysed unless a window names its own; `budget`: records per benchmark (> 0). The file is
  // created when recording starts (started()); nothing is in place before close().
  TraceStream(std::filesystem::path path, int device, std::size_t budget);

  void started(std::uint64_t origin_ns) override;
  void consume(std::vector<Record>& records) override;

  // The suite's benchmark windows as they open and close (main thread). A window
  // opened again under the same name (Google Benchmark calls a benchmark several
  // times) continues it; opening another analyses the ones before. `device`: the GPU
  // the window's benchmark runs on (its params.device); -1: the stream's device.
  void window_started(const std::string& name, std::uint64_t start_ns, int device = -1);
  void window_ended(const std::string& name, std::uint64_t end_ns);

  // Analyses what is left, writes the trace's names and otherData and renames it in
  // place. Returns the derived.gpu_activity rows (event_timed_GB/s from
  // `benchmarks`). Nothing may be consumed after it.
  nlohmann::json finish(const TraceMetadata& metadata, const nlohmann::json& benchmarks);

  TraceStreamTotals totals() const;
  std::size_t budget() const noexcept { return budget_; }

 private:
  struct Window {
    BenchmarkWindow bounds;
    bool open = true, analysed = false;
    int device = -1;  // the GPU analysed
    RecordSample sample;
    std::vector<Record> records;  // for the analysis: GPU records of the device, timed ranges
    nlohmann::json row;           // once analysed: the row, or null
  };
  Window* window_of(std::uint64_t start_ns);
  void analyse_closed();

  std::filesystem::path path_;
  int device_;
  std::size_t budget_;
  mutable std::mutex mutex_;
  std::unique_ptr<ChromeTraceWriter> writer_;
  std::vector<Window> windows_;  // by start
  std::vector<Record> kept_;     // the batch being written
  TraceStreamTotals totals_;
};

}  // namespace hdbench::trace
