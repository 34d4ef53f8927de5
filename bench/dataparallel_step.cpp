#include "dataparallel_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "mlp/mlp_cpu.hpp"
#include "scaleout/scaleout_math.hpp"

namespace hdbench {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The test hook's fault, if it names this rank and step.
void maybe_fault(int rank, std::size_t step) {
  const char* spec = std::getenv("HDBENCH_DP_FAULT");
  if (spec == nullptr) return;
  char kind[16] = {};
  int fault_rank = -1;
  std::size_t fault_step = 0;
  if (std::sscanf(spec, "%15[a-z]:%d:%zu", kind, &fault_rank, &fault_step) != 3) return;
  if (fault_rank != rank || fault_step != step) return;
  std::fprintf(stderr, "hdbench: rank %d: HDBENCH_DP_FAULT=%s\n", rank, spec);
  std::fflush(stderr);
  if (std::strcmp(kind, "kill") == 0) std::raise(SIGKILL);
  if (std::strcmp(kind, "stall") == 0) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

struct Batch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

Batch make_batch(const DataParallelCase& c, std::size_t step, std::size_t first, std::size_t count) {
  Batch b{std::vector<float>(count * static_cast<std::size_t>(c.model.inputs())), std::vector<std::int32_t>(count)};
  fill_batch(c.model, c.seed, step, first, count, b.images.data(), b.labels.data());
  return b;
}

double median_of(const std::vector<double>& v) { return v.empty() ? 0.0 : summarize(v).median; }

}  // namespace

void fill_batch(const MlpShape& model, std::uint64_t seed, std::size_t step, std::size_t first_sample,
                std::size_t count, float* images, std::int32_t* labels) {
  const auto inputs = static_cast<std::size_t>(model.inputs());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t key = mix(seed ^ mix(step * 0x100000001B3ULL + first_sample + i));
    labels[i] = static_cast<std::int32_t>(key % static_cast<std::uint64_t>(model.classes()));
    for (std::size_t j = 0; j < inputs; ++j) {
      // Uniform in [-1, 1), with the label's pixels brighter so the model can learn.
      const double u = static_cast<double>(mix(key + j) >> 11) * 0x1.0p-53;
      images[i * inputs + j] =
          static_cast<float>(2.0 * u - 1.0 + (j % model.classes() == static_cast<std::size_t>(labels[i]) ? 0.5 : 0.0));
    }
  }
}

std::string data_parallel_name(const DataParallelCase& c, const std::string& communicator, int ranks) {
  return fmt::format("dataparallel/cpu/{}/{}/batch:{}/ranks:{}", communicator, to_string(c.model), c.global_batch,
                     ranks);
}

nlohmann::json data_parallel_params(const DataParallelCase& c, const std::string& communicator, int ranks) {
  return {{"family", "dataparallel"},
          {"variant", "cpu_step"},
          {"processor", "cpu"},
          {"collective", communicator == "mpi" ? "MPI_Allreduce" : "none"},
          {"communicator", communicator},
          {"model", to_string(c.model)},
          {"batch", c.global_batch},
          {"ranks", ranks},
          {"shard_batch", c.global_batch / static_cast<std::size_t>(std::max(ranks, 1))},
          {"threads", c.threads},
          {"steps", c.steps},
          {"optimizer", "sgd"}};
}

double max_difference_from_root(scaleout::Communicator& ranks, std::span<const float> parameters) {
  std::vector<float> root(parameters.begin(), parameters.end());
  ranks.broadcast(std::as_writable_bytes(std::span<float>(root)), "broadcast of rank 0's parameters");
  return scaleout::compare(parameters, root, 0.0, 0.0).max_abs_difference;
}

nlohmann::json gather_figures(scaleout::Communicator& ranks, const nlohmann::json& mine) {
  const std::vector<std::string> gathered = ranks.gather_to_root(mine.dump(), "gather of every rank's figures");
  if (!ranks.is_root()) return nullptr;
  nlohmann::json per_rank = nlohmann::json::array();
  for (const std::string& text : gathered) per_rank.push_back(nlohmann::json::parse(text));
  return per_rank;
}

