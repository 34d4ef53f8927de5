// Synthetic report entries shaped like run_to_json's output, for the derivation tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hdbench::testing {

inline nlohmann::json entry(const std::string& name, nlohmann::json params, nlohmann::json counters,
                            const std::string& status = "ok", const std::string& aggregate = "") {
  nlohmann::json e = {{"name", name},
                      {"run_name", name},
                      {"status", status},
                      {"params", std::move(params)},
                      {"counters", std::move(counters)}};
  e["run_type"] = aggregate.empty() ? "iteration" : "aggregate";
  if (!aggregate.empty()) {
    e["aggregate_name"] = aggregate;
    e["name"] = name + "_" + aggregate;
  }
  return e;
}

}  // namespace hdbench::testing
