// What hdbench and hdbench_mpi do alike at start-up and at the end: the random seed,
// the machine's option limits, the default report path, the out path's check, and
// the part of context.hdbench every report carries. One place, so the two programs'
// reports cannot drift apart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/system.hpp"
#include "families.hpp"

namespace hdbench {

// A fresh seed per run (recorded in the report; --hdbench_seed replaces it).
std::uint64_t random_seed();
// The limits flags are validated against: this host's memory and logical cores.
OptionLimits this_machine_limits();
// "reports/<program>-<gpu>_<cpu>-<time>.json": named after the machine's GPU and CPU
// (a host name such as `vm` says nothing of what ran).
std::string default_report_path(std::string_view program, const system::SystemInfo& info);
// Throws UsageError naming `flag` when `path` cannot be written (before anything runs).
void check_out_path(const std::string& path, std::string_view flag);
// The report written whole (report_text): over `path` where the user named it; where it
// is default_report_path's, under the first free name of it, -2, -3, ... (two runs in
// one second never share a report). Returns the path written.
std::string write_report_file(const std::string& path, bool default_path, const nlohmann::json& report);
// Throws UsageError for a Google Benchmark flag hdbench would pass on to its harm: one
// that writes a file of its own (--benchmark_out: not whole on an interrupt, and the
// process aborts on a bad path; --hdbench_out writes the report) or a bad value that
// Google Benchmark answers with its usage text and exit code 0 (a format, a time unit,
// a colour, a negative time or repetitions).
// A UsageError where `path` (through links) is one of the IDX files in `folder`, the dataset
// the run reads, there or not (train-*, t10k-*, plain or .gz): a report replaced its labels.
void check_not_dataset_file(const std::string& path, const std::string& folder, std::string_view flag);
void check_benchmark_flags(const std::vector<std::string>& passthrough);
// --benchmark_repetitions above 1 under the stopping rule: a UsageError (Google Benchmark's
// statistics over repetitions abort where their iteration counts differ).
void check_repetitions(const std::vector<std::string>& passthrough, bool stopping_rule);
// Whether the console table is coloured: --benchmark_color, else only on a terminal.
bool console_colour(const std::vector<std::string>& passthrough);
// context.hdbench's shared fields: build, schema_version, system, options, started_at,
// finished_at (now).
nlohmann::json run_context(const system::SystemInfo& info, const CommandLine& line, const std::string& started_at);

}  // namespace hdbench