void put_allreduce_bandwidth(nlohmann::json& counters, std::size_t bytes, double seconds, int ranks) {
  if (const auto bw = scaleout::allreduce_bandwidth(bytes, seconds, ranks)) {
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

void judge_parameters(nlohmann::json& result, double diff_between_ranks, const scaleout::Agreement& vs_one_rank,
                      double tolerance, std::size_t steps) {
  const bool identical = diff_between_ranks == 0.0;
  result["checks"] = {{"ranks_identical", identical}, {"matches_one_rank", vs_one_rank.within()}, {"tolerance", tolerance}};
  if (!identical) {
    result["error_message"] = fmt::format("ranks disagree after {} steps: parameters differ by up to {:g} from rank 0's",
                                          steps, diff_between_ranks);
  } else if (!vs_one_rank.within()) {
    result["error_message"] = fmt::format(
        "the ranks' parameters differ from one process on the combined batch by up to {:g} (tolerance {:g} + "
        "{:g}·|ref|)",
        vs_one_rank.max_abs_difference, tolerance, tolerance);
  }
}

nlohmann::json run_data_parallel(scaleout::Communicator& ranks, const DataParallelCase& c) {
  const int n = ranks.size();
  const scaleout::Shard shard = scaleout::shard_of(c.global_batch, ranks.rank(), n);
  const std::vector<float> initial = initial_parameters(c.model, c.seed);
  const OptimizerConfig optimizer = default_optimizer(OptimizerKind::sgd);
  CpuMlp mlp(c.model, optimizer, shard.size(), c.threads, initial);
  const std::size_t total_steps = static_cast<std::size_t>(c.steps) + 1;
  std::vector<double> step_s, allreduce_s;
  double first_loss = 0.0, last_loss = 0.0;
  const float scale = 1.0f / static_cast<float>(n);
  for (std::size_t step = 0; step < total_steps; ++step) {
    const Batch b = make_batch(c, step, shard.begin, shard.size());
    const HostTimer step_timer;
    const StepResult r = mlp.compute_gradients(b.images.data(), b.labels.data(), shard.size());
    maybe_fault(ranks.rank(), step);
    const HostTimer reduce_timer;
    ranks.allreduce_sum(mlp.mutable_gradients(), fmt::format("gradient all-reduce of step {}", step));
    const double reduce = reduce_timer.elapsed_seconds();
    for (float& g : mlp.mutable_gradients()) g *= scale;
    mlp.apply_optimizer();
    const double total = step_timer.elapsed_seconds();
    if (step == 0) {
      first_loss = r.loss;
    } else {
      step_s.push_back(total);
      allreduce_s.push_back(reduce);
    }
    last_loss = r.loss;
  }

  const double diff_vs_root = max_difference_from_root(ranks, mlp.parameters());
  const std::size_t gradient_bytes = mlp.gradients().size() * sizeof(float);
  const double allreduce_median = median_of(allreduce_s);
  nlohmann::json mine = {
      {"rank", ranks.rank()},
      {"shard_batch", shard.size()},
      {"step_us", 1e6 * median_of(step_s)},
      {"step_us_all", step_s},
      {"allreduce_us", 1e6 * allreduce_median},
      {"first_loss", first_loss},
      {"final_loss", last_loss},
      {"params_max_abs_diff_vs_rank0", diff_vs_root}};
  put_allreduce_bandwidth(mine, gradient_bytes, allreduce_median, n);
  put_step_noise(mine, step_s);
  nlohmann::json per_rank = gather_figures(ranks, mine);
  if (!ranks.is_root()) return nullptr;

  // One process on the combined batch: the reference the ranks must match, and the
  // one-rank time the scaling efficiency is measured against.
  CpuMlp single(c.model, optimizer, c.global_batch, c.threads, initial);
  std::vector<double> single_s;
  for (std::size_t step = 0; step < total_steps; ++step) {
    const Batch b = make_batch(c, step, 0, c.global_batch);
    const HostTimer timer;
    single.compute_gradients(b.images.data(), b.labels.data(), c.global_batch);
    single.apply_optimizer();
    if (step > 0) single_s.push_back(timer.elapsed_seconds());
  }
  const scaleout::Agreement vs_single =
      scaleout::compare(mlp.parameters(), single.parameters(), c.tolerance, c.tolerance);

  const double slowest_step = max_over_ranks(per_rank, "step_us");
  const double slowest_reduce = max_over_ranks(per_rank, "allreduce_us");
  const double max_diff_between_ranks = max_over_ranks(per_rank, "params_max_abs_diff_vs_rank0");
  const double one_rank_us = 1e6 * median_of(single_s);
  nlohmann::json counters = {
      {"step_us", slowest_step},
      {"allreduce_us", slowest_reduce},
      {"gradient_bytes", static_cast<double>(gradient_bytes)},
      {"samples/s", slowest_step > 0 ? 1e6 * static_cast<double>(c.global_batch) / slowest_step : 0.0},
      {"one_rank_step_us", one_rank_us},
      {"scaling_efficiency", scaleout::scaling_efficiency(one_rank_us, slowest_step, n)},
      {"params_max_abs_diff_between_ranks", max_diff_between_ranks},
      {"params_max_abs_diff_vs_one_rank", vs_single.max_abs_difference},
      {"final_loss", per_rank[0]["final_loss"]},
      {"noise_percent", max_over_ranks(per_rank, "noise_percent")},  // the least certain rank's
      {"samples", static_cast<double>(step_s.size())}};
  put_allreduce_bandwidth(counters, gradient_bytes, 1e-6 * slowest_reduce, n);
  nlohmann::json result = {{"counters", counters}, {"per_rank", per_rank}};
  judge_parameters(result, max_diff_between_ranks, vs_single, c.tolerance, total_steps);
  return result;
}

}  // namespace hdbench
