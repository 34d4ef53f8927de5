#include "loader/loader_derivations.hpp"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/report_rows.hpp"

namespace hdbench {
namespace {

// A loader run's place in the grid, without its worker count and depth: consumer,
// pinning, batch, cost, shuffle, augment, the GPU consumer's device (-1: host) and how
// batches were built (reports from before split builds built whole ones).
using LoaderKey = std::tuple<std::string, std::string, int, double, bool, std::string, int, std::string>;
constexpr std::size_t kPinningField = 1;
constexpr std::size_t kBuildField = 7;
LoaderKey loader_key(const nlohmann::json& p) {
  return {p.value("consumer", ""),   p.value("pinning", ""), p.value("batch", 0), p.value("sample_cost_us", 0.0),
          p.value("shuffle", false), p.value("augment", ""), run_device(p),       p.value("build", "whole")};
}

nlohmann::json loader_key_json(const LoaderKey& key) {
  const auto& [consumer, pinning, batch, cost, shuffle, augment, device, build] = key;
  nlohmann::json row = {{"consumer", consumer}, {"pinning", pinning}, {"batch", batch}, {"sample_cost_us", cost},
                        {"shuffle", shuffle},   {"augment", augment}, {"build", build}};
  set_row_device(row, device);
  return row;
}

using LoaderRates = std::map<std::tuple<LoaderKey, int, int>, double>;  // (key, workers, depth) → samples/s

// Rows comparing two values of one field of the key, `name` (`value` over `other`), at
// every grid point, worker count and depth where both ran: `<value>_samples/s`,
// `<other>_samples/s` and `<value>_over_<other>`, the field itself left out.
template <std::size_t Field>
nlohmann::json ratio_rows(const LoaderRates& rate, const char* name, const std::string& value,
                          const std::string& other) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [point, samples_per_s] : rate) {
    const auto& [key, workers, depth] = point;
    if (std::get<Field>(key) != value) continue;
    LoaderKey other_key = key;
    std::get<Field>(other_key) = other;
    const auto against = rate.find({other_key, workers, depth});
    if (against == rate.end()) continue;
    nlohmann::json row = loader_key_json(key);
    row.erase(name);
    row["workers"] = workers;
    row["prefetch_depth"] = depth;
    row[value + "_samples/s"] = samples_per_s;
    row[other + "_samples/s"] = against->second;
    row[value + "_over_" + other] = samples_per_s / against->second;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

void derive_loader_scaling(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  // samples/s by (grid point, depth) and worker count; 0 workers has no depth of its own.
  std::map<std::pair<LoaderKey, int>, std::map<int, double>> by_workers;
  std::map<LoaderKey, double> without_workers;
  LoaderRates rate;
  std::vector<std::pair<const nlohmann::json*, double>> runs;
  std::set<std::string> shared_builds;  // the builds of runs with workers to share a batch
  for (const nlohmann::json* run : representative_runs(benchmarks)) {
    const auto& p = (*run)["params"];
    if (p.value("family", "") != "loader") continue;
    const auto samples_per_s = counter(*run, "samples/s");
    if (!samples_per_s) continue;
    runs.emplace_back(run, *samples_per_s);
    if (p.value("workers", 0) >= 2) shared_builds.insert(p.value("build", "whole"));
  }
  for (const auto& [run, samples_per_s] : runs) {
    const auto& p = (*run)["params"];
    const LoaderKey key = loader_key(p);
    const int workers = p.value("workers", 0);
    const int depth = p.value("prefetch_depth", 0);
    rate[{key, workers, depth}] = samples_per_s;
    // Fewer than two workers build whole batches whatever the build asked: such a run
    // is the 0- or 1-worker point of the scaling row of every build run with more.
    std::set<std::string> builds = {std::get<kBuildField>(key)};
    if (workers < 2 && !shared_builds.empty()) builds = shared_builds;
    for (const std::string& build : builds) {
      LoaderKey as_built = key;
      std::get<kBuildField>(as_built) = build;
      if (workers == 0) {
        without_workers[as_built] = samples_per_s;
      } else {
        by_workers[{as_built, depth}][workers] = samples_per_s;
      }
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
  nlohmann::json pinning = ratio_rows<kPinningField>(rate, "pinning", "direct", "pin_thread");
  for (nlohmann::json& row : pinning) {  // and pageable batches there, for scale
    LoaderKey pageable_key = loader_key(row);
    std::get<kPinningField>(pageable_key) = "pageable";
    const auto pageable = rate.find({pageable_key, row["workers"].get<int>(), row["prefetch_depth"].get<int>()});
    if (pageable != rate.end()) row["pageable_samples/s"] = pageable->second;
  }
  if (!pinning.empty()) derived["loader_pinning"] = pinning;

  // What sharing each batch among the workers bought over a worker a batch.
  nlohmann::json builds = ratio_rows<kBuildField>(rate, "build", "split", "whole");
  if (!builds.empty()) derived["loader_build"] = builds;
}

}  // namespace hdbench
