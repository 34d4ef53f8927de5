#include "run_start.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/flags.hpp"
#include "core/report.hpp"
#include "splitmix64.hpp"

namespace hdbench {

std::uint64_t random_seed() {
  std::random_device device;
  return splitmix64((static_cast<std::uint64_t>(device()) << 32) ^ device()) % kSeedLimit;
}

OptionLimits this_machine_limits() {
  return {system::host_memory_total_bytes(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
}

std::string default_report_path(std::string_view program, const system::SystemInfo& info) {
  const std::string gpu = info.gpu_usable() ? info.gpus.front().name : std::string();
  return fmt::format("reports/{}-{}-{}.json", program, system::machine_slug(gpu, info.host.cpu_model),
                     local_time("%Y%m%d-%H%M%S"));
}

void check_out_path(const std::string& path, std::string_view flag) {
  if (path == "-") {  // the listing flags' standard output; a report is a file, read whole or not at all
    throw UsageError(fmt::format("{}=-: a report is written to a file; give its path", flag));
  }
  try {
    check_writable(path);
  } catch (const std::exception& error) {
    throw UsageError(fmt::format("{}: {}", flag, error.what()));
  }
}

void check_not_dataset_file(const std::string& path, const std::string& folder, std::string_view flag) {
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::weakly_canonical(link_target(path), ec);
  for (const char* name :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    for (const std::string file : {std::string(name), std::string(name) + ".gz"}) {
      std::error_code file_ec;
      const std::filesystem::path dataset_file =
          std::filesystem::weakly_canonical(std::filesystem::path(folder) / file, file_ec);
      if (!ec && !file_ec && target == dataset_file) {
        throw UsageError(
            fmt::format("{}={}: is a file of the dataset the run reads ({}): writing it would lose it, "
                        "or be read as it; give another path",
                        flag, path, folder));
      }
    }
  }
}

std::string write_report_file(const std::string& path, bool default_path, const nlohmann::json& report) {
  if (!default_path) {
    write_file_atomically(path, report_text(report));
    return path;
  }
  return write_file_exclusively(path, report_text(report)).string();
}

namespace {

// `--benchmark_NAME=value` or `--benchmark_NAME value`-less forms: the value, if `arg` is that flag.
std::optional<std::string_view> flag_value(std::string_view arg, std::string_view name) {
  const std::string prefix = fmt::format("--benchmark_{}", name);
  if (!arg.starts_with(prefix)) return std::nullopt;
  arg.remove_prefix(prefix.size());
  if (arg.empty()) return std::string_view();
  if (arg.front() != '=') return std::nullopt;  // another flag sharing the prefix
  return arg.substr(1);
}

bool one_of(std::string_view value, std::initializer_list<std::string_view> accepted) {
  return std::find(accepted.begin(), accepted.end(), value) != accepted.end();
}

bool number_at_least(std::string_view value, double least, bool whole) {
  const std::string text(value);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && errno == 0 && std::isfinite(v) && v >= least &&
         (!whole || v == std::floor(v));
}

}  // namespace

void check_benchmark_flags(const std::vector<std::string>& passthrough) {
  for (const std::string& arg : passthrough) {
    for (const std::string_view own_file : {"out", "out_format"}) {
      if (flag_value(arg, own_file)) {
        throw UsageError(
            fmt::format("{}: not supported; --hdbench_out=FILE writes the report (Google Benchmark's "
                        "JSON with hdbench's fields), whole or not at all",
                        arg));
      }
    }
    const auto bad = [&arg](std::string_view accepted) {
      return UsageError(fmt::format("{}: accepted: {}", arg, accepted));
    };
    // json and csv were taken and ignored: the console table is hdbench's, the JSON its report
    if (const auto v = flag_value(arg, "format"); v && !one_of(*v, {"console"})) {
      throw bad("console (the JSON report is --hdbench_out=FILE)");
    }
    if (const auto v = flag_value(arg, "time_unit"); v && !one_of(*v, {"ns", "us", "ms", "s"})) {
      throw bad("ns, us, ms or s");
    }
    if (const auto v = flag_value(arg, "color");
        v && !v->empty() && !one_of(*v, {"auto", "true", "false", "yes", "no", "on", "off", "1", "0"})) {
      throw bad("auto, true or false");
    }
    if (const auto v = flag_value(arg, "min_time"); v && !number_at_least(*v, 0.0, false)) {
      throw bad("a number of seconds >= 0");
    }
    if (const auto v = flag_value(arg, "repetitions"); v && !number_at_least(*v, 1.0, true)) {
      throw bad("a whole number >= 1");
    }
  }
}

void check_repetitions(const std::vector<std::string>& passthrough, bool stopping_rule) {
  for (const std::string& arg : passthrough) {
    if (const auto v = flag_value(arg, "repetitions"); stopping_rule && v && number_at_least(*v, 2.0, true)) {
      // Each repetition stops at its own sample count, and Google Benchmark's statistics
      // over repetitions abort (a check in its statistics.cc) where the counts differ.
      throw UsageError(
          fmt::format("{}: repetitions need Google Benchmark's fixed iterations "
                      "(--hdbench_noise_target=0); with the stopping rule, run hdbench again "
                      "and compare the reports (tools/hdbench_report.py compare)",
                      arg));
    }
  }
}

bool console_colour(const std::vector<std::string>& passthrough) {
  std::string_view asked = "auto";
  for (const std::string& arg : passthrough) {
    if (const auto v = flag_value(arg, "color")) asked = v->empty() ? "true" : *v;
  }
  if (one_of(asked, {"true", "yes", "on", "1"})) return true;
  if (one_of(asked, {"false", "no", "off", "0"})) return false;
  const char* term = std::getenv("TERM");  // auto: a terminal that shows colour, never a file or a pipe
  return ::isatty(STDOUT_FILENO) == 1 && term != nullptr && std::string_view(term) != "dumb";
}

nlohmann::json run_context(const system::SystemInfo& info, const CommandLine& line, const std::string& started_at) {
  nlohmann::json context = build_info();
  context["schema_version"] = kReportSchemaVersion;
  context["system"] = system::to_json(info);
  context["options"] = line.options_json();
  context["families"] = line.families_json(true);
  context["started_at"] = started_at;
  context["finished_at"] = local_time("%Y-%m-%dT%H:%M:%S%z");
  return context;
}

}  // namespace hdbench
