#include "trace_analysis.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "overlap.hpp"

namespace hdbench::trace {
namespace {

// A record's time inside the window, in µs from the window's start.
struct Clipped {
  double start_us = 0.0, end_us = 0.0;
};

double us_between(std::uint64_t from_ns, std::uint64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1e3; }

// The longest stretch of [0, window_us] that no span covers. overlap.hpp has unions
// and intersections but no gaps; a sweep over spans sorted by start finds them.
double largest_gap_us(std::vector<Clipped> spans, double window_us) {
  std::sort(spans.begin(), spans.end(), [](const Clipped& a, const Clipped& b) { return a.start_us < b.start_us; });
  double covered_to = 0.0, largest = 0.0;
  for (const Clipped& s : spans) {
    largest = std::max(largest, s.start_us - covered_to);
    covered_to = std::max(covered_to, s.end_us);
  }
  return std::max(largest, window_us - covered_to);
}

}  // namespace

GpuActivity summarize_gpu_activity(const std::vector<Record>& records, int device, std::uint64_t from_ns,
                                   std::uint64_t to_ns) {
  if (to_ns < from_ns) throw std::invalid_argument("summarize_gpu_activity: the window ends before it starts");
  GpuActivity activity;
  if (to_ns == from_ns) return activity;
  activity.window_us = us_between(from_ns, to_ns);

  // summarize_overlap is unit-free: fed µs, its "_ms" fields hold µs. Copies go in as
  // Stage::h2d whatever their direction, since only copy-vs-kernel matters here; a
  // second call with every record as one stage gives the union of all of them.
  std::vector<StageInterval> copies_and_kernels, everything;
  std::vector<Clipped> spans;
  for (const Record& r : records) {
    if (!is_gpu_record(r.kind) || r.device != device) continue;
    if (r.end_ns < r.start_ns) {
      throw std::invalid_argument("summarize_gpu_activity: record '" + r.name + "' ends before it starts");
    }
    const std::uint64_t start = std::max(r.start_ns, from_ns), end = std::min(r.end_ns, to_ns);
    const bool inside = start < end || (r.start_ns == r.end_ns && from_ns <= r.start_ns && r.start_ns <= to_ns);
    if (!inside) continue;
    const Clipped clipped{us_between(from_ns, start), us_between(from_ns, end)};
    spans.push_back(clipped);
    everything.push_back({Stage::kernel, 0, clipped.start_us, clipped.end_us});
    if (r.kind == RecordKind::memcpy) {
      ++activity.copies;
      copies_and_kernels.push_back({Stage::h2d, 0, clipped.start_us, clipped.end_us});
    } else if (r.kind == RecordKind::kernel) {
      ++activity.kernels;
      copies_and_kernels.push_back({Stage::kernel, 0, clipped.start_us, clipped.end_us});
    }
  }

  const OverlapSummary split = summarize_overlap(copies_and_kernels);
  const double busy_us = summarize_overlap(everything).kernel_busy_ms;
  const double percent = 100.0 / activity.window_us;
  activity.busy_percent = busy_us * percent;
  activity.copy_percent = split.copy_busy_ms * percent;
  activity.kernel_percent = split.kernel_busy_ms * percent;
  activity.copy_compute_overlap_percent = split.overlap_percent();
  activity.total_idle_us = std::max(0.0, activity.window_us - busy_us);
  activity.largest_idle_gap_us = largest_gap_us(std::move(spans), activity.window_us);
  return activity;
}

std::optional<double> copy_bandwidth_gbps(const std::vector<Record>& records, const std::string& copy_kind,
                                          MemoryKind host_kind, std::uint64_t from_ns, std::uint64_t to_ns) {
  std::uint64_t bytes = 0, duration_ns = 0;
  for (const Record& r : records) {
    if (r.kind != RecordKind::memcpy || r.name != copy_kind) continue;
    if ((copy_kind == "DtoH" ? r.dst : r.src) != host_kind) continue;
    if (r.start_ns < from_ns || r.end_ns > to_ns || r.end_ns <= r.start_ns) continue;
    bytes += r.bytes;
    duration_ns += r.end_ns - r.start_ns;
  }
  if (duration_ns == 0) return std::nullopt;
  // Bytes per nanosecond is 1e9 bytes per second.
  return static_cast<double>(bytes) / static_cast<double>(duration_ns);
}

}  // namespace hdbench::trace
