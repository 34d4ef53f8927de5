#include "trace/trace_stream.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hdbench::trace {

TraceStream::TraceStream(std::filesystem::path path, int device, std::size_t budget)
    : path_(std::move(path)), device_(device), budget_(budget) {
  if (budget_ == 0) throw std::invalid_argument("TraceStream: the record budget must be at least 1");
}

void TraceStream::started(std::uint64_t origin_ns) {
  std::lock_guard lock(mutex_);
  if (!writer_) writer_ = std::make_unique<ChromeTraceWriter>(path_, origin_ns);
}

TraceStream::Window* TraceStream::window_of(std::uint64_t start_ns) {
  auto it = std::upper_bound(windows_.begin(), windows_.end(), start_ns,
                             [](std::uint64_t t, const Window& w) { return t < w.bounds.start_ns; });
  if (it == windows_.begin()) return nullptr;
  Window& w = *std::prev(it);
  return w.open || start_ns <= w.bounds.end_ns ? &w : nullptr;
}

void TraceStream::consume(std::vector<Record>& records) {
  std::lock_guard lock(mutex_);
  if (!writer_) throw std::logic_error("TraceStream: records before started()");
  kept_.clear();
  kept_.reserve(records.size());
  for (Record& r : records) {
    ++totals_.records;
    if (Window* w = window_of(r.start_ns); w != nullptr) {
      RecordSample& s = w->sample;
      if (r.start_ns >= s.cutoff_ns) {
        ++s.dropped;
        continue;
      }
      if (s.kept >= budget_ && s.cutoff_ns == RecordSample{}.cutoff_ns) {
        s.cutoff_ns = r.start_ns;
        ++s.dropped;
        continue;
      }
      ++s.kept;
      const bool analysed = (is_gpu_record(r.kind) && r.device == w->device) ||
                            (r.kind == RecordKind::range && r.name.ends_with("/timed"));
      if (analysed && w->analysed) {
        ++totals_.late;
      } else if (analysed) {
        // Kept whole, the kernel's name too: the row names the top kernels by it (an H100
        // trace of 2026-11-28 lumped every kernel under "" when names were dropped here).
        w->records.push_back(r);
      }
    }
    kept_.push_back(std::move(r));
  }
  totals_.kept += kept_.size();
  writer_->write(kept_);
  kept_.clear();
  totals_.dropped = 0;
  for (const Window& w : windows_) totals_.dropped += w.sample.dropped;
}

void TraceStream::analyse_closed() {
  for (Window& w : windows_) {
    if (w.open || w.analysed) continue;
    w.row = gpu_activity_row(w.records, w.bounds, w.device, w.sample);
    std::vector<Record>().swap(w.records);
    w.analysed = true;
  }
}

void TraceStream::window_started(const std::string& name, std::uint64_t start_ns, int device) {
  std::lock_guard lock(mutex_);
  if (!windows_.empty() && windows_.back().bounds.name == name && !windows_.back().analysed) {
    windows_.back().open = true;  // the same benchmark called again
    return;
  }
  for (Window& w : windows_) w.open = false;
  analyse_closed();
  Window w;
  w.bounds = {name, start_ns, start_ns};
  w.device = device >= 0 ? device : device_;
  windows_.push_back(std::move(w));
}

void TraceStream::window_ended(const std::string& name, std::uint64_t end_ns) {
  std::lock_guard lock(mutex_);
  if (windows_.empty() || windows_.back().bounds.name != name) return;
  windows_.back().bounds.end_ns = std::max(end_ns, windows_.back().bounds.start_ns);
  windows_.back().open = false;
}

nlohmann::json TraceStream::finish(const TraceMetadata& metadata, const nlohmann::json& benchmarks) {
  std::lock_guard lock(mutex_);
  if (!writer_) throw std::logic_error("TraceStream: finish before started()");
  for (Window& w : windows_) w.open = false;
  analyse_closed();
  std::size_t dropped = 0;
  for (const Window& w : windows_) dropped += w.sample.dropped;
  totals_.dropped = dropped;
  writer_->close(metadata, {{"budget_per_benchmark", budget_},
                            {"records_handed_in", totals_.records},
                            {"records_dropped_over_budget", dropped}});
  totals_.text_bytes = writer_->bytes_written();
  const std::map<std::string, nlohmann::json> counters = counters_by_benchmark(benchmarks);
  nlohmann::json rows = nlohmann::json::array();
  for (Window& w : windows_) {
    if (w.row.is_null()) continue;
    add_figures_from_counters(w.row, counters);
    rows.push_back(std::move(w.row));
  }
  return rows;
}

TraceStreamTotals TraceStream::totals() const {
  std::lock_guard lock(mutex_);
  TraceStreamTotals t = totals_;
  if (writer_) t.text_bytes = writer_->bytes_written();
  return t;
}

}  // namespace hdbench::trace
