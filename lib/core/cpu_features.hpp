// What the host CPU can do, read from /proc/cpuinfo: its vector instruction sets and
// its nominal fp32 peak (cores x FLOPs per cycle of its widest FMA x clock). The
// nominal peak is a guess (the clock a VM reports, two FMA units assumed): CPU figures
// are rated against the measured roof (fma_roof.hpp); this one is kept beside it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hdbench {

// The widest vector FMA level a CPU has, in the order the BLAS kernels need them.
enum class VectorLevel { sse, avx, avx2_fma, avx512 };
const char* to_string(VectorLevel level) noexcept;

struct CpuFeatures {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool amx_tile = false;
  int physical_cores = 0;  // distinct (physical id, core id) pairs; logical CPUs when unknown
  int logical_cpus = 0;
  double clock_ghz = 0.0;
  std::string clock_source;  // "cpufreq cpuinfo_max_freq", "cpuinfo cpu MHz (current)", or empty

  VectorLevel level() const noexcept;
  // fp32 FLOPs a core retires per cycle at its widest FMA, assuming two FMA units
  // (true of Haswell-and-later server cores and Zen; some AVX-512 parts have one).
  int fp32_flops_per_cycle() const noexcept;
  // physical cores x FLOPs per cycle x clock; 0 when the clock is unknown.
  double fp32_peak_gflops() const noexcept;
};

// `cpuinfo` is /proc/cpuinfo's text; `max_freq_khz` is cpufreq's cpuinfo_max_freq
// (0 when absent: then the first "cpu MHz" line, the current clock, is used).
CpuFeatures parse_cpu_features(std::string_view cpuinfo, long max_freq_khz);
// This machine's.
CpuFeatures discover_cpu_features();
nlohmann::json to_json(const CpuFeatures& cpu);

}  // namespace hdbench
