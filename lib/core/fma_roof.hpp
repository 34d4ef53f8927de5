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

#include <functional>
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
  int remeasured = 0;  // times measured again and raised (roof_for_work)

  // The roof for work on `work_threads` threads: each thread at most one thread's
  // rate, all of them at most the all-threads rate (SMT siblings share FMA units).
  double gflops_at(int work_threads) const noexcept;
  // Each figure the larger of this one's and `later`'s (with its trials): a busy host
  // only ever lowers a trial, so the best measurement so far is the roof.
  void raise_to(const FmaRoof& later);
};

// The roof at `work_threads` for CPU work that ran at `gflops`. Work cannot beat the
// roof, so work that did says the roof was measured while a core was busy (on a 2-vCPU
// VM the all-threads trials once came out at one core's rate, and a CPU step "reached"
// 1.47 of it): `roof` is then measured again (`measure_again`), once, and raised to
// the better figures, since the work just showed the cores free. The caller leaves a
// fraction out when the work still beats what this returns.
double roof_for_work(FmaRoof& roof, int work_threads, double gflops, const std::function<FmaRoof()>& measure_again);

// Measures the roof at `level` (the widest the CPU has: CpuFeatures::level()) with
// `threads` threads for the all-threads trial.
FmaRoof measure_fma_roof(VectorLevel level, int threads);

// This machine's roof, measured once per process on first use, and raised when work
// beat it (this_machine_roof_for).
const FmaRoof& this_machine_fma_roof();
// roof_for_work on this machine's roof, measured again the way it was first.
double this_machine_roof_for(int work_threads, double gflops);

nlohmann::json to_json(const FmaRoof& roof);

}  // namespace hdbench
