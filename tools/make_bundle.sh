#!/usr/bin/env bash
# Builds a self-contained bundle for an offline GPU machine that lacks Google
# Benchmark, fmt or GoogleTest: the binaries plus every shared library they load
# except the C library and the NVIDIA driver, found through an $ORIGIN run path.
#   tools/make_bundle.sh [BUNDLE_DIR]     (default bundle/)
# Then on the GPU machine: BUNDLE_DIR/gpu_checks.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=$(realpath -m "${1:-bundle}")
tools/install_deps.sh
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES="${HDBENCH_CUDA_ARCHITECTURES:-default}" >/dev/null
cmake --build --preset release
rm -rf "$bundle"
cmake --install build/release --prefix "$bundle" >/dev/null
mkdir -p "$bundle/lib"
# Libraries the binaries need, minus glibc's own (always present, and must match the
# machine's loader), the C++ runtime (every machine with PyTorch has one at least as
# new; a bundled older one broke the machine's own MPI, which hdbench_mpi loads), libcuda (the driver's, never bundled), cuBLAS/cuBLASLt (over
# 500 MB) and NCCL (over 200 MB): gpu_checks.sh finds the GPU machine's own CUDA 13
# copies, or those PyTorch's wheels carry.
for binary in "$bundle"/hdbench "$bundle"/hdbench_*_tests "$bundle"/lib/libnvtx_capture.so "$bundle"/lib/libhdbench_inject.so; do
  ldd "$binary" | awk '/=> \//{print $3}'
done | sort -u | grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
  grep -v 'libcuda\.so' | grep -v 'libcublas' | grep -v 'libnccl' |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
# The tests find the tools where a checkout keeps them: tools/ (the report CLI and its
# hdreport package) and baselines/ beside tests/.
cp tools/gpu_checks.sh "$bundle/"
mkdir -p "$bundle/tools" "$bundle/tests" "$bundle/reports/reference"
cp tools/*.py tools/fashion_mnist_ablation.sh tools/gpu_budget.sh tools/profile_gpu_check.sh tools/roof_gpu_check.sh \
  tools/overhead_gpu_check.sh \
  "$bundle/tools/"
cp -r tools/hdreport tools/profile_site "$bundle/tools/"
cp -r baselines examples "$bundle/"
mkdir -p "$bundle/probes" && cp -r probes/python_gc "$bundle/probes/"
# The tests by folder, with the fixtures the report tools' tests read, and the reference reports' JSON.
cp -r tests/python "$bundle/tests/"
find "$bundle/tools" "$bundle/baselines" "$bundle/examples" "$bundle/tests" \( -name __pycache__ -o -name .pytest_cache \) -prune \
  -exec rm -rf {} +
(cd reports/reference && find . -name '*.json' -exec cp --parents {} "$bundle/reports/reference/" \;)
git rev-parse HEAD > "$bundle/REVISION" 2>/dev/null || echo unknown > "$bundle/REVISION"
# The report tools name the suite's version from these two where there is no checkout.
sed -n 's/^project(hdbench VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt > "$bundle/VERSION"
du -sh "$bundle"
