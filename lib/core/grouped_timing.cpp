#include "core/grouped_timing.hpp"

#include <algorithm>

namespace hdbench {

std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group,
                                       const std::function<double(std::size_t group)>& run_group) {
  group = std::max<std::size_t>(group, 1);
  std::vector<double> per_call;
  for (auto _ : state) {
    const double seconds = run_group(group);
    state.SetIterationTime(seconds);
    per_call.push_back(seconds / static_cast<double>(group));
  }
  return per_call;
}

}  // namespace hdbench
