// What a benchmark family registers against: the options, the discovered system,
// and Google Benchmark. Families add benchmarks with typed params, add skipped ones
// with their reason when they cannot run here, and may derive figures from the
// finished runs (e.g. the pinning break-even).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/report.hpp"
#include "core/run_watch.hpp"
#include "core/system.hpp"

namespace hdbench {

using BenchmarkFn = std::function<void(benchmark::State&)>;

// When a benchmark ran, on the trace's clock: every call Google Benchmark makes of it,
// from the first start to the last end.
struct BenchmarkWindow {
  std::string name;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};
using Derivation = std::function<void(const nlohmann::json& benchmarks, nlohmann::json& derived)>;
// A family's lines of the console summary after the run, read from the derived rows
// (`device_tag` names the GPU of a row when the run measured several).
using ConsoleSummary = std::function<void(const nlohmann::json& derived, bool several_gpus)>;

// The copies Suite::add_gpu registered to run, one per selected device (add_gpu_once:
// one), none when they were registered as skipped. A setting chained on it, as on one of Google's
// (`suite.add_gpu(...)->Iterations(1)`), applies to every copy.
class GpuCopies {
 public:
  explicit GpuCopies(std::vector<benchmark::internal::Benchmark*> copies) : copies_(std::move(copies)) {}
  GpuCopies* operator->() noexcept { return this; }
  GpuCopies* Iterations(benchmark::IterationCount n) {
    for (auto* copy : copies_) copy->Iterations(n);
    return this;
  }
  const std::vector<benchmark::internal::Benchmark*>& copies() const noexcept { return copies_; }

 private:
  std::vector<benchmark::internal::Benchmark*> copies_;
};

class Suite {
 public:
  Suite(const Options& options, const system::SystemInfo& system);
  Suite(const Suite&) = delete;
  Suite& operator=(const Suite&) = delete;

  const Options& options() const noexcept { return options_; }
  const system::SystemInfo& system() const noexcept { return system_; }
  const ParamRegistry& params() const noexcept { return params_; }
  // The rule every benchmark samples under: each passes it to run_samples or
  // time_grouped_calls (core/stopping_rule.hpp, core/grouped_timing.hpp).
  const StoppingRule& stopping_rule() const noexcept { return options_.stopping_rule; }

  // Registers `fn` under `name` with manual (event-based) time in microseconds. With
  // the stopping rule enabled main runs Google Benchmark at
  // --benchmark_min_time=0, so each benchmark is one trial of one iteration, in which
  // run_samples samples (Iterations(1) would do the same but adds "/iterations:1" to
  // every name, which compare.py and earlier reports pair benchmarks by).
  // A CUDA out-of-memory or host bad_alloc skips the benchmark with the reason; any
  // other exception fails it with its message instead of ending the run.
  benchmark::internal::Benchmark* add(const std::string& name, nlohmann::json params, BenchmarkFn fn);

  // Registers a benchmark that cannot run on this machine; it reports as skipped.
  void add_skipped(const std::string& name, nlohmann::json params, const std::string& reason);

  // The GPUs single-GPU benchmarks run on: the resolved --hdbench_devices (main sets
  // them after discovery); until set, the one device of --hdbench_device.
  void set_devices(std::vector<int> devices);
  const std::vector<int>& devices() const noexcept { return devices_; }
  // The name `name` is registered under for `device`: unchanged with one selected
  // device (reports pair with earlier ones by name), "<name>/gpu:N" with several.
  std::string device_name(const std::string& name, int device) const;

  // Single-GPU benchmarks call this: registers one copy of `fn` per selected device
  // (add_gpu_on), or per device a skipped entry when no GPU is usable.
  GpuCopies add_gpu(const std::string& name, const nlohmann::json& params, const BenchmarkFn& fn);
  // One copy for `device`, for registrations that depend on the device: named by
  // device_name, params.device = device; each call makes `device` current
  // (cudaSetDevice) and current_device() names it. Skipped when no GPU is usable or
  // the machine has no such device; then nullptr.
  benchmark::internal::Benchmark* add_gpu_on(int device, const std::string& name, nlohmann::json params,
                                             BenchmarkFn fn);
  // Inherently multi-device benchmarks (all_to_host/host_to_all, p2p, NCCL) call this:
  // registers `fn` once, as named, choosing its own devices; skipped when no GPU is usable.
  GpuCopies add_gpu_once(const std::string& name, nlohmann::json params, BenchmarkFn fn);

  // The device of the add_gpu benchmark running now; outside one, the first selected.
  int current_device() const noexcept { return current_device_ >= 0 ? current_device_ : devices_.front(); }
  // current_device()'s GPU info, or nullptr when no GPU is usable or it has no such device.
  const system::GpuInfo* current_gpu() const;

  // While a trace is recorded, each benchmark's calls are timed with `clock` into
  // windows() (benchmarks run one at a time, on the main thread).
  void set_trace_clock(std::function<std::uint64_t()> clock) { trace_clock_ = std::move(clock); }
  // While a trace clock is set, told of each call's start and end as it happens
  // (started = true, then false), outside the benchmark's timed region.
  using WindowObserver = std::function<void(const std::string& name, std::uint64_t ns, bool started)>;
  void set_window_observer(WindowObserver observer) { window_observer_ = std::move(observer); }
  const std::vector<BenchmarkWindow>& windows() const noexcept { return windows_; }

  // --hdbench_max_minutes: once `expired` says so, a benchmark not yet started reports
  // as skipped (kBudgetSkipReason) instead of running; the one in flight is cut by the watch.
  void set_budget(std::function<bool()> expired) { budget_expired_ = std::move(expired); }
  // The run's watch (core/run_watch.hpp): each benchmark call runs between its begin()
  // and end(), so the budget and the benchmark's deadline hold while it runs; one cut
  // reports as the cut (skipped for the budget, an error for the deadline).
  void set_watch(RunWatch* watch) noexcept { watch_ = watch; }
  // Told each benchmark's name as it first starts (the GPU's conditions are read at
  // each family's start and end).
  void set_start_observer(std::function<void(const std::string& name)> observer) {
    start_observer_ = std::move(observer);
  }
  // Names registered through add_skipped (they take no time).
  const std::vector<std::string>& skipped_names() const noexcept { return skipped_names_; }
  // Why a case registered as skipped is skipped; empty for one that runs.
  std::string skip_reason(const std::string& name) const;

  void add_derivation(Derivation derivation);
  nlohmann::json derive(const nlohmann::json& benchmarks) const;
  // Each family prints its own answers under the run's totals (main knows no family).
  void add_console_summary(ConsoleSummary summary);
  void print_console_summaries(const nlohmann::json& derived) const;

 private:
  const Options& options_;
  const system::SystemInfo& system_;
  ParamRegistry params_;
  std::vector<Derivation> derivations_;
  std::vector<ConsoleSummary> console_summaries_;
  std::function<std::uint64_t()> trace_clock_;
  WindowObserver window_observer_;
  std::vector<BenchmarkWindow> windows_;
  std::function<bool()> budget_expired_;
  RunWatch* watch_ = nullptr;
  std::function<void(const std::string&)> start_observer_;
  std::vector<std::string> skipped_names_;
  std::map<std::string, std::string> skip_reasons_;
  std::vector<int> devices_;
  int current_device_ = -1;  // while an add_gpu_on benchmark runs
};

inline constexpr const char* kBudgetSkipReason = "not run: --hdbench_max_minutes budget reached";

// `device`'s GPU info when a GPU is usable and the machine has it, else nullptr.
const system::GpuInfo* gpu_info(const system::SystemInfo& system, int device);

}  // namespace hdbench
