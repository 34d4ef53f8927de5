#include "transfer/transfer_endpoints.hpp"

#include <cstring>
#include <stdexcept>

#include "core/host_pattern.hpp"
#include "core/verify.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {

TransferEndpoints::TransferEndpoints(HostMemoryKind kind, Direction direction, std::size_t bytes, std::uint64_t seed,
                                     cudaStream_t stream)
    : direction_(direction), bytes_(bytes), seed_(seed), host_(kind, bytes), device_(bytes) {
  if (direction == Direction::bidir) throw std::invalid_argument("TransferEndpoints is one-way");
  if (direction == Direction::h2d) {
    fill_pattern_host(host_.data(), bytes, seed);  // also the first touch of pageable pages
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(device_.data(), 0, bytes, stream));
  } else {
    std::memset(host_.data(), 0, bytes);
    kernels::fill_pattern(device_.data(), bytes, seed, stream);
  }
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void* TransferEndpoints::dst() const noexcept { return direction_ == Direction::h2d ? device_.data() : host_.data(); }

const void* TransferEndpoints::src() const noexcept {
  return direction_ == Direction::h2d ? host_.data() : device_.data();
}

void* TransferEndpoints::kernel_dst() const noexcept {
  return direction_ == Direction::h2d ? device_.data() : host_.device_pointer();
}

const void* TransferEndpoints::kernel_src() const noexcept {
  return direction_ == Direction::h2d ? host_.device_pointer() : device_.data();
}

cudaMemcpyKind TransferEndpoints::copy_kind() const noexcept {
  return direction_ == Direction::h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
}

void TransferEndpoints::enqueue_copy(Engine engine, int sm_blocks, cudaStream_t stream) const {
  if (engine == Engine::copy) {
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(dst(), src(), bytes_, copy_kind(), stream));
    return;
  }
  if (!kernel_accessible()) throw std::logic_error("SM copy over host memory that is not mapped");
  kernels::sm_copy(kernel_dst(), kernel_src(), bytes_, sm_blocks, stream);
}

std::string TransferEndpoints::verify(cudaStream_t stream) const {
  if (direction_ == Direction::h2d) return check_device_pattern(device_.data(), bytes_, seed_, stream);
  return check_host_pattern(host_, seed_, stream);
}

}  // namespace hdbench
