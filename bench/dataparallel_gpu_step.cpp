#include "dataparallel_gpu_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cuda.hpp"
#include "core/timing.hpp"
#include "mlp/mlp_gpu.hpp"
#include "scaleout/nccl_allreduce.hpp"
#include "scaleout/scaleout_math.hpp"

namespace hdbench {
namespace {

enum class Exchange { none, after_backward, bucketed };

// One step's samples on the device, made on the host by fill_batch (untimed).
class DeviceBatch {
 public:
  DeviceBatch(const MlpShape& model, std::size_t count)
      : inputs_(static_cast<std::size_t>(model.inputs())),
        count_(count),
        images_(count * inputs_ * sizeof(float)),
        labels_(count * sizeof(std::int32_t)) {}

  void load(const DataParallelCase& c, std::size_t step, std::size_t first_sample) {
    std::vector<float> images(count_ * inputs_);
    std::vector<std::int32_t> labels(count_);
    fill_batch(c.model, c.seed, step, first_sample, count_, images.data(), labels.data());
    upload_bytes(images_.data(), images.data(), images.size() * sizeof(float));
    upload_bytes(labels_.data(), labels.data(), labels.size() * sizeof(std::int32_t));
  }
  const float* images() const { return images_.as<float>(); }
  const std::int32_t* labels() const { return labels_.as<std::int32_t>(); }

 private:
  std::size_t inputs_;
  std::size_t count_;
  DeviceBuffer images_;
  DeviceBuffer labels_;
};

struct Training {
  std::vector<double> step_s;       // timed steps (the warm-up step left out)
  std::vector<double> allreduce_s;  // the communication stream's busy time in each
  std::size_t buckets = 0;
  double first_loss = 0.0;
  double final_loss = 0.0;
  std::vector<float> parameters;  // after the last step
};

// Trains samples [first, first + count) of each step's global batch for 1 + c.steps
// steps from `initial`, exchanging gradients as `exchange` says (nccl is null for
// none). A step is timed on the compute stream from its first kernel to the
// optimizer's last, with the bucketed all-reduces joined back before the optimizer.
Training train(const DataParallelCase& c, Exchange exchange, scaleout::NcclAllReduce* nccl, std::size_t first,
               std::size_t count, std::size_t bucket_bytes, const std::vector<float>& initial) {
  Stream compute("dataparallel compute");
  Stream comm("dataparallel all-reduce");
  GpuMlp mlp(c.model, default_optimizer(OptimizerKind::sgd), MlpDtype::fp32, count, initial, compute.get());
  const ParameterLayout layout = make_parameter_layout(c.model);
  std::vector<std::size_t> layer_begin;
  for (const LayerOffsets& offsets : layout.layers) layer_begin.push_back(offsets.weight);
  const std::vector<scaleout::GradientBucket> buckets = scaleout::bucket_gradients(
      layer_begin, layout.total, std::max<std::size_t>(1, bucket_bytes / sizeof(float)));
  // Per bucket: ready (on the compute stream), and the all-reduce's start and end on
  // the communication stream; the stream runs one bucket at a time, so the sum of
  // end - start is the time it spent all-reducing.
  std::vector<Event> ready(buckets.size()), bucket_start(buckets.size()), bucket_end(buckets.size());
  float* gradients = mlp.device_gradients();
  if (exchange == Exchange::bucketed) {
    mlp.set_gradient_ready_hook([&](std::size_t layer) {
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        if (buckets[b].lowest_layer != layer) continue;
        ready[b].record(compute.get());
        HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(comm.get(), ready[b].get(), 0));
        bucket_start[b].record(comm.get());
        nccl->enqueue_mean(gradients + buckets[b].begin, buckets[b].end - buckets[b].begin, comm.get());
        bucket_end[b].record(comm.get());
      }
    });
  }
  Event start, stop;
  DeviceBatch batch(c.model, count);
  Training t;
  t.buckets = exchange == Exchange::bucketed ? buckets.size() : exchange == Exchange::after_backward ? 1 : 0;
  const std::size_t total_steps = static_cast<std::size_t>(c.steps) + 1;
  for (std::size_t step = 0; step < total_steps; ++step) {
    batch.load(c, step, first);
    start.record(compute.get());
    mlp.compute_gradients(batch.images(), batch.labels(), count);
    if (exchange == Exchange::after_backward) {
      bucket_start[0].record(compute.get());
      nccl->enqueue_mean(gradients, layout.total, compute.get());
      bucket_end[0].record(compute.get());
    } else if (exchange == Exchange::bucketed) {
      // The last bucket's end follows every earlier one on the communication stream.
      HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(compute.get(), bucket_end[buckets.size() - 1].get(), 0));
    }
    mlp.apply_optimizer();
    stop.record(compute.get());
    if (nccl != nullptr) nccl->wait(compute.get(), fmt::format("gradient all-reduce of step {}", step));
    const StepResult result = mlp.last_result();
    if (step == 0) {
      t.first_loss = result.loss;
      continue;
    }
    t.final_loss = result.loss;
    t.step_s.push_back(1e-3 * elapsed_ms(start, stop));
    double communicating = 0.0;
    for (std::size_t b = 0; b < t.buckets; ++b) communicating += 1e-3 * elapsed_ms(bucket_start[b], bucket_end[b]);
    t.allreduce_s.push_back(communicating);
  }
  t.parameters = mlp.parameters();
  return t;
}

double median_us(const std::vector<double>& seconds) { return seconds.empty() ? 0.0 : 1e6 * summarize(seconds).median; }

}  // namespace

