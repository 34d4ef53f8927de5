// Timing a group of back-to-back calls as one sample: one call of a few microseconds
// is too short for a clock (CUDA events resolve ~0.5 us, and a launch costs as much),
// so a sample times `group` calls. The sample is the group's time and Google
// Benchmark's iteration count covers the group's calls (run_samples' units), so its
// Time column is one call's time whatever the group size; the per-call samples come
// back for the family's counters.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "core/stopping_rule.hpp"

namespace hdbench {

// Runs the iterations of `state` through run_samples under `rule`: each sample calls
// `run_group(group)`, which runs `group` calls and returns the seconds they took by
// whatever clock fits (CUDA events, the host clock, a test's fake clock). Returns the
// per-call seconds of every sample (the group's time / group).
std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group, const StoppingRule& rule,
                                       const std::function<double(std::size_t group)>& run_group);
// The same with the clock the rule's timeout reads (tests pass a fake one).
std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group, const StoppingRule& rule,
                                       const WallClock& clock,
                                       const std::function<double(std::size_t group)>& run_group);

}  // namespace hdbench
