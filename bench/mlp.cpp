// The MLP family's training steps: forward, softmax cross-entropy, backward and the
// optimizer update, on the CPU (OpenBLAS) and the GPU (cuBLASLt), across models ×
// batch sizes × dtypes × optimizers × eager/graph × where the batch starts, beside
// the GEMM rate measured in the same run. The steps train on real samples of the
// dataset (a pool of four batches, cycled); a non-finite loss fails the benchmark.
//
// One timed sample is a group of back-to-back steps (enough for ~2 ms), so a step of
// a few microseconds is timed by its throughput, as a training loop runs it, not by
// one launch's latency. An iteration's time (real_time) is its whole group, so
// --benchmark_min_time bounds the time spent; the per-step figures are counters.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <span>
#include <thread>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/fma_roof.hpp"
#include "core/grouped_timing.hpp"
#include "core/host_memory.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "mlp/cpu_threads.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp/mlp_fused.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp_bench.hpp"
#include "pipeline/batch_plan.hpp"

namespace hdbench {

namespace {

constexpr std::size_t kPoolBatches = 4;
constexpr int kCpuGemmSize = 2048;
constexpr int kGpuGemmSize = 8192;
// The thread sweep: a step this slow is timed once a round; faster ones for at least
// three steps and kSweepSeconds a round (kSweepRounds of them), so the sweep stays
// short beside the benchmark.
constexpr double kSweepSlowStep = 0.25;
constexpr double kSweepSeconds = 0.01;

// The CPU's rate per thread count, each GPU's per dtype.
std::string rate_key(Processor processor, MlpDtype dtype, int threads_or_device) {
  return processor == Processor::cpu ? fmt::format("cpu/{}", threads_or_device)
                                     : fmt::format("gpu:{}/{}", threads_or_device, to_string(dtype));
}

struct StepCase {
  Processor processor = Processor::cpu;
  MlpShape model;
  MlpDtype dtype = MlpDtype::fp32;
  OptimizerKind optimizer = OptimizerKind::sgd;
  StepMode mode = StepMode::eager;
  BatchSource data = BatchSource::device;
  int batch = 0;
  int threads = 0;        // CPU only; 0: the thread sweep's choice
  int busy = 0;           // CPU only: busy threads of our own beside the timed step
  std::string name = {};  // the case's, from its axes (for_each_case)
};

// Threads that spin until destroyed: a host whose cores are taken by someone else.
class BusyThreads {
 public:
  explicit BusyThreads(int count) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([this] {
        std::uint64_t spins = 0;
        while (!stop_.load(std::memory_order_relaxed)) benchmark::DoNotOptimize(++spins);
      });
    }
  }
  ~BusyThreads() { stop_ = true; }  // the jthreads join after the flag is set

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::jthread> threads_;  // last: joined before stop_ is destroyed
};

// The CPU's measured fp32 roof at `threads` for work that ran at `tflops`, and the share
// of it the work reached; the roof is measured again first when the work beat it, and
// the share left out when it still does (the report's note says the roof is wrong).
void set_roof_counters(benchmark::State& state, double tflops, int threads) {
  const double roof = this_machine_roof_for(threads, tflops * 1e3) / 1e3;
  if (roof <= 0) return;
  state.counters["fp32_roof_TFLOP/s"] = roof;
  if (tflops <= roof) state.counters["fraction_of_fp32_roof"] = tflops / roof;
}

// Per-step figures from per-step sample times (each sample's group time / its steps);
// false (and the benchmark failed) when the first or last loss is not finite.
bool report_step(benchmark::State& state, const StepCase& c, const std::vector<double>& seconds,
                 std::size_t steps_per_sample, StepResult first, StepResult last, std::optional<double> gemm_tflops,
                 int cpu_threads = 0) {
  if (!std::isfinite(first.loss) || !std::isfinite(last.loss)) {
    fail_benchmark(
        state, fmt::format("the loss is not finite (first {}, last {}): the step is broken", first.loss, last.loss));
    return false;
  }
  const SampleStats s = summarize(seconds);
  const double flops = training_step_flops(c.model, static_cast<std::size_t>(c.batch));
  auto& k = state.counters;
  k["step_us"] = 1e6 * s.median;
  k["step_best_us"] = 1e6 * s.min;
  k["samples/s"] = c.batch / s.median;
  k["TFLOP/s"] = flops / s.median / 1e12;
  k["cv_percent"] = 100.0 * s.cv;
  k["samples"] = static_cast<double>(s.count);
  k["steps_per_sample"] = static_cast<double>(steps_per_sample);
  k["first_loss"] = first.loss;
  k["final_loss"] = last.loss;
  if (gemm_tflops && *gemm_tflops > 0) {
    k["gemm_TFLOP/s"] = *gemm_tflops;
    k["fraction_of_gemm_rate"] = flops / s.median / 1e12 / *gemm_tflops;
  }
  // Against the hardware's limit (the CPU's measured FMA roof at the step's threads),
  // not only a measured sgemm.
  if (cpu_threads > 0) set_roof_counters(state, flops / s.median / 1e12, cpu_threads);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * c.batch);  // iterations count steps
  return true;
}

