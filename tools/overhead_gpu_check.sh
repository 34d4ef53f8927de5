#!/usr/bin/env bash
# A lease's short second call, from a bundle made by tools/make_bundle.sh: what each part of
# hdbench_profile's recording costs the tutorial (tools/profile_overhead.py, one round of
# plain and six recordings), the plain tutorial's own step stalls and the collections inside
# them (probes/python_gc/step_stalls.py), both for issue 38's overhead; then, with what is
# left, issue 41's large GPU step (its GPU clocks while it runs, its kernels in a trace)
# beside PyTorch's. Each step has a timeout cut to what is
# left of BUDGET_S (default 200 s); timings.txt and results.tgz are written whatever happens.
#   bundle/tools/overhead_gpu_check.sh OUT_DIR [STEPS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "$here/.." && pwd)
out=${1:?usage: overhead_gpu_check.sh OUT_DIR [STEPS]}
steps=${2:-1000}
BUDGET_S=${BUDGET_S:-200}
# shellcheck source=tools/gpu_budget.sh
source "$here/gpu_budget.sh"
ex=$bundle/examples/fashion_mnist
# At 1000 steps about 15 s a run (H100 and H200 hosts): a warm-up, then seven runs a round
# (OVERHEAD_ROUNDS, default 1).
rounds=${OVERHEAD_ROUNDS:-1}
step overhead $((15 + rounds * 105)) python3 "$bundle/tools/profile_overhead.py" "$work/overhead.json" \
  --lib "$bundle/lib/libhdbench_inject.so" --rounds "$rounds" --timeout 40 -- \
  python3 "$ex/tutorial_style.py" --steps "$steps"
step plain_stalls 40 python3 "$bundle/probes/python_gc/step_stalls.py" "$ex/tutorial_style.py" --steps 2000 \
  -- --json "$work/plain-stalls.json"
pack
step gpu_large 40 "$bundle/hdbench" --hdbench_families=mlp --hdbench_mlp_processors=gpu --hdbench_mlp_data=device \
  --hdbench_mlp_models=784x4096x4096x4096x10 --hdbench_mlp_batches=8192 --hdbench_mlp_dtypes=tf32,bf16 \
  --hdbench_mlp_modes=eager,graph --hdbench_out="$work/gpu-large.json"
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
cp "$work/overhead.log" "$work/plain_stalls.log" "$out/" 2>/dev/null
echo "total $((SECONDS - start)) s" | tee -a "$out/timings.txt"
