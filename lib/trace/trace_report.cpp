#include "trace/trace_report.hpp"

#include <algorithm>
#include <string>

#include "trace/trace_analysis.hpp"

namespace hdbench::trace {

std::map<std::string, nlohmann::json> counters_by_benchmark(const nlohmann::json& benchmarks) {
  std::map<std::string, nlohmann::json> counters;  // benchmark name (without Google's suffix) -> counters
  for (const auto& b : benchmarks) {
    std::string name = b.value("run_name", b.value("name", ""));
    if (const auto suffix = name.rfind("/manual_time"); suffix != std::string::npos) name.resize(suffix);
    if (b.contains("counters") && b["counters"].is_object()) counters[name] = b["counters"];
  }
  return counters;
}

void add_figures_from_counters(nlohmann::json& row, const std::map<std::string, nlohmann::json>& counters) {
  const auto it = counters.find(row.value("benchmark", ""));
  if (it == counters.end()) return;
  const nlohmann::json& k = it->second;
  if (k.contains("bandwidth_GB/s")) row["event_timed_GB/s"] = k["bandwidth_GB/s"];
  // A timed range of a grouped benchmark (an MLP step) holds steps_per_sample steps,
  // so what a step launched is the timed ranges' records over their steps.
  const double ranges = row.value("timed_ranges", 0.0);
  const double steps = k.value("steps_per_sample", 0.0) * ranges;
  if (row.value("measured_over", "") == "timed ranges" && steps > 0) {
    row["kernels_per_step"] = row.value("kernels", 0.0) / steps;
    row["copies_per_step"] = row.value("copies", 0.0) / steps;
    if (row.contains("top_kernels")) {
      for (nlohmann::json& k : row["top_kernels"]) k["per_step_us"] = k.value("total_us", 0.0) / steps;
    }
  }
}

constexpr std::size_t kTopKernels = 12;  // a large MLP step launches 11 GEMMs and a few small kernels

nlohmann::json gpu_activity_row(const std::vector<Record>& records, const BenchmarkWindow& w, int device,
                                const RecordSample& sample) {
  const bool sampled = sample.dropped != 0;
  // With a sample, only what ended before the cut is whole: every record that started
  // before it was kept.
  const std::uint64_t end_ns = sampled ? std::min(w.end_ns, std::max(w.start_ns, sample.cutoff_ns)) : w.end_ns;
  // The benchmark's timed ranges when it has them; else (set-up included) its window.
  std::vector<TimeSpan> spans = timed_spans(records, w.start_ns, end_ns);
  const std::size_t all_timed = sampled ? timed_spans(records, w.start_ns, w.end_ns).size() : spans.size();
  const bool timed = !spans.empty();
  if (!timed) spans.push_back({w.start_ns, end_ns});
  const GpuActivity a = summarize_gpu_activity(records, device, spans);
  if (a.copies == 0 && a.kernels == 0) return nullptr;
  nlohmann::json row = {{"benchmark", w.name},
                        {"measured_over", timed ? "timed ranges" : "whole benchmark"},
                        {"timed_ranges", timed ? spans.size() : 0},
                        {"window_us", a.window_us},
                        {"gpu_busy_percent", a.busy_percent},
                        {"copy_percent", a.copy_percent},
                        {"kernel_percent", a.kernel_percent},
                        {"copy_compute_overlap_percent", a.copy_compute_overlap_percent},
                        {"largest_idle_gap_us", a.largest_idle_gap_us},
                        {"total_idle_us", a.total_idle_us},
                        {"copies", a.copies},
                        {"kernels", a.kernels},
                        {"records_kept", sample.kept},
                        {"records_dropped", sample.dropped},
                        {"sampled", sampled}};
  if (sampled) {
    row["sample"] =
        timed
            ? "figures from the first " + std::to_string(spans.size()) + " of " + std::to_string(all_timed) +
                  " timed ranges recorded before the record budget ran out (--hdbench_trace_budget)"
            : "figures from the start of the benchmark up to where the record budget ran out (--hdbench_trace_budget)";
  }
  nlohmann::json cupti = nlohmann::json::object();
  for (const char* kind : {"HtoD", "DtoH"}) {
    for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned}) {
      if (const auto gbps = copy_bandwidth_gbps(records, kind, host, spans)) {
        cupti[std::string(kind) + "/" + to_string(host)] = *gbps;
      }
    }
  }
  row["cupti_copy_GB/s"] = cupti;
  // The kernels that took the most GPU time, each launch's mean beside its total: what a
  // step's GEMMs take on the GPU's clock, to hold against the plan's timings of each alone.
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelTime& k : kernel_times(records, device, spans, kTopKernels)) {
    kernels.push_back({{"name", k.name},
                       {"launches", k.launches},
                       {"total_us", k.total_us},
                       {"mean_us", k.total_us / static_cast<double>(k.launches)}});
  }
  if (!kernels.empty()) row["top_kernels"] = kernels;
  return row;
}

nlohmann::json gpu_activity_rows(const std::vector<Record>& records, const std::vector<BenchmarkWindow>& windows,
                                 int device, const nlohmann::json& benchmarks) {
  const std::map<std::string, nlohmann::json> counters = counters_by_benchmark(benchmarks);
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchmarkWindow& w : windows) {
    RecordSample all;
    for (const Record& r : records) all.kept += w.start_ns <= r.start_ns && r.start_ns <= w.end_ns ? 1 : 0;
    nlohmann::json row = gpu_activity_row(records, w, device, all);
    if (row.is_null()) continue;
    add_figures_from_counters(row, counters);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace hdbench::trace
