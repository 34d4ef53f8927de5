#include "core/suite.hpp"

#include <memory>
#include <new>

#include "core/cuda.hpp"
#include "core/stopping_rule.hpp"

namespace hdbench {

Suite::Suite(const Options& options, const system::SystemInfo& system) : options_(options), system_(system) {}

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
        const StoppingRuleScope rule(options_.stopping_rule);  // run_samples reads it
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
      });
  benchmark->UseManualTime()->Unit(benchmark::kMicrosecond);
  return benchmark;
}

void Suite::add_skipped(const std::string& name, nlohmann::json params, const std::string& reason) {
  params_.add(name, std::move(params));
  skipped_names_.push_back(name);
  benchmark::RegisterBenchmark(name.c_str(), [reason](benchmark::State& state) { skip_benchmark(state, reason); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);  // same name as when it runs, for compare.py
}

benchmark::internal::Benchmark* Suite::add_gpu(const std::string& name, nlohmann::json params, BenchmarkFn fn) {
  if (selected_gpu(*this) == nullptr) {
    const std::string reason = system_.gpu_usable() ? "device index out of range" : system_.gpu_unavailable_reason;
    add_skipped(name, std::move(params), reason);
    return nullptr;
  }
  return add(name, std::move(params), std::move(fn));
}

void Suite::add_derivation(Derivation derivation) { derivations_.push_back(std::move(derivation)); }

nlohmann::json Suite::derive(const nlohmann::json& benchmarks) const {
  nlohmann::json derived = nlohmann::json::object();
  for (const Derivation& derivation : derivations_) derivation(benchmarks, derived);
  return derived;
}

const system::GpuInfo* selected_gpu(const Suite& suite) {
  const auto& gpus = suite.system().gpus;
  const int device = suite.options().device;
  if (!suite.system().gpu_usable() || device < 0 || device >= static_cast<int>(gpus.size())) return nullptr;
  return &gpus[static_cast<std::size_t>(device)];
}

}  // namespace hdbench
