// One-way transfers: every host memory kind, host→device and device→host, through
// the copy engines (cudaMemcpyAsync) and through SMs (a kernel over mapped memory),
// plus a plain back-to-back cudaMemcpyAsync loop as the reference the per-copy
// figures are checked against.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/case_id.hpp"
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
  NumaPlacement numa = NumaPlacement::near;
  NumaTarget numa_target = {};  // where the host buffer goes; a skip reason when it cannot
};

CaseId case_id(const TransferCase& c) {  // Suite::add_gpu_on adds the device
  CaseId id("transfer");
  id.shown("direction", to_string(c.direction)).shown("memory", to_string(c.kind));
  // The reference loop's name says so in the engine's place; its params keep the engine.
  id.shown("engine", to_string(c.engine), c.reference_loop ? "copy_loop" : to_string(c.engine))
      .shown("bytes", c.bytes, format_size(c.bytes))
      .param("variant", c.reference_loop ? "reference_loop" : "per_copy")
      .param("numa_node_requested", c.numa_target.node);
  add_numa_part(id, c.numa);
  return id;
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
  const std::string name = case_id(c).name();
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
  const Options& o = suite.options();
  std::vector<TransferCase> cases;
  for (Direction direction : t.directions) {
    if (!is_one_way(direction)) continue;
    for (Engine engine : t.engines) {
      for (HostMemoryKind kind : o.memory_kinds) {
        if (!engine_uses_kind(engine, kind)) continue;
        for (std::size_t bytes : t.sizes) cases.push_back({direction, kind, engine, bytes, false});
      }
    }
    const bool pinned =
        std::find(o.memory_kinds.begin(), o.memory_kinds.end(), HostMemoryKind::pinned) != o.memory_kinds.end();
    const bool copy = std::find(t.engines.begin(), t.engines.end(), Engine::copy) != t.engines.end();
    if (pinned && copy) {
      for (std::size_t bytes : t.sizes) {
        cases.push_back({direction, HostMemoryKind::pinned, Engine::copy, bytes, true});
      }
    }
  }
  // The host buffer's node follows each GPU's own node. Devices innermost, as add_gpu orders them.
  const NumaHost numa_host = NumaHost::discover();
  for (const NumaPlacement numa : t.numa) {
    std::vector<NumaTarget> targets;  // per selected device
    for (const int device : suite.devices())
      targets.push_back(gpu_numa_target(numa, suite.system(), device, numa_host));
    for (const TransferCase& planned : cases) {
      for (std::size_t i = 0; i < suite.devices().size(); ++i) {
        const int device = suite.devices()[i];
        TransferCase c = planned;
        c.numa = numa;
        c.numa_target = targets[i];
        if (!c.numa_target.skip_reason.empty()) {  // true with or without a GPU: say why far cannot run here
          const CaseId id = case_id(c);
          nlohmann::json params = id.params();
          params["device"] = device;
          suite.add_skipped(suite.device_name(id.name(), device), std::move(params), c.numa_target.skip_reason);
          continue;
        }
        const CaseId id = case_id(c);
        suite.add_gpu_on(device, id.name(), id.params(),
                         [&suite, c](benchmark::State& state) { run_transfer(state, suite, c); });
      }
    }
  }
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
