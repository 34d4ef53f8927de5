#!/usr/bin/env bash
# Usage: probes/blas_alternatives/run.sh OUT_DIR [THREADS]
# Times the CPU MLP step's GEMMs in each BLAS candidate that fetch.sh gathered (from
# carry/blas/candidates.tar.xz, or BLAS_CARRY=DIR), at THREADS threads (default: the
# physical cores this process may use), in two modes: "lib" (the library threads each
# GEMM; its env var set to THREADS) and "team" (hdbench's split: THREADS threads of the
# probe each call the library single-threaded). MODES="lib" runs only the first.
# Also numpy's bundled OpenBLAS and torch.mm when python3 has them (SKIP_PYTHON=1: not).
# Writes OUT_DIR/table.txt, OUT_DIR/results.json, one log per run, lscpu.txt and
# fma_peak.txt (the FMA throughput a register-only loop reaches on THREADS threads).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: run.sh OUT_DIR [THREADS]}"
carry="${BLAS_CARRY:-$root/carry/blas}"
modes="${MODES:-lib team}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cores="$(lscpu -p=CORE,SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)"
threads="${2:-${cores:-$(nproc)}}"
lscpu > "$out/lscpu.txt" 2>&1 || true

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
archive="$carry/candidates.tar.xz"
[[ -f "$archive" ]] || { echo "run.sh: no $archive: run probes/blas_alternatives/fetch.sh first" >&2; exit 1; }
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$archive" "$work" 2>/dev/null ||
  tar -xJf "$archive" -C "$work" || { echo "run.sh: cannot unpack $archive" >&2; exit 1; }
lib="$work"

# The probe: built here when g++ can, else the one fetch.sh prebuilt.
probe="$work/sgemm_probe"
if command -v g++ >/dev/null &&
  g++ -O2 -std=c++20 -pthread -o "$work/sgemm_probe_here" "$here/sgemm_probe.cpp" -ldl 2>"$out/build.log"; then
  probe="$work/sgemm_probe_here"
  echo "probe: built with $(g++ --version | head -1)"
else
  echo "probe: prebuilt by fetch.sh (no working g++ here; see $out/build.log)"
fi

# oneDNN needs libstdc++ >= GCC 12's: use the carried one only where the host's is older.
onednn_path="$lib/onednn-debian"
if LD_LIBRARY_PATH="$onednn_path" ldd "$lib/onednn-debian/libdnnl.so.2" 2>&1 | grep -q 'not found'; then
  onednn_path="$lib/onednn-debian:$lib/fallback"
fi

cat "$lib/VERSIONS" > "$out/versions.txt"
# What the cores really deliver in a register-only FMA loop at these threads, next to
# the theoretical peak (a VM's or an AVX-512 all-core clock can be well under nominal).
"$probe" --fma-peak --threads "$threads" > "$out/fma_peak.txt" 2>&1
sed 's/^FMA_PEAK /fma peak: /' "$out/fma_peak.txt"
results=()
peak=""
# run NAME MODE LIBRARY_PATH LIB [probe flags...] -- environment additions via ENV_EXTRA
run_probe() {
  local name="$1" mode="$2" path="$3" so="$4"
  shift 4
  local lib_threads="$threads"
  [[ "$mode" == team ]] && lib_threads=1
  local log="$out/$name-$mode.txt" json="$out/$name-$mode.json"
  echo "== $name ($mode, $threads threads)"
  env -u OPENBLAS_CORETYPE -u LD_PRELOAD ${ENV_EXTRA:-} \
    OPENBLAS_NUM_THREADS="$lib_threads" BLIS_NUM_THREADS="$lib_threads" OMP_NUM_THREADS="$lib_threads" \
    LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout 600 "$probe" --lib "$so" --name "$name" --mode "$mode" --threads "$threads" --json "$json" "$@" \
    > "$log" 2>&1
  local rc=$?
  if grep -q '^SUMMARY' "$log"; then
    grep '^library' "$log" | sed 's/^/   /'
    grep '^SUMMARY' "$log" | sed 's/^SUMMARY //' >> "$work/rows"
    [[ -n "$peak" ]] || peak="$(grep '^SUMMARY' "$log" | awk -F'|' '{gsub(/ /, "", $NF); print $NF}')"
    [[ -f "$json" ]] && results+=("$json")
  fi
  [[ $rc -eq 0 ]] || { echo "   FAILED rc=$rc: $(tail -2 "$log" | tr '\n' ' ')"; printf '%-28s | %-4s %3d | FAILED rc=%d (see %s)\n' "$name" "$mode" "$threads" "$rc" "$(basename "$log")" >> "$work/rows"; }
}

