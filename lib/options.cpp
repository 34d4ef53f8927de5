#include "options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "trace_recorder.hpp"

namespace hdbench {
namespace {

constexpr std::string_view kPrefix = "--hdbench_";

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

[[noreturn]] void bad_value(std::string_view flag, std::string_view text, std::string_view accepted) {
  throw UsageError(fmt::format("--hdbench_{}: '{}' is not valid; accepted: {}", flag, text, accepted));
}

std::uint64_t parse_unsigned(std::string_view flag, std::string_view text, std::string_view accepted) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) bad_value(flag, text, accepted);
  return value;
}

template <typename Enum>
std::vector<Enum> parse_enum_list(std::string_view flag, std::string_view text,
                                  std::optional<Enum> (*from_string)(std::string_view),
                                  const std::vector<Enum>& all) {
  std::vector<std::string> names;
  for (Enum e : all) names.emplace_back(to_string(e));
  const std::string accepted = fmt::format("a comma-separated list of {}", fmt::join(names, ", "));
  std::vector<Enum> values;
  for (std::string_view item : split(text, ',')) {
    const std::optional<Enum> value = from_string(item);
    if (!value) bad_value(flag, item.empty() ? text : item, accepted);
    if (std::find(values.begin(), values.end(), *value) == values.end()) values.push_back(*value);
  }
  return values;
}

// Comma-separated MLP widths ("784x32x10,784x4096x10"); the model parser says what is
// wrong with a bad one.
std::vector<MlpShape> parse_model_list(std::string_view flag, std::string_view text) {
  std::vector<MlpShape> models;
  for (std::string_view item : split(text, ',')) {
    try {
      models.push_back(parse_mlp_shape(item));
    } catch (const MlpConfigError& error) {
      throw UsageError(fmt::format("--hdbench_{}: {}", flag, error.what()));
    }
  }
  return models;
}

std::vector<int> default_memcpy_threads(int hardware_threads) {
  std::vector<int> threads;
  for (int t = 1; t <= hardware_threads; t *= 2) threads.push_back(t);
  if (threads.back() != hardware_threads) threads.push_back(hardware_threads);
  return threads;
}

void check_sizes_fit(std::string_view flag, const std::vector<std::size_t>& sizes,
                     const OptionLimits& limits) {
  if (limits.host_memory_bytes == 0) return;
  for (std::size_t size : sizes) {
    if (size > limits.host_memory_bytes) {
      throw UsageError(fmt::format(
          "--hdbench_{}: {} is larger than this machine's memory ({}); accepted: sizes up to {}",
          flag, format_size(size), format_size(limits.host_memory_bytes),
          format_size(limits.host_memory_bytes)));
    }
  }
}

struct FlagSpec {
  std::string_view name;
  std::string_view value_help;
  std::string_view description;
};

