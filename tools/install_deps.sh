#!/usr/bin/env bash
# Installs what hdbench needs on Debian/Ubuntu, skipping what is already there.
# The CUDA Toolkit itself is not a Debian package here: it must be in /usr/local/cuda.
set -euo pipefail

packages=(cmake ninja-build g++ git clang-format libbenchmark-dev libbenchmark-tools libfmt-dev nlohmann-json3-dev
          libgtest-dev libopenblas-dev zlib1g-dev libopenmpi-dev openmpi-bin libnuma-dev python3 python3-pytest python3-hypothesis python3-scipy python3-matplotlib python3-torch chromium
          dataset-fashion-mnist)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "hdbench: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The report tools (tools/hdbench_report.py) run under the `python3` a user types; when
# that is not Debian's (pyenv, a venv) and lacks matplotlib, install it there as well.
if python=$(command -v python3) && [[ $(readlink -f "$python") != $(readlink -f /usr/bin/python3) ]] &&
    ! "$python" -c 'import matplotlib' 2>/dev/null; then
  echo "hdbench: installing matplotlib for $python"
  "$python" -m pip install --quiet matplotlib ||
    echo "hdbench: could not install matplotlib for $python; the report tools fall back to /usr/bin/python3" >&2
fi

nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [[ ! -x $nvcc ]]; then
  echo "hdbench: no CUDA Toolkit at $nvcc. Install the CUDA Toolkit (12.x or 13.x) from NVIDIA," >&2
  echo "         or set CUDACXX to its nvcc." >&2
  exit 1
fi
