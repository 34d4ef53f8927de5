#!/usr/bin/env bash
# Runs on a GPU machine from a bundle made by tools/make_bundle.sh: the GPU tests,
# the GPU tests under compute-sanitizer (memcheck, racecheck, synccheck), the NVTX
# and end-to-end tests where pytest exists, a short traced run (--hdbench_trace) and
# its overhead against the same run untraced, the quick and default presets and the
# PyTorch baseline. Logs and reports go to OUT_DIR. Extra arguments go to hdbench's
# preset runs.
#   bundle/gpu_checks.sh OUT_DIR [--hdbench_... flags]
# HDBENCH_CHECKS picks the steps (default: all, in this order), so a lease of 10
# minutes a call can split them: tests sanitizers pytest trace quick default
# loader dataparallel pytorch profile ablation.
# Benchmark steps (trace, quick, default, pytorch) should not share the GPU with
# other work; the test steps may run beside each other.
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: gpu_checks.sh OUT_DIR [hdbench flags]}
shift
mkdir -p "$out"
checks=${HDBENCH_CHECKS:-tests sanitizers pytest trace quick default loader dataparallel pytorch profile ablation}
status=0
step() {  # step NAME COMMAND...: runs, logs to OUT_DIR/NAME.log with its wall time, remembers failures
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== $name"
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  echo "$name rc=$rc in $((SECONDS - start)) s" >>"$out/timings.txt"
  if ((rc == 0)); then echo "   ok ($((SECONDS - start)) s)"; else
    echo "   FAILED (exit $rc after $((SECONDS - start)) s), see $name.log"
    tail -20 "$out/$name.log"
    status=1
  fi
}
wanted() { [[ " $checks " == *" $1 "* ]]; }
# cuBLAS and NCCL are not bundled: take the machine's CUDA 13 copies, or the ones
# PyTorch's wheels carry.
cuda_dirs=${CUDA_HOME:-/usr/local/cuda}/lib64
for package in cublas nccl; do
  pip_dir=$(python3 -c "import nvidia.$package, os; print(os.path.join(list(nvidia.$package.__path__)[0], 'lib'))" 2>/dev/null || true)
  [[ -n $pip_dir ]] && cuda_dirs="$cuda_dirs:$pip_dir"
done
export LD_LIBRARY_PATH="$bundle/lib:$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
host=$(hostname | tr -c 'A-Za-z0-9-\n' '_')
nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 || true

if wanted tests; then
  step gpu_tests "$bundle/hdbench_gpu_tests"
  step nvtx_tests env NVTX_INJECTION64_PATH="$bundle/lib/libnvtx_capture.so" HDBENCH_NVTX_CAPTURE="$out/nvtx.log" \
    "$bundle/hdbench_nvtx_tests"
fi
if wanted sanitizers; then
  sanitizer=$(command -v compute-sanitizer || true)
  for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [[ -z $sanitizer && -x $candidate ]] && sanitizer=$candidate
  done
  if [[ -n $sanitizer ]]; then
    # Every GPU test under each tool. HDBENCH_UNDER_COMPUTE_SANITIZER=1 skips what cannot
    # run there (concurrency assertions; the intended failing 1 PiB cudaMalloc, which
    # memcheck reports as an API error) and shrinks the MLP tests to 784x32x10, batch 32,
    # 16 steps.
    # NCCL probes its kernels when a communicator is made and handles the
    # cudaErrorNoKernelImageForDevice it gets; memcheck reports those as API errors. So
    # the data-parallel tests (the only ones that make a communicator) run under
    # memcheck without API-error reports (memory errors still fail them), the rest with.
    nccl_tests='GpuDataParallelStep.*'
    for tool in memcheck racecheck synccheck; do
      filter=(--gtest_filter="-$nccl_tests")
      [[ $tool != memcheck ]] && filter=()
      step "sanitizer_$tool" env HDBENCH_UNDER_COMPUTE_SANITIZER=1 \
        "$sanitizer" --tool "$tool" --error-exitcode 99 "$bundle/hdbench_gpu_tests" "${filter[@]}"
    done
    step sanitizer_memcheck_nccl env HDBENCH_UNDER_COMPUTE_SANITIZER=1 \
      "$sanitizer" --tool memcheck --report-api-errors no --error-exitcode 99 "$bundle/hdbench_gpu_tests" \
      --gtest_filter="$nccl_tests"
  else
    echo "== compute-sanitizer not found: sanitizer runs NOT done"
    status=1
  fi
fi
if wanted pytest; then
  if python3 -m pytest --version >/dev/null 2>&1; then
    step python_tests env HDBENCH_BIN="$bundle/hdbench" HDBENCH_NVTX_CAPTURE_LIB="$bundle/lib/libnvtx_capture.so" \
      python3 -m pytest -q "$bundle/tests/python" -p no:cacheprovider
  else
    echo "== pytest not found for $(command -v python3): end-to-end and NVTX binary tests NOT run"
    status=1
  fi
