#include "core/cpu_features.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace hdbench {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool has_word(std::string_view words, std::string_view word) {
  std::istringstream in{std::string(words)};
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

}  // namespace

const char* to_string(VectorLevel level) noexcept {
  switch (level) {
    case VectorLevel::sse:
      return "sse";
    case VectorLevel::avx:
      return "avx";
    case VectorLevel::avx2_fma:
      return "avx2_fma";
    case VectorLevel::avx512:
      return "avx512";
  }
  return "unknown";
}

VectorLevel CpuFeatures::level() const noexcept {
  if (avx512f && fma) return VectorLevel::avx512;
  if (avx2 && fma) return VectorLevel::avx2_fma;
  if (avx) return VectorLevel::avx;
  return VectorLevel::sse;
}

int CpuFeatures::fp32_flops_per_cycle() const noexcept {
  switch (level()) {
    case VectorLevel::avx512:
      return 2 * 16 * 2;  // two FMA units x 16 lanes x (multiply + add)
    case VectorLevel::avx2_fma:
      return 2 * 8 * 2;
    case VectorLevel::avx:
      return 8 + 8;  // one 8-lane multiply and one 8-lane add per cycle
    case VectorLevel::sse:
      return 4 + 4;
  }
  return 0;
}

double CpuFeatures::fp32_peak_gflops() const noexcept {
  return static_cast<double>(physical_cores) * fp32_flops_per_cycle() * clock_ghz;
}

CpuFeatures parse_cpu_features(std::string_view cpuinfo, long max_freq_khz) {
  CpuFeatures cpu;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical_id;
  double first_mhz = 0.0;
  bool flags_read = false;
  std::istringstream lines{std::string(cpuinfo)};
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view key = trim(std::string_view(line).substr(0, colon));
    const std::string_view value = trim(std::string_view(line).substr(colon + 1));
    if (key == "processor") {
      ++cpu.logical_cpus;
    } else if (key == "vendor_id" && cpu.vendor.empty()) {
      cpu.vendor = value;
    } else if (key == "physical id") {
      physical_id = value;
    } else if (key == "core id") {
      cores.emplace(physical_id, value);
    } else if (key == "cpu MHz" && first_mhz == 0.0) {
      first_mhz = std::atof(std::string(value).c_str());
    } else if (key == "flags" && !flags_read) {
      flags_read = true;
      cpu.avx = has_word(value, "avx");
      cpu.avx2 = has_word(value, "avx2");
      cpu.fma = has_word(value, "fma");
      cpu.avx512f = has_word(value, "avx512f");
      cpu.amx_tile = has_word(value, "amx_tile");
    }
  }
  cpu.physical_cores = cores.empty() ? cpu.logical_cpus : static_cast<int>(cores.size());
  if (max_freq_khz > 0) {
    cpu.clock_ghz = static_cast<double>(max_freq_khz) / 1e6;
    cpu.clock_source = "cpufreq cpuinfo_max_freq";
  } else if (first_mhz > 0.0) {
    cpu.clock_ghz = first_mhz / 1e3;
    cpu.clock_source = "cpuinfo cpu MHz (current clock; no cpufreq here)";
  }
  return cpu;
}

CpuFeatures discover_cpu_features() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  long max_khz = 0;
  std::ifstream("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") >> max_khz;
  return parse_cpu_features(text.str(), max_khz);
}

nlohmann::json to_json(const CpuFeatures& cpu) {
  nlohmann::json isa = nlohmann::json::array();
  for (const auto& [name, has] : {std::pair{"avx", cpu.avx}, std::pair{"avx2", cpu.avx2}, std::pair{"fma", cpu.fma},
                                  std::pair{"avx512f", cpu.avx512f}, std::pair{"amx_tile", cpu.amx_tile}}) {
    if (has) isa.push_back(name);
  }
  nlohmann::json j = {
      {"vendor", cpu.vendor},
      {"instruction_sets", isa},
      {"vector_level", to_string(cpu.level())},
      {"physical_cores", cpu.physical_cores},
      {"logical_cpus", cpu.logical_cpus},
      {"clock_GHz", cpu.clock_ghz},
      {"clock_source", cpu.clock_source},
      {"fp32_flops_per_cycle_per_core", cpu.fp32_flops_per_cycle()},
      {"fp32_nominal_peak_GFLOP/s", cpu.fp32_peak_gflops()},
      {"peak_assumes", "two FMA units per core at the clock named; turbo and AVX clock offsets not modelled"}};
  return j;
}

}  // namespace hdbench