const std::vector<FlagSpec>& flag_specs() {
  static const std::vector<FlagSpec> specs = {
      {"help", "", "print this list and exit"},
      {"out", "PATH", "JSON report path (default reports/hdbench-<host>-<time>.json)"},
      {"families", "LIST", "families to run: transfer, pinning, staged, host_memcpy, streams, loader, mlp (default all)"},
      {"sizes", "SIZES", "transfer sizes: list and FROM:TO:xFACTOR ranges (default 4K:1G:x4)"},
      {"directions", "LIST", "h2d, d2h, bidir (default all)"},
      {"memory", "LIST", "pageable, registered, pinned, pinned_wc, mapped (default all)"},
      {"engines", "LIST", "copy (DMA engines), sm (kernel over mapped memory) (default both)"},
      {"staged_chunks", "SIZES", "pinned chunk sizes of staged copies (default 1M,4M,16M)"},
      {"staged_threads", "LIST", "host threads copying into the pinned ring (default 1,2,4)"},
      {"staged_slots", "N", "pinned chunks in the staging ring, 2..64 (default 4)"},
      {"memcpy_threads", "LIST", "threads for host memcpy (default powers of two up to cores)"},
      {"stream_sizes", "SIZES", "buffer sizes of the streams family, multiples of 4 bytes (default 256M)"},
      {"stream_counts", "LIST", "streams of a pipelined buffer, 1..64 (default 1,2,4,8)"},
      {"chunk_counts", "LIST", "chunks a pipelined buffer is split into, 1..1024 (default 4,16,64)"},
      {"issue_orders", "LIST", "by_chunk (a chunk's stages together), by_stage (default both)"},
      {"compute_ratios", "LIST", "kernel time as a multiple of the H2D copy time, 0.05..4 (default 0.5,1,2)"},
      {"loader_samples", "N", "samples in the synthetic dataset, 1..10000000 (default 60000, MNIST's training set)"},
      {"mnist_dir", "DIR", "read DIR/train-images-idx3-ubyte and DIR/train-labels-idx1-ubyte instead"},
      {"loader_batches", "LIST", "loader batch sizes, 1..65536 (default 32,64,...,4096)"},
      {"loader_workers", "LIST", "loader worker threads, 0..1024; 0 builds on the consumer (default 0,1,2,4,8,16)"},
      {"loader_depths", "LIST", "ready batches kept ahead per worker, 1..64 (default 2, PyTorch's prefetch_factor)"},
      {"loader_costs_us", "LIST", "synthetic CPU cost per sample in us, 0..100000, stands in for decoding (default 0,20)"},
      {"loader_shuffle", "LIST", "on, off: shuffle the sampler per epoch (default on)"},
      {"loader_pinning", "LIST", "pageable, pin_thread (PyTorch's pin thread), direct (default all)"},
      {"loader_augment", "LIST", "none, crop_flip (random crop with padding + horizontal flip) (default none)"},
      {"loader_consumers", "LIST", "host (CPU checksum), gpu (async copy + checksum kernel) (default both)"},
      {"mlp_models", "LIST", "MLP widths, e.g. 784x32x10 (default 784x32x10,784x4096x4096x10,784x4096x4096x4096x10)"},
      {"mlp_batches", "LIST", "training-step batch sizes, 1..1048576 (default 32,128,1024,8192,16384)"},
      {"mlp_processors", "LIST", "cpu (OpenBLAS), gpu (cuBLASLt) (default both)"},
      {"mlp_dtypes", "LIST", "fp32, tf32, bf16 (GPU; the CPU step is fp32) (default all)"},
      {"mlp_optimizers", "LIST", "sgd (with momentum), adam (default sgd)"},
      {"mlp_modes", "LIST", "eager, graph (GPU: the step captured once into a CUDA graph) (default both)"},
      {"mlp_data", "LIST", "device (batch already there), pageable, pinned (GPU step copies it first) (default all)"},
      {"mlp_threads", "LIST", "CPU step threads (OpenBLAS and element-wise) (default all cores)"},
      {"mlp_cpu_step_tflop_limit", "T", "skip CPU steps doing more than T TFLOP, 0.000001..1000 (default 0.2)"},
      {"mlp_epoch_models", "LIST", "models trained for whole epochs fed by the loader (default 784x32x10)"},
      {"mlp_epoch_batches", "LIST", "epoch batch sizes, 1..65536 (default 128,1024)"},
      {"mlp_epoch_workers", "LIST", "loader workers feeding the epochs, 0..1024 (default 0,2,8)"},
      {"mlp_epoch_pinning", "LIST", "pageable, pin_thread, direct: how epoch batches reach the GPU (default all)"},
      {"trace", "FILE", "record CUPTI activity (copies, kernels, ranges) into a Chrome trace for Perfetto"},
      {"trace_api", "on|off", "with --hdbench_trace, also record every CUDA runtime call (default off)"},
      {"device", "N", "CUDA device index (default 0)"},
      {"seed", "N", "seed of the verification pattern (default random, recorded)"},
      {"spin_timeout_ms", "MS", "how long a spin kernel holds queued work, 1..600000 (default 5000)"},
  };
  return specs;
}

}  // namespace

