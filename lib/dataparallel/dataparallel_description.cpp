#include "dataparallel/dataparallel_description.hpp"

#include <stdexcept>

namespace hdbench {
namespace {

// The shared list's counter `name`, to give it this family's meaning.
CounterDescription& counter(std::vector<CounterDescription>& counters, const std::string& name) {
  for (CounterDescription& c : counters) {
    if (c.name == name) return c;
  }
  throw std::logic_error("dataparallel_description: no counter " + name);
}

}  // namespace

// Its counters, as docs/multi-gpu.md describes them: the same in hdbench (one rank) and
// in hdbench_mpi's reports (N ranks).
FamilyDescription dataparallel_description() {
  FamilyDescription d{.name = "dataparallel", .nvtx = kDataParallelNvtx};
  const std::vector<std::string> steps = {"cpu_step", "gpu_step"};
  d.params = {
      {"variant",
       ParamType::string,
       "`cpu_step`: each rank trains the CPU step on its shard of the global batch, all-reduces the mean gradient and "
       "applies SGD; `gpu_step`: the same with the fp32 GPU step, one rank per GPU, the gradients averaged with NCCL; "
       "`nccl_allreduce`: the NCCL all-reduce alone",
       {kEveryRun}},
      {"processor", ParamType::string, "`cpu`, `gpu`"},
      {"model", ParamType::string, "widths, e.g. `784x32x10`, as the `mlp` family's", steps},
      {"optimizer", ParamType::string, "`sgd`"},
      {"dtype", ParamType::string, "GPU: `fp32`"},
      {"batch", ParamType::integer, "the global batch", steps},
      {"shard_batch", ParamType::integer, "each rank's"},
      {"ranks", ParamType::integer, "processes in the communicator (1 in `hdbench`)", steps},
      {"steps", ParamType::integer, "timed training steps, after one untimed first step"},
      {"communicator", ParamType::string, "`self`: one rank in `hdbench`; `mpi`; `nccl`"},
      {"collective", ParamType::string, "`none`, `MPI_Allreduce`, `ncclAllReduce`"},
      {"threads", ParamType::integer_or_string, "CPU: the step's threads"},
      {"device", ParamType::integer, "GPU index"},
      {"overlap", ParamType::string,
       "`gpu_step`: `bucketed`, as DDP does it: buckets of `bucket_bytes` fill from the last layer down, and a "
       "bucket's all-reduce starts on a communication stream as soon as its layers' gradients are enqueued, "
       "overlapped with the backward pass of the layers below; `none`: one all-reduce of every gradient after the "
       "backward pass"},
      {"bucket_bytes", ParamType::integer, "`gpu_step`: the bucket size (`--hdbench_dp_bucket_bytes`)"},
      {"bytes", ParamType::integer, "`nccl_allreduce`: all-reduced"},
      {"buckets", ParamType::integer, "`nccl_allreduce`: the all-reduces the bytes are split into"},
      {"in_place", ParamType::boolean,
       "`nccl_allreduce`: false, out of place: with one rank NCCL runs nothing at all for an in-place sum, and out of "
       "place it copies the buffer on the device"},
  };
  d.counters = {
      {"step_us", "`cpu_step`, `gpu_step`: the slowest rank's median step time", Better::lower},
      {"allreduce_us",
       "`cpu_step`: the all-reduce as the step sees it, the slowest rank's median: it includes waiting for the last "
       "rank to arrive; `gpu_step`: the time the communication stream spent all-reducing, summed over buckets (it "
       "runs beside the backward pass's kernels and shares the GPU with them); `nccl_allreduce`: the median time of "
       "one all-reduce",
       Better::lower},
      {"step_no_exchange_us", "`gpu_step`: the same rank's step with no all-reduce", Better::lower},
      {"allreduce_exposed_us",
       "`gpu_step`: step minus no-exchange step: what the exchange adds to the step, the all-reduce the overlap did "
       "not hide plus its launches and stream waits",
       Better::lower},
      {"buckets", "`gpu_step`: the all-reduces a step's gradients went in"},
      {"gradient_bytes", "`cpu_step`, `gpu_step`: the gradients all-reduced each step"},
      {"samples/s", "`cpu_step`, `gpu_step`: the global batch over `step_us`", Better::higher},
      {"one_rank_step_us",
       "`cpu_step`, `gpu_step`: rank 0 on the combined batch, one process; with one rank timed in turn with the "
       "step (`gpu_step`: the rank's own step without the exchange), with several after the ranks' steps",
       Better::lower},
      {"scaling_efficiency", "`cpu_step`, `gpu_step`: t₁ / (n · tₙ) at that batch, t₁ `one_rank_step_us`, tₙ `step_us`",
       Better::higher},
      {"params_max_abs_diff_between_ranks",
       "`cpu_step`, `gpu_step`: the largest difference of any rank's parameters from rank 0's after training (0: "
       "`checks.ranks_identical`)",
       Better::lower},
      {"params_max_abs_diff_vs_one_rank",
       "`cpu_step`, `gpu_step`: the largest difference of the parameters from one process trained on the combined "
       "batch (`checks.matches_one_rank` holds it to `--hdbench_dp_tolerance`, abs + rel)",
       Better::lower},
      {"final_loss", "`cpu_step`, `gpu_step`: rank 0's loss at the last step"},
      {"allreduce_algbw_GB/s",
       "nccl-tests' algbw, bytes / time; only with two or more ranks: one rank's all-reduce crosses no link",
       Better::higher},
      {"allreduce_busbw_GB/s", "nccl-tests' busbw, algbw · 2(n−1)/n; only with two or more ranks", Better::higher},
      {"ranks", "`nccl_allreduce`: the ranks in the communicator"},
  };
  // The stopping rule times nccl_allreduce; the steps write their own noise_percent.
  for (CounterDescription& c : stopping_rule_counters()) {
    c.meaning = "`nccl_allreduce`: " + c.meaning;
    d.counters.push_back(std::move(c));
  }
  counter(d.counters, "noise_percent").meaning =
      "`cpu_step`, `gpu_step`: the noise of the step's median, the least certain rank's: the half-width of the "
      "distribution-free ~95% confidence interval of the median, in percent of the median; `nccl_allreduce`: the noise "
      "the stopping rule stopped on, the same statistic";
  d.counters.push_back({"samples",
                        "`cpu_step`, `gpu_step`: the timed steps the step's median comes from; `nccl_allreduce`: "
                        "the stopping rule's samples"});
  d.noise_groups = {"variant"};
  label_values(d, "overlap",
               {{"bucketed", "bucketed, overlapped with backward"},
                {"none", "all-reduce after backward"},
                {"no_exchange", "no all-reduce"}});
  return d;
}

}  // namespace hdbench
