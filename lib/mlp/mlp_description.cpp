#include "mlp/mlp_description.hpp"

#include <fmt/format.h>

#include "mlp/mlp_cpu.hpp"

namespace hdbench {

FamilyDescription mlp_description() {
  FamilyDescription d{.name = "mlp", .nvtx = kMlpNvtx};
  d.params_note =
      "an epoch's `accuracy_percent` is on the held-out set (Fashion-MNIST's or the folder's t10k files, or the 10000 "
      "synthetic samples after the training set)";
  d.params = {
      {"variant",
       ParamType::string,
       "`step`: one training step — forward, softmax cross-entropy, backward, optimizer update; `gemm`: one large "
       "GEMM, the rate the steps are compared with; `epoch`: a whole epoch of loader → copy → step",
       {kEveryRun}},
      {"implementation", ParamType::string, "`hdbench`, or `pytorch` in the PyTorch baseline's reports"},
      {"processor",
       ParamType::string,
       "`cpu`: OpenBLAS sgemm (AVX-512 or AVX2 kernels of its own for layers of at most 32 outputs) + fused loops; "
       "`gpu`: cuBLASLt with fused epilogues (mode `fused`: two kernels of hdbench's own)",
       {kEveryRun}},
      {"model", ParamType::string, "widths, e.g. `784x32x10`: Linear → ReLU → … → Linear", {"step", "epoch"}},
      {"dtype",
       ParamType::string,
       "`fp32`; `tf32`: fp32 operands through the tensor cores; `bf16`: bf16 GEMM operands, fp32 accumulation and "
       "master weights",
       {kEveryRun}},
      {"optimizer", ParamType::string, "`sgd`: SGD with momentum 0.9, lr 0.05; `adam`: lr 1e-3", {"step"}},
      {"mode",
       ParamType::string,
       "`eager`; `graph`: the step captured once into a CUDA graph and replayed; `fused`: the step as two kernels of "
       "hdbench's own (forward, loss and backward to the hidden layer; weight gradients with the SGD-momentum update "
       "fused in), captured into a CUDA graph and replayed: two-layer fp32 SGD models with inputs <= 2048, hidden <= "
       "64, classes <= 16, any other case skipped with the reason (the full preset and `--hdbench_mlp_modes=fused`); "
       "`overlap`: `graph` with each layer's update on a second stream once the backward pass has last read its "
       "weights, overlapped with the GEMMs of the layers below (the full preset and `--hdbench_mlp_modes=overlap`); "
       "`compile`: PyTorch's `torch.compile`",
       {"step"}},
      {"data",
       ParamType::string,
       "`host`: CPU step on a batch in host memory; `device`: the batch is already on the GPU; `pageable`, `pinned`: "
       "each step first copies its batch from that host memory",
       {"step"}},
      {"batch", ParamType::integer, "samples per step", {"step", "epoch"}},
      {"threads", ParamType::integer_or_string,
       "CPU: the step's threads, or `\"auto\"` (`--hdbench_mlp_threads=auto`, the default): swept, the `threads` "
       "counter says which count won"},
      {"busy_threads", ParamType::integer,
       "CPU step: busy threads of our own spinning beside the step while it is timed, a busy host "
       "(`--hdbench_mlp_cpu_busy_threads`; absent when 0)"},
      {"device", ParamType::integer, "GPU index"},
      {"m", ParamType::integer, "`gemm`: rows of the product", {"gemm"}},
      {"n", ParamType::integer, "`gemm`: columns of the product", {"gemm"}},
      {"k", ParamType::integer, "`gemm`: the inner dimension", {"gemm"}},
      {"workers", ParamType::integer, "`epoch`: the loader's workers", {"epoch"}},
      {"pinning", ParamType::string, "`epoch`: the loader's pinning mode (as the `loader` family's)", {"epoch"}},
      {"prefetch_depth", ParamType::integer, "`epoch`: the loader's ready batches kept ahead per worker"},
      {"dataset", ParamType::string, "`epoch`: `synthetic`, `mnist_idx`"},
      {"dataset_name", ParamType::string, "`epoch`: `synthetic`, `fashion_mnist`, `mnist_dir`"},
      {"dataset_dir", ParamType::string, "`epoch`: the IDX folder (IDX only)"},
  };
  d.counters = {
      {"step_us",
       "`step`: median time per step; one sample is a group of `steps_per_sample` back-to-back steps (about 2 ms), "
       "timed by CUDA events on the GPU and the host clock on the CPU, so a step's time is its throughput in a loop, "
       "launch costs included; `real_time` is one step (schema 2: the iteration counts the sample's steps; schema 1 "
       "gave a whole sample of `steps_per_sample` steps), so it equals `step_us`; `--hdbench_mlp_sample_ms` sets the "
       "sample's length",
       Better::lower,
       {"step"}},
      {"step_best_us", "`step`: fastest time per step (of the samples, as `step_us`)", Better::lower},
      {"steps_per_sample", "`step`: the back-to-back steps one sample times"},
      {"samples/s",
       "`step`: `batch / step_us`; `epoch`: the epoch's samples over its median time (from `start_epoch` to the "
       "device finishing the last step)",
       Better::higher,
       {"step", "epoch"}},
      {"TFLOP/s",
       "`step`, `gemm`: GEMM FLOPs over the median time: per layer 2·batch·in·out forward, the same for the weight "
       "gradient, and again for the input gradient except the first layer's (element-wise work is not counted, as in "
       "PyTorch's and MLPerf's counts)",
       Better::higher},
      {"best_TFLOP/s", "`gemm`: the GEMM's FLOPs over its fastest sample: the rate the steps are rated against",
       Better::higher},
      {"gemm_TFLOP/s",
       "`step`: the rate of the `gemm` run of the same processor, dtype (and threads) in this report at its fastest "
       "sample (`best_TFLOP/s` there; schema 1: its median); absent when the GEMM was filtered out",
       Better::higher},
      {"fraction_of_gemm_rate", "`step`: the step's `TFLOP/s` as a share of `gemm_TFLOP/s`", Better::higher},
      {"fp32_roof_TFLOP/s",
       "CPU `step`, `gemm`: the CPU's measured fp32 roof at the run's thread count "
       "(`context.hdbench.system.cpu.fp32_roof`: T × the one-thread rate, at most the all-threads rate)",
       Better::higher},
      {"fraction_of_fp32_roof",
       "CPU `step`, `gemm`: the run's `TFLOP/s` over `fp32_roof_TFLOP/s`: the hardware's limit, which a crippled BLAS "
       "cannot move the way it moves the measured GEMM rate, and which nothing fp32 beats (schema 1's "
       "`fraction_of_fp32_peak` used the nominal peak: 133% of it on a 2-core EPYC VM); work that beat the roof has "
       "it measured again and raised (`fp32_roof.remeasured` in the context), and where the work still beats it the "
       "share is left out and a note says the roof is wrong",
       Better::higher},
      {"cv_percent", "coefficient of variation of the samples", Better::lower},
      {"samples", "how many samples the figures come from; with one there is no noise figure"},
      {"threads",
       "CPU `step`, `epoch`: the threads the CPU step ran with; with `--hdbench_mlp_threads=auto` (`params.threads` "
       "is `\"auto\"`) the fastest of the sweep (a count within 5% of the fastest, or within the fastest count's own "
       "sweep noise if larger, with fewer threads wins)"},
      {"sweep_step_us/threads:<T>",
       "CPU `step` with `--hdbench_mlp_threads=auto`: the step time at T threads in the sweep (1, 2, 4, … up to all "
       "cores but one on a host of three or more; the median of 5 interleaved rounds of a few steps each, measured "
       "once per model and batch)",
       Better::lower},
      {"sweep_noise_percent/threads:<T>",
       "CPU `step` with `--hdbench_mlp_threads=auto`: how far the sweep's rounds at T threads disagree, (slowest - "
       "fastest round) / their median, in percent, the slowest round left out of 4 or more (one round a busy host "
       "slowed is not the count's noise)",
       Better::lower},
      {"first_loss", "`step`: the loss of the first step (real samples; a non-finite loss fails the run)"},
      {"final_loss", "`step`: the loss of the last step (real samples; a non-finite loss fails the run)"},
      {"fused_epilogues",
       "GPU `step` (modes eager, graph and overlap): how many of the step's GEMMs ran with a fused cuBLASLt "
       "epilogue; the others ran plain, followed by hdbench's own kernel, because cuBLASLt offered no fused "
       "algorithm or the plain way measured faster at plan time"},
      {"planned_gemms",
       "GPU `step` (modes eager, graph and overlap): the step's GEMMs in all; the benchmark's `label` (\"plan: fused "
       "5/8; L2 weight_gradient plain (fused 557.2us, plain 44.0us); …; logits ld 16 (padded …, unpadded …)\") lists "
       "each GEMM's choice with both candidates' plan-time times and the output layer's leading dimension"},
      {"planned_gemm_us",
       "GPU `step` (modes eager, graph and overlap): the step's GEMMs as the plan timed each alone with its chosen "
       "epilogue (fused, or plain + hdbench's kernel), summed; absent when a forced policy left one untimed",
       Better::lower},
      {"retuned_gemms",
       "GPU `step` (modes eager, graph and overlap): how many of the step's GEMMs kept another cuBLASLt algorithm "
       "than the heuristic's first: the plan times up to 8 of those it offers and keeps the fastest; the `label` "
       "gives each such GEMM's algorithm and both times"},
      {"planned_gemm_heuristic_us",
       "GPU `step` (modes eager, graph and overlap): planned_gemm_us had every GEMM kept the heuristic's first "
       "algorithm (from the plan's own timings of both): what timing the algorithms saved is the difference",
       Better::lower},
      {"gemm_share_of_step",
       "GPU `step` (modes eager, graph and overlap): planned_gemm_us over step_us, the GEMMs' share of the step; the "
       "rest is the loss, the optimizer's update, launches and the gaps between kernels (left out above 1: the GEMMs "
       "timed alone would then have taken longer than the whole step)"},
      {"in_step_us",
       "GPU `step`, mode `eager`: one more step after the timed ones, with a CUDA event recorded between its parts "
       "(the input's cast to bf16, each GEMM with its fused epilogue or hdbench's kernel after it, the loss, the "
       "update), the parts summed: the step as those events time it, a little above step_us for the events; the "
       "`label` ends with each part's time (\"in step: L0 forward 118.2us, …, update 251.0us\")",
       Better::lower},
      {"in_step_gemm_us",
       "GPU `step`, mode `eager`: the GEMM parts of in_step_us (each GEMM where it runs in the step, after the part "
       "before it, where planned_gemm_us times each alone, repeated, on warm caches)",
       Better::lower},
      {"in_step_update_us", "GPU `step`, mode `eager`: the update's part of in_step_us (the optimizer's kernels)",
       Better::lower},
      {"in_step_other_us",
       "GPU `step`, mode `eager`: the rest of in_step_us, neither GEMM nor update: the loss, and in bf16 the input's "
       "cast",
       Better::lower},
      {"update_GB/s",
       "GPU `step`, mode `eager`: the bytes the update reads and writes (20 a parameter for SGD with momentum, 28 for "
       "Adam, 2 more in bf16 for the copy the GEMMs read) over in_step_update_us; its roof is what the device_local "
       "family's device copy moves, twice that copy's bandwidth_GB/s (which counts bytes copied, each read and "
       "written)",
       Better::higher},
      {"graph_nodes",
       "GPU `step`, mode `fused`: the nodes of the replayed graph (2: one per kernel); the benchmark's `label` "
       "(\"fused: kernel 1 (forward, loss, backward to the hidden layer) 32 blocks; kernel 2 (weight gradients + "
       "update) 62 blocks (50 dW1 tiles, 12 for the rest)\") gives each kernel's grid"},
      {"launch_floor_us",
       "GPU `step`, mode `fused`: the same two launches (grids, blocks, shared memory) of kernels that do nothing, "
       "captured into a graph and replayed back to back in groups as long as the step's (median of 5 groups, CUDA "
       "events): what the step costs before any work. The rest of the floor, from first principles, for 784x32x10 at "
       "batch 128 on an H100 or H200: ~13.1 MFLOP (0.2 µs at the GPU's ~67 TFLOP/s of fp32, ~0.7 µs on the 32 and 62 "
       "SMs the two grids take), ~1 MB of unique bytes (the batch 401 KB; W1, its velocity and gradient 100 KB each: "
       "0.2-0.3 µs from HBM, and in L2 between replays), W1 read by each of kernel 1's 32 blocks (112 KB an SM, ~0.9 "
       "µs from L2), and each kernel's chain of dependent L2 round trips and barriers (~1-2 µs a kernel): a step "
       "floor of this launch floor plus about 2.5-4 µs, some 5-8 µs (docs/measuring.md)"},
      {"fraction_of_launch_floor",
       "GPU `step`, mode `fused`: `launch_floor_us / step_us`, how close the step gets to the cost of its launches "
       "alone (1: nothing but launches)",
       Better::higher},
      {"epoch_ms", "`epoch`: median epoch time", Better::lower},
      {"epochs_trained", "`epoch`: epochs run"},
      {"stall_us_per_batch", "`epoch`: time the step waited for the loader per batch", Better::lower},
      {"training_loss", "`epoch`: CPU: the mean training loss of the last epoch; GPU: the last step's loss"},
      {"held_out_loss",
       "`epoch`: the trained parameters scored on the CPU on held-out samples (the next 10000 synthetic samples, or "
       "MNIST's t10k files): their loss",
       Better::lower},
      {"accuracy_percent", "`epoch`: the same scoring's accuracy on the held-out samples", Better::higher},
      {"gpu_busy_percent",
       "GPU `epoch`: CUDA-event time of the steps over the epochs' time: the share of the epoch the GPU was training",
       Better::higher},
      {"items_per_second", "Google's own rate counter (samples / mean time of a step or an epoch)", Better::higher},
  };
  // The CPU step's profile (CpuMlp::profile_into): a few groups of steps after the timed ones.
  for (int p = 0; p < kCpuStepPhases; ++p) {
    const std::string_view phase = to_string(static_cast<CpuStepPhase>(p));
    d.counters.push_back({fmt::format("phase_us/{}", phase),
                          fmt::format("CPU `step`: wall time per step in its `{}` phase, from a few profiled groups of "
                                      "steps after the timed ones{}",
                                      phase,
                                      phase == "weight_gradient_gemm" ? " (with the optimizer's weight updates fused "
                                                                        "into its blocks)"
                                      : phase == "optimizer"          ? " (the bias updates; the weights' are fused "
                                                                        "into weight_gradient_gemm)"
                                                                      : ""),
                          Better::lower});
  }
  d.counters.push_back({"handover_us",
                        "CPU `step`: per profiled step, the thread team's runs' wall time past their busiest thread "
                        "(waking the team, taking parts, waiting for the last): what the hand-overs cost",
                        Better::lower});
  d.counters.push_back({"profiled_step_us",
                        "CPU `step`: the profiled steps' time per step (beside `step_us`: what profiling cost)",
                        Better::lower});
  d.counters.push_back({"thread_busy_us/thread:<T>",
                        "CPU `step`: per profiled step, the time team thread T (0: the calling thread) spent in "
                        "the step's work; below the step time by what it waited",
                        Better::none});
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"variant", "processor"};
  return d;
}

}  // namespace hdbench
