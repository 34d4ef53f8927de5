#!/usr/bin/env bash
# A lease's short second call, from a bundle made by tools/make_bundle.sh: issue 38's
# overhead targets measured as they are set, the well-written example and the tutorial each
# run plain and under the whole recording (as hdbench_profile records) in rounds
# (tools/profile_overhead.py --parts all); with OVERHEAD_PARTS=1, besides, what each part of
# the recording costs the tutorial (one round of plain and six recordings) and the plain
# tutorial's own step stalls (probes/python_gc/step_stalls.py); with OVERHEAD_ONE_THREAD=1,
# the tutorial's overhead with PyTorch's intra-op pool at one thread; then, with what is left,
# issue 41's large GPU step (its GPU clocks while it runs, its kernels in a trace) beside
# PyTorch's. Each step has a timeout cut to what is left of BUDGET_S (default 230 s);
# timings.txt and results.tgz are written whatever happens.
#   bundle/tools/overhead_gpu_check.sh OUT_DIR [STEPS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "$here/.." && pwd)
out=${1:?usage: overhead_gpu_check.sh OUT_DIR [STEPS]}
steps=${2:-1000}
BUDGET_S=${BUDGET_S:-230}
# shellcheck source=tools/gpu_budget.sh
source "$here/gpu_budget.sh"
ex=$bundle/examples/fashion_mnist
overhead=(python3 "$bundle/tools/profile_overhead.py" --lib "$bundle/lib/libhdbench_inject.so" --timeout 40)
overhead_step() {  # overhead_step NAME LIMIT_S OUT.json ARGS... -- COMMAND...: profile_overhead.py as a `step`
  # profile_overhead.py starts no round that would end past its --max-seconds, 10 s inside the
  # step's limit as `step` cuts it to the budget, so that `timeout` never kills it mid-round
  # (on an H100 on 2026-11-28 both overhead steps were killed so, before they wrote anything).
  local name=$1 limit=$2 left=$((budget - (SECONDS - start)))
  shift 2
  ((limit > left)) && limit=$left
  local max_s=$((limit > 10 ? limit - 10 : 1))
  step "$name" "$limit" "${overhead[@]}" --max-seconds "$max_s" "$@"
}
# Issue 38's targets: at most 1.10x on well_written.py, 1.05x on tutorial_style.py, each over
# several runs (one run each measured 1.16x and 1.06x on an H200 host). A run takes far longer
# from outside than its wall_s, for Python's and CUDA's start-up: on an H100 on 2026-11-28
# 2000 well-written steps (wall_s ~2.8 s) took ~15 s a run, 1000 tutorial steps (wall_s
# ~4.5-5.3 s) ~16 s. Each step's limit: 15 s to spare, a warm-up run and two runs (plain, all)
# a round. At the default rounds the two steps' limits come to 215 s (their runs ~185 s), so
# BUDGET_S=230 leaves the large step's three little: about 360 s runs them all.
well_rounds=${OVERHEAD_WELL_ROUNDS:-3}
tutorial_rounds=${OVERHEAD_TUTORIAL_ROUNDS:-2}
# Each judged against its target: met or missed only where the runs' 95% interval is on one
# side of it, else "cannot tell" and the runs that would (tools/profile_overhead.py).
overhead_step overhead_well $((15 + 15 + well_rounds * 30)) "$work/overhead-well.json" --parts all --target 1.10 \
  --rounds "$well_rounds" -- python3 "$ex/well_written.py" --steps 2000 --log-every 100
overhead_step overhead_tutorial $((15 + 16 + tutorial_rounds * 32)) "$work/overhead-tutorial.json" --parts all \
  --target 1.05 --rounds "$tutorial_rounds" -- python3 "$ex/tutorial_style.py" --steps "$steps"
