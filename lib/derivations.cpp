#include "derivations.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace hdbench {
namespace {

std::optional<double> counter(const nlohmann::json& entry, const char* name) {
  if (entry.value("status", "") != "ok" || !entry.contains("counters")) return std::nullopt;
  const auto& counters = entry["counters"];
  if (!counters.contains(name) || !counters[name].is_number()) return std::nullopt;
  return counters[name].get<double>();
}

// One entry per benchmark: the median aggregate when the run had repetitions, else
// the (last) iteration entry. Failed and skipped entries are left out.
std::vector<const nlohmann::json*> representative_runs(const nlohmann::json& benchmarks) {
  std::map<std::string, const nlohmann::json*> chosen;
  std::map<std::string, bool> has_median;
  for (const auto& entry : benchmarks) {
    if (entry.value("status", "") != "ok") continue;
    const std::string run_name = entry.value("run_name", entry.value("name", ""));
    const bool median = entry.value("run_type", "") == "aggregate" && entry.value("aggregate_name", "") == "median";
    if (median) {
      chosen[run_name] = &entry;
      has_median[run_name] = true;
    } else if (entry.value("run_type", "") == "iteration" && !has_median[run_name]) {
      chosen[run_name] = &entry;
    }
  }
  std::vector<const nlohmann::json*> runs;
  for (const auto& [name, entry] : chosen) runs.push_back(entry);
  return runs;
}

}  // namespace

// For each size and direction: one transfer of pageable memory costs t_pageable,
// of pinned (or registered) memory t_pinned; pinning once costs t_pin (pin + unpin).
// Pinning pays after n > t_pin / (t_pageable - t_pinned) transfers.
void derive_break_even(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<std::string, std::string, std::size_t>, double> copy_us;  // (direction, memory, bytes)
  std::map<std::pair<std::string, std::size_t>, double> pin_us;                 // (method, bytes)
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    if (p.value("family", "") == "transfer" && p.value("engine", "") == "copy" &&
        p.value("variant", "") == "per_copy" && p.value("direction", "") != "bidir") {
      if (const auto us = counter(entry, "latency_us")) {
        copy_us[{p["direction"], p["memory"], p["bytes"].get<std::size_t>()}] = *us;
      }
    } else if (p.value("family", "") == "pinning") {
      if (const auto us = counter(entry, "pin_unpin_us")) pin_us[{p["method"], p["bytes"].get<std::size_t>()}] = *us;
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, cost] : pin_us) {
    const auto& [method, bytes] = key;
    const std::string pinned_kind = method == "register" ? "registered" : "pinned";
    for (const char* direction : {"h2d", "d2h"}) {
      const auto pageable = copy_us.find({direction, "pageable", bytes});
      const auto pinned = copy_us.find({direction, pinned_kind, bytes});
      if (pageable == copy_us.end() || pinned == copy_us.end()) continue;
      const double saving = pageable->second - pinned->second;
      nlohmann::json row = {{"bytes", bytes},
                            {"direction", direction},
                            {"method", method},
                            {"pin_unpin_us", cost},
                            {"pageable_copy_us", pageable->second},
                            {"pinned_copy_us", pinned->second}};
      row["transfers_to_break_even"] =
          saving > 0.0 ? nlohmann::json(std::ceil(cost / saving)) : nlohmann::json(nullptr);
      rows.push_back(row);
    }
  }
  if (!rows.empty()) derived["pinning_break_even"] = rows;
}

// Best staged configuration per direction and size, as a share of the pinned and the
// plain pageable copy of the same run.
void derive_staged_vs_pinned(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<std::string, std::string, std::size_t>, double> copy_gbps;  // (direction, memory, bytes)
  std::map<std::pair<std::string, std::size_t>, std::pair<double, std::string>> best_staged;
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    const auto& counters = entry["counters"];
    if (!counters.contains("bandwidth_GB/s")) continue;
    const double gbps = counters["bandwidth_GB/s"].get<double>();
    const std::size_t bytes = p.value("bytes", std::size_t{0});
    if (p.value("family", "") == "transfer" && p.value("engine", "") == "copy" &&
        p.value("variant", "") == "per_copy") {
      copy_gbps[{p.value("direction", ""), p.value("memory", ""), bytes}] = gbps;
    } else if (p.value("family", "") == "staged") {
      auto& best = best_staged[{p.value("direction", ""), bytes}];
      if (gbps > best.first) best = {gbps, entry.value("name", "")};
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, best] : best_staged) {
    const auto pinned = copy_gbps.find({key.first, "pinned", key.second});
    const auto pageable = copy_gbps.find({key.first, "pageable", key.second});
    nlohmann::json row = {{"direction", key.first}, {"bytes", key.second}, {"best_staged_GB/s", best.first},
                          {"best_staged_benchmark", best.second}};
    if (pinned != copy_gbps.end()) row["fraction_of_pinned"] = best.first / pinned->second;
    if (pageable != copy_gbps.end()) row["speedup_over_pageable"] = best.first / pageable->second;
    rows.push_back(row);
  }
  if (!rows.empty()) derived["staged_vs_pinned"] = rows;
}

