// The latency family: how long does the smallest move take? One copy of 4 B..64 KiB
// (cudaMemcpyAsync and the stream's end, on the host clock: what a program waiting for
// it sees), both ways; and a pointer chase (nvbandwidth's method, written afresh): one GPU
// thread follows a random cycle through a chain in mapped host memory, each load waiting
// for the one before, so the time per step is one load's round trip over the link;
// beside the same chase in device memory, the memory's own latency. The copies are
// checked against the pattern; the chase against where the host's own walk stops. Has
// not run on a GPU yet.
#include <fmt/format.h>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/host_memory.hpp"
#include "core/host_pattern.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/report.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "core/verify.hpp"
#include "latency/latency_description.hpp"
#include "latency/latency_options.hpp"
#include "latency/pointer_chain.hpp"
#include "movement_kernels.hpp"

namespace hdbench {
namespace {

// The chase: 1 Mi slots 64 B apart (one per cache line), a 64 MiB chain, larger than an
// H100's 50 MiB L2 wherever it lives, so the loads miss it; fewer steps over the link
// (each a microsecond or so) keep a sample short.
struct ChaseShape {
  std::size_t nodes = 0;
  std::uint64_t steps = 0;
};
constexpr std::size_t kChaseStrideWords = 8;
ChaseShape chase_shape(ChaseMemory m) {
  return m == ChaseMemory::device ? ChaseShape{std::size_t{1} << 20, 200'000}
                                  : ChaseShape{std::size_t{1} << 20, 20'000};
}

void run_copy_latency(benchmark::State& state, const StoppingRule& rule, bool h2d, HostMemoryKind kind,
                      std::size_t bytes, std::uint64_t seed) {
  HostBuffer host(kind, bytes);
  const DeviceBuffer device(bytes);
  const Stream stream("latency");
  if (h2d) {
    fill_pattern_host(host.data(), bytes, seed);
  } else {
    fill_pattern_host(host.data(), bytes, seed);
    upload_bytes(device.data(), host.data(), bytes);
    std::memset(host.data(), 0, bytes);  // what the check reads must come from the samples
  }
  const std::string timed_range =
      fmt::format("latency/copy/{}/{}/{}/timed", h2d ? "h2d" : "d2h", to_string(kind), format_size(bytes));
  const auto copy_once = [&] {
    nvtx::ScopedRange range(kLatencyNvtx, timed_range, bytes);
    const HostTimer timer;
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(h2d ? device.data() : host.data(), h2d ? host.data() : device.data(), bytes,
                                       h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    return timer.elapsed_seconds();
  };
  copy_once();  // warm-up
  const std::vector<double> seconds = run_samples(state, rule, copy_once);
  const std::string problem = h2d ? check_device_pattern(device.data(), bytes, seed, stream.get())
                                  : check_host_pattern_on_cpu(host.data(), bytes, seed);
  if (!problem.empty()) {
    fail_benchmark(state, problem);
    return;
  }
  set_bandwidth_counters(state, bytes, seconds);  // latency_us is the figure; GB/s for the small sizes' slope
}

void run_chase(benchmark::State& state, const StoppingRule& rule, ChaseMemory where, std::uint64_t seed) {
  const ChaseShape shape = chase_shape(where);
  const std::vector<std::uint64_t> chain = make_pointer_chain(shape.nodes, kChaseStrideWords, seed);
  const std::size_t bytes = chain.size() * sizeof(std::uint64_t);
  if (const auto shortfall = memory_shortfall(2 * bytes, bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  HostBuffer host;
  DeviceBuffer device;
  const std::uint64_t* chain_on_gpu = nullptr;
  if (where == ChaseMemory::mapped_host) {
    host = HostBuffer(HostMemoryKind::pinned, bytes);
    std::memcpy(host.data(), chain.data(), bytes);
    void* alias = nullptr;
    HDBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&alias, host.data(), 0));
    chain_on_gpu = static_cast<const std::uint64_t*>(alias);
  } else {
    device = DeviceBuffer(bytes);
    upload_bytes(device.data(), chain.data(), bytes);
    chain_on_gpu = static_cast<const std::uint64_t*>(device.data());
  }
  const DeviceBuffer last(sizeof(std::uint64_t));
  const Stream stream("latency_chase");
  const Event start, stop;
  const std::string timed_range = fmt::format("latency/pointer_chase/{}/timed", to_string(where));
  const auto chase = [&] {
    nvtx::ScopedRange range(kLatencyNvtx, timed_range);
    start.record(stream.get());
    kernels::pointer_chase(chain_on_gpu, shape.steps, static_cast<std::uint64_t*>(last.data()), stream.get());
    stop.record(stream.get());
    stop.synchronize();
    return elapsed_ms(start, stop) / 1e3;
  };
  chase();  // warm-up: the TLB and page tables, not what is measured
  // Each sample covers `steps` loads: the Time column is one load's latency.
  const std::vector<double> seconds = run_samples(state, rule, chase, shape.steps);
  std::uint64_t stopped_at = 0;
  HDBENCH_CUDA_CHECK(cudaMemcpy(&stopped_at, last.data(), sizeof stopped_at, cudaMemcpyDeviceToHost));
  if (const std::uint64_t expected = chase_end(chain, shape.steps); stopped_at != expected) {
    fail_benchmark(state, fmt::format("the chase stopped at word {}, the host's walk of the same chain at {}",
                                      stopped_at, expected));
    return;
  }
  const SampleStats stats = summarize(seconds);
  state.counters["latency_us"] = 1e6 * stats.median / static_cast<double>(shape.steps);
  state.counters["latency_best_us"] = 1e6 * stats.min / static_cast<double>(shape.steps);
  state.counters["chain_bytes"] = static_cast<double>(bytes);
  state.counters["steps"] = static_cast<double>(shape.steps);
}

class LatencyFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"latency"}; }
  void declare_flags(FlagParser& flags, const OptionLimits&) override { declare_latency_flags(flags, options_); }
  FamilyDescription describe(const std::string&) const override { return latency_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    const CaseAxis<std::string> copy_method{"method",
                                            {"copy"},
                                            [](const std::string& m) { return nlohmann::json(m); },
                                            [](const std::string& m) { return m; }};
    const CaseAxis<bool> directions{"direction",
                                    {true, false},
                                    [](const bool& h2d) { return nlohmann::json(h2d ? "h2d" : "d2h"); },
                                    [](const bool& h2d) { return std::string(h2d ? "h2d" : "d2h"); }};
    for_each_case(
        "latency", {},
        [&](CaseId& id, const std::string&, bool h2d, HostMemoryKind kind, std::size_t bytes) {
          id.param("engine", "copy");
          suite.add_gpu(id.name(), id.params(), [&suite, h2d, kind, bytes, seed](benchmark::State& state) {
            run_copy_latency(state, suite.stopping_rule(), h2d, kind, bytes, seed);
          });
        },
        copy_method, directions, named_case_axis("memory", options_.memory), size_case_axis("bytes", options_.sizes));
    CaseAxis<std::string> chase_method = copy_method;
    chase_method.values = {"pointer_chase"};
    for_each_case(
        "latency", {},
        [&](CaseId& id, const std::string&, ChaseMemory where) {
          const ChaseShape shape = chase_shape(where);
          id.param("chain_nodes", shape.nodes)
              .param("stride_bytes", kChaseStrideWords * sizeof(std::uint64_t))
              .param("steps", shape.steps);
          suite.add_gpu(id.name(), id.params(), [&suite, where, seed](benchmark::State& state) {
            run_chase(state, suite.stopping_rule(), where, seed);
          });
        },
        chase_method, named_case_axis("memory", options_.chases));
  }

 private:
  LatencyOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_latency_family() { return std::make_unique<LatencyFamily>(); }

}  // namespace hdbench
