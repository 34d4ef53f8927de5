// The data loader family: batch size × worker count × pinning mode × prefetch depth ×
// per-sample cost × shuffle, each iteration one epoch from start_epoch() to the last
// batch consumed. The host consumer checksums each batch on the CPU (runs without a
// GPU); the GPU consumer copies it asynchronously and checksums it in a kernel. Every
// epoch's checksum is checked against a reference built sample by sample, so a lost,
// repeated or corrupted batch fails the benchmark instead of giving a number.
#include "pipeline/loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/host_memory.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/report_rows.hpp"
#include "core/spin_gate.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "loader/loader_derivations.hpp"
#include "loader/loader_description.hpp"
#include "loader/loader_options.hpp"
#include "loader_kernels.hpp"
#include "pipeline/data_options.hpp"
#include "pipeline/dataset.hpp"
#include "pipeline/device_feed.hpp"

namespace hdbench {
namespace {

struct LoaderCase {
  LoaderConsumer consumer = LoaderConsumer::host;
  PinMode pinning = PinMode::pageable;
  BatchBuild build = BatchBuild::whole;
  int batch = 0;
  int workers = 0;
  int depth = 0;
  double cost_us = 0.0;
  bool shuffle = true;
  Augment augment = Augment::none;
  std::string name = {};  // the case's, from its axes (for_each_case)
};

// The dataset (built or read once) and the reference checksums of the epochs.
class FamilyState {
 public:
  FamilyState(const DatasetSource& source, std::uint64_t seed) : source_(source), seed_(seed) {}

  const Dataset& dataset() {
    std::call_once(built_, [&] { dataset_ = load_training_set(source_, seed_); });
    return dataset_;
  }

  // The reference depends on the samples delivered and, with augmentation, on the
  // epoch. Without a dropped short batch every sample is delivered, whatever the batch
  // size, order or epoch; with one, which samples fall in it depends on all three.
  std::uint64_t expected_checksum(const LoaderConfig& config, std::size_t epoch) {
    const bool drops = config.drop_last && dataset().size() % config.batch_size != 0;
    const bool per_epoch = config.transform.augment != Augment::none || (drops && config.shuffle);
    const auto key = std::make_tuple(per_epoch ? epoch : 0, config.transform.augment, drops ? config.batch_size : 0,
                                     drops && config.shuffle);
    auto it = checksums_.find(key);
    if (it == checksums_.end()) {
      const Dataset& d = dataset();
      const auto ids = delivered_ids(d.size(), config.batch_size, config.shuffle, config.drop_last, config.seed, epoch);
      it = checksums_.emplace(key, epoch_checksum_reference(d, ids, epoch, config.transform)).first;
    }
    return it->second;
  }

 private:
  DatasetSource source_;
  std::uint64_t seed_;
  std::once_flag built_;
  Dataset dataset_;
  std::map<std::tuple<std::size_t, Augment, std::size_t, bool>, std::uint64_t> checksums_;
};

// How a batch asked to be built `asked` is built: whole where it cannot be split (a
// batch too small to split, or fewer than two workers to share it).
BatchBuild built_as(BatchBuild asked, int workers, int batch) {
  return parts_per_batch(asked, workers, static_cast<std::size_t>(batch)) > 1 ? asked : BatchBuild::whole;
}

// The builds a case can have: those asked for, and whole, which a batch that cannot be
// split falls back to. Whole batches keep the name they had before batches could be
// split (the build in the params only), so reports from before compare with them by name.
CaseAxis<BatchBuild> build_case_axis(std::vector<BatchBuild> asked) {
  if (std::find(asked.begin(), asked.end(), BatchBuild::whole) == asked.end()) asked.push_back(BatchBuild::whole);
  CaseAxis<BatchBuild> axis = named_case_axis("build", std::move(asked));
  axis.shown_for = [](const BatchBuild& b) { return b == BatchBuild::whole ? Shown::hidden : Shown::value; };
  return axis;
}

LoaderConfig make_config(const LoaderCase& c, const Options& o) {
  LoaderConfig config;
  config.batch_size = static_cast<std::size_t>(c.batch);
  config.workers = c.workers;
  config.prefetch_per_worker = c.depth;
  config.shuffle = c.shuffle;
  config.drop_last = false;  // PyTorch's default; the tests cover drop_last
  config.pin_mode = c.pinning;
  config.build = c.build;
  config.transform = {c.augment, c.cost_us, o.seed ^ 0xA5A5A5A5A5A5A5A5ULL};
  config.seed = o.seed;
  config.nvtx_prefix = c.name;  // ranges "<benchmark>/batch N/collate", as the timeline's convention
  return config;
}

// Consumes one epoch's batches and returns their checksum. The GPU consumer's sum is
// on the device; it is read after the epoch's timer stops.
class Consumer {
 public:
  Consumer(LoaderConsumer kind, const Loader& loader, std::size_t max_batch_bytes, const std::string& nvtx_prefix)
      : kind_(kind) {
    if (kind_ != LoaderConsumer::gpu) return;
    compute_.emplace("loader/compute");
    feed_.emplace(max_batch_bytes, loader.slot_count(), nvtx_prefix);
    total_.emplace(sizeof(unsigned long long));
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(total_->data(), 0, sizeof(unsigned long long), compute_->get()));
  }

