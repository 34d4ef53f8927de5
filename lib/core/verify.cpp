#include "core/verify.hpp"

#include <fmt/format.h>

#include "core/cuda.hpp"
#include "core/host_pattern.hpp"
#include "core/options.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {

std::string check_device_pattern(const void* device_ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  DeviceBuffer count(sizeof(unsigned long long));
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.size(), stream));
  kernels::count_pattern_mismatches(device_ptr, bytes, seed, count.as<unsigned long long>(), stream);
  unsigned long long mismatches = 0;
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(&mismatches, count.data(), sizeof mismatches, cudaMemcpyDeviceToHost, stream));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (mismatches == 0) return {};
  return fmt::format("verification failed: {} of {} bytes ({}) differ from the seeded pattern", mismatches, bytes,
                     format_size(bytes));
}

std::string check_host_pattern(const HostBuffer& buffer, std::uint64_t seed, cudaStream_t stream) {
  if (buffer.device_pointer() != nullptr) {
    return check_device_pattern(buffer.device_pointer(), buffer.size(), seed, stream);
  }
  return check_host_pattern_on_cpu(buffer.data(), buffer.size(), seed);
}

std::string check_host_pattern_on_cpu(const void* ptr, std::size_t bytes, std::uint64_t seed) {
  const auto bad = find_pattern_mismatch(ptr, bytes, seed);
  if (!bad) return {};
  return fmt::format("verification failed: byte {} of {} differs from the seeded pattern", *bad, bytes);
}

}  // namespace hdbench
