#include "core/suite.hpp"

#include <fmt/format.h>

#include <memory>
#include <new>
#include <stdexcept>
#include <utility>

#include "core/cuda.hpp"
#include "core/stopping_rule.hpp"

namespace hdbench {

Suite::Suite(const Options& options, const system::SystemInfo& system)
    : options_(options), system_(system), devices_{options.device} {}

void Suite::set_devices(std::vector<int> devices) {
  if (devices.empty()) throw std::invalid_argument("Suite::set_devices: no device");
  devices_ = std::move(devices);
}

std::string Suite::device_name(const std::string& name, int device) const {
  return devices_.size() == 1 ? name : fmt::format("{}/gpu:{}", name, device);
}

benchmark::internal::Benchmark* Suite::add(const std::string& name, nlohmann::json params, BenchmarkFn fn) {
  params_.add(name, std::move(params));
  auto* benchmark = benchmark::RegisterBenchmark(
      name.c_str(), [this, name, fn = std::move(fn), started = std::make_shared<bool>(false)](benchmark::State& state) {
        // Google Benchmark calls this once per trial: the budget decides at the first.
        if (!*started && budget_expired_ && budget_expired_()) {
          skip_benchmark(state, kBudgetSkipReason);
          return;
        }
        if (!*started && start_observer_) start_observer_(name);
        *started = true;
        if (interrupt_requested()) {  // only after defer_first_interrupt(): the run winds down
          skip_benchmark(state, "interrupted before it ran");
          return;
        }
        const std::uint64_t start_ns = trace_clock_ ? trace_clock_() : 0;
        if (trace_clock_ && window_observer_) window_observer_(name, start_ns, true);
        struct WindowEnd {  // closes the window however the call ends
          Suite& suite;
          const std::string& name;
          std::uint64_t start_ns;
          ~WindowEnd() {
            if (!suite.trace_clock_) return;
            const std::uint64_t end_ns = suite.trace_clock_();
            auto& w = suite.windows_;
            if (!w.empty() && w.back().name == name) {
              w.back().end_ns = end_ns;
            } else {
              w.push_back({name, start_ns, end_ns});
            }
            if (suite.window_observer_) suite.window_observer_(name, end_ns, false);
          }
        } window_end{*this, name, start_ns};
        if (watch_ != nullptr) watch_->begin(name);
        try {
          fn(state);
        } catch (const CudaError& error) {
          if (error.code() == cudaErrorMemoryAllocation) {
            skip_benchmark(state, std::string("out of memory: ") + error.what());
          } else {
            fail_benchmark(state, error.what());
          }
        } catch (const std::bad_alloc&) {
          skip_benchmark(state, "host out of memory (std::bad_alloc)");
        } catch (const std::exception& error) {
          fail_benchmark(state, error.what());
        }
        if (watch_ != nullptr) {
          // A cut the benchmark ran past without a skip or failure of its own (it was cut
          // between samples and finished normally) is reported here.
          if (const Cut cut = watch_->end(); cut.kind == CutKind::budget) {
            state.SkipWithError((std::string(kSkippedPrefix) + cut.message).c_str());
          } else if (cut.kind == CutKind::deadline) {
            state.SkipWithError(cut.message.c_str());
          }
        }
      });
  benchmark->UseManualTime()->Unit(benchmark::kMicrosecond);
  return benchmark;
}

void Suite::add_skipped(const std::string& name, nlohmann::json params, const std::string& reason) {
  params_.add(name, std::move(params));
  skipped_names_.push_back(name);
  skip_reasons_[name] = reason;
  benchmark::RegisterBenchmark(name.c_str(), [reason](benchmark::State& state) { skip_benchmark(state, reason); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);  // same name as when it runs, for compare.py
}

std::string Suite::skip_reason(const std::string& name) const {
  const auto it = skip_reasons_.find(name);
  return it == skip_reasons_.end() ? std::string() : it->second;
}

GpuCopies Suite::add_gpu(const std::string& name, const nlohmann::json& params, const BenchmarkFn& fn) {
  std::vector<benchmark::internal::Benchmark*> added;
  for (const int device : devices_) {
    if (auto* benchmark = add_gpu_on(device, name, params, fn)) added.push_back(benchmark);
  }
  return GpuCopies(std::move(added));
}

benchmark::internal::Benchmark* Suite::add_gpu_on(int device, const std::string& name, nlohmann::json params,
                                                  BenchmarkFn fn) {
  params["device"] = device;
  const std::string full_name = device_name(name, device);
  if (gpu_info(system_, device) == nullptr) {
    const std::string reason =
        system_.gpu_usable() ? fmt::format("this machine has no GPU {}", device) : system_.gpu_unavailable_reason;
    add_skipped(full_name, std::move(params), reason);
    return nullptr;
  }
  return add(full_name, std::move(params), [this, device, fn = std::move(fn)](benchmark::State& state) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(device));
    struct Current {  // current_device() names the device for this call only
      int& slot;
      int previous;
      ~Current() { slot = previous; }
    } current{current_device_, std::exchange(current_device_, device)};
    fn(state);
  });
}

GpuCopies Suite::add_gpu_once(const std::string& name, nlohmann::json params, BenchmarkFn fn) {
  if (!system_.gpu_usable()) {
    add_skipped(name, std::move(params), system_.gpu_unavailable_reason);
    return GpuCopies({});
  }
  return GpuCopies({add(name, std::move(params), std::move(fn))});
}

const system::GpuInfo* Suite::current_gpu() const { return gpu_info(system_, current_device()); }

void Suite::add_derivation(Derivation derivation) { derivations_.push_back(std::move(derivation)); }

void Suite::add_console_summary(ConsoleSummary summary) { console_summaries_.push_back(std::move(summary)); }

void Suite::print_console_summaries(const nlohmann::json& derived) const {
  for (const ConsoleSummary& summary : console_summaries_) summary(derived, devices_.size() > 1);
}

nlohmann::json Suite::derive(const nlohmann::json& benchmarks) const {
  nlohmann::json derived = nlohmann::json::object();
  for (const Derivation& derivation : derivations_) derivation(benchmarks, derived);
  return derived;
}

const system::GpuInfo* gpu_info(const system::SystemInfo& system, int device) {
  const auto& gpus = system.gpus;
  if (!system.gpu_usable() || device < 0 || device >= static_cast<int>(gpus.size())) return nullptr;
  return &gpus[static_cast<std::size_t>(device)];
}

}  // namespace hdbench