// The per-copy figure (one event pair per copy) against the plain back-to-back loop
// of the same run: the two should agree within about 2% at large sizes; a larger gap
// means the per-copy timing itself costs bandwidth.
void derive_reference_agreement(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<std::string, std::size_t, std::string>, double> gbps;  // (direction, bytes, variant)
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& entry = *run;
    const auto& p = entry["params"];
    if (p.value("family", "") != "transfer" || p.value("memory", "") != "pinned" || p.value("engine", "") != "copy" ||
        !entry["counters"].contains("bandwidth_GB/s")) {
      continue;
    }
    gbps[{p.value("direction", ""), p.value("bytes", std::size_t{0}), p.value("variant", "")}] =
        entry["counters"]["bandwidth_GB/s"].get<double>();
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, loop] : gbps) {
    const auto& [direction, bytes, variant] = key;
    if (variant != "reference_loop") continue;
    const auto per_copy = gbps.find({direction, bytes, "per_copy"});
    if (per_copy == gbps.end()) continue;
    rows.push_back({{"direction", direction},
                    {"bytes", bytes},
                    {"per_copy_GB/s", per_copy->second},
                    {"reference_loop_GB/s", loop},
                    {"ratio", per_copy->second / loop}});
  }
  if (!rows.empty()) derived["per_copy_vs_reference_loop"] = rows;
}

// Per buffer size, compute ratio and memory kind: what async and pipelining save
// over the sync variant, the best pipelined and graph configurations with their
// fraction of the ideal, and the cost of a stray launch on the legacy default stream.
void derive_stream_overlap(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  struct Best {
    double us = 0.0;
    const nlohmann::json* entry = nullptr;
  };
  using Key = std::tuple<std::size_t, double, std::string>;  // (bytes, compute_ratio, memory)
  std::map<Key, std::map<std::string, Best>> by_variant;     // variant (or default-stream mode) -> fastest
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& p = (*run)["params"];
    if (p.value("family", "") != "streams") continue;
    const auto us = counter(*run, "latency_us");
    if (!us) continue;
    std::string variant = p.value("variant", "");
    if (variant == "default_stream") variant += "/" + p.value("default_stream_mode", "");
    Best& best = by_variant[{p.value("bytes", std::size_t{0}), p.value("compute_ratio", 0.0), p.value("memory", "")}][variant];
    if (best.entry == nullptr || *us < best.us) best = {*us, run};
  }
  const auto describe = [](const Best& best) {
    const auto& p = (*best.entry)["params"];
    nlohmann::json row = {{"benchmark", best.entry->value("name", "")}, {"latency_us", best.us},
                          {"streams", p.value("streams", 0)},           {"chunks", p.value("chunks", 0)},
                          {"issue_order", p.value("issue_order", "")}};
    if (const auto fraction = counter(*best.entry, "fraction_of_ideal")) row["fraction_of_ideal"] = *fraction;
    return row;
  };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, variants] : by_variant) {
    const auto& [bytes, ratio, memory] = key;
    nlohmann::json row = {{"bytes", bytes}, {"compute_ratio", ratio}, {"memory", memory}};
    for (const auto& [variant, best] : variants) row[variant] = describe(best);
    const auto sync = variants.find("sync");
    for (const char* faster : {"async", "pipelined", "graph"}) {
      const auto it = variants.find(faster);
      if (sync != variants.end() && it != variants.end()) {
        row[std::string(faster) + "_saving_vs_sync_percent"] = 100.0 * (1.0 - it->second.us / sync->second.us);
      }
    }
    const auto legacy = variants.find("default_stream/legacy");
    const auto per_thread = variants.find("default_stream/per_thread");
    if (legacy != variants.end() && per_thread != variants.end()) {
      row["legacy_default_stream_slowdown"] = legacy->second.us / per_thread->second.us;
    }
    rows.push_back(row);
  }
  if (!rows.empty()) derived["stream_overlap"] = rows;
}

}  // namespace hdbench

