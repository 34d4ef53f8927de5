// Checking moved bytes against the seeded pattern after timing. A mismatch becomes
// an error in the report, never a figure.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/host_memory.hpp"

namespace hdbench {

// Empty when `bytes` at `device_ptr` (device memory or a mapped host alias) hold
// pattern(seed); otherwise how many bytes differ. Checks on the GPU.
std::string check_device_pattern(const void* device_ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream);

// Same for a host buffer: page-locked kinds are checked by the GPU through their
// mapped alias (reading write-combined memory from the CPU would take minutes);
// pageable memory is checked on the CPU and reports the first differing byte.
std::string check_host_pattern(const HostBuffer& buffer, std::uint64_t seed, cudaStream_t stream);

// CPU check of any host memory.
std::string check_host_pattern_on_cpu(const void* ptr, std::size_t bytes, std::uint64_t seed);

}  // namespace hdbench