fi
if wanted trace; then
  # A short traced run: the CUPTI timeline (open it in ui.perfetto.dev) and its
  # gpu_activity rows; then the same run untraced, so the trace's overhead is measured:
  # each benchmark's traced time over its untraced time (compare's ratio, with a U test
  # over the repetitions) in trace_overhead.txt. Informational: it fails no check.
  traced=(--hdbench_families=transfer,streams,mlp --hdbench_sizes=4M,256M --hdbench_memory=pageable,pinned
    --hdbench_engines=copy --hdbench_directions=h2d,d2h --hdbench_stream_sizes=256M --hdbench_stream_counts=4
    --hdbench_chunk_counts=16 --hdbench_compute_ratios=1 --hdbench_mlp_processors=gpu --hdbench_mlp_models=784x32x10
    --hdbench_mlp_batches=128 --hdbench_mlp_dtypes=fp32 --hdbench_mlp_optimizers=sgd --hdbench_mlp_epoch_batches=128
    --hdbench_mlp_epoch_workers=2 --benchmark_repetitions=3)
  step trace "$bundle/hdbench" "${traced[@]}" --hdbench_trace="$out/trace-$host.json" --hdbench_out="$out/traced-$host.json"
  step untraced "$bundle/hdbench" "${traced[@]}" --hdbench_out="$out/untraced-$host.json"
  python3 "$bundle/tools/hdbench_report.py" compare "$out/untraced-$host.json" "$out/traced-$host.json" --threshold 2 \
    >"$out/trace_overhead.txt" 2>&1
  echo "== trace overhead (traced over untraced, exit $? of compare: 1 = some benchmark over 2% slower): trace_overhead.txt"
fi
for preset in quick default; do
  wanted $preset && step "preset_$preset" "$bundle/hdbench" --hdbench_preset=$preset --hdbench_out="$out/$preset-$host.json" "$@"
done
# The loader's copy-bound path (issue 32, part 3): no per-sample work, so the copy is
# the bound; whole batches (before) beside split ones (after), 8 and 16 workers, direct
# and pin_thread pinning, with the counters that say where an epoch's time goes
# (first_batch_us, fence_wait_us_per_batch, consumer_us_per_batch, stall_us_per_batch).
# Then a trace of the direct case at 8 workers, both builds, to see the copy engine's gaps.
if wanted loader; then
  loader=(--hdbench_families=loader --hdbench_loader_consumers=gpu --hdbench_loader_costs_us=0
    --hdbench_loader_batches=128,1024 --hdbench_loader_workers=0,8,16 --hdbench_loader_pinning=pin_thread,direct
    --hdbench_loader_build=whole,split)
  step loader "$bundle/hdbench" "${loader[@]}" --hdbench_out="$out/loader-$host.json" "$@"
  step loader_trace "$bundle/hdbench" --hdbench_families=loader --hdbench_loader_consumers=gpu \
    --hdbench_loader_costs_us=0 --hdbench_loader_batches=1024 --hdbench_loader_workers=8 \
    --hdbench_loader_pinning=direct --hdbench_loader_build=whole,split --hdbench_trace="$out/loader-trace-$host.json" \
    --hdbench_out="$out/loader-traced-$host.json"
fi
# The data-parallel step on this machine's GPUs (one rank each, NCCL) at two model
# sizes, and the NCCL all-reduce beside nccl-tests' all_reduce_perf where
# NCCL_TESTS_DIR has it (build it from github.com/NVIDIA/nccl-tests: make src.build).
if wanted dataparallel; then
  step dataparallel "$bundle/hdbench" --hdbench_families=dataparallel --hdbench_devices=all \
    --hdbench_dp_models=784x32x10,784x4096x4096x10 --hdbench_dp_batches=256,1024 --hdbench_dp_nccl_bytes=1M,64M \
    --hdbench_out="$out/dataparallel-$host.json" "$@"
  if [[ -x ${NCCL_TESTS_DIR:-}/all_reduce_perf ]]; then
    step nccl_tests "$NCCL_TESTS_DIR/all_reduce_perf" -b 1M -e 64M -f 64 -g "$(nvidia-smi -L | wc -l)" -w 5 -n 50
  fi
fi
# The same MLP steps in PyTorch (the machine's torch), for the figures beside hdbench's.
if wanted pytorch && python3 -c 'import torch' >/dev/null 2>&1; then
  step pytorch_baseline python3 "$bundle/baselines/pytorch/pytorch_baseline.py" --processors gpu --out "$out/pytorch-$host.json"
fi
# hdbench_profile on the two Fashion-MNIST examples, each plain and profiled: the wall
# times (timings.txt and each script's last line) give the profiler's overhead and the
# saving the well-written script measures; the profiles give the estimated one.
if wanted profile && python3 -c 'import torch' >/dev/null 2>&1; then
  baseline=()
  for preset in default quick; do
    if [[ ${#baseline[@]} -eq 0 && -f $out/$preset-$host.json ]]; then baseline=(--hdbench_baseline="$out/$preset-$host.json"); fi
  done
  for script in tutorial_style well_written; do
    step "example_${script}_plain" python3 "$bundle/examples/fashion_mnist/$script.py"
    step "example_${script}_profiled" python3 "$bundle/tools/hdbench_profile.py" \
      --hdbench_inject_lib="$bundle/lib/libhdbench_inject.so" --hdbench_bin="$bundle/hdbench" "${baseline[@]}" \
      --hdbench_out="$out/profile-$script-$host.json" -- python3 "$bundle/examples/fashion_mnist/$script.py"
  done
fi
# The Fashion-MNIST habits one at a time (issue 38 item 4): tutorial_style.py plain, with
# each --fix alone and with --fix all, and well_written.py, 3000 steps each; each
# variant's wall_s and batch_wait_s (and saved_s against plain) in ablation-HOST.json,
# the measured savings to hold against the profiles' estimates. Each run is cut off
# after FASHION_MNIST_ABLATION_TIMEOUT seconds (default 120).
if wanted ablation && python3 -c 'import torch' >/dev/null 2>&1; then
  step ablation "$bundle/tools/fashion_mnist_ablation.sh" "$out/ablation-$host.json" --steps 3000 --device cuda
fi
exit $status
