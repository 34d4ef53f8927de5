// The two ends of a one-way transfer, allocated and first-touched before timing:
// the source holds the seeded pattern, the destination is zeroed, so after timing a
// passing check proves the copy moved every byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "transfer/transfer_axes.hpp"

namespace hdbench {

class TransferEndpoints {
 public:
  // `direction` is h2d or d2h. Throws CudaError/bad_alloc when memory is short.
  TransferEndpoints(HostMemoryKind kind, Direction direction, std::size_t bytes, std::uint64_t seed,
                    cudaStream_t stream);

  // Pointers for cudaMemcpyAsync (host side as the CPU sees it).
  void* dst() const noexcept;
  const void* src() const noexcept;
  const HostBuffer& host() const noexcept { return host_; }

  // Queues one copy of every byte on `stream`: cudaMemcpyAsync for the copy engine,
  // a copy kernel of `sm_blocks` blocks over the mapped host alias for the SM engine.
  void enqueue_copy(Engine engine, int sm_blocks, cudaStream_t stream) const;
  // True when the SM engine can reach the host side (page-locked, mapped memory).
  bool kernel_accessible() const noexcept { return host_.device_pointer() != nullptr; }

  // Empty when the destination holds the pattern, else what is wrong.
  std::string verify(cudaStream_t stream) const;

 private:
  // Pointers a kernel can use (host side through its mapped alias); nullptr when the
  // host kind cannot be mapped.
  void* kernel_dst() const noexcept;
  const void* kernel_src() const noexcept;
  cudaMemcpyKind copy_kind() const noexcept;

  Direction direction_;
  std::size_t bytes_;
  std::uint64_t seed_;
  HostBuffer host_;
  DeviceBuffer device_;
};

}  // namespace hdbench
