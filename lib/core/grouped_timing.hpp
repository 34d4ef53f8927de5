// Timing a group of back-to-back calls as one sample, with the sample's time the time
// of the whole group. Without the stopping rule Google Benchmark repeats iterations
// until their summed manual time reaches --benchmark_min_time, so reporting one call's
// time while the iteration ran `group` calls would make a benchmark spend
// min_time x group; with the rule (stopping_rule.hpp) the group is one sample and the
// iteration's time is the median group. Either way the iteration's manual time is the
// time of what it ran, and the per-call figure belongs in the returned samples
// (counters).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "core/stopping_rule.hpp"

namespace hdbench {

// Runs the iterations of `state` through run_samples under the rule in force: each
// sample calls `run_group(group)`, which runs `group` calls and returns the seconds
// they took by whatever clock fits (CUDA events, the host clock, a test's fake clock).
// Returns the per-call seconds of every sample (the group's time / group).
std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group,
                                       const std::function<double(std::size_t group)>& run_group);
// The same under an explicit rule and clock (tests).
std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group, const StoppingRule& rule,
                                       const WallClock& clock,
                                       const std::function<double(std::size_t group)>& run_group);

}  // namespace hdbench
