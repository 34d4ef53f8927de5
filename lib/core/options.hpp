// The options every family shares: where the report goes, which families run, the
// device, the verification seed, the spin gate's timeout and the host memory kinds.
// Each family declares its own flags next to its code (lib/<family>/*_options.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/flags.hpp"
#include "core/host_memory.hpp"
#include "core/stopping_rule.hpp"

namespace hdbench {

// The seed's bound, 2^53: jq and JavaScript read JSON numbers as doubles, so a larger seed
// is shown rounded and a run could not be made again from the report a person reads.
inline constexpr std::uint64_t kSeedLimit = std::uint64_t{1} << 53;

struct Options {
  std::string out_path;  // empty: main picks reports/hdbench-<host>-<time>.json
  // --hdbench_list_cases: where to write every selected case instead of running ("-":
  // standard output); empty: run.
  std::string list_cases_path;
  // --hdbench_describe_families: where to write every family's description ("-": standard
  // output); empty: run.
  std::string describe_families_path;
  std::vector<std::string> families;
  // Host memory kinds, an axis of the transfer and streams families.
  std::vector<HostMemoryKind> memory_kinds = all_host_memory_kinds();
  int device = 0;
  // Below kSeedLimit: a report's seed is read back exactly by every JSON reader.
  std::uint64_t seed = 0;
  double spin_timeout_ms = 5000.0;
  Preset preset = Preset::standard;
  // --hdbench_max_minutes: the run's wall-time budget, the benchmark in flight included
  // (core/run_watch.hpp): benchmarks that would start after it are reported as skipped,
  // the one in flight is cut after its sample; 0 means no budget.
  double max_minutes = 0.0;
  // --hdbench_deadline_seconds: each benchmark's own deadline; 0: default_deadline_seconds
  // of the sampling timeout.
  double deadline_seconds = 0.0;
  // How long each benchmark samples (--hdbench_min_samples, --hdbench_noise_target,
  // --hdbench_max_seconds, set by the preset); off when --benchmark_min_time is given.
  StoppingRule stopping_rule;

  bool runs_family(std::string_view name) const;
};

// Declares the shared flags. `family_names` are what --hdbench_families accepts (and
// runs by default); `random_seed` is used when --hdbench_seed is absent.
void declare_core_flags(FlagParser& flags, Options& options, const std::vector<std::string>& family_names,
                        std::uint64_t random_seed);

}  // namespace hdbench
