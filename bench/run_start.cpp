#include "run_start.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/flags.hpp"
#include "core/report.hpp"
#include "splitmix64.hpp"

namespace hdbench {

std::uint64_t random_seed() {
  std::random_device device;
  return splitmix64((static_cast<std::uint64_t>(device()) << 32) ^ device());
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
  try {
    check_writable(path);
  } catch (const std::exception& error) {
    throw UsageError(fmt::format("{}: {}", flag, error.what()));
  }
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