  void consume(Loader& loader, const Batch& batch) {
    if (kind_ == LoaderConsumer::host) {
      host_sum_ += word_sum(batch.data, batch.bytes);
      loader.release();
      return;
    }
    const DeviceBatch on_device = feed_->push(loader, batch, compute_->get());
    kernels::add_word_sum(static_cast<const std::uint32_t*>(on_device.data), on_device.bytes / 4,
                          total_->as<unsigned long long>(), compute_->get());
    feed_->consumed(on_device, compute_->get());
  }

  // The epoch is over when the device has finished its last batch.
  void finish_epoch() {
    if (kind_ == LoaderConsumer::gpu) compute_->synchronize();
  }

  // The epoch's checksum, and a zero total for the next one.
  std::uint64_t take_checksum() {
    if (kind_ == LoaderConsumer::host) return std::exchange(host_sum_, 0);
    unsigned long long sum = 0;
    HDBENCH_CUDA_CHECK(cudaMemcpy(&sum, total_->data(), sizeof(sum), cudaMemcpyDeviceToHost));
    HDBENCH_CUDA_CHECK(cudaMemsetAsync(total_->data(), 0, sizeof(sum), compute_->get()));
    return sum;
  }

 private:
  LoaderConsumer kind_;
  std::uint64_t host_sum_ = 0;
  std::optional<Stream> compute_;
  std::optional<DeviceFeed> feed_;
  std::optional<DeviceBuffer> total_;
};

// The H2D copy of one batch alone, from host memory of the loader's kind, with nothing
// else running: back-to-back copies timed by events. Beside build_bound_samples/s (the
// collation alone) it names what bounds a GPU-fed epoch, as the fastest of a few trials
// (one trial of pageable copies, whose time varies several-fold, let the loader reach
// 1.2-3.6x its "bound" on an H100). Pinned copies are queued behind a spin gate and
// released together, so the host issuing them one by one is not timed: issued live on
// a busy 16-vCPU host, the 16 copies of a 128-sample batch once took 3x their time in
// every trial, and an 8-worker loader reached 1.39x that "bound". Pageable copies stage
// on the issuing thread, so they cannot queue behind a gate: their issue is their cost.
double copy_alone_samples_per_s(PinMode pinning, std::size_t batch_bytes, std::size_t batch_samples,
                                double spin_timeout_ms) {
  constexpr int kCopies = 16;
  constexpr int kTrials = 5;
  const bool pageable = pinning == PinMode::pageable;
  HostBuffer host(pageable ? HostMemoryKind::pageable : HostMemoryKind::pinned, batch_bytes);
  std::memset(host.data(), 1, batch_bytes);
  DeviceBuffer device(batch_bytes);
  Stream stream("loader/copy-alone");
  Event start;
  Event stop;
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), batch_bytes, cudaMemcpyHostToDevice, stream.get()));
  std::optional<SpinGate> gate;
  if (!pageable) gate.emplace(spin_timeout_ms);
  double seconds = 0.0;
  for (int trial = 0; trial < kTrials; ++trial) {
    if (gate) gate->close_and_enqueue(stream.get());
    start.record(stream.get());
    for (int i = 0; i < kCopies; ++i) {
      HDBENCH_CUDA_CHECK(
          cudaMemcpyAsync(device.data(), host.data(), batch_bytes, cudaMemcpyHostToDevice, stream.get()));
    }
    stop.record(stream.get());
    if (gate) gate->release();
    const double s = 1e-3 * static_cast<double>(elapsed_ms(start, stop));
    if (gate) gate->throw_if_timed_out("the batch copies were");
    seconds = trial == 0 ? s : std::min(seconds, s);
  }
  return seconds > 0.0 ? kCopies * static_cast<double>(batch_samples) / seconds : 0.0;
}