// The CPU step's profile as counters, per step: each phase's wall time, the team runs'
// hand-over, each thread's busy time.
void set_phase_counters(benchmark::State& state, const CpuStepProfile& profile) {
  if (profile.steps == 0) return;
  const double per_step = 1e6 / static_cast<double>(profile.steps);
  double handover = 0.0;
  for (int p = 0; p < kCpuStepPhases; ++p) {
    const auto phase = static_cast<std::size_t>(p);
    state.counters[fmt::format("phase_us/{}", to_string(static_cast<CpuStepPhase>(p)))] =
        per_step * profile.wall_seconds[phase];
    handover += profile.handover_seconds[phase];
  }
  state.counters["handover_us"] = per_step * handover;
  state.counters["profiled_step_us"] = per_step * profile.step_seconds;
  for (std::size_t t = 0; t < profile.busy_seconds.size(); ++t) {
    double busy = 0.0;
    for (const double seconds : profile.busy_seconds[t]) busy += seconds;
    state.counters[fmt::format("thread_busy_us/thread:{}", t)] = per_step * busy;
  }
}

// Enough back-to-back steps for one sample to last `sample_seconds`.
std::size_t steps_for(double seconds_per_step, double sample_seconds) {
  return static_cast<std::size_t>(
      std::clamp(std::ceil(sample_seconds / std::max(seconds_per_step, 1e-9)), 1.0, 1000.0));
}

// Four batches of real samples in `kind` memory (for the CPU, pageable).
std::vector<HostBuffer> batch_pool(const Dataset& data, std::size_t batch, HostMemoryKind kind) {
  const BatchLayout layout{data.pixels_per_sample()};
  std::vector<HostBuffer> pool;
  for (std::size_t i = 0; i < kPoolBatches; ++i) {
    pool.emplace_back(kind, layout.batch_bytes(batch));
    collate_range(data, i * batch, batch, pool.back().data());
  }
  return pool;
}

