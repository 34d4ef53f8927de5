// What every GPU test file needs: the machine as discovered once, and a guard that
// skips the test with the exact reason when no GPU is usable (the CI machines have none).
#pragma once

#include <gtest/gtest.h>

#include "cuda.hpp"
#include "system.hpp"

namespace hdbench::testing_support {

inline const system::SystemInfo& machine() {
  static const system::SystemInfo info = system::discover();
  return info;
}

}  // namespace hdbench::testing_support

#define SKIP_WITHOUT_GPU()                                                                                  \
  do {                                                                                                      \
    if (!::hdbench::testing_support::machine().gpu_usable())                                                \
      GTEST_SKIP() << ::hdbench::testing_support::machine().gpu_unavailable_reason;                         \
    HDBENCH_CUDA_CHECK(cudaSetDevice(0));                                                                   \
  } while (0)
