// Reading a finished report's benchmark entries: what every family's derivations
// need to pick the run that stands for a benchmark and read its counters.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace hdbench {

// A counter of an "ok" entry, or nothing when the entry failed, was skipped or lacks it.
std::optional<double> counter(const nlohmann::json& entry, const char* name);

// One entry per benchmark: the median aggregate when the run had repetitions, else
// the (last) iteration entry. Failed and skipped entries are left out.
std::vector<const nlohmann::json*> representative_runs(const nlohmann::json& benchmarks);

}  // namespace hdbench