deb_openblas="$lib/openblas-debian/libopenblas.so.0"
pypi_openblas="$lib/openblas-pypi/libscipy_openblas.so"
pypi_version="$(sed -n 's/^openblas-pypi: scipy_openblas32-\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$lib/VERSIONS")"
numpy_openblas=""
if [[ -z "${SKIP_PYTHON:-}" ]]; then
  numpy_openblas="$(python3 -c 'import glob, os, numpy; d = os.path.dirname(os.path.dirname(numpy.__file__)); print((glob.glob(d + "/numpy.libs/libscipy_openblas64_*.so") + [""])[0])' 2>/dev/null)"
fi
for mode in $modes; do
  run_probe openblas-0.3.21-debian "$mode" "$lib/openblas-debian" "$deb_openblas"
  if grep -qw avx512f /proc/cpuinfo; then
    ENV_EXTRA="OPENBLAS_CORETYPE=SkylakeX" run_probe openblas-0.3.21-deb-SkylakeX "$mode" "$lib/openblas-debian" "$deb_openblas"
  else
    printf '%-28s | %-4s %3d | skipped: no AVX-512 on this CPU\n' openblas-0.3.21-deb-SkylakeX "$mode" "$threads" >> "$work/rows"
  fi
  ENV_EXTRA="OPENBLAS_CORETYPE=Haswell" run_probe openblas-0.3.21-deb-Haswell "$mode" "$lib/openblas-debian" "$deb_openblas"
  run_probe "openblas-$pypi_version-pypi" "$mode" "$lib/openblas-pypi" "$pypi_openblas" --symbol-prefix scipy_
  run_probe blis-0.9.0-debian "$mode" "$lib/blis-debian" "$lib/blis-debian/libblis.so.4"
  run_probe onednn-2.6.3-debian "$mode" "$onednn_path" "$lib/onednn-debian/libdnnl.so.2" --api dnnl
  [[ -n "$numpy_openblas" ]] &&
    run_probe openblas-numpy-bundled "$mode" "$(dirname "$numpy_openblas")" "$numpy_openblas" \
      --api cblas64 --symbol-prefix scipy_ --symbol-suffix 64_
done
if [[ -z "${SKIP_PYTHON:-}" && -n "$peak" ]] && python3 -c 'import torch' 2>/dev/null; then
  echo "== pytorch (torch.mm, $threads threads)"
  python3 "$here/torch_gemm.py" --threads "$threads" --peak-gflops "$peak" --json "$out/pytorch-lib.json" \
    > "$out/pytorch-lib.txt" 2>&1 && results+=("$out/pytorch-lib.json")
  grep '^SUMMARY' "$out/pytorch-lib.txt" | sed 's/^SUMMARY //' >> "$work/rows"
fi

{
  echo "sgemm_probe: one CPU MLP training step's GEMMs (8 for 784x4096x4096x10, 5 for 784x32x10), sum of per-GEMM medians"
  echo "threads $threads; peak ${peak:-?} GFLOP/s fp32 for those threads (see any log's 'peak fp32' line for the formula and clock source)"
  sed 's/^FMA_PEAK /fma peak: /' "$out/fma_peak.txt"
  grep -m1 'Model name' "$out/lscpu.txt" || true
  echo
  printf '%-28s | %-8s | %-25s | %-25s | %-25s | %-7s | %s\n' "candidate" "mode thr" "784x4096x4096x10 b1024" \
    "784x4096x4096x10 b128" "784x32x10 b128" "rel err" "peak"
  printf '%-28s | %-8s | %-25s | %-25s | %-25s | %-7s |\n' "" "" "ms  GFLOP/s  %peak" "ms  GFLOP/s  %peak" \
    "ms  GFLOP/s  %peak" ""
  cat "$work/rows" 2>/dev/null
} > "$out/table.txt"
{
  echo "["
  first=1
  for j in "${results[@]}"; do
    [[ $first -eq 1 ]] || echo ","
    first=0
    cat "$j"
  done
  echo "]"
} > "$out/results.json"
echo
cat "$out/table.txt"