void run_cpu_step(benchmark::State& state, const StoppingRule& rule, MlpRun& family, const StepCase& c) {
  const Dataset& data = family.data.train();
  const auto batch = static_cast<std::size_t>(c.batch);
  const BatchLayout layout{data.pixels_per_sample()};
  const std::size_t parameters = make_parameter_layout(c.model).total;
  const std::size_t host_bytes =
      kPoolBatches * layout.batch_bytes(batch) + 4 * parameters * sizeof(float) +
      3 * batch * static_cast<std::size_t>(c.model.widest()) * c.model.layers() * sizeof(float);
  if (const auto shortfall = memory_shortfall(host_bytes, 0)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  // The threads given, or the sweep's choice (measured before this step's buffers exist).
  const ThreadChoice* choice = c.threads ? nullptr : &cpu_thread_choice(family, c.model, c.batch, c.optimizer);
  const int threads = choice ? choice->threads : c.threads;
  std::vector<HostBuffer> pool = batch_pool(data, batch, HostMemoryKind::pageable);
  CpuMlp mlp(c.model, default_optimizer(c.optimizer), batch, threads, initial_parameters(c.model, family.seed));
  mlp.name_ranges(c.name);
  std::size_t next = 0;
  const auto one_step = [&] {
    const HostBuffer& b = pool[next++ % kPoolBatches];
    return mlp.step(b.as<float>(), layout.labels(b.data(), batch), batch);
  };
  const BusyThreads busy(c.busy);  // from the warm-up on: the step meets a busy host throughout
  const StepResult first = one_step();
  HostTimer warm;
  one_step();
  const std::size_t group = steps_for(warm.elapsed_seconds(), 1e-3 * family.options.sample_ms);
  const std::string range = c.name + "/timed";
  StepResult last = first;
  const std::vector<double> seconds = time_grouped_calls(state, group, rule, [&](std::size_t steps) {
    nvtx::ScopedRange timed(kMlpNvtx, range, steps * layout.batch_bytes(batch));
    HostTimer timer;
    for (std::size_t i = 0; i < steps; ++i) last = one_step();
    return timer.elapsed_seconds();
  });
  std::optional<double> gemm = family.gemm_rate(rate_key(Processor::cpu, c.dtype, threads));
  if (!gemm) gemm = family.gemm_rate(rate_key(Processor::cpu, c.dtype, family.options.cores));  // the sweep's GEMM
  if (!report_step(state, c, seconds, group, first, last, gemm, threads)) return;
  state.counters["threads"] = threads;
  // Where the step's time goes: a few more groups of steps, profiled, after the timed ones
  // (so the clock reads cost the timed steps nothing).
  CpuStepProfile profile;
  mlp.profile_into(&profile);
  for (std::size_t i = 0; i < std::max<std::size_t>(5 * group, 5); ++i) last = one_step();
  mlp.profile_into(nullptr);
  set_phase_counters(state, profile);
  if (choice) {
    for (const ThreadTiming& t : choice->sweep) {
      state.counters[fmt::format("sweep_step_us/threads:{}", t.threads)] = 1e6 * t.seconds_per_step;
      state.counters[fmt::format("sweep_noise_percent/threads:{}", t.threads)] = 100.0 * t.noise;
    }
  }
}

// The timed loop of a GPU step, GpuMlp's or FusedMlp's: the first step's loss, a warm-up
// that sizes the group, the grouped samples timed by CUDA events, the per-step figures.
// Modes graph and fused replay the step captured once; eager enqueues it each time.
// Returns the group size, or 0 when the step failed (a non-finite loss).
template <typename Model>
std::size_t time_gpu_step(benchmark::State& state, const Suite& suite, MlpRun& family, const StepCase& c, Model& mlp,
                          std::vector<HostBuffer>& pool, DeviceBuffer& on_device, cudaStream_t stream) {
  const auto batch = static_cast<std::size_t>(c.batch);
  const BatchLayout layout{family.data.train().pixels_per_sample()};
  const std::size_t batch_bytes = layout.batch_bytes(batch);
  const auto* images = on_device.as<const float>();
  const std::int32_t* labels = layout.labels(on_device.data(), batch);
  HDBENCH_CUDA_CHECK(cudaMemcpyAsync(on_device.data(), pool[0].data(), batch_bytes, cudaMemcpyHostToDevice, stream));
  const bool replayed = c.mode != StepMode::eager;
  if (replayed) mlp.capture_step(images, labels, batch);
  std::size_t next = 0;
  const auto enqueue_step = [&] {
    // The batch moves every step unless it already lives on the device.
    if (c.data != BatchSource::device) {
      HDBENCH_CUDA_CHECK(cudaMemcpyAsync(on_device.data(), pool[next++ % kPoolBatches].data(), batch_bytes,
                                         cudaMemcpyHostToDevice, stream));
    }
    if (replayed) {
      mlp.replay();
    } else {
      mlp.step(images, labels, batch);
    }
  };
  enqueue_step();
  const StepResult first = mlp.last_result();
  const double warm_seconds = median_stream_seconds(stream, 3, enqueue_step);
  const std::size_t group = steps_for(warm_seconds, 1e-3 * family.options.sample_ms);
  Event start, stop;
  const std::string range = c.name + "/timed";
  const std::vector<double> seconds = time_grouped_calls(state, group, suite.stopping_rule(), [&](std::size_t steps) {
    nvtx::ScopedRange timed(kMlpNvtx, range, steps * batch_bytes);
    HDBENCH_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    for (std::size_t i = 0; i < steps; ++i) enqueue_step();
    HDBENCH_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    HDBENCH_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return elapsed_ms(start, stop) / 1e3;
  });
  const StepResult last = mlp.last_result();
  if (!report_step(state, c, seconds, group, first, last,
                   family.gemm_rate(rate_key(Processor::gpu, c.dtype, suite.current_device())))) {
    return 0;
  }
  return group;
}

// An eager GPU step's parts as one step ran them (GpuMlp::time_step_parts): the GEMMs, the
// update and the rest, and the update's rate against what the device can move.
void set_step_part_counters(benchmark::State& state, const StepCase& c, std::span<const StepPart> parts) {
  const StepPartTotals totals = total_parts(parts);
  state.counters["in_step_us"] = totals.total_microseconds();
  state.counters["in_step_gemm_us"] = totals.gemm_microseconds;
  state.counters["in_step_update_us"] = totals.update_microseconds;
  state.counters["in_step_other_us"] = totals.other_microseconds;
  if (totals.update_microseconds > 0) {
    const double bytes = static_cast<double>(update_bytes_per_parameter(c.optimizer, c.dtype)) *
                         static_cast<double>(make_parameter_layout(c.model).total);
    state.counters["update_GB/s"] = bytes / totals.update_microseconds / 1e3;
  }
}

// Launch floor samples: each times a group of back-to-back replays of the empty graph.
constexpr int kLaunchFloorSamples = 5;

void run_gpu_step(benchmark::State& state, const Suite& suite, MlpRun& family, const StepCase& c) {
  const bool fused = c.mode == StepMode::fused;  // a supported shape: register_mlp lists the others skipped
  const Dataset& data = family.data.train();
  const auto batch = static_cast<std::size_t>(c.batch);
  const BatchLayout layout{data.pixels_per_sample()};
  const std::size_t batch_bytes = layout.batch_bytes(batch);
  const std::size_t model_bytes = fused ? FusedMlp::device_bytes_needed(c.model, batch)
                                        : GpuMlp::device_bytes_needed(c.model, c.optimizer, c.dtype, batch);
  if (const auto shortfall = memory_shortfall(kPoolBatches * batch_bytes, model_bytes + batch_bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const HostMemoryKind kind = c.data == BatchSource::pinned ? HostMemoryKind::pinned : HostMemoryKind::pageable;
  std::vector<HostBuffer> pool = batch_pool(data, batch, kind);
  Stream stream("mlp/compute");
  DeviceBuffer on_device(batch_bytes);
  const std::vector<float> initial = initial_parameters(c.model, family.seed);
  if (fused) {
    FusedMlp mlp(c.model, default_optimizer(c.optimizer), c.dtype, batch, initial, stream.get());
    mlp.name_ranges(c.name);
    const std::size_t group = time_gpu_step(state, suite, family, c, mlp, pool, on_device, stream.get());
    if (group == 0) return;
    // The launch floor: the step's two launches of empty kernels, replayed from a graph
    // the same way, back to back (docs/measuring.md: what the rest of the step costs).
    mlp.capture_launch_floor(batch);
    mlp.replay_launch_floor();
    const double floor_seconds = median_stream_seconds(stream.get(), kLaunchFloorSamples,
                                                       [&] {
                                                         for (std::size_t i = 0; i < group; ++i)
                                                           mlp.replay_launch_floor();
                                                       }) /
                                 static_cast<double>(group);
    const double step_us = state.counters["step_us"].value;
    state.counters["graph_nodes"] = static_cast<double>(mlp.graph_nodes());
    state.counters["launch_floor_us"] = 1e6 * floor_seconds;
    state.counters["fraction_of_launch_floor"] = 1e6 * floor_seconds / step_us;
    state.SetLabel("fused: " + mlp.describe_launches(batch));
    return;
  }
  GpuMlp mlp(c.model, default_optimizer(c.optimizer), c.dtype, batch, initial, stream.get());
  mlp.name_ranges(c.name);
  // overlap: the graph with each layer's update on a stream of its own, under the GEMMs below
  mlp.set_update_overlap(c.mode == StepMode::overlap);
  if (time_gpu_step(state, suite, family, c, mlp, pool, on_device, stream.get()) == 0) return;
  // Where an eager step's time goes, measured in place after the timed steps (one more
  // step, with an event between its parts): a replayed graph runs the same kernels.
  std::string in_step;
  if (c.mode == StepMode::eager) {
    const std::vector<StepPart> parts =
        mlp.time_step_parts(on_device.as<const float>(), layout.labels(on_device.data(), batch), batch);
    set_step_part_counters(state, c, parts);
    in_step = "; in step: " + describe_parts(parts);
  }
  // What the plan chose per GEMM (fused epilogue or plain + hdbench's kernel, padded
  // logits or not) with both candidates' plan-time timings: lib/mlp/mlp_gpu_choice.hpp.
  state.counters["fused_epilogues"] = static_cast<double>(mlp.fused_epilogue_count());
  state.counters["planned_gemms"] = static_cast<double>(mlp.plan_choices().gemms.size());
  // Where the step's time goes: its GEMMs (each as timed alone at plan time) and the rest
  // between them (the loss, the update, launches and gaps) as step_us less that.
  // A share above 1 (the GEMMs alone slower than the whole step, e.g. timed cold at plan
  // time) would say the plan's times are off, not the step: it is left out.
  if (const std::optional<double> gemm_us = mlp.plan_choices().chosen_microseconds()) {
    state.counters["planned_gemm_us"] = *gemm_us;
    const double share = *gemm_us / state.counters["step_us"].value;
    if (share <= 1.0) state.counters["gemm_share_of_step"] = share;
  }
  // What timing cuBLASLt's algorithms saved against its heuristic's first choices.
  state.counters["retuned_gemms"] = static_cast<double>(mlp.plan_choices().retuned_count());
  if (const std::optional<double> first_us = mlp.plan_choices().heuristic_microseconds())
    state.counters["planned_gemm_heuristic_us"] = *first_us;
  state.SetLabel("plan: " + describe(mlp.plan_choices()) + in_step);
}

// A GEMM's rate from its median time, kept for the steps that follow in this run.
void set_gemm_counters(benchmark::State& state, MlpRun& family, const std::string& key, double flops,
                       const std::vector<double>& seconds) {
  const SampleStats s = summarize(seconds);
  const double tflops = flops / s.median / 1e12;
  state.counters["TFLOP/s"] = tflops;
  state.counters["cv_percent"] = 100.0 * s.cv;
  // The rate steps are rated against: the fastest sample, what the GEMM can do here.
  // Its median under a noisy spell (17% on a busy 2-vCPU VM) let a step reach 1.17 of it.
  const double best = flops / s.min / 1e12;
  state.counters["best_TFLOP/s"] = best;
  family.gemm_tflops[key] = best;
}

// The GEMM rate a step's TFLOP/s is compared with: a large square product in the
// step's arithmetic, fp32 through OpenBLAS on the CPU, cuBLASLt on the GPU.
void run_cpu_gemm(benchmark::State& state, const StoppingRule& rule, MlpRun& family, int threads) {
  const std::size_t n = kCpuGemmSize;
  std::vector<float> a(n * n), b(n * n), out(n * n);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;  // not zeros: real operands
    b[i] = static_cast<float>((i * 104729) % 1000) / 1000.0f - 0.5f;
  }
  set_blas_threads(threads);
  const int size = static_cast<int>(n);
  cpu_sgemm(a.data(), b.data(), out.data(), size, size, size);  // warm-up
  const std::vector<double> seconds = run_samples(state, rule, [&] {
    HostTimer timer;
    cpu_sgemm(a.data(), b.data(), out.data(), size, size, size);
    return timer.elapsed_seconds();
  });
  set_gemm_counters(state, family, rate_key(Processor::cpu, MlpDtype::fp32, threads),
                    2.0 * static_cast<double>(n * n * n), seconds);
  set_roof_counters(state, state.counters["TFLOP/s"].value, threads);
}

void run_gpu_gemm(benchmark::State& state, const Suite& suite, MlpRun& family, MlpDtype dtype) {
  Stream stream("mlp/gemm");
  GpuGemm gemm(kGpuGemmSize, kGpuGemmSize, kGpuGemmSize, dtype, stream.get());
  gemm.run();
  Event start, stop;
  const std::vector<double> seconds = run_samples(state, suite.stopping_rule(), [&] {
    HDBENCH_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
    gemm.run();
    HDBENCH_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
    HDBENCH_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return elapsed_ms(start, stop) / 1e3;
  });
  set_gemm_counters(state, family, rate_key(Processor::gpu, dtype, suite.current_device()), gemm.flops(), seconds);
  state.SetLabel(gemm.describe_algorithm());
}

void register_gemm_rates(Suite& suite, const std::shared_ptr<MlpRun>& family) {
  const MlpOptions& m = family->options;
  // A square GEMM: "mlp/gemm/<processor>/<dtype>/<m>x<n>x<k>"; the CPU's on every core
  // with the thread sweep, else at each thread count asked for.
  const auto square = [](int size) {
    return CaseAxis<int>{"m",
                         {size},
                         [](const int& n) { return nlohmann::json(n); },
                         [](const int& n) { return fmt::format("{0}x{0}x{0}", n); }};
  };
  const std::vector<std::string> name_order = {"variant", "processor", "dtype", "m", "threads"};
  for (const Processor processor : m.processors) {  // a CPU GEMM has threads, a GPU GEMM dtypes
    if (processor == Processor::cpu) {
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, int threads, const std::string&, Processor, MlpDtype, int size) {
            id.param("n", size).param("k", size).param("implementation", "hdbench");
            suite.add(id.name(), id.params(), [&suite, family, threads](benchmark::State& s) {
              run_cpu_gemm(s, suite.stopping_rule(), *family, threads);
            });
          },
          threads_case_axis(m.threads.empty() ? std::vector<int>{m.cores} : m.threads),
          word_case_axis("variant", {"gemm"}), named_case_axis("processor", std::vector{processor}),
          named_case_axis("dtype", std::vector{MlpDtype::fp32}), square(kCpuGemmSize));
    } else {
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, MlpDtype dtype, const std::string&, Processor, int size) {
            id.param("n", size).param("k", size).param("implementation", "hdbench");
            suite.add_gpu(id.name(), id.params(),
                          [&suite, family, dtype](benchmark::State& s) { run_gpu_gemm(s, suite, *family, dtype); });
          },
          named_case_axis("dtype", m.dtypes), word_case_axis("variant", {"gemm"}),
          named_case_axis("processor", std::vector{processor}), square(kGpuGemmSize));
    }
  }
}

