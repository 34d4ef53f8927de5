#include "transfer/transfer_derivations.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/report_rows.hpp"

namespace hdbench {
namespace {

// The derivations compare copies with their host buffer on the GPU's own node (the
// default, and what reports before the NUMA axis measured); far ones would overwrite them.
bool near_numa(const nlohmann::json& params) { return params.value("numa", "near") == "near"; }

}  // namespace

// For each size and direction: one transfer of pageable memory costs t_pageable,
// of pinned (or registered) memory t_pinned; pinning once costs t_pin (pin + unpin).
// Pinning pays after n > t_pin / (t_pageable - t_pinned) transfers. Per GPU.
void derive_break_even(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<int, std::string, std::string, std::size_t>, double>
      copy_us;                                                         // (device, direction, memory, bytes)
  std::map<std::tuple<int, std::string, std::size_t>, double> pin_us;  // (device, method, bytes)
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    if (p.value("family", "") == "transfer" && p.value("engine", "") == "copy" &&
        p.value("variant", "") == "per_copy" && p.value("direction", "") != "bidir" && near_numa(p)) {
      if (const auto us = counter(entry, "latency_us")) {
        copy_us[{run_device(p), p["direction"], p["memory"], p["bytes"].get<std::size_t>()}] = *us;
      }
    } else if (p.value("family", "") == "pinning") {
      if (const auto us = counter(entry, "pin_unpin_us")) {
        pin_us[{run_device(p), p["method"], p["bytes"].get<std::size_t>()}] = *us;
      }
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, cost] : pin_us) {
    const auto& [device, method, bytes] = key;
    const std::string pinned_kind = method == "register" ? "registered" : "pinned";
    for (const char* direction : {"h2d", "d2h"}) {
      const auto pageable = copy_us.find({device, direction, "pageable", bytes});
      const auto pinned = copy_us.find({device, direction, pinned_kind, bytes});
      if (pageable == copy_us.end() || pinned == copy_us.end()) continue;
      const double saving = pageable->second - pinned->second;
      nlohmann::json row = {{"bytes", bytes},
                            {"direction", direction},
                            {"method", method},
                            {"pin_unpin_us", cost},
                            {"pageable_copy_us", pageable->second},
                            {"pinned_copy_us", pinned->second}};
      set_row_device(row, device);
      row["transfers_to_break_even"] =
          saving > 0.0 ? nlohmann::json(std::ceil(cost / saving)) : nlohmann::json(nullptr);
      rows.push_back(row);
    }
  }
  if (!rows.empty()) derived["pinning_break_even"] = rows;
}

namespace {

struct StagedRun {
  double gbps = 0.0;
  std::string name;
  std::size_t chunk_bytes = 0;
  std::optional<double> bound_gbps;  // the run's own: its slower half alone (bench/staged.cpp)
  bool bound_is_memcpy = false;
};

// A staged copy is a host memcpy through the ring feeding DMA, so at best it runs at
// the slower half, each measured alone on the same ring in the same benchmark. Adds
// the bound and the staged figure's share of it to `row` (nothing for a run without
// them), and host memcpy of a whole buffer at the same threads, for reference only: it
// writes a buffer as large as its source, the ring a few cache-resident slots, so it
// is not the ring's memcpy and bounds nothing (one-thread staged copies beat it by
// 12-29% on an H100).
void rate_against_bound(nlohmann::json& row, const StagedRun& run, std::optional<double> memcpy) {
  row["host_memcpy_GB/s_at_threads"] = memcpy ? nlohmann::json(*memcpy) : nlohmann::json(nullptr);
  if (!run.bound_gbps) return;
  row["bound"] = run.bound_is_memcpy ? "memcpy stage alone" : "DMA stage alone";
  row["bound_GB/s"] = *run.bound_gbps;
  row["fraction_of_bound"] = run.gbps / *run.bound_gbps;
}

}  // namespace

