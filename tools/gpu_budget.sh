# shellcheck shell=bash disable=SC2154  # bundle and out: set by the script that sources this
# Sourced by the one-call GPU checks (profile_gpu_check.sh, roof_gpu_check.sh), run from a
# bundle made by tools/make_bundle.sh: the bundle's libraries and the machine's cuBLAS and
# NCCL on the library path, a work folder packed into OUT/results.tgz whatever happens, and
# `step NAME LIMIT_S COMMAND...`, which runs COMMAND for at most LIMIT_S and never past the
# call's budget (BUDGET_S, counted from when this file is sourced), logging to
# WORK/NAME.log and a line to OUT/timings.txt. ONLY_STEPS="NAME ..." runs those steps alone
# and logs the others as skipped: a short call spent on rows that never ran (the roof
# check's steps stand alone; the profile check's later steps read its earlier ones' output).
# Needs: bundle (the bundle's folder) and out (OUT_DIR) set before it is sourced.
budget=${BUDGET_S:-420}
start=$SECONDS
work=$(mktemp -d)
mkdir -p "$out"
cuda_dirs=${CUDA_HOME:-/usr/local/cuda}/lib64
for package in cublas nccl; do
  pip_dir=$(python3 -c "import nvidia.$package, os; print(os.path.join(list(nvidia.$package.__path__)[0], 'lib'))" \
    2>/dev/null || true)
  [[ -n $pip_dir ]] && cuda_dirs="$cuda_dirs:$pip_dir"
done
export LD_LIBRARY_PATH="$bundle/lib:$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1

pack() {  # the reports and logs, without the traces (too large to come back)
  (cd "$work" && tar czf "$out/results.tgz" --exclude='*.trace*.json' . 2>/dev/null)
}
steps_seen=" "
unknown_only_steps() {  # a name in ONLY_STEPS that no step has (a typo would skip every step quietly)
  local name
  for name in ${ONLY_STEPS:-}; do
    [[ $steps_seen == *" $name "* ]] || echo "ONLY_STEPS: no step of this call is called $name" | tee -a "$out/timings.txt"
  done
}
trap 'pack; unknown_only_steps' EXIT

step() {  # step NAME LIMIT_S COMMAND...: at most LIMIT_S, never past the budget
  local name=$1 limit=$2 left=$((budget - (SECONDS - start))) t0=$SECONDS rc=0
  shift 2
  steps_seen+="$name "
  if [[ -n ${ONLY_STEPS:-} && " $ONLY_STEPS " != *" $name "* ]]; then
    echo "$name SKIPPED (not in ONLY_STEPS)" | tee -a "$out/timings.txt"
    return
  fi
  if ((left < 10)); then
    echo "$name SKIPPED (budget spent)" | tee -a "$out/timings.txt"
    return
  fi
  ((limit > left)) && limit=$left
  timeout -k 5 "$limit" "$@" >"$work/$name.log" 2>&1 || rc=$?
  echo "$name rc=$rc $((SECONDS - t0)) s (limit $limit)" | tee -a "$out/timings.txt"
  tail -n 4 "$work/$name.log" | sed 's/^/    /'
}
