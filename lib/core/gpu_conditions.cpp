#include "core/gpu_conditions.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

namespace hdbench {
namespace {

// The few NVML entry points hdbench reads, as documented in NVML's API reference
// (nvml.h): every call returns nvmlReturn_t, NVML_SUCCESS (0) on success.
using NvmlReturn = int;
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;        // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

struct NvmlApi {
  void* handle = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*) = nullptr;

  NvmlApi() = default;
  NvmlApi(const NvmlApi&) = delete;
  NvmlApi& operator=(const NvmlApi&) = delete;
  ~NvmlApi() {
    if (shutdown) shutdown();
    if (handle) dlclose(handle);
  }
};

template <typename Fn>
void bind(void* handle, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
}

std::optional<unsigned> read_unsigned(NvmlReturn (*fn)(NvmlDevice, unsigned*), NvmlDevice device) {
  unsigned value = 0;
  if (fn && fn(device, &value) == kNvmlSuccess) return value;
  return std::nullopt;
}

std::optional<unsigned> read_clock(NvmlReturn (*fn)(NvmlDevice, int, unsigned*), NvmlDevice device, int which) {
  unsigned value = 0;
  if (fn && fn(device, which, &value) == kNvmlSuccess) return value;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {throttle::kGpuIdle, "gpu_idle"},
      {throttle::kApplicationsClocksSetting, "applications_clocks_setting"},
      {throttle::kSwPowerCap, "sw_power_cap"},
      {throttle::kHwSlowdown, "hw_slowdown"},
      {throttle::kSyncBoost, "sync_boost"},
      {throttle::kSwThermalSlowdown, "sw_thermal_slowdown"},
      {throttle::kHwThermalSlowdown, "hw_thermal_slowdown"},
      {throttle::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {throttle::kDisplayClockSetting, "display_clock_setting"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) names.emplace_back(name);
    mask &= ~bit;
  }
  for (std::uint64_t bit = 1; mask != 0; bit <<= 1) {
    if (mask & bit) names.push_back(fmt::format("0x{:x}", bit));
    mask &= ~bit;
  }
  return names;
}

bool throttled(std::uint64_t mask) noexcept { return (mask & ~throttle::kGpuIdle) != 0; }

nlohmann::json to_json(const GpuSample& s) {
  nlohmann::json j = nlohmann::json::object();
  const auto put = [&j](const char* key, const auto& value) {
    if (value) j[key] = *value;
  };
  put("sm_clock_MHz", s.sm_clock_mhz);
  put("sm_clock_max_MHz", s.sm_clock_max_mhz);
  put("memory_clock_MHz", s.memory_clock_mhz);
  put("memory_clock_max_MHz", s.memory_clock_max_mhz);
  put("power_W", s.power_w);
  put("power_limit_W", s.power_limit_w);
  put("temperature_C", s.temperature_c);
  if (s.throttle_reasons) {
    j["throttle_reasons_mask"] = *s.throttle_reasons;
    j["throttle_reasons"] = throttle_reason_names(*s.throttle_reasons);
  }
  return j;
}

GpuSampler make_nvml_sampler(const std::string& pci_bus_id, unsigned index, std::string& reason, const char* library) {
  auto api = std::make_shared<NvmlApi>();
  api->handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!api->handle) {
    const char* error = dlerror();
    reason = fmt::format("NVML not loaded: {} ({})", library, error ? error : "not found");
    return {};
  }
  bind(api->handle, "nvmlInit_v2", api->init);
  bind(api->handle, "nvmlErrorString", api->error_string);
  bind(api->handle, "nvmlDeviceGetHandleByIndex_v2", api->by_index);
  bind(api->handle, "nvmlDeviceGetHandleByPciBusId_v2", api->by_pci_bus_id);
  bind(api->handle, "nvmlDeviceGetClockInfo", api->clock);
  bind(api->handle, "nvmlDeviceGetMaxClockInfo", api->max_clock);
  bind(api->handle, "nvmlDeviceGetPowerUsage", api->power_usage);
  bind(api->handle, "nvmlDeviceGetEnforcedPowerLimit", api->power_limit);
  bind(api->handle, "nvmlDeviceGetTemperature", api->temperature);
  bind(api->handle, "nvmlDeviceGetCurrentClocksThrottleReasons", api->throttle_reasons);
  if (!api->init || !api->by_index) {
    reason = fmt::format("NVML in {} lacks nvmlInit_v2 or nvmlDeviceGetHandleByIndex_v2", library);
    return {};
  }
  const auto describe = [&api](NvmlReturn code) {
    return api->error_string ? std::string(api->error_string(code)) : fmt::format("error {}", code);
  };
  if (const NvmlReturn code = api->init(); code != kNvmlSuccess) {
    reason = fmt::format("nvmlInit_v2 failed: {}", describe(code));
    return {};
  }
  bind(api->handle, "nvmlShutdown", api->shutdown);  // only once initialised
  NvmlDevice device = nullptr;
  // CUDA and NVML may number devices differently; the PCI bus id names the same one.
  NvmlReturn code = 1;
  if (!pci_bus_id.empty() && api->by_pci_bus_id) code = api->by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (code != kNvmlSuccess) code = api->by_index(index, &device);
  if (code != kNvmlSuccess) {
    reason = fmt::format("NVML has no device {} (index {}): {}", pci_bus_id, index, describe(code));
    return {};
  }
  return [api, device] {
    GpuSample s;
    s.sm_clock_mhz = read_clock(api->clock, device, kNvmlClockSm);
    s.sm_clock_max_mhz = read_clock(api->max_clock, device, kNvmlClockSm);
    s.memory_clock_mhz = read_clock(api->clock, device, kNvmlClockMem);
    s.memory_clock_max_mhz = read_clock(api->max_clock, device, kNvmlClockMem);
    if (const auto mw = read_unsigned(api->power_usage, device)) s.power_w = *mw / 1e3;
    if (const auto mw = read_unsigned(api->power_limit, device)) s.power_limit_w = *mw / 1e3;
    s.temperature_c = read_clock(api->temperature, device, kNvmlTemperatureGpu);
    unsigned long long reasons = 0;
    if (api->throttle_reasons && api->throttle_reasons(device, &reasons) == kNvmlSuccess) s.throttle_reasons = reasons;
    return s;
  };
}

