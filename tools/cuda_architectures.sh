#!/usr/bin/env bash
# Prints the CUDA architectures tools/run.sh and tools/test.sh build for, as a CMake
# list (CMAKE_CUDA_ARCHITECTURES), and says why on stderr:
#   HDBENCH_CUDA_ARCHITECTURES set   that value as given: "90-real", "80-real;90-real",
#                                     "default" (the default build's Turing-to-Hopper list,
#                                     CMakeLists.txt) or CMake's own "all", "native"...
#   nvidia-smi lists GPUs            each GPU's compute capability as real code, e.g.
#                                     9.0 -> 90-real; two kinds of GPU -> "80-real;90-real"
#   a GPU this nvcc cannot target    "default": the full list, whose PTX the driver JITs
#   no GPU (or nvidia-smi fails)      90-real: nothing runs on a GPU here, so any one
#                                     architecture will do; this is CI's and the reference
#                                     machines' (H100, H200), the cheapest build that still
#                                     compiles and links every kernel
set -euo pipefail

fallback=90-real
if [[ -n ${HDBENCH_CUDA_ARCHITECTURES:-} ]]; then
  echo "hdbench: CUDA architectures $HDBENCH_CUDA_ARCHITECTURES (HDBENCH_CUDA_ARCHITECTURES)" >&2
  echo "$HDBENCH_CUDA_ARCHITECTURES"
  exit 0
fi

caps=""
if command -v nvidia-smi >/dev/null 2>&1; then
  caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) || caps=""
fi
archs=()
while read -r cap; do
  cap=${cap//[[:space:]]/}
  [[ $cap =~ ^([0-9]+)\.([0-9]+)$ ]] || continue
  archs+=("${BASH_REMATCH[1]}${BASH_REMATCH[2]}")
done <<<"$caps"
if ((${#archs[@]} == 0)); then
  echo "hdbench: no GPU found (nvidia-smi); building CUDA architecture $fallback only" \
       "(HDBENCH_CUDA_ARCHITECTURES=default builds every supported one)" >&2
  echo "$fallback"
  exit 0
fi
mapfile -t archs < <(printf '%s\n' "${archs[@]}" | sort -n -u)

# An architecture this nvcc cannot compile for (a GPU newer than the toolkit, or one it
# dropped): the default list, whose newest PTX a newer GPU's driver compiles on load.
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if supported=$("$nvcc" --list-gpu-arch 2>/dev/null); then
  for a in "${archs[@]}"; do
    if ! grep -qx "compute_$a" <<<"$supported"; then
      echo "hdbench: $nvcc cannot compile for compute capability sm_$a; building the default list" >&2
      echo default
      exit 0
    fi
  done
fi
list=$(printf '%s-real;' "${archs[@]}")
list=${list%;}
echo "hdbench: CUDA architectures $list (this machine's GPUs; HDBENCH_CUDA_ARCHITECTURES=default builds every supported one)" >&2
echo "$list"
