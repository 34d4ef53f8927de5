#!/usr/bin/env bash
# Builds hdbench (release), runs the default suite, and writes the JSON report, its
# figures (<report>-figures/), a plain-language summary (<report>.md) and one page with both
# (<report>.html) under reports/. Extra arguments go to hdbench,
# e.g. tools/run.sh --hdbench_sizes=64M,256M. It runs the default preset (a few minutes on
# an H100); tools/run.sh --hdbench_preset=quick is a smoke run, --hdbench_preset=full the whole sweep.
# It builds only what the run needs (hdbench, and hdbench_profile's injection library)
# and only for this machine's GPUs (tools/cuda_architectures.sh; 90-real without a GPU);
# HDBENCH_CUDA_ARCHITECTURES=default builds the default Turing-to-Hopper list,
# HDBENCH_CUDA_ARCHITECTURES=80-real;90-real any other. tools/test.sh builds the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
archs=$(tools/cuda_architectures.sh)
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES="$archs" >/dev/null
cmake --build --preset release --target hdbench hdbench_inject
# The report's name is the binary's own default, reports/hdbench-<gpu>_<cpu>-<time>.json (the
# machine by what it has, not by a host name such as `vm`), unless --hdbench_out names it.
report=""
for arg in "$@"; do
  [[ $arg == --hdbench_out=* ]] && report=${arg#--hdbench_out=}
done
mkdir -p reports
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
status=0
build/release/bin/hdbench "$@" || status=$?
if [[ -z $report ]]; then
  # The one the binary just wrote (atomically, so its time is the write's), even after a failure.
  report=$(find reports -maxdepth 1 -name 'hdbench-*.json' -newer "$marker" -printf '%T@ %p\n' 2>/dev/null |
    sort -n | tail -n 1 | cut -d' ' -f2-)
  [[ -n $report ]] || { echo "run.sh: hdbench wrote no report under reports/" >&2; exit $(( status ? status : 1 )); }
fi
if [[ -f $report ]]; then
  /usr/bin/python3 tools/hdbench_report.py plot "$report" -o "${report%.json}-figures" || status=1
  /usr/bin/python3 tools/hdbench_report.py summarize "$report" -o "${report%.json}.md" || status=1
  /usr/bin/python3 tools/hdbench_report.py html "$report" -o "${report%.json}.html" || status=1
fi
exit $status
