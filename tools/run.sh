#!/usr/bin/env bash
# Builds hdbench (release), runs the default suite, and writes the JSON report, its
# figures (<report>-figures/), a plain-language summary (<report>.md) and one page with both
# (<report>.html) under reports/. Extra arguments go to hdbench,
# e.g. tools/run.sh --hdbench_sizes=64M,256M. It runs the default preset (a few minutes on
# an H100); tools/run.sh --hdbench_preset=quick is a smoke run, --hdbench_preset=full the whole sweep.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
cmake --preset release ${HDBENCH_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES="$HDBENCH_CUDA_ARCHITECTURES"} >/dev/null
cmake --build --preset release
name="hdbench-$(hostname | tr -c 'A-Za-z0-9-\n' '_')-$(date +%Y%m%d-%H%M%S)"
report="reports/$name.json"
for arg in "$@"; do
  [[ $arg == --hdbench_out=* ]] && report=${arg#--hdbench_out=}
done
status=0
build/release/bin/hdbench --hdbench_out="$report" "$@" || status=$?
if [[ -f $report ]]; then
  /usr/bin/python3 tools/hdbench_report.py plot "$report" -o "${report%.json}-figures" || status=1
  /usr/bin/python3 tools/hdbench_report.py summarize "$report" -o "${report%.json}.md" || status=1
  /usr/bin/python3 tools/hdbench_report.py html "$report" -o "${report%.json}.html" || status=1
fi
exit $status
