// What the recorded activity says about each benchmark, for the report's `derived`
// section: how busy the GPU was, how much copies overlapped kernels, the idle gaps,
// and the bandwidth CUPTI measured for each kind of copy beside the event-timed one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/suite.hpp"
#include "trace/trace_records.hpp"

namespace hdbench::trace {

// How much of a benchmark's activity the record budget kept: every record that starts
// before `cutoff_ns` was kept, none from it on (max: nothing was dropped).
struct RecordSample {
  std::size_t kept = 0, dropped = 0;
  std::uint64_t cutoff_ns = std::numeric_limits<std::uint64_t>::max();
};

// One benchmark's row over `records` (those of its window), or null when it had no
// GPU activity on `device`. With a sample that dropped records, the figures come from
// the timed ranges that ended before the cut (else the window up to it), and the row
// says so. What needs the benchmark's counters is added by add_figures_from_counters.
nlohmann::json gpu_activity_row(const std::vector<Record>& records, const BenchmarkWindow& window, int device,
                                const RecordSample& sample = {});

// Each benchmark's counters by name (without Google's "/manual_time").
std::map<std::string, nlohmann::json> counters_by_benchmark(const nlohmann::json& benchmarks);
// Adds to a gpu_activity row what its benchmark's counters make possible: the
// event-timed bandwidth beside CUPTI's, and for grouped benchmarks (steps_per_sample
// steps per timed range: the MLP step) kernels_per_step and copies_per_step.
void add_figures_from_counters(nlohmann::json& row, const std::map<std::string, nlohmann::json>& counters);

// One row per benchmark window with GPU activity on `device`, every record kept.
// `benchmarks` (the report's entries) supplies each benchmark's event-timed bandwidth.
nlohmann::json gpu_activity_rows(const std::vector<Record>& records, const std::vector<BenchmarkWindow>& windows,
                                 int device, const nlohmann::json& benchmarks);

}  // namespace hdbench::trace