std::string gpu_data_parallel_name(const GpuDataParallelCase& c, int ranks) {
  return fmt::format("dataparallel/gpu/nccl/{}/batch:{}/ranks:{}/overlap:{}", to_string(c.step.model),
                     c.step.global_batch, ranks, c.overlap ? "bucketed" : "none");
}

nlohmann::json gpu_data_parallel_params(const GpuDataParallelCase& c, int ranks) {
  return {{"family", "dataparallel"},
          {"variant", "gpu_step"},
          {"processor", "gpu"},
          {"collective", "ncclAllReduce"},
          {"communicator", "nccl"},
          {"model", to_string(c.step.model)},
          {"batch", c.step.global_batch},
          {"ranks", ranks},
          {"shard_batch", c.step.global_batch / static_cast<std::size_t>(std::max(ranks, 1))},
          {"overlap", c.overlap ? "bucketed" : "none"},
          {"bucket_bytes", c.bucket_bytes},
          {"dtype", "fp32"},
          {"steps", c.step.steps},
          {"optimizer", "sgd"}};
}

nlohmann::json run_gpu_data_parallel(scaleout::Communicator& ranks, const GpuDataParallelCase& c) {
  const DataParallelCase& s = c.step;
  const int n = ranks.size();
  const scaleout::Shard shard = scaleout::shard_of(s.global_batch, ranks.rank(), n);
  const std::vector<float> initial = initial_parameters(s.model, s.seed);
  scaleout::NcclAllReduce nccl(ranks, c.timeout_s);
  const Training alone = train(s, Exchange::none, nullptr, shard.begin, shard.size(), c.bucket_bytes, initial);
  const Training dp = train(s, c.overlap ? Exchange::bucketed : Exchange::after_backward, &nccl, shard.begin,
                            shard.size(), c.bucket_bytes, initial);

  const double diff_vs_root = max_difference_from_root(ranks, dp.parameters);
  const std::size_t gradient_bytes = dp.parameters.size() * sizeof(float);
  const double step_us = median_us(dp.step_s);
  const double allreduce_us = median_us(dp.allreduce_s);
  int device = -1;
  HDBENCH_CUDA_CHECK(cudaGetDevice(&device));
  const nlohmann::json mine = {
      {"rank", ranks.rank()},
      {"device", device},
      {"shard_batch", shard.size()},
      {"step_us", step_us},
      {"step_us_all", dp.step_s},
      {"step_no_exchange_us", median_us(alone.step_s)},
      {"allreduce_us", allreduce_us},
      {"allreduce_exposed_us", step_us - median_us(alone.step_s)},
      {"allreduce_busbw_GB/s", scaleout::allreduce_busbw_gbps(gradient_bytes, 1e-6 * allreduce_us, n)},
      {"allreduce_algbw_GB/s", scaleout::allreduce_algbw_gbps(gradient_bytes, 1e-6 * allreduce_us)},
      {"first_loss", dp.first_loss},
      {"final_loss", dp.final_loss},
      {"params_max_abs_diff_vs_rank0", diff_vs_root}};
  const nlohmann::json per_rank = gather_figures(ranks, mine);
  if (!ranks.is_root()) return nullptr;

  // One process on the combined batch: the reference the ranks must match, and the
  // one-rank time the scaling efficiency is measured against.
  const Training single = train(s, Exchange::none, nullptr, 0, s.global_batch, c.bucket_bytes, initial);
  const scaleout::Agreement vs_single = scaleout::compare(dp.parameters, single.parameters, s.tolerance, s.tolerance);
  const double slowest_step = max_over_ranks(per_rank, "step_us");
  const double slowest_reduce = max_over_ranks(per_rank, "allreduce_us");
  const double most_exposed = max_over_ranks(per_rank, "allreduce_exposed_us");
  const double one_rank_us = median_us(single.step_s);
  nlohmann::json counters = {
      {"step_us", slowest_step},
      {"step_no_exchange_us", max_over_ranks(per_rank, "step_no_exchange_us")},
      {"allreduce_us", slowest_reduce},
      {"allreduce_exposed_us", most_exposed},
      // How much of the all-reduce the backward pass hid: 1 - exposed / all-reduce
      // time (0 with no overlap; noise can push a measured value past either end).
      {"allreduce_hidden_fraction", slowest_reduce > 0 ? 1.0 - most_exposed / slowest_reduce : 0.0},
      {"allreduce_busbw_GB/s", scaleout::allreduce_busbw_gbps(gradient_bytes, 1e-6 * slowest_reduce, n)},
      {"allreduce_algbw_GB/s", scaleout::allreduce_algbw_gbps(gradient_bytes, 1e-6 * slowest_reduce)},
      {"gradient_bytes", static_cast<double>(gradient_bytes)},
      {"buckets", static_cast<double>(dp.buckets)},
      {"samples/s", slowest_step > 0 ? 1e6 * static_cast<double>(s.global_batch) / slowest_step : 0.0},
      {"one_rank_step_us", one_rank_us},
      {"scaling_efficiency", scaleout::scaling_efficiency(one_rank_us, slowest_step, n)},
      {"params_max_abs_diff_between_ranks", max_over_ranks(per_rank, "params_max_abs_diff_vs_rank0")},
      {"params_max_abs_diff_vs_one_rank", vs_single.max_abs_difference},
      {"final_loss", per_rank[0]["final_loss"]}};
  nlohmann::json result = {{"counters", counters}, {"per_rank", per_rank}};
  judge_parameters(result, counters["params_max_abs_diff_between_ranks"].get<double>(), vs_single, s.tolerance,
                   static_cast<std::size_t>(s.steps) + 1);
  return result;
}

}  // namespace hdbench
