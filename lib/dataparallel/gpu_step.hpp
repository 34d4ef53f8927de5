// The data-parallel MLP step on GPUs, one rank per GPU: each rank trains a GpuMlp
// (fp32) on its shard of a global batch, averages the gradients over the ranks with
// NCCL, and applies the optimizer, so every rank holds the parameters one process
// would have after training on the combined batch. Two ways of exchanging the
// gradients, both measured:
//   - bucketed: as DDP does it, gradients in buckets of --hdbench_dp_bucket_bytes
//     filled from the last layer down; a bucket's all-reduce starts on a
//     communication stream as soon as its layers' gradients are enqueued, overlapped
//     with the backward pass of the layers below;
//   - none: one all-reduce of every gradient after the backward pass.
// Each case also times the same rank's step with no exchange at all, so the report
// says what the exchange adds to the step (allreduce_exposed_us); the bucketed and
// the after-backward entries side by side say how much of that the overlap removed. The step is eager (enqueued call by
// call, as DDP's is) and each step waits for its stream, under the deadline.
// Used by the dataparallel family (one rank per GPU, alone) and by hdbench_mpi (one
// rank per GPU of a node or a cluster; the caller makes the rank's device current).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dataparallel/communicator.hpp"
#include "dataparallel/step.hpp"

namespace hdbench {

struct GpuDataParallelCase {
  DataParallelCase step;                 // model, global batch, steps, seed, tolerance (threads unused)
  bool overlap = true;                   // bucketed and overlapped, or one all-reduce after the backward pass
  std::size_t bucket_bytes = 25u << 20;  // DDP's default bucket_cap_mb
  double timeout_s = 60.0;               // every all-reduce's deadline
};

// Runs the case on every rank, on the current device (a collective). Rank 0 returns
// the report entry's figures with every rank's (per_rank), the one-process step on
// the combined batch (timing and parameters), the scaling efficiency and the checks,
// as run_data_parallel; other ranks return null. Throws CudaError, or
// std::runtime_error from NCCL (an all-reduce past its deadline aborts NCCL first).
nlohmann::json run_gpu_data_parallel(dataparallel::Communicator& ranks, const GpuDataParallelCase& c);

}  // namespace hdbench
