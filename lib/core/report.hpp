// The JSON report: Google Benchmark's format (context + benchmarks, so Google's
// compare.py reads it unchanged) extended with context.hdbench, typed `params` per
// benchmark, a status with the skip reason, notes, and derived figures.
// Schema: reports/README.md. Written atomically: temp file + fsync + rename.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/interrupts.hpp"
#include "core/progress.hpp"

namespace hdbench {

inline constexpr int kReportSchemaVersion = 2;
inline constexpr std::string_view kSkippedPrefix = "skipped: ";

// A benchmark that cannot run here says why; one whose result is wrong says what.
// Both end the benchmark through SkipWithError (Google Benchmark 1.7.1 has no
// SkipWithMessage); the prefix tells the reporter which it was.
void skip_benchmark(benchmark::State& state, const std::string& reason);
void fail_benchmark(benchmark::State& state, const std::string& message);

// Typed parameters of each registered benchmark, keyed by its name.
class ParamRegistry {
 public:
  void add(const std::string& name, nlohmann::json params);  // throws on a duplicate name
  const nlohmann::json* find(const std::string& name) const;
  std::vector<std::string> names() const;
  std::size_t size() const noexcept { return params_.size(); }

 private:
  std::map<std::string, nlohmann::json> params_;
};

// What every report entry holds, however it ran (a Google Benchmark run, or one case of
// hdbench_mpi's ranks).
struct EntryFields {
  std::string name = {};
  std::string run_name = {};  // Google's run name; the name when empty
  nlohmann::json params = nlohmann::json::object();
  std::int64_t iterations = 0;
  double real_time = 0.0, cpu_time = 0.0;  // in time_unit
  std::string time_unit = "us";
  nlohmann::json counters = nlohmann::json::object();  // by name (units in the names)
  // The error message as Google writes it: empty when it ran, kSkippedPrefix + reason
  // when it was skipped, what went wrong when it failed.
  std::string error_message = {};
};

// One entry: name, run_name, run_type "iteration", repetitions, iterations, times,
// counters both at top level (as Google writes them) and under "counters", params,
// status (ok, skipped, error) with skip_reason or error_message, and notes.
nlohmann::json report_entry(const EntryFields& fields);

// One Google Benchmark run as a report entry (report_entry plus Google's own fields:
// family and instance indexes, threads, aggregates, label).
nlohmann::json run_to_json(const benchmark::BenchmarkReporter::Run& run, const ParamRegistry& params);

// Google's context fields (date, host_name, executable, num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches, load_avg, library_build_type).
nlohmann::json context_to_json(const benchmark::BenchmarkReporter::Context& context);

// Forwards everything to a display reporter (the console table) and keeps the runs.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  CollectingReporter(benchmark::BenchmarkReporter& display, const ParamRegistry& params);
  // Reports each finished benchmark to `progress` (may be null).
  void set_progress(Progress* progress) noexcept { progress_ = progress; }
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  const nlohmann::json& context() const noexcept { return context_; }
  const nlohmann::json& benchmarks() const noexcept { return benchmarks_; }
  // A copy taken under the lock ReportRuns holds: for the watchdog's last-resort report,
  // written from another thread while a benchmark is in flight.
  nlohmann::json benchmarks_snapshot() const;
  std::size_t runs_done() const noexcept { return runs_done_; }

 private:
  benchmark::BenchmarkReporter& display_;
  const ParamRegistry& params_;
  nlohmann::json context_ = nlohmann::json::object();
  nlohmann::json benchmarks_ = nlohmann::json::array();
  mutable std::mutex mutex_;  // benchmarks_, against benchmarks_snapshot()
  std::size_t runs_done_ = 0;
  Progress* progress_ = nullptr;
};

// The local time in strftime `format`, e.g. "%Y-%m-%dT%H:%M:%S%z".
std::string local_time(const char* format);

// suite version, git revision, build type and CUDA architectures of this binary.
nlohmann::json build_info();

// Checks, before any benchmark runs, that `path` can be written: not a folder or a
// device, creates missing parent folders and writes and removes a probe file there.
// Throws std::runtime_error saying what is wrong.
void check_writable(const std::filesystem::path& path);

// The file a chain of links at `path` ends in (a link to nothing yet included): what a
// write to `path` replaces. Throws std::runtime_error on a loop of links.
std::filesystem::path link_target(const std::filesystem::path& path);

// Writes `content` to a temp file beside `path`, flushes it to disk and renames it
// over `path`: readers see the old file or the new one, never a torn one. A link at
// `path` is followed: its target gets the content and the link stays.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// As write_file_atomically, but never over an existing file: the first free name of
// `path`, `<stem>-2<ext>`, `<stem>-3<ext>`, ... (a hard link cannot replace a file, so two
// runs started in the same second, whose default names are the time to the second, never
// share one). Returns the path written.
std::filesystem::path write_file_exclusively(const std::filesystem::path& path, std::string_view content);

// A report as written: two-space JSON and a newline. A string that is not UTF-8 (a path
// given in another encoding) is written with U+FFFD in place of its bad bytes: the report
// of a finished run is never lost to it.
std::string report_text(const nlohmann::json& report, int indent = 2);

}  // namespace hdbench
