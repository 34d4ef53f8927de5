// The data-parallel MLP step on the CPU, for any Communicator: each rank trains a
// CpuMlp on its shard of a global batch, all-reduces the mean gradients, and applies
// the optimizer, so every rank holds the parameters one process would have after
// training on the combined batch. Used by the dataparallel family (one rank, in
// hdbench) and by hdbench_mpi (N ranks under mpirun or srun).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dataparallel/communicator.hpp"
#include "dataparallel/step.hpp"

namespace hdbench {

// Runs the case on every rank (a collective: all ranks call it with the same case).
// Rank 0 returns the report entry's figures with every rank's (per_rank), the
// one-rank step on the combined batch (timing and parameters), the scaling
// efficiency and the checks; other ranks return null. Throws on a bad case (a batch
// that does not split evenly); the communicator handles dead ranks.
//
// Test hook: HDBENCH_DP_FAULT="kill:RANK:STEP" makes that rank SIGKILL itself before
// that step's all-reduce, "stall:RANK:STEP" makes it sleep forever there.
nlohmann::json run_data_parallel(dataparallel::Communicator& ranks, const DataParallelCase& c);

}  // namespace hdbench
