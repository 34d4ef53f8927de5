#!/usr/bin/env bash
# hdbench_profile held against measurement on a GPU machine (issue 38), from a bundle made
# by tools/make_bundle.sh, in one call of limited time: a baseline (transfer copies and one
# thread's host memcpy), the tutorial and well-written Fashion-MNIST examples under the
# profiler (raw records kept, so the recording can be analysed again), every habit fixed
# alone and workers with pin, REPEAT rounds (tools/fashion_mnist_ablation.sh), each finding
# held against its fix (hdbench_report.py verify), the trace GPU tests, the tutorial with its
# fixes under the profiler (for `compare`), with STEP_WAITS the loops that synchronize every
# step (each profiled and held against its own ablation), and
# last, with what is left, the default preset under --hdbench_max_minutes (issue 39). Each
# step has a timeout cut to what is left of BUDGET_S (default 420 s); the summary
# (timings.txt) and results.tgz (reports, logs, records) are written whatever happens.
#   bundle/tools/profile_gpu_check.sh OUT_DIR [STEPS [REPEAT]]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "$here/.." && pwd)
out=${1:?usage: profile_gpu_check.sh OUT_DIR [STEPS]}
steps=${2:-3000}
repeat=${3:-1}
# shellcheck source=tools/gpu_budget.sh
source "$here/gpu_budget.sh"

nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv >"$work/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >>"$work/gpu.txt" 2>&1
cat "$work/gpu.txt"
ex=$bundle/examples/fashion_mnist
profile=(python3 "$bundle/tools/hdbench_profile.py" --hdbench_inject_lib="$bundle/lib/libhdbench_inject.so"
  --hdbench_baseline="$work/baseline.json")
step baseline 60 "$bundle/hdbench" --hdbench_families=transfer,host_memcpy --hdbench_preset=quick \
  --hdbench_memory=pageable,pinned --hdbench_directions=h2d,d2h --hdbench_engines=copy \
  --hdbench_sizes=4K,64K,1M,4M,16M,256M --hdbench_memcpy_threads=1 --hdbench_out="$work/baseline.json"
step prof_tutorial 100 "${profile[@]}" --hdbench_out="$work/prof-tutorial.json" --hdbench_records="$work/rec-tutorial" \
  -- python3 "$ex/tutorial_style.py" --steps "$steps"
step prof_well 60 "${profile[@]}" --hdbench_out="$work/prof-well.json" --hdbench_records="$work/rec-well" -- \
  python3 "$ex/well_written.py" --steps "$steps"
# well_written.py with its step op by op (--eager, as every lease before 2026-11-28's sixth
# session ran it): its launch_bound finding's price, held against the ablation's well_eager less
# well_written (verify --eager), as the tutorial's is against fix_graph.
step prof_well_eager 60 "${profile[@]}" --hdbench_out="$work/prof-well-eager.json" \
  --hdbench_records="$work/rec-well-eager" -- python3 "$ex/well_written.py" --steps "$steps" --eager
# OVERHEAD_ROUNDS=N (default 0: skipped): what each part of the recording costs the tutorial
# (tools/profile_overhead.py: plain, then the library recording nothing, GPU activity, the
# kept calls, NVTX, Python's collections, all), N rounds of OVERHEAD_STEPS (default 1000)
# steps: the cause of the 1.20x the recording made of an H100 host's tutorial steps is not
# known yet (issue 38). At 1000 steps a run took ~16 s from outside on an H100 on 2026-11-28
# (its wall_s ~5 s, the rest start-up): 15 s to spare, a warm-up run, seven runs a round. The
# tool starts no round that would end past its --max-seconds, 10 s inside the step's limit as
# `step` cuts it to the budget, so that `timeout` never kills it before it has written the
# rounds done (it writes its JSON after each round).
if ((${OVERHEAD_ROUNDS:-0} > 0)); then
  overhead_s=$((15 + 16 + OVERHEAD_ROUNDS * 115)) left=$((budget - (SECONDS - start)))
  ((overhead_s > left)) && overhead_s=$left
  overhead_max_s=$((overhead_s > 10 ? overhead_s - 10 : 1))
  step overhead "$overhead_s" python3 "$bundle/tools/profile_overhead.py" "$work/overhead.json" \
    --lib "$bundle/lib/libhdbench_inject.so" --rounds "$OVERHEAD_ROUNDS" --max-seconds "$overhead_max_s" --target 1.05 -- \
    python3 "$ex/tutorial_style.py" --steps "${OVERHEAD_STEPS:-1000}"
  # The plain tutorial's own stalls and Python's collections inside them (the profiled H100
  # steps stalled about every 460 steps, as the script's full collections recur on a CPU run).
  step plain_stalls 45 python3 "$bundle/probes/python_gc/step_stalls.py" "$ex/tutorial_style.py" --steps "$steps" \
    -- --json "$work/plain-stalls.json"
