// The GPU's conditions while a family runs: SM and memory clocks, power draw and
// limit, temperature and the clock throttle reasons, read through NVML at the start
// and end of each family, so a throttled run shows in the report
// (context.hdbench.gpu_conditions) and the summary warns about it.
//
// NVML is loaded at run time (dlopen("libnvidia-ml.so.1"), which the driver
// supplies): hdbench builds and runs without it, and records why it read nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
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

// What the GPU read while one benchmark kept it busy: the readings taken during the
// benchmark without NVML's "GPU idle" reason, summed up. The start and end readings of
// a family are taken between benchmarks, at boost clocks; these say whether a long GPU
// benchmark (the large training step) ran throttled.
struct BusyReadings {
  std::string benchmark, family;
  int device = -1;
  std::size_t samples = 0;
  unsigned sm_clock_min_mhz = 0;
  double sm_clock_sum_mhz = 0.0;  // over the readings that had a clock
  std::size_t clock_samples = 0;
  std::optional<unsigned> sm_clock_max_mhz;
  double power_max_w = 0.0;
  std::optional<double> power_limit_w;
  unsigned temperature_max_c = 0;
  std::uint64_t throttle_reasons = 0;  // every reason seen while busy
  void add(const GpuSample& sample);
};

// The readings of a run, per GPU: one when a family first runs on it and one at the
// family's end (when the next family starts, or the run finishes), and, with a busy
// interval, a reading of the running benchmark's GPU every interval on a thread of its
// own, kept where the GPU was busy (BusyReadings). Without a sampler it records the reason.
class GpuConditionsLog {
 public:
  // One GPU, not named in the readings.
  GpuConditionsLog(GpuSampler sampler, std::string reason_when_none,
                   std::chrono::milliseconds busy_interval = std::chrono::milliseconds(0));
  // A sampler per device (index); each reading names its "device".
  GpuConditionsLog(std::map<int, GpuSampler> samplers, std::string reason_when_none,
                   std::chrono::milliseconds busy_interval = std::chrono::milliseconds(0));
  GpuConditionsLog(const GpuConditionsLog&) = delete;
  GpuConditionsLog& operator=(const GpuConditionsLog&) = delete;
  ~GpuConditionsLog();
  // Called as each benchmark starts, with its family (params.family) and device
  // (params.device; -1 or a device without a sampler: the first sampler's GPU), and its
  // name (what busy readings are kept under).
  void on_benchmark(const std::string& family, int device = -1, const std::string& benchmark = "");
  // Closes the last family and stops the busy readings.
  void finish();
  // [{family, when: "start"|"end", device?, ...sample}, then one {when: "busy", benchmark,
  // family, device?, busy_samples, sm_clock_MHz (the lowest), sm_clock_mean_MHz, power_W
  // (the highest), temperature_C (the highest), throttle_reasons (all seen), ...} a
  // benchmark the GPU was busy in], or {"unavailable": reason}.
  nlohmann::json to_json() const;

 private:
  void record(int device, const char* when);
  GpuSample read(int device);
  void end_family();
  void poll(std::chrono::milliseconds interval);
  void stop_polling();

  std::map<int, GpuSampler> samplers_;  // key -1: the one unnamed GPU
  std::mutex read_mutex_;               // one NVML reading at a time (the poller's and the run's)
  std::string reason_;
  std::string family_;               // running now
  std::vector<int> family_devices_;  // the GPUs it has run on, in order
  nlohmann::json samples_ = nlohmann::json::array();

  mutable std::mutex busy_mutex_;  // the poller's view of the benchmark running, and what it read
  std::condition_variable busy_changed_;
  bool stopping_ = false;
  std::string busy_benchmark_, family_of_busy_;
  int busy_device_ = -1;
  std::vector<BusyReadings> busy_;  // in the order the benchmarks ran
  std::thread poller_;
};

// One line per reading of context.hdbench.gpu_conditions that shows a throttle reason
// other than idle: "mlp (end): clocks throttled: sw_power_cap, hw_slowdown (SM 1410 MHz of 1980)"
// ("mlp (end, GPU 1): ..." for a reading that names its device).
std::vector<std::string> gpu_throttle_warnings(const nlohmann::json& gpu_conditions);

}  // namespace hdbench
