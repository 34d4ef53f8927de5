// The dataparallel family in hdbench, one rank each: the CPU data-parallel step (the
// baseline hdbench_mpi's ranks are compared with), and per selected GPU the GPU
// data-parallel step (NCCL, bucketed and overlapped with the backward pass, and not)
// and the NCCL all-reduce alone (bus bandwidth as nccl-tests defines it). N ranks run
// under MPI: `mpirun -np N hdbench_mpi` (bench/mpi/).
#include "dataparallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/grouped_timing.hpp"
#include "core/report.hpp"
#include "core/timing.hpp"
#include "dataparallel/dataparallel_description.hpp"
#include "dataparallel/dataparallel_math.hpp"
#include "dataparallel/gpu_step.hpp"
#include "dataparallel/nccl_allreduce.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench {
namespace {

constexpr int kNcclRepetitions = 20;

// What both steps' names begin with: "dataparallel/<processor>/<communicator>/<model>/
// batch:<B>/ranks:<N>"; the variant in the params (the NCCL all-reduce's shows it).
const std::vector<std::string> kStepNameOrder = {"processor", "communicator", "model", "batch", "ranks"};

std::vector<MlpShape> step_models(const DataParallelOptions& o) {
  std::vector<MlpShape> models;
  for (const std::string& model : o.models) models.push_back(parse_mlp_shape(model));
  return models;
}

// A data-parallel case run once with one rank: its figures are the medians of its
// own timed steps, so Google Benchmark's loop runs it once.
void run_one_rank(benchmark::State& state, const std::function<nlohmann::json(dataparallel::Communicator&)>& run) {
  dataparallel::SelfCommunicator self;
  for (auto _ : state) {
    const nlohmann::json result = run(self);
    if (result.contains("error_message")) {
      fail_benchmark(state, result["error_message"].get<std::string>());
      return;
    }
    for (const auto& [key, value] : result["counters"].items()) state.counters[key] = value.get<double>();
    state.SetIterationTime(1e-6 * result["counters"]["step_us"].get<double>());
  }
}

void run_cpu_case(benchmark::State& state, const DataParallelCase& c) {
  run_one_rank(state, [&](dataparallel::Communicator& self) { return run_data_parallel(self, c); });
}

// On the device the suite made current (one copy per selected GPU).
void run_gpu_case(benchmark::State& state, const GpuDataParallelCase& c) {
  run_one_rank(state, [&](dataparallel::Communicator& self) { return run_gpu_data_parallel(self, c); });
}

// One rank's NCCL all-reduce of `bytes` in `buckets`, on the current device, out of
// place (nccl-tests' out-of-place column): in place, one rank's sum is no work at all
// (NCCL launches nothing), out of place it is what a rank really does alone, a device
// copy of the buffer. Its time is reported; a bandwidth only where it crossed a link.
void run_nccl_allreduce(benchmark::State& state, const StoppingRule& rule, std::size_t bytes, int buckets,
                        double timeout_s) {
  dataparallel::SelfCommunicator self;
  dataparallel::NcclAllReduce nccl(self, timeout_s);
  const std::size_t count = bytes / sizeof(float);
  DeviceBuffer send(count * sizeof(float));
  DeviceBuffer recv(count * sizeof(float));
  fill_device_bytes(send.data(), 0, count * sizeof(float));
  Stream stream("nccl");
  Event start, stop;
  const auto enqueue = [&] { nccl.enqueue_sum(send.as<float>(), recv.as<float>(), count, buckets, stream.get()); };
  enqueue();  // warm-up: NCCL connects lazily
  nccl.wait(stream.get(), "NCCL warm-up all-reduce");
  const std::vector<double> seconds = time_grouped_calls(state, kNcclRepetitions, rule, [&](std::size_t calls) {
    start.record(stream.get());
    for (std::size_t i = 0; i < calls; ++i) enqueue();
    stop.record(stream.get());
    nccl.wait(stream.get(), "NCCL all-reduce");
    return 1e-3 * elapsed_ms(start, stop);
  });
  const double median = summarize(seconds).median;
  state.counters["allreduce_us"] = 1e6 * median;
  state.counters["ranks"] = nccl.size();
  if (const auto bw = dataparallel::allreduce_bandwidth(bytes, median, nccl.size())) {
    state.counters["allreduce_algbw_GB/s"] = bw->algbw_gbps;
    state.counters["allreduce_busbw_GB/s"] = bw->busbw_gbps;
  }
}

class DataParallelFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"dataparallel"}; }

  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_dataparallel_flags(flags, options_, limits, [](std::string_view flag, std::string_view model) {
      try {
        parse_mlp_shape(model);
      } catch (const MlpConfigError& error) {
        throw UsageError(fmt::format("--hdbench_{}: {}", flag, error.what()));
      }
    });
  }

  FamilyDescription describe(const std::string&) const override { return dataparallel_description(); }

  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    if (options_.cpu_step) {
      for_each_cpu_step_case(options_, seed, "self", 1, [&](const CaseId& id, const DataParallelCase& c) {
        suite.add(id.name(), id.params(), [c](benchmark::State& state) { run_cpu_case(state, c); })->Iterations(1);
      });
    }
    // One rank per selected GPU (add_gpu's copies), each alone: a single-rank
    // communicator's figures (no bandwidth: one rank crosses no link); several GPUs in
    // one communicator are hdbench_mpi's ranks.
    if (options_.gpu_step) {
      for_each_gpu_step_case(options_, seed, 1, [&](const CaseId& id, const GpuDataParallelCase& g) {
        suite.add_gpu(id.name(), id.params(), [g](benchmark::State& state) { run_gpu_case(state, g); })->Iterations(1);
      });
    }
    // The NCCL all-reduce alone, on one rank per selected GPU.
    const double timeout_s = options_.timeout_s;
    for_each_case(
        "dataparallel", {"variant", "bytes", "buckets", "ranks"},
        [&](CaseId& id, std::size_t bytes, int buckets, const std::string&, int, const std::string&) {
          id.param("collective", "ncclAllReduce").param("in_place", false);
          suite.add_gpu(id.name(), id.params(), [&suite, bytes, buckets, timeout_s](benchmark::State& state) {
            run_nccl_allreduce(state, suite.stopping_rule(), bytes, buckets, timeout_s);
          });
        },
        labelled_case_axis("bytes", options_.nccl_bytes), labelled_case_axis("buckets", options_.nccl_buckets),
        word_case_axis("variant", {"nccl_allreduce"}), labelled_case_axis("ranks", std::vector{1}),
        shown_as(word_case_axis("processor", {"gpu"}), Shown::hidden));
  }

  const DataParallelOptions& options() const noexcept { return options_; }

 private:
  DataParallelOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_dataparallel_family() { return std::make_unique<DataParallelFamily>(); }

