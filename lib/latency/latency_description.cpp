#include "latency/latency_description.hpp"

namespace hdbench {

FamilyDescription latency_description() {
  FamilyDescription d{.name = "latency", .kind_param = "method", .nvtx = kLatencyNvtx};
  d.params = {
      {"method",
       ParamType::string,
       "`copy`: one `cudaMemcpyAsync` and the stream's end, timed on the host clock; `pointer_chase`: one GPU thread "
       "following a random cycle, each load waiting for the one before",
       {kEveryRun}},
      {"direction", ParamType::string, "`copy`: `h2d`, `d2h`", {"copy"}},
      {"memory",
       ParamType::string,
       "`copy`: the host memory, `pageable`, `registered`, `pinned`, `pinned_wc`, `mapped`; `pointer_chase`: "
       "`mapped_host`, the chain in pinned host memory read over the link, or `device`, in device memory",
       {kEveryRun}},
      {"bytes", ParamType::integer, "`copy`: copied", {"copy"}},
      {"engine", ParamType::string, "`copy`: `copy`"},
      {"chain_nodes", ParamType::integer,
       "`pointer_chase`: slots of the chain, one per `stride_bytes`: a 64 MiB chain, larger than the L2"},
      {"stride_bytes", ParamType::integer, "`pointer_chase`: from one slot of the chain to the next"},
      {"steps", ParamType::integer, "`pointer_chase`: loads per sample"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  // A copy writes set_bandwidth_counters' figures (no bytes_per_second), the chase its
  // own latency_us; both the stopping rule's samples.
  for (CounterDescription& c : bandwidth_counters("bytes / median sample time, for the small sizes' slope")) {
    if (c.name == "bytes_per_second") continue;
    c.required.clear();
    if (c.name == "latency_us") {
      c.meaning =
          "`copy`: the median time of one copy of `bytes`, host time of the call and the stream's end; "
          "`pointer_chase`: the median sample over `steps`, one load's round trip";
      c.required = {kEveryRun};
    } else if (c.name != "samples") {
      c.meaning = "`copy`: " + c.meaning;
    }
    d.counters.push_back(std::move(c));
  }
  d.counters.insert(d.counters.end(),
                    {
                        {"latency_best_us", "`pointer_chase`: the fastest sample per load", Better::lower},
                        {"chain_bytes", "`pointer_chase`: the chain's size (bytes)"},
                        {"steps", "`pointer_chase`: the loads per sample"},
                    });
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"method"};
  label_values(d, "memory", {{"mapped_host", "mapped host memory"}});
  return d;
}

}  // namespace hdbench
