#!/usr/bin/env bash
# examples/fashion_mnist/ one habit at a time (issue 38 item 4): tutorial_style.py plain,
# with each --fix alone (workers, pin, item, pack), with --fix all, and well_written.py,
# each run once with the same --steps and --batch. Prints each run's result line and
# writes OUT_JSON:
#   {"steps": N, "batch": B, "device": D, "failed": [names],
#    "variants": {"plain": {"rc": 0, "wall_s": …, "batch_wait_s": …, "steps_per_s": …,
#                           "final_loss": …, "mean_loss": …, "fix": "none", "saved_s": 0.0,
#                           "result_line": "…"},
#                 "fix_workers": {…}, "fix_pin": {…}, "fix_item": {…}, "fix_pack": {…},
#                 "fix_all": {…}, "well_written": {…}}}
# saved_s: plain's wall_s minus the variant's, the measured saving to hold against what
# hdbench_profile predicts fixing that habit would save. A variant that fails or runs past
# FASHION_MNIST_ABLATION_TIMEOUT seconds (default 120; exit 124 then) is
# {"rc": N, "failed": true, "timed_out": rc is 124 or 137, "tail": its last lines}; the JSON is written all the same,
# and the script then exits 1.
#   tools/fashion_mnist_ablation.sh OUT_JSON [--steps N] [--batch B] [--device DEV] [-- SCRIPT_ARGS...]
# Defaults: --steps 3000, --batch 256, --device cuda. SCRIPT_ARGS go to every run (e.g.
# --synthetic, --data-dir DIR). PYTHON (default python3) runs the scripts.
set -euo pipefail
usage="usage: $0 OUT_JSON [--steps N] [--batch B] [--device DEV] [-- SCRIPT_ARGS...]"
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../examples/fashion_mnist
out=${1:?$usage}
shift
steps=3000 batch=256 device=cuda extra=()
while (($#)); do
  case $1 in
    --steps | --batch | --device)
      (($# >= 2)) || { echo "$1 needs a value; $usage" >&2; exit 2; }
      declare "${1#--}=$2"
      shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown argument '$1'; $usage" >&2; exit 2 ;;
  esac
done
python=${PYTHON:-python3}
limit=${FASHION_MNIST_ABLATION_TIMEOUT:-120}
[[ -f $examples/tutorial_style.py ]] || { echo "no $examples/tutorial_style.py" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

names=(plain fix_workers fix_pin fix_item fix_pack fix_all well_written)
run_variant() {  # run_variant NAME: its output in $logs/NAME.log, its exit status in $logs/NAME.rc
  local name=$1 script=tutorial_style fix=() rc=0
  case $name in
    plain) ;;
    well_written) script=well_written ;;
    fix_*) fix=(--fix "${name#fix_}") ;;
  esac
  echo "== $name: $script.py ${fix[*]}"
  timeout -k 10 "$limit" "$python" "$examples/$script.py" --steps "$steps" --batch "$batch" --device "$device" \
    "${fix[@]}" "${extra[@]}" >"$logs/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$name.rc"
  if ((rc == 0)); then
    grep '^note:' "$logs/$name.log" | sed 's/^/   /' || true  # e.g. --fix pin skipped on cpu
    tail -1 "$logs/$name.log"
  else
    ((rc == 124)) && echo "   timed out after $limit s"
    echo "   FAILED (exit $rc):"
    tail -5 "$logs/$name.log" | sed 's/^/   /'
  fi
}
for name in "${names[@]}"; do run_variant "$name"; done

"$python" - "$out" "$logs" "$steps" "$batch" "$device" "${names[@]}" <<'PY'
import json, re, sys
from pathlib import Path

out, logs, steps, batch, device, *names = sys.argv[1:]
logs = Path(logs)
FLOATS = ("wall_s", "steps_per_s", "final_loss", "mean_loss", "batch_wait_s")
variants, failed = {}, []
for name in names:
    rc = int((logs / f"{name}.rc").read_text())
    lines = (logs / f"{name}.log").read_text(errors="replace").splitlines()
    last = lines[-1] if lines else ""
    fields = dict(re.findall(r"(\w+)=(\S+)", last)) if re.match(r"^\w+: steps=", last) else {}
    if rc != 0 or not set(FLOATS) <= set(fields):
        variants[name] = {"rc": rc, "failed": True, "timed_out": rc in (124, 137), "tail": lines[-5:]}
        failed.append(name)
        continue
    entry = {"rc": 0, **{k: float(fields[k]) for k in FLOATS}, "fix": fields.get("fix"), "result_line": last}
    variants[name] = entry
plain = variants.get("plain", {})
for entry in variants.values():
    if "wall_s" in entry and "wall_s" in plain:
        entry["saved_s"] = round(plain["wall_s"] - entry["wall_s"], 3)
Path(out).write_text(json.dumps({"steps": int(steps), "batch": int(batch), "device": device, "failed": failed,
                                 "variants": variants}, indent=2) + "\n")
print(f"wrote {out}" + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else ""))
sys.exit(1 if failed else 0)
PY
