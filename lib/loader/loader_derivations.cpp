#include "loader/loader_derivations.hpp"

#include <map>
#include <string>
#include <tuple>

#include "core/report_rows.hpp"

namespace hdbench {
namespace {

// A loader run's place in the grid, without its worker count and depth: consumer,
// pinning, batch, cost, shuffle, augment, and the GPU consumer's device (-1: host).
using LoaderKey = std::tuple<std::string, std::string, int, double, bool, std::string, int>;
LoaderKey loader_key(const nlohmann::json& p) {
  return {p.value("consumer", ""),   p.value("pinning", ""), p.value("batch", 0), p.value("sample_cost_us", 0.0),
          p.value("shuffle", false), p.value("augment", ""), run_device(p)};
}

nlohmann::json loader_key_json(const LoaderKey& key) {
  const auto& [consumer, pinning, batch, cost, shuffle, augment, device] = key;
  nlohmann::json row = {{"consumer", consumer},   {"pinning", pinning}, {"batch", batch},
                        {"sample_cost_us", cost}, {"shuffle", shuffle}, {"augment", augment}};
  set_row_device(row, device);
  return row;
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
