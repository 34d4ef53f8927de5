#!/usr/bin/env bash
# Issue 41's rows on a GPU machine, from a bundle made by tools/make_bundle.sh, in one call
# of limited time (BUDGET_S, default 420 s): the fused small step's GPU tests and the
# compute-sanitizer tools over them, then each row of the issue's table beside PyTorch in
# the same call (the GPU steps and their GEMM rates; the CPU steps at the machine's thread
# count; the loader's copy-bound runs; the staged copy against its bound). Each step has a
# timeout cut to what is left; timings.txt and results.tgz (reports and logs) are written
# whatever happens.
#   bundle/tools/roof_gpu_check.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "$here/.." && pwd)
out=${1:?usage: roof_gpu_check.sh OUT_DIR}
# shellcheck source=tools/gpu_budget.sh
source "$here/gpu_budget.sh"

nvidia-smi --query-gpu=name,driver_version --format=csv >"$work/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__)' >>"$work/gpu.txt" 2>&1
nproc >>"$work/gpu.txt"
cat "$work/gpu.txt"
hd=$bundle/hdbench
pt=(python3 "$bundle/baselines/pytorch/pytorch_baseline.py" --families mlp)

# The fused step first, hdbench's kernel for the output layer's input gradient, the
# optimizers' vector kernels and the tf32 weight gradients' transpose (the last never ran on
# a GPU yet): checked against the CPU model, float64 and the scalar kernels, bit-equal to
# the graph replay; then memcheck, racecheck and synccheck over them.
new_kernels='*Fused*:MlpFallbackKernelsGpu.Narrow*:MlpFallbackKernelsGpu.Transpose*:MlpKernelsGpu.Optimizer*'
step fused_tests 60 "$bundle/hdbench_gpu_tests" --gtest_filter="$new_kernels:MlpGpu*"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# ROOF_SANITIZERS=0 leaves them out, for a call too short for every row (a lease's last minutes).
[[ ${ROOF_SANITIZERS:-1} == 1 ]] && for tool in memcheck racecheck synccheck; do
  step "fused_$tool" 60 env HDBENCH_UNDER_COMPUTE_SANITIZER=1 "$sanitizer" --tool "$tool" --error-exitcode 99 \
    "$bundle/hdbench_gpu_tests" --gtest_filter="$new_kernels"
done
pack

# The GPU steps: the small model (fused against graph), the large one against its GEMM rate.
# The GEMMs and the steps only: the epochs have axes of their own (--hdbench_mlp_epoch_*) and
# ran in each of these steps before (18 runs, 20 s on an H100, 2026-11-28).
gpu=(--hdbench_families=mlp --hdbench_mlp_processors=gpu --hdbench_mlp_data=device
  --benchmark_filter='mlp/(gemm|step)/')
step gpu_small 60 "$hd" "${gpu[@]}" --hdbench_mlp_models=784x32x10 --hdbench_mlp_batches=128,1024 \
  --hdbench_mlp_dtypes=fp32,bf16 --hdbench_mlp_modes=eager,graph,fused --hdbench_out="$work/gpu-small.json"
step gpu_large 90 "$hd" "${gpu[@]}" --hdbench_mlp_models=784x4096x4096x4096x10 --hdbench_mlp_batches=8192 \
  --hdbench_mlp_dtypes=tf32,bf16 --hdbench_mlp_modes=eager,graph,overlap --hdbench_out="$work/gpu-large.json"
# Where the large tf32 step's time goes: its weight-gradient GEMMs ran at 0.61 of the 8192³
# rate on an H100, its forward ones at ~0.84. Each GEMM shape in its four operand layouts
# says whether the layout (neither operand contiguous along the batch) is why.
step gemm_layouts 40 python3 "$bundle/baselines/pytorch/gemm_layouts.py" --out "$work/gemm-layouts.json"
# The table's rows have their batch on the device; an eager step's kernels are split by phase too.
# Only the rows hdbench ran above (SGD): every model, batch, dtype and optimizer (72 runs) did not
# finish in 103 s on an H100, and so wrote no report.
step pytorch_gpu_small 60 "${pt[@]}" --processors gpu --models 784x32x10 --batches 128,1024 --dtypes fp32,bf16 \
  --optimizers sgd --modes eager,graph --data device --out "$work/pytorch-gpu-small.json"
step pytorch_gpu_large 60 "${pt[@]}" --processors gpu --models 784x4096x4096x4096x10 --batches 8192 \
  --dtypes tf32,bf16 --optimizers sgd --modes eager,graph --data device --out "$work/pytorch-gpu-large.json"
pack

# The CPU steps on every core, beside PyTorch with as many threads.
threads=$(nproc)
step cpu_steps 120 "$hd" --hdbench_families=mlp --hdbench_mlp_processors=cpu \
  --hdbench_mlp_models=784x32x10,784x4096x4096x10 --hdbench_mlp_batches=128,1024 --benchmark_filter='mlp/(step|gemm)' \
  --hdbench_out="$work/cpu.json"
step pytorch_cpu 120 "${pt[@]}" --processors cpu --models 784x32x10,784x4096x4096x10 --batches 128,1024 \
  --optimizers sgd --threads "$threads" --out "$work/pytorch-cpu.json"
pack

# The loader fed by 8 and 16 workers against the batch copy alone, and the staged copy.
step loader 60 "$hd" --hdbench_families=loader --hdbench_loader_consumers=gpu --hdbench_loader_costs_us=0 \
  --hdbench_loader_batches=1024 --hdbench_loader_workers=8,16 --hdbench_loader_pinning=direct \
  --hdbench_loader_build=split --hdbench_out="$work/loader.json"
# The 16-worker one traced: whether its copies run at the rate of the copy alone with gaps
# between them (CUPTI's HtoD/pinned GB/s and the idle gaps in derived.gpu_activity), or
# slower beside 16 builders writing memory; epoch_drain_us says how far they lag the host.
step loader_traced 40 "$hd" --hdbench_families=loader --hdbench_loader_consumers=gpu --hdbench_loader_costs_us=0 \
  --hdbench_loader_batches=1024 --hdbench_loader_workers=16 --hdbench_loader_pinning=direct \
  --hdbench_loader_build=split --hdbench_trace="$work/loader.trace.json.gz" --hdbench_trace_budget=20000 \
  --hdbench_out="$work/loader-traced.json"
# The staged copy with its ramped ends (new since 2026-11-27, never run on a GPU): at 16
# threads it was 0.70 / 0.86 of its bound H2D and 0.75 / 0.83 D2H at 64 / 256 MiB.
step staged 60 "$hd" --hdbench_families=staged --hdbench_preset=default --hdbench_out="$work/staged.json"

for f in "$work"/*.json; do
  [[ -f $f ]] && python3 "$bundle/tools/hdbench_report.py" summarize "$f" >"${f%.json}.md" 2>&1
done
echo "total $((SECONDS - start)) s" | tee -a "$out/timings.txt"
