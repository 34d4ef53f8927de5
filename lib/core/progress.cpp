#include "core/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <regex>

namespace hdbench {
namespace {

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

double estimate_seconds(std::size_t runnable, double min_time_seconds) {
  return static_cast<double>(runnable) * (kTrialFactor * min_time_seconds + kSetupSeconds);
}

std::string plan_line(std::size_t total, std::size_t skipped, double min_time_seconds, double budget_minutes) {
  const std::size_t runnable = total - std::min(skipped, total);
  std::string line = fmt::format("{} benchmark{} to run", total, total == 1 ? "" : "s");
  if (skipped > 0) line += fmt::format(" ({} skipped on this machine)", std::min(skipped, total));
  line += fmt::format(", about {} at --benchmark_min_time={:g} s",
                      duration(estimate_seconds(runnable, min_time_seconds)), min_time_seconds);
  if (budget_minutes > 0) line += fmt::format("; stops starting new ones after {}", duration(60.0 * budget_minutes));
  return line;
}

double estimate_seconds(std::size_t runnable, const StoppingRule& rule) {
  return static_cast<double>(runnable) * (rule.timeout_seconds + kSetupSeconds);
}

std::string plan_line(std::size_t total, std::size_t skipped, const StoppingRule& rule, double min_time_seconds,
                      double budget_minutes) {
  if (!rule.enabled) return plan_line(total, skipped, min_time_seconds, budget_minutes);
  const std::size_t runnable = total - std::min(skipped, total);
  std::string line = fmt::format("{} benchmark{} to run", total, total == 1 ? "" : "s");
  if (skipped > 0) line += fmt::format(" ({} skipped on this machine)", std::min(skipped, total));
  line += fmt::format(
      ", at most {} ({:g} s of sampling + ~{:g} s set-up each; sooner once {}+ samples are within {:g}% noise)",
      duration(estimate_seconds(runnable, rule)), rule.timeout_seconds, kSetupSeconds, rule.min_samples,
      rule.noise_target_percent);
  if (budget_minutes > 0) line += fmt::format("; stops starting new ones after {}", duration(60.0 * budget_minutes));
  return line;
}

std::size_t count_selected(const std::vector<std::string>& names, std::string_view filter) {
  if (filter.empty() || filter == "." || filter == "all") return names.size();
  const bool negated = filter.front() == '-';
  const std::regex pattern(std::string(negated ? filter.substr(1) : filter), std::regex::extended);
  std::size_t count = 0;
  for (const std::string& name : names) {
    if (std::regex_search(name, pattern) != negated) ++count;
  }
  return count;
}

std::string progress_line(std::size_t done, std::size_t total, double elapsed_seconds, std::string_view name) {
  const int width = static_cast<int>(fmt::format("{}", total).size());
  std::string line = fmt::format("[{:>{}}/{}] {:>6} elapsed", done, width, total, duration(elapsed_seconds));
  if (done > 0 && done <= total) {
    const double left = elapsed_seconds / static_cast<double>(done) * static_cast<double>(total - done);
    line += fmt::format(", ~{} left", duration(left));
  }
  if (!name.empty()) line += fmt::format("  {}", name);
  return line;
}

Progress::Progress(std::size_t total, bool enabled) : total_(total), enabled_(enabled && total > 0) {}

void Progress::finished(const std::string& run_name) {
  if (!done_.insert(run_name).second || !enabled_) return;
  // \r and clear-to-end redraw the line in place.
  std::fprintf(stderr, "\r\033[K%s", progress_line(done_.size(), total_, timer_.elapsed_seconds(), run_name).c_str());
  std::fflush(stderr);
}

void Progress::end() {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace hdbench