namespace hdbench {
namespace {

// A loader run's place in the grid, without its worker count and depth.
using LoaderKey = std::tuple<std::string, std::string, int, double, bool, std::string>;  // consumer, pinning, batch,
                                                                                         // cost, shuffle, augment
LoaderKey loader_key(const nlohmann::json& p) {
  return {p.value("consumer", ""), p.value("pinning", ""), p.value("batch", 0), p.value("sample_cost_us", 0.0),
          p.value("shuffle", false), p.value("augment", "")};
}

nlohmann::json loader_key_json(const LoaderKey& key) {
  const auto& [consumer, pinning, batch, cost, shuffle, augment] = key;
  return {{"consumer", consumer}, {"pinning", pinning}, {"batch", batch},
          {"sample_cost_us", cost}, {"shuffle", shuffle}, {"augment", augment}};
}

}  // namespace

void derive_loader_scaling(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  // samples/s by (grid point, depth) and worker count; 0 workers has no depth of its own.
  std::map<std::pair<LoaderKey, int>, std::map<int, double>> by_workers;
  std::map<LoaderKey, double> without_workers;
  std::map<std::tuple<LoaderKey, int, int>, double> rate;  // (key, workers, depth)
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& p = (*run)["params"];
    if (p.value("family", "") != "loader") continue;
    const auto samples_per_s = counter(*run, "samples/s");
    if (!samples_per_s) continue;
    const LoaderKey key = loader_key(p);
    const int workers = p.value("workers", 0);
    const int depth = p.value("prefetch_depth", 0);
    rate[{key, workers, depth}] = *samples_per_s;
    if (workers == 0) {
      without_workers[key] = *samples_per_s;
    } else {
      by_workers[{key, depth}][workers] = *samples_per_s;
    }
  }
  nlohmann::json scaling = nlohmann::json::array();
  for (auto& [group, rates] : by_workers) {
    const auto& [key, depth] = group;
    nlohmann::json row = loader_key_json(key);
    row["prefetch_depth"] = depth;
    const auto zero = without_workers.find(key);
    if (zero != without_workers.end()) rates[0] = zero->second;
    nlohmann::json per_workers = nlohmann::json::object();
    int best = -1;
    for (const auto& [workers, samples_per_s] : rates) {
      nlohmann::json cell = {{"samples/s", samples_per_s}};
      if (zero != without_workers.end()) cell["speedup_vs_0_workers"] = samples_per_s / zero->second;
      per_workers[std::to_string(workers)] = cell;
      if (best < 0 || samples_per_s > rates.at(best)) best = workers;
    }
    row["by_workers"] = per_workers;
    row["best_workers"] = best;
    row["best_samples/s"] = rates.at(best);
    scaling.push_back(row);
  }
  if (!scaling.empty()) derived["loader_scaling"] = scaling;

  // Where PyTorch's pin thread leaves throughput: direct collation into pinned slots
  // against the pin thread's extra copy, at the same grid point.
  nlohmann::json pinning = nlohmann::json::array();
  for (const auto& [point, direct] : rate) {
    const auto& [key, workers, depth] = point;
    if (std::get<1>(key) != "direct") continue;
    LoaderKey pin_key = key;
    std::get<1>(pin_key) = "pin_thread";
    const auto pin = rate.find({pin_key, workers, depth});
    if (pin == rate.end()) continue;
    nlohmann::json row = loader_key_json(key);
    row.erase("pinning");
    row["workers"] = workers;
    row["prefetch_depth"] = depth;
    row["direct_samples/s"] = direct;
    row["pin_thread_samples/s"] = pin->second;
    row["direct_over_pin_thread"] = direct / pin->second;
    LoaderKey pageable_key = key;
    std::get<1>(pageable_key) = "pageable";
    if (const auto pageable = rate.find({pageable_key, workers, depth}); pageable != rate.end()) {
      row["pageable_samples/s"] = pageable->second;
    }
    pinning.push_back(row);
  }
  if (!pinning.empty()) derived["loader_pinning"] = pinning;
}

}  // namespace hdbench
