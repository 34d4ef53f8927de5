#include "transfer/transfer_description.hpp"

namespace hdbench {
namespace {

// set_bandwidth_counters' figures under a prefix (bidir's h2d_ and d2h_, the all-GPU
// copies' gpu<N>_), with the link share it writes where the link is known; `whose`
// says whose figures they are. Google's bytes_per_second is never prefixed.
std::vector<CounterDescription> prefixed_bandwidth_counters(const std::string& prefix, const std::string& whose) {
  std::vector<CounterDescription> prefixed;
  for (const CounterDescription& c : bandwidth_counters("bytes / the median sample time")) {
    if (c.name != "bytes_per_second") prefixed.push_back({prefix + c.name, whose + ": " + c.meaning, c.better});
  }
  prefixed.push_back({prefix + "pcie_link_percent",
                      whose + ": its bandwidth as a share of the link's theoretical rate (`pcie_link_max_gbps`)",
                      Better::higher});
  return prefixed;
}

}  // namespace

FamilyDescription transfer_description() {
  FamilyDescription d{.name = "transfer", .nvtx = kTransferNvtx};
  d.params = {
      {"direction", ParamType::string, "`h2d`, `d2h`, `bidir`, `all_to_host`, `host_to_all`", {kEveryRun}},
      {"memory", ParamType::string, "`pageable`, `registered`, `pinned`, `pinned_wc`, `mapped`", {kEveryRun}},
      {"engine",
       ParamType::string,
       "`copy` = DMA engines via `cudaMemcpyAsync`, `sm` = kernel over mapped host memory",
       {kEveryRun}},
      {"variant",
       ParamType::string,
       "`per_copy`: each copy timed by its own events; `reference_loop`: back-to-back copies between one event pair; "
       "`concurrent`: all_to_host / host_to_all, every GPU at once",
       {kEveryRun}},
      {"bytes",
       ParamType::integer,
       "copied (each direction's for `bidir`, each GPU's for the all-GPU directions)",
       {kEveryRun}},
      {"device", ParamType::integer, "the GPU's index; not for the all-GPU directions, which have `devices`"},
      {"devices", ParamType::integer_list, "all_to_host / host_to_all: the GPU indices"},
      {"device_count", ParamType::integer, "all_to_host / host_to_all: how many GPUs copy at once"},
      {"numa", ParamType::string, "`near` or `far`, one-way and all-GPU copies"},
      {"numa_node_requested", ParamType::integer_or_list,
       "the node the host buffer was placed on first, -1 = left to the OS; a list, per GPU, for the all-GPU "
       "directions"},
  };
  d.counters = bandwidth_counters(
      "bytes / median sample time; `bidir`: both payloads over the span from the first start to the last end; "
      "all_to_host, host_to_all: `sum_GB/s`");
  d.counters.insert(
      d.counters.end(),
      {
          {"pcie_link_percent",
           "`bandwidth_GB/s` as a share of the link's theoretical rate (`pcie_link_max_gbps`; twice it for the "
           "bidirectional sum)",
           Better::higher},
          {"pcie_gen_under_load",
           "`per_copy` on the copy engine, ≥ 64 MiB: the link's generation read from sysfs while a copy was in "
           "flight (an idle link may train down)"},
          {"pcie_width_under_load",
           "`per_copy` on the copy engine, ≥ 64 MiB: the link's width read from sysfs while a copy was in flight "
           "(an idle link may train down)"},
          {"host_numa_node",
           "one-way: NUMA node of the host buffer's first page, read back after allocation (-1 = unknown); compare "
           "with the GPU's `numa_node` and `numa_node_requested`"},
          {"host_numa_landed",
           "one-way, with a requested node: 1 when the first and last pages landed on `numa_node_requested`, 0 when "
           "they did not (the node was full: placement is preferred, not forced)",
           Better::higher},
      });
  for (CounterDescription& c : prefixed_bandwidth_counters(
           "gpu<N>_",
           "all_to_host, host_to_all: GPU N's copy while every selected GPU copies at once (its own events)")) {
    d.counters.push_back(std::move(c));
  }
  d.counters.insert(
      d.counters.end(),
      {
          {"gpu<N>_alone_GB/s",
           "all_to_host, host_to_all: GPU N's copy alone, same size, measured before: bytes / the median of 11 "
           "copies after 3 warm-up copies",
           Better::higher},
          {"gpu<N>_alone_cv_percent",
           "all_to_host, host_to_all: the spread (coefficient of variation) of GPU N's 11 copies alone", Better::lower},
          {"gpu<N>_host_numa_node", "all_to_host, host_to_all: as `host_numa_node`, for GPU N's host buffer"},
          {"gpu<N>_host_numa_landed", "all_to_host, host_to_all: as `host_numa_landed`, for GPU N's host buffer",
           Better::higher},
          {"sum_GB/s",
           "all_to_host, host_to_all: median over samples of the sum of the per-GPU rates (also `bandwidth_GB/s`); "
           "a sample's time (the entry's `real_time`) is the slowest GPU's copy",
           Better::higher},
          {"sum_alone_GB/s", "all_to_host, host_to_all: the sum of the alone rates (`gpu<N>_alone_GB/s`)",
           Better::higher},
          {"contention_ratio", "all_to_host, host_to_all: `sum_GB/s` / `sum_alone_GB/s` (1: no contention)",
           Better::higher},
          {"gpus", "all_to_host, host_to_all: how many GPUs copied at once"},
      });
  for (const auto& [prefix, whose] :
       {std::pair{"h2d_", "`bidir`, the H2D direction"}, std::pair{"d2h_", "`bidir`, the D2H direction"}}) {
    for (CounterDescription& c : prefixed_bandwidth_counters(prefix, whose)) d.counters.push_back(std::move(c));
  }
  d.counters.push_back(
      {"overlap_percent", "`bidir`: share of the span during which both directions were moving", Better::higher});
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"memory"};
  return d;
}