std::vector<std::string> all_family_names() {
  return {kFamilyTransfer, kFamilyPinning, kFamilyStaged, kFamilyHostMemcpy, kFamilyStreams, kFamilyLoader,
          kFamilyMlp};
}

bool Options::runs_family(std::string_view name) const {
  return std::find(families.begin(), families.end(), name) != families.end();
}

std::size_t parse_size(std::string_view flag, std::string_view text) {
  constexpr std::string_view accepted = "a positive byte count like 4096, 4K, 64MiB or 1G";
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) bad_value(flag, text, accepted);
  const std::uint64_t number = parse_unsigned(flag, text.substr(0, digits), accepted);
  const std::string_view unit = text.substr(digits);
  static const std::map<std::string_view, unsigned> shifts = {
      {"", 0},   {"B", 0},    {"K", 10},   {"KiB", 10}, {"KB", 10}, {"M", 20}, {"MiB", 20},
      {"MB", 20}, {"G", 30}, {"GiB", 30}, {"GB", 30},  {"T", 40},  {"TiB", 40}};
  const auto it = shifts.find(unit);
  if (it == shifts.end() || number == 0) bad_value(flag, text, accepted);
  if (number > (std::numeric_limits<std::size_t>::max() >> it->second)) bad_value(flag, text, accepted);
  return static_cast<std::size_t>(number) << it->second;
}

