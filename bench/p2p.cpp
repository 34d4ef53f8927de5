// The p2p family: a GPU-to-GPU copy matrix over every ordered pair of the selected
// devices (--hdbench_devices), with peer access on and off, one and both directions,
// each copy verified after timing. With fewer than two selected GPUs it registers one
// skipped entry saying so. Has not run on two GPUs yet.
#include <fmt/format.h>

#include "core/case_grid.hpp"
#include "core/devices.hpp"
#include "core/family.hpp"
#include "core/measure.hpp"
#include "core/report.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "p2p/p2p_description.hpp"
#include "p2p/p2p_options.hpp"
#include "p2p/peer_copy.hpp"

namespace hdbench {
namespace {

void run_peer_copy(benchmark::State& state, const StoppingRule& rule, int src, int dst, std::size_t bytes, bool peer,
                   bool both, std::uint64_t seed) {
  if (peer && !(p2p::can_access_peer(src, dst) && p2p::can_access_peer(dst, src))) {
    skip_benchmark(
        state, fmt::format("GPU {} and GPU {} cannot access each other's memory (cudaDeviceCanAccessPeer)", src, dst));
    return;
  }
  if (const auto shortfall = memory_shortfall(bytes, 2 * bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  p2p::PeerCopy copy(src, dst, bytes, peer, both, seed);
  copy.run_once();  // warm-up
  std::vector<double> forward, backward;
  run_samples(state, rule, [&] {
    const p2p::PeerSample s = copy.run_once();
    forward.push_back(s.forward_seconds);
    if (both) backward.push_back(s.backward_seconds);
    return s.span_seconds;
  });
  if (const std::string problem = copy.verify(); !problem.empty()) {
    fail_benchmark(state, problem);
    return;
  }
  set_bandwidth_counters(state, bytes, forward, 0.0, both ? "forward_" : "");
  if (both) set_bandwidth_counters(state, bytes, backward, 0.0, "backward_");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes * (both ? 2 : 1)));
}

// An ordered pair of GPUs: the source in the params (src_device) and, with the
// destination, in the name ("0to1").
struct PeerPair {
  int src = 0;
  int dst = 0;
};

CaseAxis<PeerPair> pair_case_axis(const std::vector<int>& devices) {
  CaseAxis<PeerPair> axis{"src_device",
                          {},
                          [](const PeerPair& p) { return nlohmann::json(p.src); },
                          [](const PeerPair& p) { return fmt::format("{}to{}", p.src, p.dst); }};
  for (const int src : devices) {
    for (const int dst : devices) {
      if (src != dst) axis.values.push_back({src, dst});
    }
  }
  return axis;
}

class P2pFamily final : public Family {
 public:
  explicit P2pFamily(const DeviceSelection& devices) : devices_(devices) {}
  std::vector<std::string> names() const override { return {"p2p"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_p2p_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string&) const override { return p2p_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const auto gpu_count = static_cast<int>(suite.system().gpus.size());
    const std::vector<int> devices = resolve_devices(devices_, suite.options().device, gpu_count);
    const nlohmann::json base = {{"family", "p2p"}, {"processor", "gpu"}, {"devices", devices}};
    if (!suite.system().gpu_usable()) {
      suite.add_skipped("p2p/matrix", base, suite.system().gpu_unavailable_reason);
      return;
    }
    if (devices.size() < 2) {
      suite.add_skipped("p2p/matrix", base,
                        fmt::format("p2p needs two or more GPUs (--hdbench_devices=all or a list); selected {} of "
                                    "this machine's {}",
                                    devices.size(), gpu_count));
      return;
    }
    const std::uint64_t seed = suite.options().seed;
    // One direction or both at once ("one"/"both", both_directions in the params too),
    // peer access on or off ("peer:on"), the size as its byte count ("67108864").
    for_each_case(
        "p2p", {},
        [&](CaseId& id, const PeerPair& pair, bool both, bool peer, std::size_t bytes) {
          if (both && pair.src > pair.dst) return;  // both directions: one entry per unordered pair
          id.param("dst_device", pair.dst).param("both_directions", both).param("processor", "gpu");
          suite.add_gpu_once(  // a pair of GPUs: one entry, not one per device
              id.name(), id.params(), [=, &suite](benchmark::State& state) {
                run_peer_copy(state, suite.stopping_rule(), pair.src, pair.dst, bytes, peer, both, seed);
              });
        },
        pair_case_axis(devices),
        CaseAxis<bool>{"direction", options_.both_directions,
                       [](const bool& both) { return nlohmann::json(both ? "both" : "one"); },
                       [](const bool& both) { return std::string(both ? "both" : "one"); }},
        CaseAxis<bool>{"peer_access", options_.peer_access, [](const bool& on) { return nlohmann::json(on); },
                       [](const bool& on) { return std::string(on ? "on" : "off"); }, Shown::labelled, "peer"},
        CaseAxis<std::size_t>{"bytes", options_.sizes, [](const std::size_t& n) { return nlohmann::json(n); },
                              [](const std::size_t& n) { return std::to_string(n); }});
  }

 private:
  const DeviceSelection& devices_;
  P2pOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_p2p_family(const DeviceSelection& devices) { return std::make_unique<P2pFamily>(devices); }

}  // namespace hdbench
