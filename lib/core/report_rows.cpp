#include "core/report_rows.hpp"

#include <map>
#include <string>

namespace hdbench {

std::optional<double> counter(const nlohmann::json& entry, const char* name) {
  if (entry.value("status", "") != "ok" || !entry.contains("counters")) return std::nullopt;
  const auto& counters = entry["counters"];
  if (!counters.contains(name) || !counters[name].is_number()) return std::nullopt;
  return counters[name].get<double>();
}

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

std::string device_tag(const nlohmann::json& row, bool several_gpus) {
  return several_gpus && row.contains("device") ? " GPU " + std::to_string(row["device"].get<int>()) : std::string();
}

}  // namespace hdbench