std::vector<std::size_t> parse_size_list(std::string_view flag, std::string_view text) {
  std::vector<std::size_t> sizes;
  for (std::string_view item : split(text, ',')) {
    const std::vector<std::string_view> range = split(item, ':');
    if (range.size() == 1) {
      sizes.push_back(parse_size(flag, item));
    } else if (range.size() == 3 && range[2].size() >= 2 && range[2][0] == 'x') {
      const std::size_t from = parse_size(flag, range[0]);
      const std::size_t to = parse_size(flag, range[1]);
      const std::uint64_t factor =
          parse_unsigned(flag, range[2].substr(1), "a range FROM:TO:xFACTOR with FACTOR >= 2");
      if (factor < 2 || from > to) bad_value(flag, item, "a range FROM:TO:xFACTOR with FROM <= TO and FACTOR >= 2");
      for (std::size_t size = from; size <= to; size *= factor) {
        sizes.push_back(size);
        if (size > to / factor) break;  // the next step would pass TO (or overflow)
      }
    } else {
      bad_value(flag, item, "sizes like 64M and ranges like 4K:1G:x4, separated by commas");
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min, int max) {
  const std::string accepted = fmt::format("comma-separated integers from {} to {}", min, max);
  std::vector<int> values;
  for (std::string_view item : split(text, ',')) {
    std::int64_t value = 0;
    const auto* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
      bad_value(flag, item.empty() ? text : item, accepted);
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) {
      values.push_back(static_cast<int>(value));
    }
  }
  return values;
}

std::vector<bool> parse_switch_list(std::string_view flag, std::string_view text) {
  std::vector<bool> values;
  for (std::string_view item : split(text, ',')) {
    bool value = false;
    if (item == "on" || item == "true" || item == "1") {
      value = true;
    } else if (!(item == "off" || item == "false" || item == "0")) {
      bad_value(flag, item.empty() ? text : item, "a comma-separated list of on, off");
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

std::vector<double> parse_number_list(std::string_view flag, std::string_view text, double min, double max) {
  const std::string accepted = fmt::format("comma-separated numbers from {} to {}", min, max);
  std::vector<double> values;
  for (std::string_view item : split(text, ',')) {
    double value = 0.0;
    const auto* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || !(value >= min && value <= max)) {
      bad_value(flag, item.empty() ? text : item, accepted);
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

std::string format_size(std::size_t bytes) {
  constexpr std::pair<unsigned, const char*> units[] = {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  for (const auto& [shift, name] : units) {
    const std::size_t unit = std::size_t{1} << shift;
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, name);
  }
  return fmt::format("{}B", bytes);
}

CommandLine parse_command_line(const std::vector<std::string>& args, const OptionLimits& limits,
                               std::uint64_t random_seed) {
  CommandLine result;
  Options& o = result.options;
  o.families = all_family_names();
  o.sizes = parse_size_list("sizes", "4K:1G:x4");
  o.directions = all_directions();
  o.memory_kinds = all_host_memory_kinds();
  o.engines = all_engines();
  o.staged_chunk_sizes = parse_size_list("staged_chunks", "1M,4M,16M");
  o.staged_threads = {1, 2, 4};
  o.memcpy_threads = default_memcpy_threads(std::max(1, limits.hardware_threads));
  o.stream_sizes = parse_size_list("stream_sizes", "256M");
  o.stream_counts = {1, 2, 4, 8};
  o.chunk_counts = {4, 16, 64};
  o.issue_orders = all_issue_orders();
  o.compute_ratios = {0.5, 1.0, 2.0};
  o.loader_batches = {32, 64, 128, 256, 512, 1024, 2048, 4096};
  o.loader_workers = {0, 1, 2, 4, 8, 16};
  o.loader_depths = {2};
  o.loader_costs_us = {0.0, 20.0};
  o.loader_shuffle = {true};
  o.loader_pinning = all_pin_modes();
  o.loader_augments = {Augment::none};
  o.loader_consumers = all_loader_consumers();
  o.mlp_models = parse_model_list("mlp_models", "784x32x10,784x4096x4096x10,784x4096x4096x4096x10");
  o.mlp_batches = {32, 128, 1024, 8192, 16384};
  o.mlp_processors = all_processors();
  o.mlp_dtypes = {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16};
  o.mlp_optimizers = {OptimizerKind::sgd};
  o.mlp_modes = {StepMode::eager, StepMode::graph};
  o.mlp_data = all_batch_sources();
  o.mlp_threads = {std::max(1, limits.hardware_threads)};
  o.mlp_epoch_models = parse_model_list("mlp_epoch_models", "784x32x10");
  o.mlp_epoch_batches = {128, 1024};
  o.mlp_epoch_workers = {0, 2, 8};
  o.mlp_epoch_pinning = all_pin_modes();
  o.seed = random_seed;

  bool sizes_given = false;
  bool stream_sizes_given = false;
  using Handler = std::function<void(std::string_view flag, std::string_view value)>;
  const int max_threads = std::max(256, limits.hardware_threads * 4);
  const std::map<std::string_view, Handler> handlers = {
      {"out", [&](auto flag, auto v) {
         if (v.empty()) bad_value(flag, v, "a file path");
         o.out_path = std::string(v);
       }},
      {"families", [&](auto flag, auto v) {
         const auto names = all_family_names();
         o.families.clear();
         for (std::string_view item : split(v, ',')) {
           if (std::find(names.begin(), names.end(), item) == names.end()) {
             bad_value(flag, item.empty() ? v : item, fmt::format("a comma-separated list of {}", fmt::join(names, ", ")));
           }
           o.families.emplace_back(item);
         }
       }},
      {"sizes", [&](auto flag, auto v) {
         o.sizes = parse_size_list(flag, v);
         sizes_given = true;
       }},
      {"directions", [&](auto flag, auto v) {
         o.directions = parse_enum_list<Direction>(flag, v, direction_from_string, all_directions());
       }},
      {"memory", [&](auto flag, auto v) {
         o.memory_kinds = parse_enum_list<HostMemoryKind>(flag, v, host_memory_kind_from_string,
                                                          all_host_memory_kinds());
       }},
      {"engines", [&](auto flag, auto v) {
         o.engines = parse_enum_list<Engine>(flag, v, engine_from_string, all_engines());
       }},
      {"staged_chunks", [&](auto flag, auto v) { o.staged_chunk_sizes = parse_size_list(flag, v); }},
      {"staged_threads", [&](auto flag, auto v) { o.staged_threads = parse_int_list(flag, v, 1, max_threads); }},
      {"staged_slots", [&](auto flag, auto v) {
         const auto values = parse_int_list(flag, v, 2, 64);
         if (values.size() != 1) bad_value(flag, v, "one integer from 2 to 64");
         o.staged_slots = values.front();
       }},
      {"memcpy_threads", [&](auto flag, auto v) { o.memcpy_threads = parse_int_list(flag, v, 1, max_threads); }},
      {"stream_sizes", [&](auto flag, auto v) {
         o.stream_sizes = parse_size_list(flag, v);
         for (std::size_t size : o.stream_sizes) {
           if (size % 4 != 0) bad_value(flag, format_size(size), "sizes that are multiples of 4 bytes (32-bit words)");
         }
         stream_sizes_given = true;
       }},
      {"stream_counts", [&](auto flag, auto v) { o.stream_counts = parse_int_list(flag, v, 1, 64); }},
      {"chunk_counts", [&](auto flag, auto v) { o.chunk_counts = parse_int_list(flag, v, 1, 1024); }},
      {"issue_orders", [&](auto flag, auto v) {
         o.issue_orders = parse_enum_list<IssueOrder>(flag, v, issue_order_from_string, all_issue_orders());
       }},
      {"compute_ratios", [&](auto flag, auto v) { o.compute_ratios = parse_number_list(flag, v, 0.05, 4.0); }},
      {"loader_samples", [&](auto flag, auto v) {
         const std::uint64_t n = parse_unsigned(flag, v, "a sample count from 1 to 10000000");
         if (n < 1 || n > 10'000'000) bad_value(flag, v, "a sample count from 1 to 10000000");
         o.loader_samples = static_cast<std::size_t>(n);
       }},
      {"mnist_dir", [&](auto flag, auto v) {
         if (v.empty()) bad_value(flag, v, "a folder holding the MNIST IDX files");
         o.mnist_dir = std::string(v);
       }},
      {"loader_batches", [&](auto flag, auto v) { o.loader_batches = parse_int_list(flag, v, 1, 65536); }},
      {"loader_workers", [&](auto flag, auto v) { o.loader_workers = parse_int_list(flag, v, 0, 1024); }},
      {"loader_depths", [&](auto flag, auto v) { o.loader_depths = parse_int_list(flag, v, 1, 64); }},
      {"loader_costs_us", [&](auto flag, auto v) { o.loader_costs_us = parse_number_list(flag, v, 0.0, 100000.0); }},
      {"loader_shuffle", [&](auto flag, auto v) { o.loader_shuffle = parse_switch_list(flag, v); }},
      {"loader_pinning", [&](auto flag, auto v) {
         o.loader_pinning = parse_enum_list<PinMode>(flag, v, pin_mode_from_string, all_pin_modes());
       }},
      {"loader_augment", [&](auto flag, auto v) {
         o.loader_augments = parse_enum_list<Augment>(flag, v, augment_from_string, all_augments());
       }},
      {"loader_consumers", [&](auto flag, auto v) {
         o.loader_consumers =
             parse_enum_list<LoaderConsumer>(flag, v, loader_consumer_from_string, all_loader_consumers());
       }},
      {"mlp_models", [&](auto flag, auto v) { o.mlp_models = parse_model_list(flag, v); }},
      {"mlp_batches", [&](auto flag, auto v) { o.mlp_batches = parse_int_list(flag, v, 1, 1 << 20); }},
      {"mlp_processors", [&](auto flag, auto v) {
         o.mlp_processors = parse_enum_list<Processor>(flag, v, processor_from_string, all_processors());
       }},
      {"mlp_dtypes", [&](auto flag, auto v) {
         o.mlp_dtypes = parse_enum_list<MlpDtype>(flag, v, mlp_dtype_from_string,
                                                  {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16});
       }},
      {"mlp_optimizers", [&](auto flag, auto v) {
         o.mlp_optimizers = parse_enum_list<OptimizerKind>(flag, v, optimizer_from_string,
                                                           {OptimizerKind::sgd, OptimizerKind::adam});
       }},
      {"mlp_modes", [&](auto flag, auto v) {
         o.mlp_modes = parse_enum_list<StepMode>(flag, v, step_mode_from_string, {StepMode::eager, StepMode::graph});
       }},
      {"mlp_data", [&](auto flag, auto v) {
         o.mlp_data = parse_enum_list<BatchSource>(flag, v, batch_source_from_string, all_batch_sources());
       }},
      {"mlp_threads", [&](auto flag, auto v) { o.mlp_threads = parse_int_list(flag, v, 1, max_threads); }},
      {"mlp_cpu_step_tflop_limit", [&](auto flag, auto v) {
         const auto values = parse_number_list(flag, v, 1e-6, 1000.0);
         if (values.size() != 1) bad_value(flag, v, "one number of TFLOP from 0.000001 to 1000");
         o.mlp_cpu_step_tflop_limit = values.front();
       }},
      {"mlp_epoch_models", [&](auto flag, auto v) { o.mlp_epoch_models = parse_model_list(flag, v); }},
      {"mlp_epoch_batches", [&](auto flag, auto v) { o.mlp_epoch_batches = parse_int_list(flag, v, 1, 65536); }},
      {"mlp_epoch_workers", [&](auto flag, auto v) { o.mlp_epoch_workers = parse_int_list(flag, v, 0, 1024); }},
      {"mlp_epoch_pinning", [&](auto flag, auto v) {
         o.mlp_epoch_pinning = parse_enum_list<PinMode>(flag, v, pin_mode_from_string, all_pin_modes());
       }},
      {"trace", [&](auto flag, auto v) {
         if (v.empty()) bad_value(flag, v, "a file path for the Chrome trace");
         if (!trace::cupti_built_in()) {
           throw UsageError("--hdbench_trace: this hdbench was built without CUPTI; rebuild with the CUDA Toolkit's "
                            "CUPTI (CUDA::cupti) to record traces");
         }
         o.trace_path = std::string(v);
       }},
      {"trace_api", [&](auto flag, auto v) {
         const auto values = parse_switch_list(flag, v);
         if (values.size() != 1) bad_value(flag, v, "on or off");
         o.trace_api = values.front();
       }},
      {"device", [&](auto flag, auto v) {
         const std::uint64_t device = parse_unsigned(flag, v, "a device index 0, 1, …");
         if (device > 4095) bad_value(flag, v, "a device index 0, 1, …");
         o.device = static_cast<int>(device);
       }},
      {"seed", [&](auto flag, auto v) { o.seed = parse_unsigned(flag, v, "an unsigned 64-bit integer"); }},
      {"spin_timeout_ms", [&](auto flag, auto v) {
         const auto values = parse_number_list(flag, v, 1.0, 600000.0);
         if (values.size() != 1) bad_value(flag, v, "milliseconds from 1 to 600000");
         o.spin_timeout_ms = values.front();
       }},
  };

  for (const std::string& arg : args) {
    const std::string_view text = arg;
    if (!text.starts_with(kPrefix)) {
      result.passthrough.push_back(arg);
      continue;
    }
    o.given.push_back(arg);
    const std::string_view body = text.substr(kPrefix.size());
    const std::size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    if (name == "help") {
      if (equals != std::string_view::npos) throw UsageError("--hdbench_help takes no value");
      o.help = true;
      continue;
    }
    const auto handler = handlers.find(name);
    if (handler == handlers.end()) {
      std::vector<std::string> known;
      for (const FlagSpec& spec : flag_specs()) known.push_back(fmt::format("--hdbench_{}", spec.name));
      throw UsageError(fmt::format("unknown flag '{}'; hdbench's flags are: {} (see --hdbench_help)",
                                   arg, fmt::join(known, ", ")));
    }
    if (equals == std::string_view::npos) {
      throw UsageError(fmt::format("--hdbench_{} needs a value: --hdbench_{}=VALUE (see --hdbench_help)", name, name));
    }
    handler->second(name, body.substr(equals + 1));
  }
  // A size the user asked for that cannot fit is a usage error; default sizes that do
  // not fit a small machine are skipped at run time with the reason instead.
  if (sizes_given) check_sizes_fit("sizes", o.sizes, limits);
  if (stream_sizes_given) check_sizes_fit("stream_sizes", o.stream_sizes, limits);
  check_sizes_fit("staged_chunks", o.staged_chunk_sizes, limits);
  return result;
}

std::string options_help() {
  std::string text =
      "hdbench flags (Google Benchmark's --benchmark_* flags work as well; see --help):\n";
  for (const FlagSpec& spec : flag_specs()) {
    const std::string flag = spec.value_help.empty()
                                 ? fmt::format("--hdbench_{}", spec.name)
                                 : fmt::format("--hdbench_{}={}", spec.name, spec.value_help);
    text += fmt::format("  {:<34} {}\n", flag, spec.description);
  }
  text +=
      "Sizes use binary multiples: 4K = 4096 bytes, 1G = 2^30 bytes. GB/s in results means 1e9 bytes/s.\n"
      "Unless --benchmark_min_time is given, hdbench runs each benchmark for at least 0.1 s.\n";
  return text;
}

namespace {

template <typename Enum>
std::vector<std::string> names_of(const std::vector<Enum>& values) {
  std::vector<std::string> names;
  for (Enum value : values) names.emplace_back(to_string(value));
  return names;
}

}  // namespace

nlohmann::json to_json(const Options& o) {
  nlohmann::json j;
  j["families"] = o.families;
  j["sizes_bytes"] = o.sizes;
  j["directions"] = names_of(o.directions);
  j["memory_kinds"] = names_of(o.memory_kinds);
  j["engines"] = names_of(o.engines);
  j["staged_chunk_sizes_bytes"] = o.staged_chunk_sizes;
  j["staged_threads"] = o.staged_threads;
  j["staged_slots"] = o.staged_slots;
  j["memcpy_threads"] = o.memcpy_threads;
  j["stream_sizes_bytes"] = o.stream_sizes;
  j["stream_counts"] = o.stream_counts;
  j["chunk_counts"] = o.chunk_counts;
  j["issue_orders"] = names_of(o.issue_orders);
  j["compute_ratios"] = o.compute_ratios;
  j["loader_samples"] = o.loader_samples;
  j["mnist_dir"] = o.mnist_dir;
  j["loader_batches"] = o.loader_batches;
  j["loader_workers"] = o.loader_workers;
  j["loader_depths"] = o.loader_depths;
  j["loader_costs_us"] = o.loader_costs_us;
  j["loader_shuffle"] = o.loader_shuffle;
  j["loader_pinning"] = names_of(o.loader_pinning);
  j["loader_augment"] = names_of(o.loader_augments);
  j["loader_consumers"] = names_of(o.loader_consumers);
  std::vector<std::string> models, epoch_models;
  for (const MlpShape& m : o.mlp_models) models.push_back(to_string(m));
  for (const MlpShape& m : o.mlp_epoch_models) epoch_models.push_back(to_string(m));
  j["mlp_models"] = models;
  j["mlp_batches"] = o.mlp_batches;
  j["mlp_processors"] = names_of(o.mlp_processors);
  j["mlp_dtypes"] = names_of(o.mlp_dtypes);
  j["mlp_optimizers"] = names_of(o.mlp_optimizers);
  j["mlp_modes"] = names_of(o.mlp_modes);
  j["mlp_data"] = names_of(o.mlp_data);
  j["mlp_threads"] = o.mlp_threads;
  j["mlp_cpu_step_tflop_limit"] = o.mlp_cpu_step_tflop_limit;
  j["mlp_epoch_models"] = epoch_models;
  j["mlp_epoch_batches"] = o.mlp_epoch_batches;
  j["mlp_epoch_workers"] = o.mlp_epoch_workers;
  j["mlp_epoch_pinning"] = names_of(o.mlp_epoch_pinning);
  j["trace_path"] = o.trace_path;
  j["trace_api"] = o.trace_api;
  j["device"] = o.device;
  j["seed"] = o.seed;
  j["spin_timeout_ms"] = o.spin_timeout_ms;
  j["out_path"] = o.out_path;
  j["arguments"] = o.given;
  return j;
}

}  // namespace hdbench
