#!/usr/bin/env bash
# Writes docs/options.md from `hdbench --hdbench_help`, so the options page cannot
# drift from the binary (tests/python/binary/test_options_doc.py fails when it has).
#   tools/options_doc.sh [HDBENCH_BINARY] [OUT]
# HDBENCH_BINARY defaults to build/release/bin/hdbench, OUT to docs/options.md;
# OUT "-" writes the page to stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/release/bin/hdbench}
out=${2:-$root/docs/options.md}
help=$("$binary" --hdbench_help)
page=$(
  cat <<HEADER
# hdbench options

Generated from \`hdbench --hdbench_help\` by \`tools/options_doc.sh\`; do not edit by hand.
After changing a flag, regenerate it with \`tools/options_doc.sh build/release/bin/hdbench\`.
Google Benchmark's own \`--benchmark_*\` flags work as well (\`hdbench --help\`).
How the presets and the stopping rule use these flags: [measuring.md](measuring.md).

\`\`\`text
HEADER
  printf '%s\n' "$help"
  printf '%s\n' '```'
)
if [[ $out == - ]]; then
  printf '%s\n' "$page"
else
  printf '%s\n' "$page" >"$out.tmp"
  mv "$out.tmp" "$out"
fi
