#include "dataparallel/step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/stopping_rule.hpp"
#include "splitmix64.hpp"

namespace hdbench {

void fill_batch(const MlpShape& model, std::uint64_t seed, std::size_t step, std::size_t first_sample,
                std::size_t count, float* images, std::int32_t* labels) {
  const auto inputs = static_cast<std::size_t>(model.inputs());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t key = splitmix64(seed ^ splitmix64(step * 0x100000001B3ULL + first_sample + i));
    labels[i] = static_cast<std::int32_t>(key % static_cast<std::uint64_t>(model.classes()));
    for (std::size_t j = 0; j < inputs; ++j) {
      // Uniform in [-1, 1), with the label's pixels brighter so the model can learn.
      const double u = static_cast<double>(splitmix64(key + j) >> 11) * 0x1.0p-53;
      images[i * inputs + j] =
          static_cast<float>(2.0 * u - 1.0 + (j % model.classes() == static_cast<std::size_t>(labels[i]) ? 0.5 : 0.0));
    }
  }
}

double max_difference_from_root(dataparallel::Communicator& ranks, std::span<const float> parameters) {
  std::vector<float> root(parameters.begin(), parameters.end());
  ranks.broadcast(std::as_writable_bytes(std::span<float>(root)), "broadcast of rank 0's parameters");
  return dataparallel::compare(parameters, root, 0.0, 0.0).max_abs_difference;
}

nlohmann::json gather_figures(dataparallel::Communicator& ranks, const nlohmann::json& mine) {
  const std::vector<std::string> gathered = ranks.gather_to_root(mine.dump(), "gather of every rank's figures");
  if (!ranks.is_root()) return nullptr;
  nlohmann::json per_rank = nlohmann::json::array();
  for (const std::string& text : gathered) per_rank.push_back(nlohmann::json::parse(text));
  return per_rank;
}

void put_allreduce_bandwidth(nlohmann::json& counters, std::size_t bytes, double seconds, int ranks) {
  if (const auto bw = dataparallel::allreduce_bandwidth(bytes, seconds, ranks)) {
    counters["allreduce_algbw_GB/s"] = bw->algbw_gbps;
    counters["allreduce_busbw_GB/s"] = bw->busbw_gbps;
  }
}

void put_step_noise(nlohmann::json& counters, const std::vector<double>& step_seconds) {
  counters["noise_percent"] = noise_percent(step_seconds);
  counters["samples"] = static_cast<double>(step_seconds.size());
}

double max_over_ranks(const nlohmann::json& per_rank, const char* key) {
  double most = 0.0;
  for (const auto& r : per_rank) most = std::max(most, r.at(key).get<double>());
  return most;
}

void judge_parameters(nlohmann::json& result, double diff_between_ranks, const dataparallel::Agreement& vs_one_rank,
                      double tolerance, std::size_t steps) {
  const bool identical = diff_between_ranks == 0.0;
  result["checks"] = {
      {"ranks_identical", identical}, {"matches_one_rank", vs_one_rank.within()}, {"tolerance", tolerance}};
  if (!identical) {
    result["error_message"] = fmt::format(
        "ranks disagree after {} steps: parameters differ by up to {:g} from rank 0's", steps, diff_between_ranks);
  } else if (!vs_one_rank.within()) {
    result["error_message"] = fmt::format(
        "the ranks' parameters differ from one process on the combined batch by up to {:g} (tolerance {:g} + "
        "{:g}·|ref|)",
        vs_one_rank.max_abs_difference, tolerance, tolerance);
  }
}

}  // namespace hdbench