# OVERHEAD_ONE_THREAD=1: the tutorial's overhead again with PyTorch's intra-op pool at one thread
# (OMP_NUM_THREADS=1, on both sides). Its recorded batch wait grew 1.2x on an H100 host with no
# CUDA call in it (issue 38, cause unknown); one hypothesis: the default collate's torch.stack
# runs as an OpenMP team, and the recording's own threads (CUPTI's, the writer's) preempt one
# of its threads, so the whole team waits. If the ratio falls near 1 here, that is the cause.
if [[ ${OVERHEAD_ONE_THREAD:-0} == 1 ]]; then
  overhead_step overhead_tutorial_one_thread $((15 + 16 + tutorial_rounds * 32)) \
    "$work/overhead-tutorial-one-thread.json" --parts all --target 1.05 --rounds "$tutorial_rounds" -- \
    env OMP_NUM_THREADS=1 python3 "$ex/tutorial_style.py" --steps "$steps"
fi
if [[ ${OVERHEAD_PARTS:-0} == 1 ]]; then
  # At 1000 steps ~16 s a run (a recorded one a little more): a warm-up, then seven runs a
  # round (OVERHEAD_ROUNDS, default 1), ~115 s.
  rounds=${OVERHEAD_ROUNDS:-1}
  overhead_step overhead $((15 + 16 + rounds * 115)) "$work/overhead.json" --rounds "$rounds" --target 1.05 -- \
    python3 "$ex/tutorial_style.py" --steps "$steps"
  step plain_stalls 40 python3 "$bundle/probes/python_gc/step_stalls.py" "$ex/tutorial_style.py" --steps 2000 \
    -- --json "$work/plain-stalls.json"
fi
pack
# The GEMMs (the rate the steps are rated against) and the steps only: the epochs have axes of
# their own (--hdbench_mlp_epoch_*), and on 2026-11-28 their 18 runs took 20 s of this step.
# overlap: the graph with each layer's update under the backward GEMMs below it, beside graph.
step gpu_large 40 "$bundle/hdbench" --hdbench_families=mlp --hdbench_mlp_processors=gpu --hdbench_mlp_data=device \
  --hdbench_mlp_models=784x4096x4096x4096x10 --hdbench_mlp_batches=8192 --hdbench_mlp_dtypes=tf32,bf16 \
  --hdbench_mlp_modes=eager,graph,overlap --benchmark_filter='mlp/(gemm|step)/' --hdbench_out="$work/gpu-large.json"
# The same step's kernels by the GPU's clock (derived.gpu_activity's top_kernels): its GEMM
# kernels in the step against the plan's timings of each alone, where its parts timed
# between events came to 1.2x them in bf16 on the H200. The trace itself stays there.
step gpu_large_traced 40 "$bundle/hdbench" --hdbench_families=mlp --hdbench_mlp_processors=gpu \
  --hdbench_mlp_data=device --hdbench_mlp_models=784x4096x4096x4096x10 --hdbench_mlp_batches=8192 \
  --hdbench_mlp_dtypes=tf32,bf16 --hdbench_mlp_modes=eager --benchmark_filter='mlp/step' \
  --hdbench_trace="$work/large.trace.json.gz" --hdbench_trace_budget=4000 --hdbench_out="$work/gpu-large-traced.json"
step pytorch_gpu_large 60 python3 "$bundle/baselines/pytorch/pytorch_baseline.py" --families mlp --processors gpu \
  --models 784x4096x4096x4096x10 --batches 8192 --dtypes tf32,bf16 --optimizers sgd --modes eager,graph \
  --data device --out "$work/pytorch-gpu-large.json"
for f in "$work"/*.json; do
  [[ -f $f ]] && python3 "$bundle/tools/hdbench_report.py" summarize "$f" >"${f%.json}.md" 2>&1
done
cp "$work"/overhead*.log "$work/plain_stalls.log" "$out/" 2>/dev/null
echo "total $((SECONDS - start)) s" | tee -a "$out/timings.txt"
