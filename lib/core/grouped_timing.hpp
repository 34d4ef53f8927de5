// Timing a group of back-to-back calls per Google Benchmark iteration, with the
// iteration's manual time the time of the whole group. Google Benchmark repeats
// iterations until their summed manual time reaches --benchmark_min_time, so reporting
// one call's time while the iteration ran `group` calls would make a benchmark spend
// min_time x group; the per-call figure belongs in the returned samples (counters).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace hdbench {

// Runs the iterations of `state`: each calls `run_group(group)`, which runs `group`
// calls and returns the seconds they took by whatever clock fits (CUDA events, the
// host clock, a test's fake clock). Reports that time as the iteration's manual time
// and returns the per-call seconds of every iteration (the group's time / group).
std::vector<double> time_grouped_calls(benchmark::State& state, std::size_t group,
                                       const std::function<double(std::size_t group)>& run_group);

}  // namespace hdbench
