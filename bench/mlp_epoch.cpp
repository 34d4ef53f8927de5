// The MLP family end to end: whole epochs of loader → (copy →) training step, with
// the loader's worker count and pinning mode as axes. One iteration is one epoch,
// timed on the host clock from start_epoch() to the last step finished (on the GPU,
// to the device finishing it), so the pipeline's fill is included, as in a real
// loop. After timing, the trained parameters are scored on held-out samples on the
// CPU, the same way for both processors.
#include <fmt/format.h>

#include <numeric>
#include <optional>

#include "core/cuda.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp_bench.hpp"
#include "pipeline/batch_plan.hpp"
#include "pipeline/device_feed.hpp"
#include "pipeline/loader.hpp"

namespace hdbench {
namespace {

struct EpochCase {
  Processor processor = Processor::cpu;
  MlpShape model;
  MlpDtype dtype = MlpDtype::fp32;
  OptimizerKind optimizer = OptimizerKind::sgd;
  int batch = 0;
  int workers = 0;
  PinMode pinning = PinMode::pageable;
  int threads = 0;        // of the CPU step; 0: the thread sweep's choice for the model and batch
  std::string name = {};  // the case's, from its axes (for_each_case)
};

LoaderConfig loader_config(const EpochCase& c, const Options& o) {
  LoaderConfig config;
  config.batch_size = static_cast<std::size_t>(c.batch);
  config.workers = c.workers;
  config.prefetch_per_worker = 2;
  config.shuffle = true;
  config.pin_mode = c.pinning;
  config.seed = o.seed;
  config.nvtx_prefix = c.name;
  return config;
}

// Trains on the loader's batches: on the CPU directly from the slot, on the GPU
// through DeviceFeed's copy stream, with an event pair around each step for the
// GPU's busy time.
class Trainer {
 public:
  Trainer(const EpochCase& c, int threads, const Loader& loader, const Dataset& data, std::uint64_t seed)
      : processor_(c.processor), layout_{data.pixels_per_sample()} {
    const auto init = initial_parameters(c.model, seed);
    const auto batch = static_cast<std::size_t>(c.batch);
    const std::string name = c.name;
    if (processor_ == Processor::cpu) {
      cpu_.emplace(c.model, default_optimizer(c.optimizer), batch, threads, init);
      cpu_->name_ranges(name);
      return;
    }
    compute_.emplace("mlp/compute");
    feed_.emplace(layout_.batch_bytes(batch), loader.slot_count(), name);
    gpu_.emplace(c.model, default_optimizer(c.optimizer), c.dtype, batch, init, compute_->get());
    gpu_->name_ranges(name);
    events_.resize(2 * batches_per_epoch(data.size(), batch, false));
    // cuBLASLt plans are made per batch size on first use; make them now for the full
    // and the short final batch, so no epoch times a heuristic query. Gradients
    // alone: the parameters stay as initialised.
    DeviceBuffer scratch(layout_.batch_bytes(batch));
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), compute_->get()));
    for (std::size_t n : {batch, data.size() % batch}) {
      if (n == 0) continue;
      gpu_->compute_gradients(scratch.as<const float>(), layout_.labels(scratch.data(), n), n);
    }
    compute_->synchronize();
  }

  void train(Loader& loader, const Batch& batch) {
    if (processor_ == Processor::cpu) {
      const StepResult r =
          cpu_->step(static_cast<const float*>(batch.data), layout_.labels(batch.data, batch.samples), batch.samples);
      loss_sum_ += r.loss;
      ++steps_;
      loader.release();
      return;
    }
    const DeviceBatch on_device = feed_->push(loader, batch, compute_->get());
    const std::size_t e = 2 * (steps_ % (events_.size() / 2));
    HDBENCH_CUDA_CHECK(cudaEventRecord(events_[e].get(), compute_->get()));
    gpu_->step(static_cast<const float*>(on_device.data), layout_.labels(on_device.data, on_device.samples),
               on_device.samples);
    HDBENCH_CUDA_CHECK(cudaEventRecord(events_[e + 1].get(), compute_->get()));
    feed_->consumed(on_device, compute_->get());
    ++steps_;
  }

  // Waits for the device; returns the seconds the GPU spent in steps this epoch.
  double finish_epoch() {
    if (processor_ == Processor::cpu) return 0.0;
    compute_->synchronize();
    double busy = 0.0;
    for (std::size_t i = 0; i < steps_ && 2 * i < events_.size(); ++i)
      busy += elapsed_ms(events_[2 * i], events_[2 * i + 1]) / 1e3;
    return busy;
  }

  void start_epoch() {
    steps_ = 0;
    loss_sum_ = 0.0;
  }
  std::vector<float> parameters() {
    if (processor_ == Processor::cpu) return {cpu_->parameters().begin(), cpu_->parameters().end()};
    return gpu_->parameters();
  }
  // The mean training loss of the epoch (CPU), or the last step's (GPU: reading each
  // step's loss would synchronise every step).
  double training_loss() {
    if (processor_ == Processor::cpu) return steps_ ? loss_sum_ / static_cast<double>(steps_) : 0.0;
    return gpu_->last_result().loss;
  }

 private:
  Processor processor_;
  BatchLayout layout_;
  std::optional<CpuMlp> cpu_;
  std::optional<Stream> compute_;
  std::optional<DeviceFeed> feed_;
  std::optional<GpuMlp> gpu_;
  std::vector<Event> events_;
  std::size_t steps_ = 0;
  double loss_sum_ = 0.0;
};