FamilyDescription pinning_description() {
  FamilyDescription d{.name = "pinning", .nvtx = kPinningNvtx};
  d.params = {
      {"method",
       ParamType::string,
       "`malloc_host` = `cudaMallocHost`+`cudaFreeHost`; `register` = `cudaHostRegister`+`cudaHostUnregister` of "
       "touched pageable memory",
       {kEveryRun}},
      {"bytes", ParamType::integer, "pinned", {kEveryRun}},
      {"device", ParamType::integer, "the GPU's index"},
  };
  d.counters = {
      {"pin_us", "median cost of pinning (`cudaMallocHost` or `cudaHostRegister`)", Better::lower},
      {"unpin_us", "median cost of unpinning (`cudaFreeHost` or `cudaHostUnregister`)", Better::lower},
      {"pin_unpin_us", "`pin_us` + `unpin_us`: what the derivation's break-even weighs against faster copies",
       Better::lower},
      {"pin_rate_GB/s", "bytes pinned per second (bytes / `pin_us`)", Better::higher},
      {"cv_percent", "coefficient of variation of the samples (each a pin and its unpin)", Better::lower},
      {"samples", "how many samples the figures come from; with one there is no noise figure", Better::none},
  };
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  return d;
}

FamilyDescription staged_description() {
  FamilyDescription d{.name = "staged", .nvtx = kStagedNvtx};
  d.params = {
      {"direction", ParamType::string, "`h2d`, `d2h`", {kEveryRun}},
      {"memory", ParamType::string, "`pageable`"},
      {"engine", ParamType::string, "`copy`"},
      {"bytes", ParamType::integer, "copied", {kEveryRun}},
      {"chunk_bytes", ParamType::integer, "the size of a pinned chunk of the ring", {kEveryRun}},
      {"threads", ParamType::integer_or_string, "host memcpy threads", {kEveryRun}},
      {"slots", ParamType::integer, "pinned chunks in the ring"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  d.counters = bandwidth_counters("bytes / median sample time");
  const std::string halves =
      "alone on the same ring in the same benchmark, the fastest of 3 tries before the samples and 3 after";
  d.counters.insert(
      d.counters.end(),
      {
          {"pcie_link_percent", "`bandwidth_GB/s` as a share of the link's theoretical rate (`pcie_link_max_gbps`)",
           Better::higher},
          {"memcpy_stage_GB/s", "the memcpy half (host memcpy through the ring's slots) " + halves, Better::higher},
          {"dma_stage_GB/s", "the DMA half (copies between the ring's slots and the device) " + halves, Better::higher},
          {"bound_GB/s",
           "the slower half's rate: a staged copy is a host memcpy through the ring feeding DMA, so it can reach at "
           "most its slower half",
           Better::higher},
          {"bound_is_memcpy", "1 when the bound is the memcpy stage alone, 0 when it is the DMA stage alone"},
          {"fraction_of_bound", "`bandwidth_GB/s` / `bound_GB/s`", Better::higher},
      });
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  return d;
}

FamilyDescription host_memcpy_description() {
  FamilyDescription d{.name = "host_memcpy", .nvtx = kHostMemcpyNvtx};
  d.params = {
      {"memory", ParamType::string, "`pageable`"},
      {"threads", ParamType::integer_or_string, "host memcpy threads sharing each copy", {kEveryRun}},
      {"bytes", ParamType::integer, "copied (sizes below 1 MiB are timed in groups of copies)", {kEveryRun}},
  };
  d.counters = bandwidth_counters("bytes / median sample time, each byte copied counted once (not read + write)");
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  return d;
}

}  // namespace hdbench
