#include "transfer/transfer_derivations.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/report_rows.hpp"

namespace hdbench {

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

}  // namespace hdbench
