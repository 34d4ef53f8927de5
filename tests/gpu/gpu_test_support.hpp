// What every GPU test file needs: the machine as discovered once, and a guard that
// skips the test with the exact reason when no GPU is usable (the CI machines have none).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "core/cuda.hpp"
#include "core/system.hpp"

namespace hdbench::testing_support {

inline const system::SystemInfo& machine() {
  static const system::SystemInfo info = system::discover();
  return info;
}

// compute-sanitizer instruments every kernel and may serialise launches, so tests that
// assert concurrency are not meaningful under it; tools/gpu_checks.sh sets HDBENCH_UNDER_COMPUTE_SANITIZER=1 for those
// runs.
inline bool under_compute_sanitizer() {
  const char* flag = std::getenv("HDBENCH_UNDER_COMPUTE_SANITIZER");
  return flag != nullptr && std::string_view(flag) == "1";
}

}  // namespace hdbench::testing_support

#define SKIP_WITHOUT_GPU()                                                          \
  do {                                                                              \
    if (!::hdbench::testing_support::machine().gpu_usable())                        \
      GTEST_SKIP() << ::hdbench::testing_support::machine().gpu_unavailable_reason; \
    HDBENCH_CUDA_CHECK(cudaSetDevice(0));                                           \
  } while (0)

// For tests that assert copies or kernels run at the same time.
#define SKIP_IF_GPU_WORK_IS_SERIALISED()                                                                              \
  do {                                                                                                                \
    if (::hdbench::testing_support::under_compute_sanitizer())                                                        \
      GTEST_SKIP() << "under compute-sanitizer (instrumented, possibly serialised launches); concurrency is checked " \
                      "in the plain run";                                                                             \
  } while (0)
