// hdbench's own command-line flags (--hdbench_*). Google Benchmark's flags pass
// through untouched. Every value is validated before anything runs; a bad one
// throws UsageError naming the flag and what it accepts (main exits with 2).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "axes.hpp"
#include "host_memory.hpp"
#include "mlp_model.hpp"

namespace hdbench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kFamilyTransfer = "transfer";
inline constexpr const char* kFamilyPinning = "pinning";
inline constexpr const char* kFamilyStaged = "staged";
inline constexpr const char* kFamilyHostMemcpy = "host_memcpy";
inline constexpr const char* kFamilyStreams = "streams";
inline constexpr const char* kFamilyLoader = "loader";
inline constexpr const char* kFamilyMlp = "mlp";
std::vector<std::string> all_family_names();

struct Options {
  bool help = false;
  std::string out_path;  // empty: main picks reports/hdbench-<host>-<time>.json
  std::vector<std::string> families;
  std::vector<std::size_t> sizes;
  std::vector<Direction> directions;
  std::vector<HostMemoryKind> memory_kinds;
  std::vector<Engine> engines;
  std::vector<std::size_t> staged_chunk_sizes;
  std::vector<int> staged_threads;
  int staged_slots = 4;
  std::vector<int> memcpy_threads;
  // streams family: buffer sizes (multiples of 4 bytes), stream and chunk counts,
  // issue orders, and the kernel's time as a multiple of the buffer's H2D copy time.
  std::vector<std::size_t> stream_sizes;
  std::vector<int> stream_counts;
  std::vector<int> chunk_counts;
  std::vector<IssueOrder> issue_orders;
  std::vector<double> compute_ratios;
  // loader family: dataset size (synthetic) or the MNIST folder, and the grid.
  std::size_t loader_samples = 60000;
  std::string mnist_dir;  // empty: the synthetic MNIST-shaped set
  std::vector<int> loader_batches;
  std::vector<int> loader_workers;
  std::vector<int> loader_depths;  // prefetch depth per worker
  std::vector<double> loader_costs_us;
  std::vector<bool> loader_shuffle;
  std::vector<PinMode> loader_pinning;
  std::vector<Augment> loader_augments;
  std::vector<LoaderConsumer> loader_consumers;
  // mlp family: training steps (models × batches × processors × dtypes × optimizers ×
  // modes × where the batch starts), the GEMM rate beside them, and whole epochs fed by
  // the loader (models × batches × workers × pinning).
  std::vector<MlpShape> mlp_models;
  std::vector<int> mlp_batches;
  std::vector<Processor> mlp_processors;
  std::vector<MlpDtype> mlp_dtypes;
  std::vector<OptimizerKind> mlp_optimizers;
  std::vector<StepMode> mlp_modes;
  std::vector<BatchSource> mlp_data;
  std::vector<int> mlp_threads;
  double mlp_cpu_step_tflop_limit = 0.2;  // CPU steps doing more are skipped (a 2-core host: ~1 s)
  std::vector<MlpShape> mlp_epoch_models;
  std::vector<int> mlp_epoch_batches;
  std::vector<int> mlp_epoch_workers;
  std::vector<PinMode> mlp_epoch_pinning;
  std::string trace_path;  // --hdbench_trace: Chrome trace of CUPTI activity; empty: none
  bool trace_api = false;  // also record every CUDA runtime call
  int device = 0;
  std::uint64_t seed = 0;
  double spin_timeout_ms = 5000.0;
  std::vector<std::string> given;  // the --hdbench_* arguments as typed, for the report

  bool runs_family(std::string_view name) const;
};

// What validation compares against; discovered once by main.
struct OptionLimits {
  std::uint64_t host_memory_bytes = 0;  // 0: unknown, sizes are not capped
  int hardware_threads = 1;
};

struct CommandLine {
  Options options;
  std::vector<std::string> passthrough;  // everything that is not --hdbench_*
};

// args excludes argv[0]. `random_seed` is used when --hdbench_seed is absent.
CommandLine parse_command_line(const std::vector<std::string>& args, const OptionLimits& limits,
                               std::uint64_t random_seed);
std::string options_help();
nlohmann::json to_json(const Options& options);

// --- Value parsers, exposed for tests; throw UsageError naming `flag`. ----------

// "4096", "4K", "4KiB", "64M", "1G", "1GiB" (binary multiples); must be > 0.
std::size_t parse_size(std::string_view flag, std::string_view text);
// Comma-separated sizes and geometric ranges "FROM:TO:xFACTOR" (e.g. "4K:1G:x4").
std::vector<std::size_t> parse_size_list(std::string_view flag, std::string_view text);
// Comma-separated positive integers within [min, max].
std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min, int max);
// Comma-separated on/off values (also true/false, 1/0), in the order given.
std::vector<bool> parse_switch_list(std::string_view flag, std::string_view text);
// Comma-separated decimal numbers within [min, max].
std::vector<double> parse_number_list(std::string_view flag, std::string_view text, double min, double max);
// "4KiB", "256MiB", "1GiB", "1000B": exact binary units where possible.
std::string format_size(std::size_t bytes);

}  // namespace hdbench
