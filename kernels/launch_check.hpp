// The check every kernel launcher makes right after its launch.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace hdbench::kernels {

// Throws naming the kernel when the launch failed (bad configuration, sticky error).
inline void check_launch(const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                             ") launching " + kernel + "; what to do: rerun under compute-sanitizer");
  }
}

}  // namespace hdbench::kernels