// The family trains on 28×28 images with labels 0..9.
void check_models(const char* flag, const std::vector<MlpShape>& models) {
  for (const MlpShape& m : models) {
    if (m.inputs() != 784 || m.classes() < 10) {
      throw UsageError(
          fmt::format("--hdbench_{}: model '{}' does not fit the dataset: the first width must be 784 "
                      "(28×28 pixels) and the last at least 10 (the classes)",
                      flag, to_string(m)));
    }
  }
}

void register_mlp(Suite& suite, const MlpOptions& m, const DataOptions& data) {
  const Options& o = suite.options();
  check_models("mlp_models", m.models);
  check_models("mlp_epoch_models", m.epoch_models);
  auto family = std::make_shared<MlpRun>(m, data, o.seed);
  register_gemm_rates(suite, family);  // first: the steps read the rates they measure
  // Registers a step, or says why it is skipped; add_gpu adds a GPU step's device.
  const auto add_step = [&](const CaseId& id, const StepCase& c) {
    if (c.processor == Processor::cpu) {
      const double tflop = training_step_flops(c.model, static_cast<std::size_t>(c.batch)) / 1e12;
      if (tflop > m.cpu_step_tflop_limit) {
        suite.add_skipped(id.name(), id.params(),
                          fmt::format("a step does {:.3g} TFLOP, over --hdbench_mlp_cpu_step_tflop_limit={:g}; "
                                      "raise the limit to run it",
                                      tflop, m.cpu_step_tflop_limit));
        return;
      }
      suite.add(id.name(), id.params(),
                [&suite, family, c](benchmark::State& s) { run_cpu_step(s, suite.stopping_rule(), *family, c); });
    } else if (const auto why = c.mode == StepMode::fused && suite.system().gpu_usable()
                                    ? fused_step_unsupported(c.model, c.optimizer, c.dtype)
                                    : std::nullopt) {
      // Refused where the case is listed (--hdbench_list_cases says why), on every device.
      // Without a GPU, add_gpu lists it skipped for that reason, as every GPU case.
      for (const int device : suite.devices()) {
        nlohmann::json on_device = id.params();
        on_device["device"] = device;
        suite.add_skipped(suite.device_name(id.name(), device), std::move(on_device), *why);
      }
    } else {
      suite.add_gpu(id.name(), id.params(),
                    [&suite, family, c](benchmark::State& s) { run_gpu_step(s, suite, *family, c); });
    }
  };
  // "mlp/step/<processor>/<model>/<dtype>/<optimizer>/<mode>/data:<source>/batch:<n>", a
  // CPU step's threads after.
  const std::vector<std::string> name_order = {"variant", "processor", "model", "dtype",   "optimizer",
                                               "mode",    "data",      "batch", "threads", "busy_threads"};
  // Busy threads beside a CPU step: with none, the name and params are what they were
  // before the axis existed.
  CaseAxis<int> busy = labelled_case_axis("busy_threads", m.busy_threads, "busy");
  busy.shown_for = [](const int& n) { return n > 0 ? Shown::labelled : Shown::absent; };
  for (const Processor processor : m.processors) {  // a grid each: a CPU step has threads, a GPU step dtypes
    if (processor == Processor::cpu) {
      // The CPU step is fp32, eager, on the batch where it lies in host memory.
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, Processor, const MlpShape& model, int batch, OptimizerKind optimizer, int threads,
              int busy_threads, const std::string&, MlpDtype dtype, StepMode mode, const std::string&) {
            id.param("implementation", "hdbench");
            add_step(id, {processor, model, dtype, optimizer, mode, BatchSource::device, batch, threads, busy_threads,
                          id.name()});
          },
          named_case_axis("processor", std::vector{processor}), named_case_axis("model", m.models),
          labelled_case_axis("batch", m.batches), named_case_axis("optimizer", m.optimizers),
          threads_case_axis(m.threads.empty() ? std::vector<int>{0} : m.threads), busy,
          word_case_axis("variant", {"step"}), named_case_axis("dtype", std::vector{MlpDtype::fp32}),
          named_case_axis("mode", std::vector{StepMode::eager}),
          shown_as(word_case_axis("data", {"host"}), Shown::labelled));
    } else {
      for_each_case(
          "mlp", name_order,
          [&](CaseId& id, Processor, const MlpShape& model, int batch, OptimizerKind optimizer, MlpDtype dtype,
              StepMode mode, BatchSource data, const std::string&) {
            // Copying the batch in is measured eagerly; a graph (fused's too) replays the step alone.
            if (mode != StepMode::eager && data != BatchSource::device) return;
            id.param("implementation", "hdbench");
            add_step(id, {processor, model, dtype, optimizer, mode, data, batch, 0, 0, id.name()});
          },
          named_case_axis("processor", std::vector{processor}), named_case_axis("model", m.models),
          labelled_case_axis("batch", m.batches), named_case_axis("optimizer", m.optimizers),
          named_case_axis("dtype", m.dtypes), named_case_axis("mode", m.modes),
          shown_as(named_case_axis("data", m.data), Shown::labelled), word_case_axis("variant", {"step"}));
    }
  }
  register_mlp_epochs(suite, family, data);
}

