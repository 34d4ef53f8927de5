#!/usr/bin/env bash
# Builds hdbench and runs every test: the release build's CPU, GPU (skipped without
# a GPU), NVTX and Python suites, then the CPU suites again under AddressSanitizer
# and UndefinedBehaviorSanitizer. HDBENCH_CUDA_ARCHITECTURES=90 builds one
# architecture (CI does, to save time); HDBENCH_SKIP_SANITIZE=1 skips the second build.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
arch_flag=${HDBENCH_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$HDBENCH_CUDA_ARCHITECTURES}
cmake --preset release $arch_flag >/dev/null
cmake --build --preset release
ctest --preset release
if [[ ${HDBENCH_SKIP_SANITIZE:-0} != 1 ]]; then
  cmake --preset sanitize $arch_flag >/dev/null
  cmake --build --preset sanitize
  ctest --preset sanitize
fi
