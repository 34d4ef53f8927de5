// Turning timed samples into the counters every bandwidth benchmark reports, and the
// run-time checks a benchmark makes before it allocates.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hdbench {

// Counters (units in the names, GB/s = 1e9 B/s):
//   bandwidth_GB/s       bytes / median sample time
//   bandwidth_best_GB/s  bytes / fastest sample
//   latency_us           median sample time
//   cv_percent           spread of the sample times
//   samples              how many samples the figures come from
//   pcie_link_percent    bandwidth as a share of the link's theoretical rate (if known)
// `prefix` names a direction's counters in bidirectional runs ("h2d_").
void set_bandwidth_counters(benchmark::State& state, std::size_t bytes, const std::vector<double>& seconds,
                            double link_gbps = 0.0, const std::string& prefix = "");

// Median seconds of `repetitions` runs of `enqueue`, each timed by CUDA events
// recorded on `stream` around it.
double median_stream_seconds(cudaStream_t stream, int repetitions, const std::function<void()>& enqueue);

// Why `host_bytes` of host memory and `device_bytes` of device memory do not fit
// now, or nullopt when they do (device memory only checked when device_bytes > 0).
std::optional<std::string> memory_shortfall(std::size_t host_bytes, std::size_t device_bytes);

}  // namespace hdbench
