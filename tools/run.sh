#!/usr/bin/env bash
# Builds hdbench (release) and runs the default suite; the JSON report goes under
# reports/. Extra arguments go to hdbench, e.g. tools/run.sh --hdbench_sizes=64M,256M
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
cmake --preset release ${HDBENCH_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES="$HDBENCH_CUDA_ARCHITECTURES"} >/dev/null
cmake --build --preset release
mkdir -p reports
exec build/release/bin/hdbench "$@"
