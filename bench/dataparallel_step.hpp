// The data-parallel MLP step on the CPU, for any Communicator: each rank trains a
// CpuMlp on its shard of a global batch, all-reduces the mean gradients, and applies
// the optimizer, so every rank holds the parameters one process would have after
// training on the combined batch. Used by the dataparallel family (one rank, in
// hdbench) and by hdbench_mpi (N ranks under mpirun or srun). Lives in bench/ because
// it joins two areas: the mlp step and the scale-out communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "mlp/mlp_model.hpp"
#include "scaleout/communicator.hpp"
#include "scaleout/scaleout_math.hpp"

namespace hdbench {

struct DataParallelCase {
  MlpShape model;
  std::size_t global_batch = 0;
  int steps = 0;  // timed, after one untimed warm-up step
  int threads = 1;
  std::uint64_t seed = 0;
  double tolerance = 1e-4;
};

// "dataparallel/cpu/<communicator>/<model>/batch:<B>/ranks:<N>"
std::string data_parallel_name(const DataParallelCase& c, const std::string& communicator, int ranks);
nlohmann::json data_parallel_params(const DataParallelCase& c, const std::string& communicator, int ranks);

// Runs the case on every rank (a collective: all ranks call it with the same case).
// Rank 0 returns the report entry's figures with every rank's (per_rank), the
// one-rank step on the combined batch (timing and parameters), the scaling
// efficiency and the checks; other ranks return null. Throws on a bad case (a batch
// that does not split evenly); the communicator handles dead ranks.
//
// Test hook: HDBENCH_DP_FAULT="kill:RANK:STEP" makes that rank SIGKILL itself before
// that step's all-reduce, "stall:RANK:STEP" makes it sleep forever there.
nlohmann::json run_data_parallel(scaleout::Communicator& ranks, const DataParallelCase& c);

// The synthetic combined batch of one step: sample i of step s is the same whichever
// rank builds it (a counter-based generator keyed by seed, step and sample).
void fill_batch(const MlpShape& model, std::uint64_t seed, std::size_t step, std::size_t first_sample,
                std::size_t count, float* images, std::int32_t* labels);

// The end of every data-parallel case, whatever the processor (all are collectives
// but the last two, which rank 0 runs on what gather_figures returned):
// this rank's largest difference from rank 0's parameters (broadcast);
double max_difference_from_root(scaleout::Communicator& ranks, std::span<const float> parameters);
// every rank's figures on rank 0, in rank order (null on the other ranks);
nlohmann::json gather_figures(scaleout::Communicator& ranks, const nlohmann::json& mine);
// the largest value of `key` over the ranks (the slowest rank's time);
double max_over_ranks(const nlohmann::json& per_rank, const char* key);
// allreduce_algbw_GB/s and allreduce_busbw_GB/s, only where the all-reduce crossed a
// link (two or more ranks: scaleout::allreduce_bandwidth);
void put_allreduce_bandwidth(nlohmann::json& counters, std::size_t bytes, double seconds, int ranks);
// how well the step's median is known: noise_percent (the stopping rule's measure over
// this rank's timed steps) and samples;
void put_step_noise(nlohmann::json& counters, const std::vector<double>& step_seconds);
// result["checks"] (ranks identical bit for bit; within tolerance of one process on the
// combined batch), and result["error_message"] when either fails.
void judge_parameters(nlohmann::json& result, double diff_between_ranks, const scaleout::Agreement& vs_one_rank,
                      double tolerance, std::size_t steps);

}  // namespace hdbench
