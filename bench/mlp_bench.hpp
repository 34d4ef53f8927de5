// What the MLP family's two files share: the training data, the seed of the initial
// parameters, the GEMM rates measured in this run, the CPU threads axis. mlp.cpp
// registers the steps and GEMMs, mlp_epoch.cpp the epochs fed by the loader.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/case_grid.hpp"
#include "core/suite.hpp"
#include "mlp/cpu_threads.hpp"
#include "mlp/mlp_options.hpp"
#include "mlp/training_data.hpp"
#include "pipeline/data_options.hpp"

namespace hdbench {

// A CPU case's threads axis: "threads:8", or "threads:auto" (params "auto") for the
// thread sweep's choice (0).
inline CaseAxis<int> threads_case_axis(std::vector<int> threads) {
  return shown_as(CaseAxis<int>{"threads", std::move(threads),
                                [](const int& t) { return t > 0 ? nlohmann::json(t) : nlohmann::json("auto"); },
                                [](const int& t) { return t > 0 ? std::to_string(t) : std::string("auto"); }},
                  Shown::labelled);
}

struct MlpRun {
  MlpRun(const MlpOptions& mlp_options, const DataOptions& data_options, std::uint64_t run_seed)
      : options(mlp_options), data(data_options, run_seed), seed(run_seed ^ 0x6d6c70ULL) {}

  // The GEMM rate measured under `key` earlier in this run, if any. Benchmarks run
  // one at a time on the main thread, so the map needs no lock.
  std::optional<double> gemm_rate(const std::string& key) const {
    const auto it = gemm_tflops.find(key);
    return it == gemm_tflops.end() ? std::nullopt : std::optional(it->second);
  }

  const MlpOptions& options;
  TrainingData data;
  std::uint64_t seed;  // of the initial parameters: every step and epoch starts from the same network
  std::map<std::string, double> gemm_tflops;                           // by processor, dtype and CPU threads or GPU
  std::map<std::pair<std::string, int>, ThreadChoice> thread_choices;  // by model and batch
};

// The CPU step's thread count for `model` at `batch` when none was given: the fastest
// of a short sweep, measured on first use and kept for the rest of the run.
const ThreadChoice& cpu_thread_choice(MlpRun& run, const MlpShape& model, int batch, OptimizerKind optimizer);

void register_mlp_epochs(Suite& suite, const std::shared_ptr<MlpRun>& run, const DataOptions& data);

}  // namespace hdbench