fi
# Every habit fixed alone, and workers with pin (the pin thread takes the batches over),
# REPEAT rounds round-robin (the whole ablation), or with QUICK_ABLATION=1 only the variants
# the model's largest prices rest on.
# fix_workers+pin+pack: on four hosts every habit fixed took about as long as workers and pin
# (2026-11-28b: 2.14 against 2.04 ms a step), where the model prices packing under the pin thread
# 0.5 ms a step faster (its GIL time a batch of one tensor, not three): this variant isolates it.
# ABLATION_VARIANTS=LIST runs those variants instead.
# fix_graph and well_eager: the step replayed as one CUDA graph (the launch_bound finding), in the
# tutorial and in well_written.py, whose graph no lease has run yet.
variants=plain,fix_workers,fix_gather,fix_pin,fix_item,fix_pack,fix_gc,fix_graph,fix_workers+pin,fix_workers+pin+pack
variants=$variants,fix_all,well_written,well_eager
[[ ${QUICK_ABLATION:-0} == 1 ]] && variants=plain,fix_gather,fix_workers,fix_gc,fix_graph,fix_workers+pin,fix_all,well_written,well_eager
variants=${ABLATION_VARIANTS:-$variants}
# The profile's findings made together, where they are two or more of the script's habits: the
# saving verify holds their sum against, measured as one run (fix_gather+pin, say).
together=$(python3 - "$work/prof-tutorial.json" <<'PY' 2>/dev/null
import json, sys
habits = {"workers", "gather", "pin", "item", "pack", "gc", "graph"}
fixes = sorted(f.get("fix") for f in json.load(open(sys.argv[1]))["profile"]["findings"])
if len(fixes) > 1 and set(fixes) <= habits:
    print("fix_" + "+".join(fixes))
PY
)
[[ -n $together && ",$variants," != *",$together,"* ]] && variants=$variants,$together
echo "ablation variants: $variants"
# The workers the input_pipeline finding advises (the probe timed their start, model.handover):
# every run that fixes workers starts that many, so the price and the saving are of one count.
advised=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["profile"]["model"]["handover"]["start_workers"])' "$work/prof-tutorial.json" \
  2>/dev/null) || advised=""
workers_arg=()
[[ $advised =~ ^[0-9]+$ ]] && workers_arg=(--workers "$advised") && echo "ablation workers: $advised (advised)"
# The rounds that fit: at 3000 steps a round of eight runs took about 150 s on an H100 (each
# run ~9 s of start-up beside its wall_s); the ablation starts no round that would end past
# its --max-seconds, so the step's own timeout never kills it before it writes its JSON.
# RESERVE_S (default 0) is kept besides for the default preset at the end (issue 39), e.g. 255 for
# its 4 minutes and the writing of its report, so one call of a lease holds both.
ablation_s=$((budget - (SECONDS - start) - 60 - ${RESERVE_S:-0}))  # 60: verify, the trace tests, the profile of all fixed
((ablation_s > 330)) && ablation_s=330
((ablation_s < 1)) && ablation_s=1  # the first round still runs, as far as the step's limit lets it
FASHION_MNIST_ABLATION_TIMEOUT=60 step ablation $((ablation_s + 30)) "$bundle/tools/fashion_mnist_ablation.sh" \
  "$work/ablation.json" --steps "$steps" --device cuda --repeat "$repeat" --variants "$variants" \
  --max-seconds "$ablation_s" "${workers_arg[@]}"
# Each finding's price against the saving of its fix alone (issue 38's targets), in one table.
eager=()
[[ -f $work/prof-well-eager.json ]] && eager=(--eager "$work/prof-well-eager.json")
step verify 30 python3 "$bundle/tools/hdbench_report.py" verify "$work/prof-tutorial.json" "$work/ablation.json" \
  --well "$work/prof-well.json" "${eager[@]}"
cp "$work/verify.log" "$work/verify.md" 2>/dev/null
[[ ${QUICK_ABLATION:-0} == 1 ]] || step trace_tests 40 "$bundle/hdbench_gpu_tests" --gtest_filter='TraceGpu.*'
pack  # what has run so far comes back even if the call is cut later
step prof_tutorial_all 60 "${profile[@]}" --hdbench_out="$work/prof-tutorial-all.json" \
  --hdbench_records="$work/rec-tutorial-all" -- python3 "$ex/tutorial_style.py" --steps "$steps" --fix all