// Per direction and size: the best staged configuration against the pinned and the
// plain pageable copy of the same run, and, per thread count, the best staged
// configuration against its bound, min(pinned copy, host memcpy at that thread count).
// Per GPU; host memcpy (no GPU) bounds every GPU's.
void derive_staged_vs_pinned(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  // (device, direction, memory, bytes)
  std::map<std::tuple<int, std::string, std::string, std::size_t>, double> copy_gbps;
  std::map<std::pair<int, std::size_t>, double> memcpy_gbps;  // (threads, bytes)
  // (device, direction, bytes) -> threads -> fastest staged run
  std::map<std::tuple<int, std::string, std::size_t>, std::map<int, StagedRun>> staged;
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    const auto gbps = counter(entry, "bandwidth_GB/s");
    if (!gbps) continue;
    const std::size_t bytes = p.value("bytes", std::size_t{0});
    const std::string family = p.value("family", "");
    if (family == "transfer" && p.value("engine", "") == "copy" && p.value("variant", "") == "per_copy" &&
        near_numa(p)) {
      copy_gbps[{run_device(p), p.value("direction", ""), p.value("memory", ""), bytes}] = *gbps;
    } else if (family == "host_memcpy") {
      memcpy_gbps[{p.value("threads", 0), bytes}] = *gbps;
    } else if (family == "staged") {
      StagedRun& best = staged[{run_device(p), p.value("direction", ""), bytes}][p.value("threads", 0)];
      if (*gbps > best.gbps) {
        best = {*gbps, entry.value("name", ""), p.value("chunk_bytes", std::size_t{0}), counter(entry, "bound_GB/s"),
                counter(entry, "bound_is_memcpy").value_or(0.0) > 0.5};
      }
    }
  }
  const auto find = [](const auto& map, const auto& key) -> std::optional<double> {
    const auto it = map.find(key);
    return it == map.end() ? std::nullopt : std::optional(it->second);
  };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, by_threads] : staged) {
    const auto& [device, direction, bytes] = key;
    const auto pinned = find(copy_gbps, std::tuple{device, direction, std::string("pinned"), bytes});
    const auto pageable = find(copy_gbps, std::tuple{device, direction, std::string("pageable"), bytes});
    nlohmann::json threads_rows = nlohmann::json::array();
    int best_threads = 0;
    const StagedRun* best = nullptr;
    for (const auto& [threads, run] : by_threads) {
      nlohmann::json t = {
          {"threads", threads}, {"staged_GB/s", run.gbps}, {"chunk_bytes", run.chunk_bytes}, {"benchmark", run.name}};
      rate_against_bound(t, run, find(memcpy_gbps, std::pair{threads, bytes}));
      threads_rows.push_back(t);
      if (best == nullptr || run.gbps > best->gbps) best = &run, best_threads = threads;
    }
    nlohmann::json row = {{"direction", direction},
                          {"bytes", bytes},
                          {"best_staged_GB/s", best->gbps},
                          {"best_staged_benchmark", best->name},
                          {"best_staged_threads", best_threads},
                          {"best_staged_chunk_bytes", best->chunk_bytes}};
    set_row_device(row, device);
    if (pinned) row["pinned_GB/s"] = *pinned, row["fraction_of_pinned"] = best->gbps / *pinned;
    if (pageable) row["speedup_over_pageable"] = best->gbps / *pageable;
    rate_against_bound(row, *best, find(memcpy_gbps, std::pair{best_threads, bytes}));
    row["by_threads"] = threads_rows;
    rows.push_back(row);
  }
  if (!rows.empty()) derived["staged_vs_pinned"] = rows;
}

// The per-copy figure (one event pair per copy) against the plain back-to-back loop
// of the same run: the two should agree within about 2% at large sizes; a larger gap
// means the per-copy timing itself costs bandwidth. Per GPU.
void derive_reference_agreement(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<int, std::string, std::size_t, std::string>, double> gbps;  // (device, direction, bytes, variant)
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    if (p.value("family", "") != "transfer" || p.value("memory", "") != "pinned" || p.value("engine", "") != "copy" ||
        !near_numa(p) || !entry["counters"].contains("bandwidth_GB/s")) {
      continue;
    }
    gbps[{run_device(p), p.value("direction", ""), p.value("bytes", std::size_t{0}), p.value("variant", "")}] =
        entry["counters"]["bandwidth_GB/s"].get<double>();
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, loop] : gbps) {
    const auto& [device, direction, bytes, variant] = key;
    if (variant != "reference_loop") continue;
    const auto per_copy = gbps.find({device, direction, bytes, "per_copy"});
    if (per_copy == gbps.end()) continue;
    nlohmann::json row = {{"direction", direction},
                          {"bytes", bytes},
                          {"per_copy_GB/s", per_copy->second},
                          {"reference_loop_GB/s", loop},
                          {"ratio", per_copy->second / loop}};
    set_row_device(row, device);
    rows.push_back(std::move(row));
  }
  if (!rows.empty()) derived["per_copy_vs_reference_loop"] = rows;
}

}  // namespace hdbench
