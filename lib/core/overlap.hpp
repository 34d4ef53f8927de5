// How much of a timeline's work ran at the same time: the analysis behind "did the
// copies overlap the kernels?". Pure functions over intervals, so they are tested
// without a GPU and serve any source of timestamps (CUDA events here, CUPTI
// activity records for the trace).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

// The three stages of the streams family's workload.
enum class Stage { h2d, kernel, d2h };
inline constexpr Stage kAllStages[] = {Stage::h2d, Stage::kernel, Stage::d2h};
const char* to_string(Stage stage) noexcept;

struct StageInterval {
  Stage stage = Stage::h2d;
  int chunk = 0;
  double start_ms = 0.0;
  double end_ms = 0.0;
};

struct OverlapSummary {
  double span_ms = 0.0;         // first start to last end
  double kernel_busy_ms = 0.0;  // union of kernel intervals
  double copy_busy_ms = 0.0;    // union of copy intervals (either direction)
  double overlap_ms = 0.0;      // time a kernel and a copy both ran
  double copy_copy_ms = 0.0;    // time an H2D and a D2H copy both ran
  double idle_ms = 0.0;         // time inside the span with nothing running
  // overlap_ms as a share of the shorter of the two busy times: 100 means the shorter
  // activity was hidden completely behind the other.
  double overlap_percent() const noexcept;
};

// Intervals with end < start are invalid (std::invalid_argument); empty ones count as
// no work. An empty input gives a zero summary.
OverlapSummary summarize_overlap(const std::vector<StageInterval>& intervals);

}  // namespace hdbench