void BusyReadings::add(const GpuSample& sample) {
  ++samples;
  if (sample.sm_clock_mhz) {
    sm_clock_min_mhz = clock_samples == 0 ? *sample.sm_clock_mhz : std::min(sm_clock_min_mhz, *sample.sm_clock_mhz);
    sm_clock_sum_mhz += *sample.sm_clock_mhz;
    ++clock_samples;
  }
  if (sample.sm_clock_max_mhz) sm_clock_max_mhz = sample.sm_clock_max_mhz;
  if (sample.power_w) power_max_w = std::max(power_max_w, *sample.power_w);
  if (sample.power_limit_w) power_limit_w = sample.power_limit_w;
  if (sample.temperature_c) temperature_max_c = std::max(temperature_max_c, *sample.temperature_c);
  throttle_reasons |= sample.throttle_reasons.value_or(0);
}

GpuConditionsLog::GpuConditionsLog(GpuSampler sampler, std::string reason_when_none,
                                   std::chrono::milliseconds busy_interval)
    : GpuConditionsLog(std::map<int, GpuSampler>{{-1, std::move(sampler)}}, std::move(reason_when_none),
                       busy_interval) {}

GpuConditionsLog::GpuConditionsLog(std::map<int, GpuSampler> samplers, std::string reason_when_none,
                                   std::chrono::milliseconds busy_interval)
    : reason_(std::move(reason_when_none)) {
  for (auto& [device, sampler] : samplers) {
    if (sampler) samplers_.emplace(device, std::move(sampler));
  }
  if (!samplers_.empty() && busy_interval.count() > 0)
    poller_ = std::thread([this, busy_interval] { poll(busy_interval); });
}

GpuConditionsLog::~GpuConditionsLog() { stop_polling(); }

GpuSample GpuConditionsLog::read(int device) {
  std::lock_guard lock(read_mutex_);
  return samplers_.at(device)();
}

void GpuConditionsLog::record(int device, const char* when) {
  nlohmann::json j = {{"family", family_}, {"when", when}};
  if (device >= 0) j["device"] = device;
  j.update(hdbench::to_json(read(device)));
  samples_.push_back(std::move(j));
}

