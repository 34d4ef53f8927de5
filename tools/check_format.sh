#!/usr/bin/env bash
# Fails when a C++/CUDA source differs from .clang-format's layout (CI runs it first).
# Fix with: git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "check_format.sh: clang-format is not installed (tools/install_deps.sh installs it)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check_format.sh: the files above differ from .clang-format; run: git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted as .clang-format says"
