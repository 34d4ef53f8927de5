#include "dataparallel/nccl_allreduce.hpp"

#include <fmt/format.h>
#if HDBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/cuda.hpp"
#include "core/timing.hpp"

namespace hdbench::dataparallel {

#if !HDBENCH_HAVE_NCCL
// Built without NCCL: constructing one says so, and the benchmark reports it.
NcclAllReduce::NcclAllReduce(Communicator& ranks, double timeout_s)
    : rank_(ranks.rank()), size_(ranks.size()), timeout_s_(timeout_s) {
  throw std::runtime_error("built without NCCL (libnccl and nccl.h were not found at configure time)");
}
NcclAllReduce::~NcclAllReduce() = default;
void NcclAllReduce::enqueue_sum(const float*, float*, std::size_t, int, cudaStream_t) {}
void NcclAllReduce::enqueue_mean(float*, std::size_t, cudaStream_t) {}
void NcclAllReduce::wait(cudaStream_t, std::string_view) {}
std::string NcclAllReduce::version() { return "none"; }
#else
namespace {

void nccl_check(ncclResult_t result, const char* call) {
  if (result != ncclSuccess && result != ncclInProgress) {
    throw std::runtime_error(
        fmt::format("{} failed: {} ({})", call, ncclGetErrorString(result), ncclGetLastError(nullptr)));
  }
}

ncclComm_t as_comm(void* comm) { return static_cast<ncclComm_t>(comm); }

}  // namespace

NcclAllReduce::NcclAllReduce(Communicator& ranks, double timeout_s)
    : rank_(ranks.rank()), size_(ranks.size()), timeout_s_(timeout_s) {
  ncclUniqueId id{};
  if (ranks.is_root()) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::array<std::byte, sizeof(id)> bytes{};
  std::memcpy(bytes.data(), &id, sizeof(id));
  ranks.broadcast(bytes, "broadcast of the NCCL unique id");
  std::memcpy(&id, bytes.data(), sizeof(id));
  ncclComm_t comm = nullptr;
  nccl_check(ncclCommInitRank(&comm, size_, id, rank_), "ncclCommInitRank");
  comm_ = comm;
}

NcclAllReduce::~NcclAllReduce() {
  if (comm_ != nullptr && !aborted_) ncclCommDestroy(as_comm(comm_));
}

void NcclAllReduce::enqueue_sum(const float* send, float* recv, std::size_t count, int buckets, cudaStream_t stream) {
  const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(buckets), count));
  std::size_t begin = 0;
  for (std::size_t b = 0; b < n; ++b) {
    const std::size_t end = count * (b + 1) / n;
    nccl_check(ncclAllReduce(send + begin, recv + begin, end - begin, ncclFloat, ncclSum, as_comm(comm_), stream),
               "ncclAllReduce");
    begin = end;
  }
}

void NcclAllReduce::enqueue_mean(float* device_values, std::size_t count, cudaStream_t stream) {
  nccl_check(ncclAllReduce(device_values, device_values, count, ncclFloat, ncclAvg, as_comm(comm_), stream),
             "ncclAllReduce (ncclAvg)");
}

void NcclAllReduce::wait(cudaStream_t stream, std::string_view what) {
  const HostTimer timer;
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) HDBENCH_CUDA_CHECK(status);
    ncclResult_t async = ncclSuccess;
    nccl_check(ncclCommGetAsyncError(as_comm(comm_), &async), "ncclCommGetAsyncError");
    if (async != ncclSuccess && async != ncclInProgress) {
      ncclCommAbort(as_comm(comm_));
      aborted_ = true;
      throw std::runtime_error(
          fmt::format("rank {} of {}: {} failed: {}", rank_, size_, what, ncclGetErrorString(async)));
    }
    if (timer.elapsed_seconds() > timeout_s_) {
      ncclCommAbort(as_comm(comm_));
      aborted_ = true;
      throw std::runtime_error(timeout_message(rank_, size_, what, timeout_s_));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

std::string NcclAllReduce::version() {
  int v = 0;
  ncclGetVersion(&v);
  return fmt::format("NCCL {}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

#endif  // HDBENCH_HAVE_NCCL

}  // namespace hdbench::dataparallel
