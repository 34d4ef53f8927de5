#include "core/measure.hpp"

#include <fmt/format.h>

#include "core/cuda.hpp"
#include "core/options.hpp"
#include "core/system.hpp"
#include "core/timing.hpp"

namespace hdbench {

void set_bandwidth_counters(benchmark::State& state, std::size_t bytes, const std::vector<double>& seconds,
                            double link_gbps, const std::string& prefix) {
  const SampleStats stats = summarize(seconds);
  if (stats.count == 0 || stats.median <= 0.0) return;
  const double gbps = static_cast<double>(bytes) / stats.median / 1e9;
  state.counters[prefix + "bandwidth_GB/s"] = gbps;
  state.counters[prefix + "bandwidth_best_GB/s"] = static_cast<double>(bytes) / stats.min / 1e9;
  state.counters[prefix + "latency_us"] = stats.median * 1e6;
  state.counters[prefix + "cv_percent"] = stats.cv * 100.0;
  state.counters[prefix + "samples"] = static_cast<double>(stats.count);
  if (link_gbps > 0.0) state.counters[prefix + "pcie_link_percent"] = 100.0 * gbps / link_gbps;
}

double median_stream_seconds(cudaStream_t stream, int repetitions, const std::function<void()>& enqueue) {
  const Event start;
  const Event stop;
  std::vector<double> samples;
  for (int i = 0; i < repetitions; ++i) {
    start.record(stream);
    enqueue();
    stop.record(stream);
    samples.push_back(elapsed_ms(start, stop) / 1e3);
  }
  return summarize(samples).median;
}

std::optional<std::string> memory_shortfall(std::size_t host_bytes, std::size_t device_bytes) {
  const std::uint64_t host_available = system::host_memory_available_bytes();
  // Keep a margin so a benchmark never pushes the machine into swapping.
  if (host_available != 0 && host_bytes > host_available / 10 * 9) {
    return fmt::format("needs {} of host memory, {} available", format_size(host_bytes), format_size(host_available));
  }
  if (device_bytes > 0) {
    const DeviceMemoryInfo device = device_memory_info();
    if (device_bytes > device.free_bytes / 20 * 19) {
      return fmt::format("needs {} of device memory, {} free", format_size(device_bytes),
                         format_size(device.free_bytes));
    }
  }
  return std::nullopt;
}

}  // namespace hdbench
