#include "core/grouped_timing.hpp"

#include <algorithm>

namespace hdbench {
namespace {

std::vector<double> per_call(std::vector<double> group_seconds, std::size_t group) {
  for (double& s : group_seconds) s /= static_cast<double>(group);
  return group_seconds;
}

}  // namespace

std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group, const StoppingRule& rule,
                                       const std::function<double(std::size_t group)>& run_group) {
  return time_grouped_calls(state, group, rule, steady_wall_clock(), run_group);
}

std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group, const StoppingRule& rule,
                                       const WallClock& clock,
                                       const std::function<double(std::size_t group)>& run_group) {
  group = std::max<std::size_t>(group, 1);
  return per_call(run_samples(
                      state, rule, clock, [&] { return run_group(group); }, group),
                  group);
}

}  // namespace hdbench
