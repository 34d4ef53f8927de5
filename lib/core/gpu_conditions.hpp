// The GPU's conditions while a family runs: SM and memory clocks, power draw and
// limit, temperature and the clock throttle reasons, read through NVML at the start
// and end of each family, so a throttled run shows in the report
// (context.hdbench.gpu_conditions) and the summary warns about it.
//
// NVML is loaded at run time (dlopen("libnvidia-ml.so.1"), which the driver
// supplies): hdbench builds and runs without it, and records why it read nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hdbench {

// NVML's clock throttle reason bits (nvmlClocksThrottleReason*, nvml.h).
namespace throttle {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;
}  // namespace throttle

// The names of the reasons set in `mask` ("sw_power_cap", ...; an unknown bit as "0x...").
std::vector<std::string> throttle_reason_names(std::uint64_t mask);
// Whether `mask` holds a reason other than the GPU being idle.
bool throttled(std::uint64_t mask) noexcept;

// One reading; a field NVML could not read stays empty.
struct GpuSample {
  std::optional<unsigned> sm_clock_mhz, sm_clock_max_mhz, memory_clock_mhz, memory_clock_max_mhz;
  std::optional<double> power_w, power_limit_w;
  std::optional<unsigned> temperature_c;
  std::optional<std::uint64_t> throttle_reasons;
};
nlohmann::json to_json(const GpuSample& sample);

using GpuSampler = std::function<GpuSample()>;

// A sampler for the GPU at `pci_bus_id` (or NVML's `index` when no bus id is known),
// or nothing with `reason` set (no libnvidia-ml.so.1, NVML failed to start, no such
// device). `library` is the file dlopen loads; tests name a missing one.
GpuSampler make_nvml_sampler(const std::string& pci_bus_id, unsigned index, std::string& reason,
                             const char* library = "libnvidia-ml.so.1");

// The readings of a run, per GPU: one when a family first runs on it and one at the
// family's end (when the next family starts, or the run finishes). Without a sampler
// it records the reason.
class GpuConditionsLog {
 public:
  // One GPU, not named in the readings.
  GpuConditionsLog(GpuSampler sampler, std::string reason_when_none);
  // A sampler per device (index); each reading names its "device".
  GpuConditionsLog(std::map<int, GpuSampler> samplers, std::string reason_when_none);
  // Called as each benchmark starts, with its family (params.family) and device
  // (params.device; -1 or a device without a sampler: the first sampler's GPU).
  void on_benchmark(const std::string& family, int device = -1);
  // Closes the last family.
  void finish();
  // [{family, when: "start"|"end", device?, ...sample}], or {"unavailable": reason}.
  nlohmann::json to_json() const;

 private:
  void record(int device, const char* when);
  void end_family();

  std::map<int, GpuSampler> samplers_;  // key -1: the one unnamed GPU
  std::string reason_;
  std::string family_;               // running now
  std::vector<int> family_devices_;  // the GPUs it has run on, in order
  nlohmann::json samples_ = nlohmann::json::array();
};

// One line per reading of context.hdbench.gpu_conditions that shows a throttle reason
// other than idle: "mlp (end): clocks throttled: sw_power_cap, hw_slowdown (SM 1410 MHz of 1980)"
// ("mlp (end, GPU 1): ..." for a reading that names its device).
std::vector<std::string> gpu_throttle_warnings(const nlohmann::json& gpu_conditions);

}  // namespace hdbench