void set_loader_counters(benchmark::State& state, const Suite& suite, const LoaderCase& c, const Loader& loader,
                         const Dataset& dataset, const std::vector<double>& seconds, std::optional<double> copy_alone,
                         double drain_seconds) {
  const LoaderStats stats = loader.stats();
  const SampleStats epoch = summarize(seconds);
  const double total_seconds = epoch.mean * static_cast<double>(epoch.count);
  const double samples_per_epoch = static_cast<double>(dataset.size());
  const double bytes_per_sample = static_cast<double>(BatchLayout{dataset.pixels_per_sample()}.batch_bytes(1));
  const double batches = std::max<double>(1.0, static_cast<double>(stats.batches));
  const double samples_per_s = samples_per_epoch / epoch.median;
  auto& k = state.counters;
  k["samples/s"] = samples_per_s;
  k["batch_GB/s"] = samples_per_s * bytes_per_sample / 1e9;
  k["epoch_ms"] = 1e3 * epoch.median;
  k["cv_percent"] = 100.0 * epoch.cv;
  k["samples"] = static_cast<double>(epoch.count);
  k["stall_us_per_batch"] = 1e6 * stats.consumer_wait_seconds / batches;
  k["worker_busy_percent"] = 100.0 * stats.build_seconds / (total_seconds * std::max(1, c.workers));
  k["queue_occupancy_batches"] = stats.ready_batches_sum / batches;
  // What the consumer's own work per batch allows (its time outside next()'s wait and the
  // epoch's drain): when samples/s is near it, the consumer is the bound and more workers
  // cannot help. The drain is the device's, not the consumer's: counted in, a copy-bound
  // epoch's backlog read as consumer time (64 µs a batch at 16 workers on the H200 host of
  // 2026-11-26, where a batch's copy alone takes 61 µs).
  const double consumer_seconds = std::max(0.0, total_seconds - stats.consumer_wait_seconds - drain_seconds);
  if (c.consumer == LoaderConsumer::gpu) {
    k["epoch_drain_us"] = 1e6 * drain_seconds / std::max<double>(1.0, static_cast<double>(epoch.count));
  }
  k["consumer_us_per_batch"] = 1e6 * consumer_seconds / batches;
  if (consumer_seconds > 0.0) {
    k["consumer_bound_samples/s"] = static_cast<double>(stats.samples) / consumer_seconds;
  }
  k["idle_wakeups_per_batch"] = static_cast<double>(stats.idle_wakeups) / batches;
  // Where a copy-bound epoch's time goes beside the copies: the fill before the first
  // batch (paid once an epoch) and the builders' waits for the copy that last read a
  // slot (slot reuse waiting on the copy engine).
  if (stats.epochs > 0) k["first_batch_us"] = 1e6 * stats.first_batch_seconds / static_cast<double>(stats.epochs);
  k["fence_wait_us_per_batch"] = 1e6 * stats.fence_seconds / batches;
  k["parts_per_batch"] = static_cast<double>(stats.parts_built) / batches;
  // Above 1, the loader's threads (workers, consumer, pin thread) outnumber the cores:
  // a worker descheduled in the middle of the batch the consumer waits for holds up
  // the batches built after it, so more workers cost time instead of saving it.
  const int loader_threads = c.workers + 1 + (c.pinning == PinMode::pin_thread && c.workers > 0 ? 1 : 0);
  k["threads_per_core"] = static_cast<double>(loader_threads) / std::max(1, suite.system().host.logical_cores);
  k["pinned_MiB_held"] = static_cast<double>(loader.pinned_bytes_held()) / (1 << 20);
  k["host_MiB_held"] = static_cast<double>(loader.host_bytes_held()) / (1 << 20);
  const double cpu_seconds_per_sample =
      stats.build_cpu_seconds / std::max<double>(1.0, static_cast<double>(stats.samples));
  k["cpu_us_per_sample"] = 1e6 * cpu_seconds_per_sample;
  if (c.pinning == PinMode::pin_thread) k["pin_us_per_batch"] = 1e6 * stats.pin_seconds / batches;
  // The floor: builders never idle, each sample costing what it cost here, on no more
  // builders than the machine has cores.
  const int builders = std::min(std::max(1, c.workers), suite.system().host.logical_cores);
  if (cpu_seconds_per_sample > 0.0) {
    const double bound = builders / cpu_seconds_per_sample;
    k["build_bound_samples/s"] = bound;
    // Against the mean epoch's rate, not the median's: the bound's CPU time per sample is
    // the mean over every epoch, so a slow epoch raises it while the median epoch may be a
    // fast one; held against the median, the rate beat its "bound" (1.09 on an H100 host,
    // 2 workers at batch 1024). Over the same epochs the builders' CPU time cannot exceed
    // their number times the wall time.
    k["fraction_of_build_bound"] = (samples_per_epoch / epoch.mean) / bound;
  }
  if (c.consumer == LoaderConsumer::gpu) {
    if (const double link = system::pcie_link_gbps(suite.current_gpu()->link_max); link > 0.0) {
      k["link_bound_samples/s"] = link * 1e9 / bytes_per_sample;
    }
    if (copy_alone && *copy_alone > 0.0) {
      k["copy_alone_samples/s"] = *copy_alone;
      k["fraction_of_copy_alone"] = samples_per_s / *copy_alone;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(samples_per_epoch * static_cast<double>(epoch.count)));
}

void run_loader_case(benchmark::State& state, const Suite& suite, FamilyState& family, const LoaderCase& c) {
  const Dataset& dataset = family.dataset();
  const LoaderConfig config = make_config(c, suite.options());
  const std::size_t batch_bytes = BatchLayout{dataset.pixels_per_sample()}.batch_bytes(config.batch_size);
  const bool gpu = c.consumer == LoaderConsumer::gpu;
  if (const auto shortfall =
          memory_shortfall(planned_slot_bytes(config, dataset.pixels_per_sample()), gpu ? 2 * batch_bytes : 0)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  std::optional<double> copy_alone;
  if (gpu)
    copy_alone = copy_alone_samples_per_s(c.pinning, batch_bytes, config.batch_size, suite.options().spin_timeout_ms);
  Loader loader(dataset, config);
  Consumer consumer(c.consumer, loader, batch_bytes, config.nvtx_prefix);
  const std::string timed_range = config.nvtx_prefix + "/timed";
  const std::size_t epoch_bytes = BatchLayout{dataset.pixels_per_sample()}.batch_bytes(dataset.size());
  std::vector<std::pair<std::size_t, std::uint64_t>> checksums;  // (epoch, sum)
  std::size_t epoch = 0;
  double drain_seconds = 0.0;  // the epochs' ends: the device finishing what was issued
  const std::vector<double> seconds = run_samples(state, suite.stopping_rule(), [&] {  // a sample is one epoch
    nvtx::ScopedRange range(kLoaderNvtx, timed_range, epoch_bytes);
    HostTimer timer;
    loader.start_epoch(epoch);
    while (const std::optional<Batch> batch = loader.next()) consumer.consume(loader, *batch);
    const double issued = timer.elapsed_seconds();
    consumer.finish_epoch();
    const double elapsed = timer.elapsed_seconds();
    drain_seconds += elapsed - issued;
    checksums.emplace_back(epoch, consumer.take_checksum());
    ++epoch;
    return elapsed;
  });
  for (const auto& [e, sum] : checksums) {
    const std::uint64_t expected = family.expected_checksum(config, e);
    if (sum != expected) {
      fail_benchmark(state, fmt::format("epoch {} delivered checksum {:#x}, expected {:#x}: a batch was lost, "
                                        "repeated or corrupted",
                                        e, sum, expected));
      return;
    }
  }
  set_loader_counters(state, suite, c, loader, dataset, seconds, copy_alone, drain_seconds);
}

// Per consumer, pinning mode and per-sample cost: the fastest batch size and worker
// count, and what the workers bought over building on the consumer thread.
void print_loader_scaling(const nlohmann::json& derived, bool several_gpus) {
  if (!derived.contains("loader_scaling")) return;
  const nlohmann::json& rows = derived["loader_scaling"];
  std::map<std::tuple<std::string, int, std::string, double>, const nlohmann::json*> best;
  for (const auto& row : rows) {
    const auto key = std::make_tuple(row["consumer"].get<std::string>(), row.value("device", -1),
                                     row["pinning"].get<std::string>(), row["sample_cost_us"].get<double>());
    auto& chosen = best[key];
    if (chosen == nullptr || row["best_samples/s"].get<double>() > (*chosen)["best_samples/s"].get<double>()) {
      chosen = &row;
    }
  }
  fmt::print("Data loader (best batch size and worker count):\n");
  for (const auto& [key, row] : best) {
    const auto& [consumer, device, pinning, cost] = key;
    const int workers = (*row)["best_workers"].get<int>();
    std::string line = fmt::format("  {:<4}{} {:<10} cost {:>5} us/sample: {:.0f} samples/s at batch {}, {} workers",
                                   consumer, device_tag(*row, several_gpus), pinning, cost,
                                   (*row)["best_samples/s"].get<double>(), (*row)["batch"].get<int>(), workers);
    if (workers >= 2) line += fmt::format(", {} batches", (*row)["build"].get<std::string>());
    const auto& cell = (*row)["by_workers"][std::to_string(workers)];
    if (cell.contains("speedup_vs_0_workers")) {
      line += fmt::format(" (x{:.2f} over 0 workers)", cell["speedup_vs_0_workers"].get<double>());
    }
    fmt::print("{}\n", line);
  }
}

void register_loader(Suite& suite, const LoaderOptions& o, const DataOptions& data_options) {
  const DatasetSource data = resolve_dataset(data_options);
  auto family = std::make_shared<FamilyState>(data, suite.options().seed);
  if (data.idx()) {
    // Read now, so a missing or malformed file is a usage error before anything runs.
    try {
      family->dataset();
    } catch (const DatasetError& error) {
      throw dataset_usage_error(data_options, error);
    }
  }
  const CaseAxis<bool> shuffle{"shuffle", o.shuffle, [](const bool& on) { return nlohmann::json(on); },
                               [](const bool& on) { return std::string(on ? "shuffle" : "sequential"); }};
  for_each_case(
      "loader", {"consumer", "pinning", "batch", "workers", "prefetch_depth", "sample_cost_us", "shuffle", "augment"},
      [&](CaseId& id, LoaderConsumer consumer, PinMode pinning, int batch, int workers, int depth, BatchBuild build,
          double cost, bool shuffled, Augment augment) {
        // Page-locked memory only speeds up a copy to the device; the host consumer
        // reads pageable batches.
        if (consumer == LoaderConsumer::host && pinning != PinMode::pageable) return;
        // With no workers nothing is built ahead: one depth says it all.
        if (workers == 0 && depth != o.depths.front()) return;
        // Only the builds asked for as they come out here: a batch that cannot be split
        // is built whole however it was asked for, and one case says it all.
        if (std::none_of(o.builds.begin(), o.builds.end(),
                         [&](BatchBuild asked) { return built_as(asked, workers, batch) == build; })) {
          return;
        }
        if (o.costed_one_pinning && cost > 0.0 && consumer == LoaderConsumer::gpu && pinning != PinMode::pin_thread) {
          return;  // build-bound: pinning is answered where the copy is the bound (cost 0)
        }
        // Which data the case loads: in the params, not the name (one dataset per run).
        id.param("implementation", "hdbench").param("dataset", data.kind).param("dataset_name", data.name);
        if (data.idx()) id.param("dataset_dir", data.dir);
        if (!data.idx()) id.param("samples", data.samples);
        const LoaderCase c{consumer, pinning, build, batch, workers, depth, cost, shuffled, augment, id.name()};
        auto fn = [&suite, family, c](benchmark::State& state) { run_loader_case(state, suite, *family, c); };
        if (consumer == LoaderConsumer::gpu) {
          suite.add_gpu(id.name(), id.params(), fn);  // add_gpu adds the device
        } else {
          suite.add(id.name(), id.params(), fn);
        }
      },
      named_case_axis("consumer", o.consumers), named_case_axis("pinning", o.pinning),
      labelled_case_axis("batch", o.batches), labelled_case_axis("workers", o.workers),
      labelled_case_axis("prefetch_depth", o.depths, "depth"), build_case_axis(o.builds),
      labelled_case_axis("sample_cost_us", o.costs_us, "cost_us"), shuffle, named_case_axis("augment", o.augments));
  suite.add_derivation(derive_loader_scaling);
  suite.add_console_summary(print_loader_scaling);
}

class LoaderFamily final : public Family {
 public:
  explicit LoaderFamily(const DataOptions& data) : data_(data) {}
  std::vector<std::string> names() const override { return {"loader"}; }
  void declare_flags(FlagParser& flags, const OptionLimits&) override { declare_loader_flags(flags, options_); }
  FamilyDescription describe(const std::string&) const override { return loader_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override { register_loader(suite, options_, data_); }

 private:
  LoaderOptions options_;
  const DataOptions& data_;
};

}  // namespace

std::unique_ptr<Family> make_loader_family(const DataOptions& data) { return std::make_unique<LoaderFamily>(data); }

}  // namespace hdbench
