#include "trace/trace_analysis.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/overlap.hpp"

namespace hdbench::trace {
namespace {

// A record's time inside a span, in µs from the span's start.
struct Clipped {
  double start_us = 0.0, end_us = 0.0;
};

double us_between(std::uint64_t from_ns, std::uint64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1e3; }

// The longest stretch of [0, span_us] that no clipped record covers. overlap.hpp has
// unions and intersections but no gaps; a sweep over records sorted by start finds them.
double largest_gap_us(std::vector<Clipped> clipped, double span_us) {
  std::sort(clipped.begin(), clipped.end(), [](const Clipped& a, const Clipped& b) { return a.start_us < b.start_us; });
  double covered_to = 0.0, largest = 0.0;
  for (const Clipped& c : clipped) {
    largest = std::max(largest, c.start_us - covered_to);
    covered_to = std::max(covered_to, c.end_us);
  }
  return std::max(largest, span_us - covered_to);
}

// Sorted by start, overlapping or touching spans joined into one.
std::vector<TimeSpan> merged(std::vector<TimeSpan> spans) {
  for (const TimeSpan& s : spans) {
    if (s.to_ns < s.from_ns) throw std::invalid_argument("summarize_gpu_activity: a span ends before it starts");
  }
  std::sort(spans.begin(), spans.end(), [](const TimeSpan& a, const TimeSpan& b) { return a.from_ns < b.from_ns; });
  std::vector<TimeSpan> out;
  for (const TimeSpan& s : spans) {
    if (!out.empty() && s.from_ns <= out.back().to_ns) {
      out.back().to_ns = std::max(out.back().to_ns, s.to_ns);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

std::vector<TimeSpan> timed_spans(const std::vector<Record>& records, std::uint64_t from_ns, std::uint64_t to_ns) {
  std::vector<TimeSpan> spans;
  for (const Record& r : records) {
    if (r.kind == RecordKind::range && r.name.ends_with("/timed") && from_ns <= r.start_ns && r.end_ns <= to_ns &&
        r.start_ns <= r.end_ns) {
      spans.push_back({r.start_ns, r.end_ns});
    }
  }
  return merged(std::move(spans));
}

std::vector<KernelTime> kernel_times(const std::vector<Record>& records, int device, std::vector<TimeSpan> spans,
                                     std::size_t top) {
  spans = merged(std::move(spans));
  std::map<std::string, KernelTime> by_name;
  for (const Record& r : records) {
    if (r.kind != RecordKind::kernel || r.device != device) continue;
    if (r.end_ns < r.start_ns) {
      throw std::invalid_argument("kernel_times: record '" + r.name + "' ends before it starts");
    }
    auto it = std::lower_bound(spans.begin(), spans.end(), r.start_ns,
                               [](const TimeSpan& s, std::uint64_t t) { return s.to_ns < t; });
    double us = 0.0;
    bool inside = false;
    for (; it != spans.end() && it->from_ns <= r.end_ns; ++it) {
      const std::uint64_t start = std::max(r.start_ns, it->from_ns), end = std::min(r.end_ns, it->to_ns);
      if (start < end) {
        us += us_between(start, end);
        inside = true;
      }
    }
    if (!inside) continue;
    KernelTime& k = by_name[r.name];
    k.name = r.name;
    ++k.launches;
    k.total_us += us;
  }
  std::vector<KernelTime> out;
  out.reserve(by_name.size());
  for (auto& [name, k] : by_name) out.push_back(std::move(k));
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.total_us > b.total_us; });
  if (out.size() > top) out.resize(top);
  return out;
}

GpuActivity summarize_gpu_activity(const std::vector<Record>& records, int device, std::vector<TimeSpan> spans) {
  spans = merged(std::move(spans));
  // Merged spans are disjoint and sorted, so their ends ascend too: each record finds
  // the first span it can touch by binary search and walks on only while the spans
  // start before it ends. Records are visited in their given order, so each span's
  // intervals come in the order a scan over all records would give them (the sums
  // below are the same, bit for bit): O((records + record-span pairs) log).
  struct Piece {
    Clipped clipped;
    RecordKind kind = RecordKind::kernel;
  };
  std::vector<std::vector<Piece>> pieces(spans.size());
  GpuActivity activity;
  for (const Record& r : records) {
    if (!is_gpu_record(r.kind) || r.device != device) continue;
    if (r.end_ns < r.start_ns) {
      throw std::invalid_argument("summarize_gpu_activity: record '" + r.name + "' ends before it starts");
    }
    auto it = std::lower_bound(spans.begin(), spans.end(), r.start_ns,
                               [](const TimeSpan& s, std::uint64_t t) { return s.to_ns < t; });
    bool counted = false;
    for (; it != spans.end() && it->from_ns <= r.end_ns; ++it) {
      const TimeSpan& span = *it;
      if (span.to_ns == span.from_ns) continue;
      const std::uint64_t start = std::max(r.start_ns, span.from_ns), end = std::min(r.end_ns, span.to_ns);
      const bool inside =
          start < end || (r.start_ns == r.end_ns && span.from_ns <= r.start_ns && r.start_ns <= span.to_ns);
      if (!inside) continue;
      pieces[static_cast<std::size_t>(it - spans.begin())].push_back(
          {{us_between(span.from_ns, start), us_between(span.from_ns, end)}, r.kind});
      if (!counted) {
        counted = true;
        activity.copies += r.kind == RecordKind::memcpy ? 1 : 0;
        activity.kernels += r.kind == RecordKind::kernel ? 1 : 0;
      }
    }
  }
  // Sums over the spans; each span's unions come from summarize_overlap, which is
  // unit-free: fed µs, its "_ms" fields hold µs. Copies go in as Stage::h2d whatever
  // their direction, since only copy-vs-kernel matters here; a second call with every
  // record as one stage gives the union of all of them.
  double busy_us = 0.0, copy_us = 0.0, kernel_us = 0.0, overlap_us = 0.0;
  for (std::size_t k = 0; k < spans.size(); ++k) {
    const TimeSpan& span = spans[k];
    if (span.to_ns == span.from_ns) continue;
    const double span_us = us_between(span.from_ns, span.to_ns);
    std::vector<StageInterval> copies_and_kernels, everything;
    std::vector<Clipped> clipped;
    clipped.reserve(pieces[k].size());
    everything.reserve(pieces[k].size());
    for (const Piece& p : pieces[k]) {
      const Clipped& c = p.clipped;
      clipped.push_back(c);
      everything.push_back({Stage::kernel, 0, c.start_us, c.end_us});
      if (p.kind == RecordKind::memcpy) {
        copies_and_kernels.push_back({Stage::h2d, 0, c.start_us, c.end_us});
      } else if (p.kind == RecordKind::kernel) {
        copies_and_kernels.push_back({Stage::kernel, 0, c.start_us, c.end_us});
      }
    }
    std::vector<Piece>().swap(pieces[k]);
    const OverlapSummary split = summarize_overlap(copies_and_kernels);
    busy_us += summarize_overlap(everything).kernel_busy_ms;
    copy_us += split.copy_busy_ms;
    kernel_us += split.kernel_busy_ms;
    overlap_us += split.overlap_ms;
    activity.window_us += span_us;
    activity.largest_idle_gap_us = std::max(activity.largest_idle_gap_us, largest_gap_us(std::move(clipped), span_us));
  }
  if (activity.window_us == 0.0) return activity;
  const double percent = 100.0 / activity.window_us;
  activity.busy_percent = busy_us * percent;
  activity.copy_percent = copy_us * percent;
  activity.kernel_percent = kernel_us * percent;
  OverlapSummary totals;
  totals.copy_busy_ms = copy_us;
  totals.kernel_busy_ms = kernel_us;
  totals.overlap_ms = overlap_us;
  activity.copy_compute_overlap_percent = totals.overlap_percent();
  activity.total_idle_us = std::max(0.0, activity.window_us - busy_us);
  return activity;
}

std::optional<double> copy_bandwidth_gbps(const std::vector<Record>& records, const std::string& copy_kind,
                                          MemoryKind host_kind, const std::vector<TimeSpan>& spans) {
  // A copy lies wholly inside some span when, among the spans that start at or before
  // it, the latest end reaches its end: spans sorted by start with a running maximum
  // of their ends answer that by one binary search.
  std::vector<TimeSpan> by_start = spans;
  std::sort(by_start.begin(), by_start.end(),
            [](const TimeSpan& a, const TimeSpan& b) { return a.from_ns < b.from_ns; });
  std::vector<std::uint64_t> reach(by_start.size());
  for (std::size_t i = 0; i < by_start.size(); ++i) {
    reach[i] = i == 0 ? by_start[i].to_ns : std::max(reach[i - 1], by_start[i].to_ns);
  }
  const auto inside_a_span = [&](const Record& r) {
    const auto after = std::upper_bound(by_start.begin(), by_start.end(), r.start_ns,
                                        [](std::uint64_t t, const TimeSpan& s) { return t < s.from_ns; });
    return after != by_start.begin() && reach[static_cast<std::size_t>(after - by_start.begin()) - 1] >= r.end_ns;
  };
  std::uint64_t bytes = 0, duration_ns = 0;
  for (const Record& r : records) {
    if (r.kind != RecordKind::memcpy || r.name != copy_kind) continue;
    if ((copy_kind == "DtoH" ? r.dst : r.src) != host_kind) continue;
    if (r.end_ns <= r.start_ns || !inside_a_span(r)) continue;
    bytes += r.bytes;
    duration_ns += r.end_ns - r.start_ns;
  }
  if (duration_ns == 0) return std::nullopt;
  // Bytes per nanosecond is 1e9 bytes per second.
  return static_cast<double>(bytes) / static_cast<double>(duration_ns);
}

}  // namespace hdbench::trace