// Every interval, a reading of the running benchmark's GPU, kept when NVML does not call
// the GPU idle. The benchmark can change between the reading and its keeping: a reading is
// kept under the benchmark that was running when it was asked for.
void GpuConditionsLog::poll(std::chrono::milliseconds interval) {
  std::unique_lock lock(busy_mutex_);
  while (!busy_changed_.wait_for(lock, interval, [this] { return stopping_; })) {
    if (busy_benchmark_.empty()) continue;
    const std::string benchmark = busy_benchmark_, family = family_of_busy_;
    const int device = busy_device_;
    lock.unlock();
    const GpuSample sample = read(device);
    lock.lock();
    const bool idle = !sample.throttle_reasons || (*sample.throttle_reasons & throttle::kGpuIdle) != 0;
    if (idle) continue;
    auto it = std::find_if(busy_.begin(), busy_.end(),
                           [&](const BusyReadings& b) { return b.benchmark == benchmark && b.device == device; });
    if (it == busy_.end()) {
      BusyReadings first;
      first.benchmark = benchmark;
      first.family = family;
      first.device = device;
      busy_.push_back(std::move(first));
      it = std::prev(busy_.end());
    }
    it->add(sample);
  }
}

void GpuConditionsLog::stop_polling() {
  {
    std::lock_guard lock(busy_mutex_);
    stopping_ = true;
    busy_benchmark_.clear();
  }
  busy_changed_.notify_all();
  if (poller_.joinable()) poller_.join();
}

void GpuConditionsLog::end_family() {
  for (const int device : family_devices_) record(device, "end");
  family_devices_.clear();
  family_.clear();
}

void GpuConditionsLog::on_benchmark(const std::string& family, int device, const std::string& benchmark) {
  if (samplers_.empty()) return;
  if (!samplers_.contains(device)) device = samplers_.begin()->first;
  {
    std::lock_guard lock(busy_mutex_);
    busy_benchmark_ = benchmark;
    family_of_busy_ = family;
    busy_device_ = device;
  }
  if (family != family_) {
    end_family();
    family_ = family;
  }
  // A family's benchmarks alternate between the selected GPUs: each is read once at its start.
  if (std::find(family_devices_.begin(), family_devices_.end(), device) != family_devices_.end()) return;
  family_devices_.push_back(device);
  record(device, "start");
}

void GpuConditionsLog::finish() {
  stop_polling();
  end_family();
}

nlohmann::json GpuConditionsLog::to_json() const {
  if (samplers_.empty()) return {{"unavailable", reason_.empty() ? std::string("no GPU") : reason_}};
  nlohmann::json out = samples_;
  std::lock_guard lock(busy_mutex_);
  for (const BusyReadings& b : busy_) {
    nlohmann::json j = {
        {"family", b.family}, {"when", "busy"}, {"benchmark", b.benchmark}, {"busy_samples", b.samples}};
    if (b.device >= 0) j["device"] = b.device;
    if (b.clock_samples > 0) {
      j["sm_clock_MHz"] = b.sm_clock_min_mhz;
      j["sm_clock_mean_MHz"] = b.sm_clock_sum_mhz / static_cast<double>(b.clock_samples);
    }
    if (b.sm_clock_max_mhz) j["sm_clock_max_MHz"] = *b.sm_clock_max_mhz;
    j["power_W"] = b.power_max_w;
    if (b.power_limit_w) j["power_limit_W"] = *b.power_limit_w;
    j["temperature_C"] = b.temperature_max_c;
    j["throttle_reasons"] = throttle_reason_names(b.throttle_reasons);
    j["throttle_reasons_mask"] = b.throttle_reasons;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> gpu_throttle_warnings(const nlohmann::json& gpu_conditions) {
  std::vector<std::string> warnings;
  if (!gpu_conditions.is_array()) return warnings;
  for (const nlohmann::json& s : gpu_conditions) {
    const std::uint64_t mask = s.value("throttle_reasons_mask", std::uint64_t{0});
    if (!throttled(mask)) continue;
    std::string names;
    for (const std::string& name : throttle_reason_names(mask & ~throttle::kGpuIdle))
      names += (names.empty() ? "" : ", ") + name;
    std::string clocks;
    if (s.contains("sm_clock_MHz") && s.contains("sm_clock_max_MHz")) {
      clocks =
          fmt::format(" (SM {} MHz of {})", s["sm_clock_MHz"].get<unsigned>(), s["sm_clock_max_MHz"].get<unsigned>());
    }
    const std::string gpu = s.contains("device") ? fmt::format(", GPU {}", s["device"].get<int>()) : std::string();
    // A busy reading names its benchmark: "mlp (busy in mlp/step/gpu/…): …".
    const std::string when = s.contains("benchmark") ? fmt::format("{} in {}", s.value("when", std::string("?")),
                                                                   s["benchmark"].get<std::string>())
                                                     : s.value("when", std::string("?"));
    warnings.push_back(fmt::format("{} ({}{}): clocks throttled: {}{}", s.value("family", std::string("?")), when, gpu,
                                   names, clocks));
  }
  return warnings;
}

}  // namespace hdbench
