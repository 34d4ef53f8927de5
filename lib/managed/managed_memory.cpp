#include "managed/managed_memory.hpp"

#include <fmt/format.h>

#include "core/cuda.hpp"
#include "core/option_values.hpp"

namespace hdbench {

namespace {

cudaMemLocation location_of(int device) {
  cudaMemLocation where{};
  if (device < 0) {
    where.type = cudaMemLocationTypeHost;
    where.id = 0;  // ignored for the host
  } else {
    where.type = cudaMemLocationTypeDevice;
    where.id = device;
  }
  return where;
}

}  // namespace

std::string managed_unsupported_reason(int device) {
  int managed = 0, concurrent = 0;
  HDBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
  if (managed == 0) return fmt::format("GPU {} has no managed memory (cudaDevAttrManagedMemory is 0)", device);
  HDBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  if (concurrent == 0) {
    return fmt::format(
        "GPU {} has no concurrent managed access (cudaDevAttrConcurrentManagedAccess is 0: a GPU before Pascal, "
        "Windows, or a hypervisor that forbids it), so pages cannot migrate on demand or be prefetched",
        device);
  }
  return {};
}

ManagedBuffer::ManagedBuffer(std::size_t bytes) : bytes_(bytes) {
  HDBENCH_CUDA_CHECK_DETAIL(cudaMallocManaged(&ptr_, bytes, cudaMemAttachGlobal), format_size(bytes) + " requested");
}

ManagedBuffer::~ManagedBuffer() {
  if (ptr_ != nullptr) HDBENCH_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}

void ManagedBuffer::prefetch(int device, cudaStream_t stream) const {
  HDBENCH_CUDA_CHECK_DETAIL(
      cudaMemPrefetchAsync(ptr_, bytes_, location_of(device), 0, stream),
      fmt::format("{} to {}", format_size(bytes_), device < 0 ? "the host" : "GPU " + std::to_string(device)));
}

void ManagedBuffer::advise(ManagedVariant variant, int device) const {
  switch (variant) {
    case ManagedVariant::demand:
    case ManagedVariant::prefetch:
      return;
    case ManagedVariant::read_mostly:
      HDBENCH_CUDA_CHECK(cudaMemAdvise(ptr_, bytes_, cudaMemAdviseSetReadMostly, location_of(device)));
      return;
    case ManagedVariant::preferred_gpu:
      HDBENCH_CUDA_CHECK(cudaMemAdvise(ptr_, bytes_, cudaMemAdviseSetPreferredLocation, location_of(device)));
      return;
    case ManagedVariant::accessed_by_gpu:
      HDBENCH_CUDA_CHECK(cudaMemAdvise(ptr_, bytes_, cudaMemAdviseSetAccessedBy, location_of(device)));
      return;
  }
}

}  // namespace hdbench
