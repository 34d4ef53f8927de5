// The mlp family's grid: training steps (models x batches x processors x dtypes x
// optimizers x modes x where the batch starts), the CPU step's threads, and whole
// epochs fed by the loader (models x batches x workers x pinning).
#pragma once

#include <vector>

#include "core/flags.hpp"
#include "mlp/mlp_axes.hpp"
#include "mlp/mlp_model.hpp"
#include "pipeline/data_axes.hpp"

namespace hdbench {

struct MlpOptions {
  std::vector<MlpShape> models;
  std::vector<int> batches = {32, 128, 1024, 8192, 16384};
  std::vector<Processor> processors = all_processors();
  std::vector<MlpDtype> dtypes = {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16};
  std::vector<OptimizerKind> optimizers = {OptimizerKind::sgd};
  // fused (two kernels of hdbench's own for small two-layer fp32 SGD models, replayed
  // from a graph) and overlap (the graph with the update overlapped with the backward
  // pass) run in the full preset and on request; default: eager and graph.
  std::vector<StepMode> modes = {StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap};
  std::vector<BatchSource> data = all_batch_sources();
  // Empty: the CPU step runs with the fastest of a short sweep (cpu_threads.hpp),
  // per model and batch; --hdbench_mlp_threads=LIST runs exactly these counts.
  std::vector<int> threads;
  // Busy threads of our own spinning beside each CPU step while it is timed: a host whose
  // cores are not all free (another job, the hypervisor), measured on purpose.
  std::vector<int> busy_threads = {0};
  int cores = 1;                      // the sweep's top count: the logical CPUs
  double cpu_step_tflop_limit = 0.2;  // CPU steps doing more are skipped (a 2-core host: ~1 s)
  // How long one sample of back-to-back steps lasts: a step of a few microseconds is
  // timed in a group of about this length (at most 1000 steps; a longer step alone).
  double sample_ms = 2.0;
  std::vector<MlpShape> epoch_models;
  std::vector<int> epoch_batches = {128, 1024};
  std::vector<int> epoch_workers = {0, 2, 8};
  std::vector<PinMode> epoch_pinning = all_pin_modes();
};

void declare_mlp_flags(FlagParser& flags, MlpOptions& options, const OptionLimits& limits);

}  // namespace hdbench
