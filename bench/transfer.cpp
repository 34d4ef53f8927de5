// One-way transfers: every host memory kind, host→device and device→host, through
// the copy engines (cudaMemcpyAsync) and through SMs (a kernel over mapped memory),
// plus a plain back-to-back cudaMemcpyAsync loop as the reference the per-copy
// figures are checked against.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/grouped_timing.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "transfer/all_gpu_cases.hpp"
#include "transfer/transfer_derivations.hpp"
#include "transfer/transfer_description.hpp"
#include "transfer/transfer_endpoints.hpp"
#include "transfer_bench.hpp"

namespace hdbench {
namespace {

// Enough blocks to keep many 16-byte requests in flight per SM, which is what
// saturates a PCIe link from loads and stores.
constexpr int kSmCopyBlocksPerSm = 8;
// Copies per sample of the reference loop: enough to hide the event overhead at
// small sizes, few enough to keep a sample short at large ones.
std::size_t reference_loop_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{256} << 20) / bytes, 1, 64);
}

struct TransferCase {
  Direction direction = Direction::h2d;
  HostMemoryKind kind = HostMemoryKind::pinned;
  Engine engine = Engine::copy;
  std::size_t bytes = 0;
  bool reference_loop = false;
  NumaTarget numa_target = {};  // where the host buffer goes
  std::string name;             // the case's, from its axes (for_each_case)
};

// How a one-way copy is issued: one copy per timed call on an engine, or the plain
// back-to-back loop of copy-engine copies the per-copy figures are checked against.
struct Route {
  Engine engine = Engine::copy;
  bool reference_loop = false;
};

// The engine axis with the reference loop after the engines: the loop's name says so
// in the engine's place ("copy_loop"), its params keep the engine.
CaseAxis<Route> route_case_axis(const std::vector<Engine>& engines) {
  CaseAxis<Route> axis{
      "engine",
      {},
      [](const Route& r) { return nlohmann::json(to_string(r.engine)); },
      [](const Route& r) { return std::string(r.reference_loop ? "copy_loop" : to_string(r.engine)); }};
  for (const Engine engine : engines) axis.values.push_back({engine, false});
  if (std::find(engines.begin(), engines.end(), Engine::copy) != engines.end()) {
    axis.values.push_back({Engine::copy, true});
  }
  return axis;
}

// The link state while a copy is in flight: an idle link may train down to save power.
void record_link_under_load(benchmark::State& state, const TransferEndpoints& ends, const system::GpuInfo& gpu,
                            cudaStream_t stream) {
  ends.enqueue_copy(Engine::copy, 0, stream);
  const system::PcieLink link = system::read_pcie_link("/sys", gpu.pci_bus_id, true);
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  state.counters["pcie_gen_under_load"] = link.generation;
  state.counters["pcie_width_under_load"] = link.width;
}

void run_transfer(benchmark::State& state, const Suite& suite, const TransferCase& c) {
  const system::GpuInfo& gpu = *suite.current_gpu();
  if (const auto shortfall = memory_shortfall(c.bytes, c.bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const std::string& name = c.name;
  Stream stream(to_string(c.direction));
  const TransferEndpoints ends = [&] {
    const numa::PreferredNodeScope placement(c.numa_target.node);  // host pages allocated and first touched here
    return TransferEndpoints(c.kind, c.direction, c.bytes, suite.options().seed, stream.get());
  }();
  const int sm_blocks = gpu.sm_count * kSmCopyBlocksPerSm;
  const std::size_t copies = c.reference_loop ? reference_loop_copies(c.bytes) : 1;
  Event start;
  Event stop;
  ends.enqueue_copy(c.engine, sm_blocks, stream.get());  // warm-up: first-use costs stay out of the samples
  stream.synchronize();

  const std::string timed_range = name + "/timed";
  const std::vector<double> seconds =
      time_grouped_calls(state, copies, suite.stopping_rule(), [&](std::size_t group) {  // per copy
        nvtx::ScopedRange range(kTransferNvtx, timed_range, c.bytes * group);
        start.record(stream.get());
        for (std::size_t i = 0; i < group; ++i) ends.enqueue_copy(c.engine, sm_blocks, stream.get());
        stop.record(stream.get());
        return elapsed_ms(start, stop) / 1e3;
      });
  {
    nvtx::ScopedRange range(kTransferNvtx, name + "/verify", c.bytes);
    if (const std::string problem = ends.verify(stream.get()); !problem.empty()) {
      fail_benchmark(state, problem);
      return;
    }
  }
  set_bandwidth_counters(state, c.bytes, seconds, system::pcie_link_gbps(gpu.link_max));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.bytes));
  // Where the host pages live decides which socket's link they cross; -1 = unknown.
  const numa::Placement landed = numa::read_back(ends.host().data(), c.bytes, c.numa_target.node);
  state.counters["host_numa_node"] = landed.first_page;
  if (landed.requested >= 0) state.counters["host_numa_landed"] = landed.landed() ? 1 : 0;
  if (c.engine == Engine::copy && !c.reference_loop && c.bytes >= (std::size_t{64} << 20)) {
    record_link_under_load(state, ends, gpu, stream.get());
  }
}

}  // namespace

