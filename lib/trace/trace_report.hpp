// What the recorded activity says about each benchmark, for the report's `derived`
// section: how busy the GPU was, how much copies overlapped kernels, the idle gaps,
// and the bandwidth CUPTI measured for each kind of copy beside the event-timed one.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/suite.hpp"
#include "trace/trace_records.hpp"

namespace hdbench::trace {

// One row per benchmark window with GPU activity on `device`. `benchmarks` (the
// report's entries) supplies each benchmark's event-timed bandwidth_GB/s.
nlohmann::json gpu_activity_rows(const std::vector<Record>& records, const std::vector<BenchmarkWindow>& windows,
                                 int device, const nlohmann::json& benchmarks);

}  // namespace hdbench::trace
