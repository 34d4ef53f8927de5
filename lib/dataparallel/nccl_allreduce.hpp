// An NCCL communicator for one process per GPU, bootstrapped through the ranks'
// Communicator (rank 0's ncclUniqueId broadcast to all), with a deadline on every
// all-reduce: the host polls the stream and NCCL's async error, and past the
// deadline aborts the communicator (ncclCommAbort) and throws, naming the collective.
// The all-reduce may be split into buckets (as DDP splits gradients), each its own
// ncclAllReduce on the same stream. Never run on more than one GPU here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "dataparallel/communicator.hpp"

namespace hdbench::dataparallel {

class NcclAllReduce {
 public:
  // Collective over `ranks`: every rank calls it with its own device (already current).
  NcclAllReduce(Communicator& ranks, double timeout_s);
  ~NcclAllReduce();
  NcclAllReduce(const NcclAllReduce&) = delete;
  NcclAllReduce& operator=(const NcclAllReduce&) = delete;

  // Enqueues a sum of `count` floats from `send` into `recv` on `stream`, as `buckets`
  // consecutive all-reduces of near-equal size; in place when they are the same
  // (with one rank NCCL then runs nothing at all; out of place, a device copy).
  void enqueue_sum(const float* send, float* recv, std::size_t count, int buckets, cudaStream_t stream);
  // Enqueues an in-place mean (ncclAvg) of `count` floats over the ranks on `stream`:
  // a data-parallel step's gradient bucket.
  void enqueue_mean(float* device_values, std::size_t count, cudaStream_t stream);
  // Waits for `stream` with the deadline; throws (after aborting NCCL) past it.
  void wait(cudaStream_t stream, std::string_view what);

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // "NCCL 2.x.y"
  static std::string version();

 private:
  void* comm_ = nullptr;  // ncclComm_t, kept out of this header
  int rank_ = 0;
  int size_ = 1;
  double timeout_s_;
  bool aborted_ = false;
};

}  // namespace hdbench::dataparallel