class MlpFamily final : public Family {
 public:
  explicit MlpFamily(const DataOptions& data) : data_(data) {}
  std::vector<std::string> names() const override { return {"mlp"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_mlp_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string&) const override { return mlp_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override { register_mlp(suite, options_, data_); }

 private:
  MlpOptions options_;
  const DataOptions& data_;
};

}  // namespace

const ThreadChoice& cpu_thread_choice(MlpRun& family, const MlpShape& model, int batch, OptimizerKind optimizer) {
  const auto key = std::make_pair(to_string(model), batch);
  if (const auto it = family.thread_choices.find(key); it != family.thread_choices.end()) return it->second;
  const Dataset& data = family.data.train();
  const auto n = static_cast<std::size_t>(batch);
  const BatchLayout layout{data.pixels_per_sample()};
  std::vector<HostBuffer> pool = batch_pool(data, n, HostMemoryKind::pageable);
  CpuMlp mlp(model, default_optimizer(optimizer), n, 1, initial_parameters(model, family.seed));
  mlp.name_ranges(fmt::format("mlp/thread_sweep/{}/batch:{}", to_string(model), batch));
  std::size_t next = 0;
  const auto one_step = [&] {
    const HostBuffer& b = pool[next++ % kPoolBatches];
    HostTimer timer;
    mlp.step(b.as<float>(), layout.labels(b.data(), n), n);
    return timer.elapsed_seconds();
  };
  ThreadChoice choice = sweep_threads(family.options.cores, [&](int threads) {
    mlp.set_threads(threads);
    const double warm = one_step();  // the new team's first step
    if (warm >= kSweepSlowStep) return warm;
    std::vector<double> seconds;
    const HostTimer total;
    while (seconds.size() < 3 || (total.elapsed_seconds() < kSweepSeconds && seconds.size() < 200))
      seconds.push_back(one_step());
    return summarize(seconds).median;
  });
  return family.thread_choices.emplace(key, std::move(choice)).first->second;
}

std::unique_ptr<Family> make_mlp_family(const DataOptions& data) { return std::make_unique<MlpFamily>(data); }

}  // namespace hdbench
