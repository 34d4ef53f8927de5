#include "p2p/p2p_description.hpp"

namespace hdbench {

FamilyDescription p2p_description() {
  FamilyDescription d{.name = "p2p", .nvtx = kP2pNvtx};
  d.params = {
      {"src_device", ParamType::integer, "the GPU copied from (with `both`, one of the pair)"},
      {"dst_device", ParamType::integer, "the GPU copied to (with `both`, the other)"},
      {"bytes", ParamType::integer, "copied in each direction"},
      {"peer_access", ParamType::boolean,
       "true: `cudaMemcpyPeerAsync` with peer access enabled (`cudaDeviceEnablePeerAccess`; a pair that cannot map "
       "each other's memory is skipped with the reason); false: the driver stages the copy through host memory"},
      {"both_directions", ParamType::boolean, "true: both directions at once, one stream per source GPU"},
      {"direction", ParamType::string, "`one`, `both`: one entry per unordered pair"},
      {"processor", ParamType::string, "`gpu`"},
      {"devices", ParamType::integer_list,
       "the selected GPUs, only in the skipped `p2p/matrix` entry registered when fewer than two are selected or no "
       "GPU is usable"},
  };
  // set_bandwidth_counters' figures (no link share: a peer copy's link is not known): unprefixed for one
  // direction, forward_ and backward_ for both.
  for (CounterDescription& c : bandwidth_counters("bytes / median sample time")) {
    c.required.clear();
    if (c.name == "bytes_per_second") {
      c.meaning += "; both directions' bytes for `both`";
    } else if (c.name != "samples") {
      c.meaning = "`one`: " + c.meaning;
    }
    d.counters.push_back(c);
  }
  for (const auto& [prefix, whose] : {std::pair{"forward_", "`both`, `src_device` to `dst_device`"},
                                      std::pair{"backward_", "`both`, `dst_device` to `src_device`"}}) {
    for (const CounterDescription& c : bandwidth_counters("bytes / median sample time")) {
      if (c.name != "bytes_per_second")
        d.counters.push_back({prefix + c.name, std::string(whose) + ": " + c.meaning, c.better});
    }
  }
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  return d;
}

}  // namespace hdbench