void run_epoch(benchmark::State& state, const Suite& suite, MlpRun& family, const EpochCase& c) {
  const Options& o = suite.options();
  const Dataset& data = family.data.train();
  const LoaderConfig config = loader_config(c, o);
  const bool gpu = c.processor == Processor::gpu;
  const std::size_t batch_bytes = BatchLayout{data.pixels_per_sample()}.batch_bytes(config.batch_size);
  const std::size_t device_bytes =
      gpu ? GpuMlp::device_bytes_needed(c.model, c.optimizer, c.dtype, config.batch_size) + 2 * batch_bytes : 0;
  if (const auto shortfall = memory_shortfall(planned_slot_bytes(config, data.pixels_per_sample()), device_bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  // The CPU step's threads: those given, or the sweep's choice (measured once, before the loader starts)
  // within the cores the loader's workers leave (epoch_step_threads).
  const int threads = gpu         ? family.options.cores
                      : c.threads ? c.threads
                                  : epoch_step_threads(cpu_thread_choice(family, c.model, c.batch, c.optimizer).threads,
                                                       family.options.cores, c.workers);
  Loader loader(data, config);
  Trainer trainer(c, threads, loader, data, family.seed);
  std::vector<double> seconds;
  double busy_seconds = 0.0;
  double training_loss = 0.0;
  std::size_t epoch = 0;
  const std::string timed_range = config.nvtx_prefix + "/timed";
  const std::size_t epoch_bytes = BatchLayout{data.pixels_per_sample()}.batch_bytes(data.size());
  seconds = run_samples(state, suite.stopping_rule(), [&] {  // a sample is one epoch
    nvtx::ScopedRange range(kMlpNvtx, timed_range, epoch_bytes);
    HostTimer timer;
    trainer.start_epoch();
    loader.start_epoch(epoch++);
    while (const std::optional<Batch> batch = loader.next()) trainer.train(loader, *batch);
    busy_seconds += trainer.finish_epoch();
    const double elapsed = timer.elapsed_seconds();
    training_loss = trainer.training_loss();
    return elapsed;
  });
  const SampleStats s = summarize(seconds);
  const double total = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  const LoaderStats stats = loader.stats();
  auto& k = state.counters;
  k["samples/s"] = static_cast<double>(data.size()) / s.median;
  k["epoch_ms"] = 1e3 * s.median;
  k["cv_percent"] = 100.0 * s.cv;
  k["samples"] = static_cast<double>(s.count);
  k["epochs_trained"] = static_cast<double>(epoch);
  k["stall_us_per_batch"] =
      1e6 * stats.consumer_wait_seconds / std::max<double>(1.0, static_cast<double>(stats.batches));
  k["training_loss"] = training_loss;
  if (!gpu) k["threads"] = threads;
  if (gpu) k["gpu_busy_percent"] = 100.0 * busy_seconds / total;
  const std::vector<float> trained = trainer.parameters();
  if (const Dataset* held_out = family.data.held_out()) {
    const Evaluation score = evaluate_on_cpu(c.model, trained, *held_out, threads);
    k["held_out_loss"] = score.loss;
    k["accuracy_percent"] = 100.0 * score.accuracy;
    if (!std::isfinite(score.loss)) {
      fail_benchmark(state, "the held-out loss is not finite after training: the step is broken");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(data.size() * s.count));
}

}  // namespace

void register_mlp_epochs(Suite& suite, const std::shared_ptr<MlpRun>& family, const DataOptions& data_options) {
  const DatasetSource& data = family->data.source();
  if (data.idx()) {
    // Read now, so a missing or malformed file is a usage error before anything runs.
    try {
      family->data.train();
      family->data.held_out();
    } catch (const DatasetError& error) {
      throw dataset_usage_error(data_options, error);
    }
  }
  const MlpOptions& m = family->options;
  // One epoch case; add_gpu adds a GPU case's device.
  const auto add_epoch = [&](CaseId& id, const EpochCase& c) {
    id.param("implementation", "hdbench").param("prefetch_depth", 2);  // the loader's depth (loader_config)
    id.param("dataset", data.kind).param("dataset_name", data.name);
    if (data.idx()) id.param("dataset_dir", data.dir);
    auto fn = [&suite, family, c](benchmark::State& state) { run_epoch(state, suite, *family, c); };
    if (c.processor == Processor::gpu) {
      suite.add_gpu(id.name(), id.params(), fn);
    } else {
      suite.add(id.name(), id.params(), fn);
    }
  };
  // "mlp/epoch/<processor>/<model>/<dtype>/<optimizer>/pinning:<mode>/workers:<n>/batch:<n>",
  // a CPU epoch's threads after; each epoch trains eagerly in the first dtype (the CPU:
  // fp32), optimizer and CPU thread count asked for.
  const std::vector<std::string> name_order = {"variant", "processor", "model", "dtype",  "optimizer",
                                               "pinning", "workers",   "batch", "threads"};
  for (const Processor processor : m.processors) {  // a grid each: a CPU epoch has threads
    if (processor == Processor::cpu) {
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, Processor, const MlpShape& model, int batch, int workers, PinMode pinning, int threads,
              const std::string&, MlpDtype dtype, OptimizerKind optimizer, StepMode) {
            if (pinning != PinMode::pageable) return;  // the CPU step reads the batch where the workers built it
            add_epoch(id, {processor, model, dtype, optimizer, batch, workers, pinning, threads, id.name()});
          },
          named_case_axis("processor", std::vector{processor}), named_case_axis("model", m.epoch_models),
          labelled_case_axis("batch", m.epoch_batches), labelled_case_axis("workers", m.epoch_workers),
          shown_as(named_case_axis("pinning", m.epoch_pinning), Shown::labelled),
          threads_case_axis({m.threads.empty() ? 0 : m.threads.front()}), word_case_axis("variant", {"epoch"}),
          named_case_axis("dtype", std::vector{MlpDtype::fp32}),
          named_case_axis("optimizer", std::vector{m.optimizers.front()}),
          shown_as(named_case_axis("mode", std::vector{StepMode::eager}), Shown::hidden));
    } else {
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, Processor, const MlpShape& model, int batch, int workers, PinMode pinning, const std::string&,
              MlpDtype dtype, OptimizerKind optimizer, StepMode) {
            add_epoch(id, {processor, model, dtype, optimizer, batch, workers, pinning, 0, id.name()});
          },
          named_case_axis("processor", std::vector{processor}), named_case_axis("model", m.epoch_models),
          labelled_case_axis("batch", m.epoch_batches), labelled_case_axis("workers", m.epoch_workers),
          shown_as(named_case_axis("pinning", m.epoch_pinning), Shown::labelled), word_case_axis("variant", {"epoch"}),
          named_case_axis("dtype", std::vector{m.dtypes.front()}),
          named_case_axis("optimizer", std::vector{m.optimizers.front()}),
          shown_as(named_case_axis("mode", std::vector{StepMode::eager}), Shown::hidden));
    }
  }
}

}  // namespace hdbench
