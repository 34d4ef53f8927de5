#include "streams/streams_derivations.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/report_rows.hpp"

namespace hdbench {

// Per buffer size, compute ratio and memory kind: what async and pipelining save
// over the sync variant, the best pipelined and graph configurations with their
// fraction of the ideal, and the cost of a stray launch on the legacy default stream.
// Per GPU.
void derive_stream_overlap(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  struct Best {
    double us = 0.0;
    const nlohmann::json* entry = nullptr;
  };
  using Key = std::tuple<int, std::size_t, double, std::string>;  // (device, bytes, compute_ratio, memory)
  std::map<Key, std::map<std::string, Best>> by_variant;          // variant (or default-stream mode) -> fastest
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& p = (*run)["params"];
    if (p.value("family", "") != "streams") continue;
    const auto us = counter(*run, "latency_us");
    if (!us) continue;
    std::string variant = p.value("variant", "");
    // Appended in two steps: GCC 12's -Wrestrict misfires on "/" + std::string here.
    if (variant == "default_stream") variant.append("/").append(p.value("default_stream_mode", ""));
    Best& best = by_variant[{run_device(p), p.value("bytes", std::size_t{0}), p.value("compute_ratio", 0.0),
                             p.value("memory", "")}][variant];
    if (best.entry == nullptr || *us < best.us) best = {*us, run};
  }
  const auto describe = [](const Best& best) {
    const auto& p = (*best.entry)["params"];
    nlohmann::json row = {{"benchmark", best.entry->value("name", "")},
                          {"latency_us", best.us},
                          {"streams", p.value("streams", 0)},
                          {"chunks", p.value("chunks", 0)},
                          {"issue_order", p.value("issue_order", "")}};
    if (const auto fraction = counter(*best.entry, "fraction_of_ideal")) row["fraction_of_ideal"] = *fraction;
    return row;
  };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, variants] : by_variant) {
    const auto& [device, bytes, ratio, memory] = key;
    nlohmann::json row = {{"bytes", bytes}, {"compute_ratio", ratio}, {"memory", memory}};
    set_row_device(row, device);
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
