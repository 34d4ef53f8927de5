// all_to_host / host_to_all: every selected GPU copies at once between its own device
// buffer and its own pinned host buffer. Each GPU's copy queues behind a spin kernel
// on that GPU (one gate per GPU, in mapped host memory); the host releases every gate
// in one pass once all copies are queued, so no GPU gets a head start from launch
// order. Each copy is timed by events on its own GPU (events of different GPUs cannot
// be compared, so there is no common span: the sum is the sum of per-GPU rates, as
// nvbandwidth reports it). Each GPU's copy alone, same size, is measured first. Has
// run on one GPU only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "transfer/transfer_axes.hpp"
#include "transfer/transfer_endpoints.hpp"

namespace hdbench {

struct AllGpuSample {
  std::vector<double> seconds;  // per GPU, in the order given, start to end of its copy
  double slowest_seconds() const;
  // Sum over GPUs of bytes / seconds, in GB/s (1e9 B/s).
  double sum_gbps(std::size_t bytes) const;
};

class AllGpuCopy {
 public:
  // `direction` is all_to_host or host_to_all; `numa_nodes[i]` is where GPU
  // `devices[i]`'s host buffer is placed first (-1: left to the OS). Allocates and
  // fills every buffer; leaves the current device as it found it.
  AllGpuCopy(const std::vector<int>& devices, Direction direction, std::size_t bytes, std::uint64_t seed,
             double spin_timeout_ms, const std::vector<int>& numa_nodes);
  ~AllGpuCopy();
  AllGpuCopy(const AllGpuCopy&) = delete;
  AllGpuCopy& operator=(const AllGpuCopy&) = delete;

  std::size_t size() const noexcept { return lanes_.size(); }
  int device(std::size_t lane) const;
  const HostBuffer& host(std::size_t lane) const;

  // Seconds of each of `repetitions` copies of lane `lane` alone (no spin gate: nothing
  // else runs), each timed by events on its GPU.
  std::vector<double> alone_seconds(std::size_t lane, int repetitions);
  // Every GPU's copy behind its gate, the gates released together. Throws when a spin
  // kernel timed out (the sample is void).
  AllGpuSample run_together();
  // Empty when every destination holds the pattern, else which GPU and what differs.
  std::string verify();

 private:
  struct Lane;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace hdbench
