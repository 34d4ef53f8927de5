// What hdbench and hdbench_mpi do alike at start-up and at the end: the random seed,
// the machine's option limits, the default report path, the out path's check, and
// the part of context.hdbench every report carries. One place, so the two programs'
// reports cannot drift apart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

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
// context.hdbench's shared fields: build, schema_version, system, options, started_at,
// finished_at (now).
nlohmann::json run_context(const system::SystemInfo& info, const CommandLine& line, const std::string& started_at);

}  // namespace hdbench