const DataParallelOptions& dataparallel_options(const Family& family) {
  const auto* dp = dynamic_cast<const DataParallelFamily*>(&family);
  if (dp == nullptr) throw std::invalid_argument("not the dataparallel family");
  return dp->options();
}

void for_each_cpu_step_case(const DataParallelOptions& o, std::uint64_t seed, const std::string& communicator,
                            int ranks, const std::function<void(const CaseId&, const DataParallelCase&)>& body) {
  for_each_case(
      "dataparallel", kStepNameOrder,
      [&](CaseId& id, const MlpShape& model, int batch, const std::string&, const std::string&, int,
          const std::string&) {
        const auto global_batch = static_cast<std::size_t>(batch);
        id.param("collective", communicator == "mpi" ? "MPI_Allreduce" : "none")
            .param("shard_batch", global_batch / static_cast<std::size_t>(std::max(ranks, 1)))
            .param("threads", o.threads)
            .param("steps", o.steps)
            .param("optimizer", "sgd");
        body(id, {model, global_batch, o.steps, o.threads, seed, o.tolerance});
      },
      named_case_axis("model", step_models(o)), labelled_case_axis("batch", o.batches),
      word_case_axis("processor", {"cpu"}), word_case_axis("communicator", {communicator}),
      labelled_case_axis("ranks", std::vector{ranks}),
      shown_as(word_case_axis("variant", {"cpu_step"}), Shown::hidden));
}

void for_each_gpu_step_case(const DataParallelOptions& o, std::uint64_t seed, int ranks,
                            const std::function<void(const CaseId&, const GpuDataParallelCase&)>& body) {
  // Bucketed and overlapped with the backward pass, or one all-reduce after it.
  const CaseAxis<bool> overlap{"overlap",
                               {true, false},
                               [](const bool& on) { return nlohmann::json(on ? "bucketed" : "none"); },
                               [](const bool& on) { return std::string(on ? "bucketed" : "none"); },
                               Shown::labelled};
  for_each_case(
      "dataparallel", kStepNameOrder,
      [&](CaseId& id, const MlpShape& model, int batch, bool overlapped, const std::string&, const std::string&, int,
          const std::string&) {
        const auto global_batch = static_cast<std::size_t>(batch);
        id.param("collective", "ncclAllReduce")
            .param("shard_batch", global_batch / static_cast<std::size_t>(std::max(ranks, 1)))
            .param("bucket_bytes", o.bucket_bytes)
            .param("dtype", "fp32")
            .param("steps", o.steps)
            .param("optimizer", "sgd");
        const DataParallelCase step{model, global_batch, o.steps, o.threads, seed, o.tolerance};
        body(id, {step, overlapped, o.bucket_bytes, o.timeout_s});
      },
      named_case_axis("model", step_models(o)), labelled_case_axis("batch", o.batches), overlap,
      word_case_axis("processor", {"gpu"}), word_case_axis("communicator", {"nccl"}),
      labelled_case_axis("ranks", std::vector{ranks}),
      shown_as(word_case_axis("variant", {"gpu_step"}), Shown::hidden));
}

}  // namespace hdbench