void register_transfer(Suite& suite, const TransferOptions& t) {
  std::vector<Direction> one_way;
  std::copy_if(t.directions.begin(), t.directions.end(), std::back_inserter(one_way), is_one_way);
  // The host buffer's node follows each GPU's own node: per placement, per selected device.
  const NumaHost numa_host = NumaHost::discover();
  std::map<NumaPlacement, std::vector<NumaTarget>> targets;
  for (const NumaPlacement placement : t.numa) {
    for (const int device : suite.devices())
      targets[placement].push_back(gpu_numa_target(placement, suite.system(), device, numa_host));
  }
  for_each_case(
      "transfer", {"direction", "memory", "engine", "bytes"},
      [&](CaseId& id, NumaPlacement placement, Direction direction, Route route, HostMemoryKind kind,
          std::size_t bytes) {
        if (!engine_uses_kind(route.engine, kind)) return;
        if (route.reference_loop && kind != HostMemoryKind::pinned) return;  // the reference is pinned memory's
        id.param("variant", route.reference_loop ? "reference_loop" : "per_copy");
        // Devices innermost, as add_gpu orders them.
        for (std::size_t i = 0; i < suite.devices().size(); ++i) {
          const int device = suite.devices()[i];
          const NumaTarget& target = targets[placement][i];
          CaseId on_device = id;
          on_device.param("numa_node_requested", target.node);
          if (!target.skip_reason.empty()) {  // true with or without a GPU: say why far cannot run here
            nlohmann::json params = on_device.params();
            params["device"] = device;
            suite.add_skipped(suite.device_name(on_device.name(), device), std::move(params), target.skip_reason);
            continue;
          }
          const TransferCase c{direction, kind, route.engine, bytes, route.reference_loop, target, on_device.name()};
          suite.add_gpu_on(device, on_device.name(), on_device.params(),
                           [&suite, c](benchmark::State& state) { run_transfer(state, suite, c); });
        }
      },
      numa_case_axis(t.numa), named_case_axis("direction", one_way), route_case_axis(t.engines),
      named_case_axis("memory", suite.options().memory_kinds), size_case_axis("bytes", t.sizes));
  suite.add_derivation(derive_reference_agreement);
}

}  // namespace hdbench

namespace hdbench {
namespace {

// Four families share the transfer area's options: sizes, directions and engines.
class TransferFamily final : public Family {
 public:
  explicit TransferFamily(const DeviceSelection& devices) : devices_(devices) {}
  std::vector<std::string> names() const override { return {"transfer", "pinning", "staged", "host_memcpy"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_transfer_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string& name) const override {
    if (name == "transfer") return transfer_description();
    if (name == "pinning") return pinning_description();
    if (name == "staged") return staged_description();
    if (name == "host_memcpy") return host_memcpy_description();
    throw std::invalid_argument("the transfer area has no family " + name);
  }
  void register_benchmarks(Suite& suite, const std::string& name) const override {
    if (name == "transfer") {
      register_transfer(suite, options_);
      register_transfer_bidir(suite, options_);
      register_transfer_all_gpus(suite, options_, devices_);
    } else if (name == "pinning") {
      register_pinning(suite, options_);
    } else if (name == "staged") {
      register_staged(suite, options_);
    } else if (name == "host_memcpy") {
      register_host_memcpy(suite, options_);
    }
  }

 private:
  const DeviceSelection& devices_;  // --hdbench_devices: the GPUs of all_to_host / host_to_all
  TransferOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_transfer_family(const DeviceSelection& devices) {
  return std::make_unique<TransferFamily>(devices);
}

}  // namespace hdbench
