// Reading a finished report's benchmark entries: what every family's derivations
// need to pick the run that stands for a benchmark and read its counters.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hdbench {

// A counter of an "ok" entry, or nothing when the entry failed, was skipped or lacks it.
std::optional<double> counter(const nlohmann::json& entry, const char* name);

// One entry per benchmark: the median aggregate when the run had repetitions, else
// the (last) iteration entry. Failed and skipped entries are left out.
std::vector<const nlohmann::json*> representative_runs(const nlohmann::json& benchmarks);

// The GPU a run measured (params.device), -1 for a host run or one without it.
// Derivations group by it, so two GPUs' runs never meet in one figure.
inline int run_device(const nlohmann::json& params) { return params.value("device", -1); }
// Names the GPU of a derived row: "device" when `device` >= 0.
inline void set_row_device(nlohmann::json& row, int device) {
  if (device >= 0) row["device"] = device;
}
// " GPU n" for a derived row of device n when the run measured several, else "" (console lines).
std::string device_tag(const nlohmann::json& row, bool several_gpus);

}  // namespace hdbench
