// Every benchmark family, and the command line they declare their flags into.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/devices.hpp"
#include "core/family.hpp"
#include "core/options.hpp"
#include "mlp/cpu_blas.hpp"
#include "pipeline/data_options.hpp"
#include "trace/trace_options.hpp"

namespace hdbench {

// The families in run order (families.cpp: the one list). The loader and mlp families
// read the shared dataset options; the multi-device benchmarks --hdbench_devices.
std::vector<std::unique_ptr<Family>> make_families(const DataOptions& data, const DeviceSelection& devices);

// The parsed command line: the shared options, the dataset's and the trace's, and
// every family with its own options (held by the family). Not movable: the flags'
// handlers point into it.
struct CommandLine {
  CommandLine() = default;
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  FlagParser flags;
  Options options;
  DataOptions data;
  DeviceSelection devices;
  trace::TraceOptions trace;
  CpuBlasOptions cpu_blas;
  std::vector<std::unique_ptr<Family>> families;
  std::vector<std::string> passthrough;  // everything that is not --hdbench_*

  std::vector<std::string> family_names() const;
  // Registers the benchmarks of every selected family, in run order.
  void register_selected(Suite& suite) const;
  // context.hdbench.families: the description of every family (selected_only: of those
  // --hdbench_families selected), keyed by name.
  nlohmann::json families_json(bool selected_only) const;
  // context.hdbench.options: every owner's fields and the arguments as typed.
  nlohmann::json options_json() const { return flags.report(); }
};

// Declares every flag, then parses `args` (argv without argv[0]); throws UsageError.
// `random_seed` is used when --hdbench_seed is absent.
std::unique_ptr<CommandLine> parse_command_line(const std::vector<std::string>& args, const OptionLimits& limits,
                                                std::uint64_t random_seed);
// --hdbench_help: every flag, grouped by its owner.
std::string options_help(const OptionLimits& limits);

}  // namespace hdbench
