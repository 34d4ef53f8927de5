#include "dataparallel/cpu_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "core/timing.hpp"
#include "dataparallel/dataparallel_math.hpp"
#include "mlp/mlp_cpu.hpp"

namespace hdbench {
namespace {

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

nlohmann::json run_data_parallel(dataparallel::Communicator& ranks, const DataParallelCase& c) {
  const int n = ranks.size();
  const dataparallel::Shard shard = dataparallel::shard_of(c.global_batch, ranks.rank(), n);
  const std::vector<float> initial = initial_parameters(c.model, c.seed);
  const OptimizerConfig optimizer = default_optimizer(OptimizerKind::sgd);
  CpuMlp mlp(c.model, optimizer, shard.size(), c.threads, initial);
  const std::size_t total_steps = static_cast<std::size_t>(c.steps) + 1;
  std::vector<double> step_s, allreduce_s;
  double first_loss = 0.0, last_loss = 0.0;
  const float scale = 1.0f / static_cast<float>(n);
  // One process on the combined batch: the reference the ranks must match, and the
  // one-rank time the scaling efficiency is measured against. With one rank it runs a
  // step in turn with the rank's, so a drift of the machine weighs on both alike (timed
  // after, a GPU one-rank reference read 15% slower on an H200: "efficiency" 1.15).
  // Made where it runs (rank 0 only with several ranks): its team of threads and
  // combined-batch buffers are not every rank's to hold.
  std::optional<CpuMlp> single;
  std::vector<double> single_s;
  const auto single_step = [&](std::size_t step) {
    if (!single) single.emplace(c.model, optimizer, c.global_batch, c.threads, initial);
    const Batch b = make_batch(c, step, 0, c.global_batch);
    const HostTimer timer;
    single->compute_gradients(b.images.data(), b.labels.data(), c.global_batch);
    single->apply_optimizer();
    if (step > 0) single_s.push_back(timer.elapsed_seconds());
  };
  for (std::size_t step = 0; step < total_steps; ++step) {
    if (n == 1) single_step(step);
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
  nlohmann::json mine = {{"rank", ranks.rank()},
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

  if (n > 1) {
    for (std::size_t step = 0; step < total_steps; ++step) single_step(step);
  }
  const dataparallel::Agreement vs_single =
      dataparallel::compare(mlp.parameters(), single->parameters(), c.tolerance, c.tolerance);

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
      {"scaling_efficiency", dataparallel::scaling_efficiency(one_rank_us, slowest_step, n)},
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
