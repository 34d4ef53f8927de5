// all_to_host / host_to_all: every selected GPU (--hdbench_devices) copies at once
// between its own device buffer and its own pinned host buffer, behind one spin gate
// per GPU released together; each GPU's copy alone (same size) is measured first, so
// the report holds per-GPU rates, their sum, the sum of the alone rates and the ratio
// (contention on a shared root complex or socket shows as a ratio below 1). With one
// GPU selected it is that GPU's copy behind the gate. Has run on one GPU only.
#include <fmt/format.h>

#include "core/cuda.hpp"
#include "core/devices.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "transfer/all_gpu_cases.hpp"
#include "transfer/all_gpu_copy.hpp"
#include "transfer/transfer_description.hpp"
#include "transfer_bench.hpp"

namespace hdbench {
namespace {

// Copies per GPU alone: the median of these is the "alone" rate. On an H100 the first
// few H2D copies from fresh pinned memory ran at half speed (a median of 5 after one
// warm-up read 27 GB/s for a 55 GB/s link), so the warm-up is longer and the median wider.
constexpr int kAloneWarmups = 3;
constexpr int kAloneRepetitions = 11;

void run_all_gpus(benchmark::State& state, const Suite& suite, const AllGpuCase& c) {
  for (const int device : c.devices) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(device));
    if (const auto shortfall = memory_shortfall(c.bytes * c.devices.size(), c.bytes)) {
      skip_benchmark(state, fmt::format("GPU {}: {}", device, *shortfall));
      return;
    }
  }
  HDBENCH_CUDA_CHECK(cudaSetDevice(c.devices.front()));
  AllGpuCopy copy(c.devices, c.direction, c.bytes, suite.options().seed, suite.options().spin_timeout_ms, c.numa_nodes);
  const std::size_t n = copy.size();
  std::vector<SampleStats> alone(n);
  for (std::size_t i = 0; i < n; ++i) {
    copy.alone_seconds(i, kAloneWarmups);  // warm-up: first-use costs stay out of the figures
    alone[i] = summarize(copy.alone_seconds(i, kAloneRepetitions));
  }
  copy.run_together();  // warm-up of the gated path
  std::vector<std::vector<double>> per_gpu(n);
  std::vector<double> sums;
  const std::string timed_range = c.name + "/timed";
  run_samples(state, suite.stopping_rule(), [&] {
    nvtx::ScopedRange range(kTransferNvtx, timed_range, c.bytes * n);
    const AllGpuSample sample = copy.run_together();
    for (std::size_t i = 0; i < n; ++i) per_gpu[i].push_back(sample.seconds[i]);
    sums.push_back(sample.sum_gbps(c.bytes));
    return sample.slowest_seconds();  // the time until every GPU's copy is done
  });
  {
    nvtx::ScopedRange range(kTransferNvtx, c.name + "/verify", c.bytes * n);
    if (const std::string problem = copy.verify(); !problem.empty()) {
      fail_benchmark(state, problem);
      return;
    }
  }
  double sum_alone = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const int device = copy.device(i);
    const system::GpuInfo* gpu = gpu_info(suite.system(), device);
    const std::string prefix = fmt::format("gpu{}_", device);
    set_bandwidth_counters(state, c.bytes, per_gpu[i], gpu ? system::pcie_link_gbps(gpu->link_max) : 0.0, prefix);
    const double alone_gbps = alone[i].median > 0.0 ? static_cast<double>(c.bytes) / alone[i].median / 1e9 : 0.0;
    state.counters[prefix + "alone_GB/s"] = alone_gbps;
    state.counters[prefix + "alone_cv_percent"] = alone[i].cv * 100.0;
    sum_alone += alone_gbps;
    const numa::Placement landed = numa::read_back(copy.host(i).data(), c.bytes, c.numa_nodes[i]);
    state.counters[prefix + "host_numa_node"] = landed.first_page;
    if (landed.requested >= 0) state.counters[prefix + "host_numa_landed"] = landed.landed() ? 1 : 0;
  }
  const double sum = summarize(sums).median;
  state.counters["sum_GB/s"] = sum;
  state.counters["bandwidth_GB/s"] = sum;  // the headline figure generic tools read
  state.counters["sum_alone_GB/s"] = sum_alone;
  if (sum_alone > 0.0) state.counters["contention_ratio"] = sum / sum_alone;
  state.counters["gpus"] = static_cast<double>(n);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.bytes * n));
}

}  // namespace

void register_transfer_all_gpus(Suite& suite, const TransferOptions& t, const DeviceSelection& selection) {
  const auto gpu_count = static_cast<int>(suite.system().gpus.size());
  const std::vector<int> devices = resolve_devices(selection, suite.options().device, gpu_count);
  const NumaHost numa_host = NumaHost::discover();
  for (const AllGpuCase& c : plan_all_gpu_cases(t, suite.options().memory_kinds, devices, suite.system(), numa_host)) {
    if (!c.skip_reason.empty()) {
      suite.add_skipped(c.name, c.params, c.skip_reason);
      continue;
    }
    // Every selected GPU at once: one entry, not one per device.
    suite.add_gpu_once(c.name, c.params, [&suite, c](benchmark::State& state) { run_all_gpus(state, suite, c); });
  }
}

}  // namespace hdbench
