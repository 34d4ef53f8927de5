#include "core/overlap.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hdbench {
namespace {

using Span = std::pair<double, double>;

// Sorted, disjoint spans covering the same time as `spans`.
std::vector<Span> merge(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> merged;
  for (const Span& s : spans) {
    if (s.second <= s.first) continue;
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

double total(const std::vector<Span>& merged) {
  double sum = 0.0;
  for (const Span& s : merged) sum += s.second - s.first;
  return sum;
}

// Time covered by both unions (each sorted and disjoint).
double intersection(const std::vector<Span>& a, const std::vector<Span>& b) {
  double sum = 0.0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return sum;
}

}  // namespace

const char* to_string(Stage stage) noexcept {
  switch (stage) {
    case Stage::h2d:
      return "h2d";
    case Stage::kernel:
      return "kernel";
    case Stage::d2h:
      return "d2h";
  }
  return "unknown";
}

double OverlapSummary::overlap_percent() const noexcept {
  const double shorter = std::min(kernel_busy_ms, copy_busy_ms);
  return shorter > 0.0 ? 100.0 * overlap_ms / shorter : 0.0;
}

OverlapSummary summarize_overlap(const std::vector<StageInterval>& intervals) {
  OverlapSummary summary;
  if (intervals.empty()) return summary;
  std::vector<Span> kernels, copies, h2d, d2h, all;
  double first = intervals.front().start_ms, last = intervals.front().end_ms;
  for (const StageInterval& iv : intervals) {
    if (iv.end_ms < iv.start_ms) {
      throw std::invalid_argument("summarize_overlap: an interval ends before it starts");
    }
    first = std::min(first, iv.start_ms);
    last = std::max(last, iv.end_ms);
    const Span span{iv.start_ms, iv.end_ms};
    all.push_back(span);
    if (iv.stage == Stage::kernel) {
      kernels.push_back(span);
    } else {
      copies.push_back(span);
      (iv.stage == Stage::h2d ? h2d : d2h).push_back(span);
    }
  }
  const auto kernel_union = merge(kernels);
  const auto copy_union = merge(copies);
  summary.span_ms = last - first;
  summary.kernel_busy_ms = total(kernel_union);
  summary.copy_busy_ms = total(copy_union);
  summary.overlap_ms = intersection(kernel_union, copy_union);
  summary.copy_copy_ms = intersection(merge(h2d), merge(d2h));
  summary.idle_ms = std::max(0.0, summary.span_ms - total(merge(all)));
  return summary;
}

}  // namespace hdbench
