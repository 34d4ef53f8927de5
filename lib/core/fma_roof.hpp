// The CPU's fp32 roof, measured: a register-only FMA loop at the widest vector level
// the CPU has, on one thread and on every logical CPU at once, a few tens of
// milliseconds at start-up. Nothing fp32 the CPU runs can beat it (no loads, no
// stores, every issue slot an FMA), so a CPU figure rated against it stays at or under
// 1 on any machine: a nominal peak (cores x FLOPs per cycle x a clock) overstates it
// where AVX-512 lowers the clock or a core has one FMA unit, and understates it where
// a VM reports a base clock below turbo (133% of it on a 2-core EPYC VM, 52% of it
// measured on the H100 machine's host). The nominal figure stays in the report beside
// it (cpu_features.hpp), with what it assumes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cpu_features.hpp"

namespace hdbench {

// One roof's trials: the best rate, how many trials it took, and whether a second trial
// came within the agreement of the best (a busy host may leave every trial low).
struct RoofTrials {
  double best_gflops = 0.0;
  int trials = 0;
  bool confirmed = false;
};

// Whether the two best of `rates` agree within `agreement` (a fraction).
bool roof_confirmed(const std::vector<double>& rates, double agreement);

struct FmaRoof {
  std::string isa;                  // the loop's instructions: "avx512", "avx2_fma", "sse"
  double one_thread_gflops = 0.0;   // the best of a few trials on one thread
  double all_threads_gflops = 0.0;  // every logical CPU at once, the best trial
  int threads = 0;                  // logical CPUs the all-threads trial used
  double seconds = 0.0;             // spent measuring
  RoofTrials one_thread = {};       // each trial, for the report
  RoofTrials all_threads = {};

  // The roof for work on `work_threads` threads: each thread at most one thread's
  // rate, all of them at most the all-threads rate (SMT siblings share FMA units).
  double gflops_at(int work_threads) const noexcept;
};

// Measures the roof at `level` (the widest the CPU has: CpuFeatures::level()) with
// `threads` threads for the all-threads trial.
FmaRoof measure_fma_roof(VectorLevel level, int threads);

// This machine's roof, measured once per process on first use.
const FmaRoof& this_machine_fma_roof();

nlohmann::json to_json(const FmaRoof& roof);

}  // namespace hdbench
