#!/usr/bin/env bash
# Builds hdbench and runs every test: the release build's CPU, GPU (skipped without
# a GPU), NVTX and Python suites, then the CPU suites again under AddressSanitizer
# and UndefinedBehaviorSanitizer. Like tools/run.sh it builds for this machine's GPUs
# (tools/cuda_architectures.sh; 90-real without a GPU), in the same build/release;
# HDBENCH_CUDA_ARCHITECTURES=90-real picks one architecture (CI does), =default the
# default Turing-to-Hopper list; HDBENCH_SKIP_SANITIZE=1 skips the second build.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
arch_flag=-DCMAKE_CUDA_ARCHITECTURES=$(tools/cuda_architectures.sh)
cmake --preset release "$arch_flag" >/dev/null
cmake --build --preset release
ctest --preset release
if [[ ${HDBENCH_SKIP_SANITIZE:-0} != 1 ]]; then
  cmake --preset sanitize "$arch_flag" >/dev/null
  cmake --build --preset sanitize
  ctest --preset sanitize
fi
