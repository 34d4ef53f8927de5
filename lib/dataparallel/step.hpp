// What the data-parallel steps share, on the CPU (cpu_step) and on GPUs (gpu_step):
// the case, the synthetic combined batch every rank draws its shard from, and the end
// of every case (parameters compared over the ranks and with one process, figures
// gathered on rank 0, the all-reduce's bandwidth where it crossed a link, the step's
// noise). A step joins two areas, the mlp model and the communicator: the dataparallel
// area is the one family area above another (mlp), as lib/README.md says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "dataparallel/communicator.hpp"
#include "dataparallel/dataparallel_math.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench {

struct DataParallelCase {
  MlpShape model;
  std::size_t global_batch = 0;
  int steps = 0;  // timed, after one untimed warm-up step
  int threads = 1;
  std::uint64_t seed = 0;
  double tolerance = 1e-4;
};

// The synthetic combined batch of one step: sample i of step s is the same whichever
// rank builds it (a counter-based generator keyed by seed, step and sample).
void fill_batch(const MlpShape& model, std::uint64_t seed, std::size_t step, std::size_t first_sample,
                std::size_t count, float* images, std::int32_t* labels);

// The end of every data-parallel case, whatever the processor (all are collectives
// but the last two, which rank 0 runs on what gather_figures returned):
// this rank's largest difference from rank 0's parameters (broadcast);
double max_difference_from_root(dataparallel::Communicator& ranks, std::span<const float> parameters);
// every rank's figures on rank 0, in rank order (null on the other ranks);
nlohmann::json gather_figures(dataparallel::Communicator& ranks, const nlohmann::json& mine);
// the largest value of `key` over the ranks (the slowest rank's time);
double max_over_ranks(const nlohmann::json& per_rank, const char* key);
// allreduce_algbw_GB/s and allreduce_busbw_GB/s, only where the all-reduce crossed a
// link (two or more ranks: dataparallel::allreduce_bandwidth);
void put_allreduce_bandwidth(nlohmann::json& counters, std::size_t bytes, double seconds, int ranks);
// how well the step's median is known: noise_percent (the stopping rule's measure over
// this rank's timed steps) and samples;
void put_step_noise(nlohmann::json& counters, const std::vector<double>& step_seconds);
// result["checks"] (ranks identical bit for bit; within tolerance of one process on the
// combined batch), and result["error_message"] when either fails.
void judge_parameters(nlohmann::json& result, double diff_between_ranks, const dataparallel::Agreement& vs_one_rank,
                      double tolerance, std::size_t steps);

}  // namespace hdbench