# The all-fixed program (workers and pin, the tutorials' advice) profiled against what
# well_written.py ran faster than it: what its pin thread's share of the GIL costs (verify --fixed).
if [[ -f $work/prof-tutorial-all.json ]]; then
  step verify_fixed 30 python3 "$bundle/tools/hdbench_report.py" verify "$work/prof-tutorial.json" \
    "$work/ablation.json" --well "$work/prof-well.json" --fixed "$work/prof-tutorial-all.json" "${eager[@]}"
  cp "$work/verify_fixed.log" "$work/verify.md" 2>/dev/null
fi
# STEP_WAITS="sync both" (default none): the loop that waits for the GPU every step otherwise
# (tutorial_style.py --step-wait sync: a torch.cuda.synchronize() every step and no read; both:
# the synchronize, then the read) profiled and held against its own ablation, plain against
# --fix item, REPEAT rounds: the drop_step_synchronizes finding and the read's with the
# synchronize's wait were priced on hand-worked fixtures only, never on a recording. At 1000
# steps: about 15 s a profile and 12 s a run from outside (H100, 2026-11-28), some 80 s a wait
# at two rounds: keep them that time with RESERVE_S, which the whole ablation leaves unspent.
for wait in ${STEP_WAITS:-}; do
  [[ $wait =~ ^(sync|both)$ ]] || { echo "STEP_WAITS: '$wait' is not sync or both" | tee -a "$out/timings.txt"; continue; }
  step "prof_tutorial_$wait" 60 "${profile[@]}" --hdbench_out="$work/prof-tutorial-$wait.json" \
    --hdbench_records="$work/rec-tutorial-$wait" -- python3 "$ex/tutorial_style.py" --steps "$steps" --step-wait "$wait"
  # its rounds end 30 s inside the step's limit, cut to what is left less 15 s for verify
  wait_s=$((budget - (SECONDS - start) - 15))
  ((wait_s > 160)) && wait_s=160
  ((wait_s < 1)) && wait_s=1
  FASHION_MNIST_ABLATION_TIMEOUT=60 step "ablation_$wait" "$wait_s" "$bundle/tools/fashion_mnist_ablation.sh" \
    "$work/ablation-$wait.json" --steps "$steps" --device cuda --repeat "$repeat" --variants fix_item \
    --step-wait "$wait" --max-seconds $((wait_s > 30 ? wait_s - 30 : 1))
  step "verify_$wait" 30 python3 "$bundle/tools/hdbench_report.py" verify "$work/prof-tutorial-$wait.json" \
    "$work/ablation-$wait.json"
  pack
done
# Issue 39: the default preset under its own budget, with what is left (at most 4 minutes).
# DEFAULT_PRESET=0 leaves it out (a lease that measured it already: its ablation takes the time).
left=$((budget - (SECONDS - start) - 25))
if [[ ${DEFAULT_PRESET:-1} == 1 ]] && ((left >= 60)); then
  minutes=$(python3 -c "print(round(min(4.0, $left / 60), 2))")
  echo "default preset with --hdbench_max_minutes=$minutes" | tee -a "$out/timings.txt"
  step default $((left + 20)) "$bundle/hdbench" --hdbench_preset=default --hdbench_max_minutes="$minutes" \
    --hdbench_out="$work/default.json"
  [[ -f $work/default.json ]] && python3 "$bundle/tools/hdbench_report.py" summarize "$work/default.json" \
    >"$work/default.md" 2>&1
fi
for f in "$work"/prof-*.json; do
  [[ -f $f ]] && python3 "$bundle/tools/hdbench_report.py" summarize "$f" >"${f%.json}.md" 2>&1
done
[[ -f $work/prof-tutorial-all.json ]] && python3 "$bundle/tools/hdbench_report.py" compare \
  "$work/prof-tutorial.json" "$work/prof-tutorial-all.json" >"$work/compare-tutorial-all.md" 2>&1
cp "$work/ablation.json" "$work/verify.md" "$out/" 2>/dev/null
for wait in ${STEP_WAITS:-}; do cp "$work/verify_$wait.log" "$out/verify-$wait.md" 2>/dev/null; done
cp "$work/prof-tutorial.md" "$out/" 2>/dev/null
cp "$work/default.md" "$out/" 2>/dev/null
echo "total $((SECONDS - start)) s" | tee -a "$out/timings.txt"
# last, so it stands in the call's output tail: what ran (step=graph?), the variants, the verdicts
python3 "$bundle/tools/lease_digest.py" "$work" | tee "$work/digest.txt"  # packed at exit; out/ keeps 8 files
