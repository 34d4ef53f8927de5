#include "core/system.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

namespace hdbench::system {
namespace {

// Defined here rather than taken from <numaif.h> so the build needs no libnuma.
constexpr unsigned long kMpolFNode = 1;
constexpr unsigned long kMpolFAddr = 2;

// PCIe spec maximum; sysfs sometimes reports nonsense such as 255 for a dead link.
constexpr int kMaxPcieWidth = 32;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Whole file, or nothing: discovery must survive unreadable /proc and /sys entries.
std::optional<std::string> read_file(const std::filesystem::path& path) noexcept {
  try {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream contents;
    contents << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return contents.str();
  } catch (...) {
    return std::nullopt;
  }
}

std::filesystem::path pci_device_dir(const std::string& sysfs_root, const std::string& bus_id) {
  return std::filesystem::path(sysfs_root) / "bus" / "pci" / "devices" / bus_id;
}

// 13000 → "13.0", 12040 → "12.4"; the encoding is 1000 * major + 10 * minor.
std::string version_string(int version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

// Value of the first "<key> : value" line in a /proc file such as cpuinfo or meminfo.
std::optional<std::string> proc_field(const std::string& contents, std::string_view key) {
  std::istringstream lines(contents);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(std::string_view(line).substr(0, colon)) != key) continue;
    return std::string(trim(std::string_view(line).substr(colon + 1)));
  }
  return std::nullopt;
}

// meminfo spells sizes "24684084 kB".
std::uint64_t meminfo_bytes(const std::string& meminfo, std::string_view key) {
  const auto value = proc_field(meminfo, key);
  if (!value) return 0;
  std::uint64_t amount = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), amount);
  if (ec != std::errc()) return 0;
  const bool in_kib = trim(std::string_view(end, value->data() + value->size() - end)) == "kB";
  return in_kib ? amount * 1024 : amount;
}

int count_numa_nodes() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/sys/devices/system/node", ec);
  int nodes = 0;
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 4 && name.starts_with("node") && name.find_first_not_of("0123456789", 4) == std::string::npos) {
      ++nodes;
    }
  }
  // No node directory means a kernel without NUMA support: one node in effect.
  return nodes > 0 ? nodes : 1;
}

HostInfo discover_host() {
  HostInfo host;
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (gethostname(name.data(), name.size() - 1) == 0) host.hostname = name.data();

  const std::string cpuinfo = read_file("/proc/cpuinfo").value_or("");
  host.cpu_model = proc_field(cpuinfo, "model name").value_or("unknown");
  if (host.cpu_model.empty()) host.cpu_model = "unknown";

  host.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  if (host.logical_cores <= 0) host.logical_cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (host.logical_cores < 0) host.logical_cores = 0;

  const std::string meminfo = read_file("/proc/meminfo").value_or("");
  host.memory_total_bytes = meminfo_bytes(meminfo, "MemTotal");
  host.memory_available_bytes = meminfo_bytes(meminfo, "MemAvailable");
  host.numa_nodes = count_numa_nodes();

  utsname uts{};
  if (uname(&uts) == 0) host.kernel = uts.release;
  host.transparent_hugepages = bracketed_choice(read_file("/sys/kernel/mm/transparent_hugepage/enabled").value_or(""));
  if (const auto balancing = read_file("/proc/sys/kernel/numa_balancing"))
    host.numa_balancing = std::atoi(balancing->c_str());
  return host;
}

// Without this the reason could only guess why the runtime found no driver.
std::string libcuda_load_failure() {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
    return {};
  }
  const char* error = dlerror();
  return error != nullptr ? error : "dlopen failed";
}

std::string visible_devices_note() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return {};
  return fmt::format("; CUDA_VISIBLE_DEVICES=\"{}\"", visible);
}

std::string device_count_failure(cudaError_t code, int driver_version, int runtime_version) {
  const std::string returned =
      fmt::format("cudaGetDeviceCount returned {} ({})", cudaGetErrorName(code), cudaGetErrorString(code));
  if (code == cudaErrorInsufficientDriver && driver_version == 0) {
    const std::string load_failure = libcuda_load_failure();
    if (!load_failure.empty()) {
      return fmt::format(
          "no CUDA driver: {}; libcuda.so.1 could not be loaded ({}), so the NVIDIA driver "
          "is not installed or not visible to this process (container without --gpus?)",
          returned, load_failure);
    }
    return fmt::format(
        "no CUDA driver: {}; libcuda.so.1 loads but reports no driver version, so the NVIDIA "
        "driver is not installed properly (a stub libcuda on the library path?)",
        returned);
  }
  if (code == cudaErrorInsufficientDriver) {
    return fmt::format(
        "CUDA driver too old: driver supports CUDA {}, runtime needs {}; {}; update the "
        "NVIDIA driver",
        version_string(driver_version), version_string(runtime_version), returned);
  }
  if (code == cudaErrorNoDevice) {
    return fmt::format(
        "no CUDA device: {}; check that a GPU is attached and visible to this process "
        "(CUDA_VISIBLE_DEVICES, container --gpus){}",
        returned, visible_devices_note());
  }
  return fmt::format("CUDA initialisation failed: {}", returned);
}

std::optional<GpuInfo> discover_gpu(int device, std::string& failure) {
  cudaDeviceProp props{};
  const cudaError_t status = cudaGetDeviceProperties(&props, device);
  if (status != cudaSuccess) {
    failure = fmt::format("CUDA initialisation failed: cudaGetDeviceProperties({}) returned {} ({})", device,
                          cudaGetErrorName(status), cudaGetErrorString(status));
    cudaGetLastError();
    return std::nullopt;
  }
  GpuInfo gpu;
  gpu.index = device;
  gpu.name = props.name;
  gpu.compute_capability_major = props.major;
  gpu.compute_capability_minor = props.minor;
  gpu.sm_count = props.multiProcessorCount;
  gpu.total_memory_bytes = props.totalGlobalMem;
  gpu.copy_engines = props.asyncEngineCount;
  gpu.can_map_host_memory = props.canMapHostMemory != 0;
  gpu.unified_addressing = props.unifiedAddressing != 0;
  gpu.pageable_memory_access = props.pageableMemoryAccess != 0;
  gpu.memory_bus_width_bits = props.memoryBusWidth;

  std::array<char, 64> bus_id{};
  if (cudaDeviceGetPCIBusId(bus_id.data(), static_cast<int>(bus_id.size()), device) == cudaSuccess) {
    gpu.pci_bus_id = sysfs_bus_id(bus_id.data());
    gpu.link_current = read_pcie_link("/sys", gpu.pci_bus_id, true);
    gpu.link_max = read_pcie_link("/sys", gpu.pci_bus_id, false);
    gpu.numa_node = read_numa_node("/sys", gpu.pci_bus_id);
  } else {
    cudaGetLastError();
  }
  return gpu;
}

nlohmann::json link_json(PcieLink link) { return {{"generation", link.generation}, {"width", link.width}}; }

}  // namespace

std::uint64_t host_memory_total_bytes() { return meminfo_bytes(read_file("/proc/meminfo").value_or(""), "MemTotal"); }

std::uint64_t host_memory_available_bytes() {
  return meminfo_bytes(read_file("/proc/meminfo").value_or(""), "MemAvailable");
}

SystemInfo discover() {
  SystemInfo info;
  info.host = discover_host();

  // Both succeed without a driver; the driver version is then 0.
  if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
  if (cudaRuntimeGetVersion(&info.runtime_version) != cudaSuccess) info.runtime_version = 0;

  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.gpu_unavailable_reason = device_count_failure(status, info.driver_version, info.runtime_version);
    // Leaves no stale error behind for the next cudaGetLastError() caller.
    cudaGetLastError();
    return info;
  }
  if (count == 0) {
    info.gpu_unavailable_reason = "no CUDA device visible (check CUDA_VISIBLE_DEVICES)" + visible_devices_note();
    return info;
  }

  std::string failure;
  for (int device = 0; device < count; ++device) {
    if (auto gpu = discover_gpu(device, failure)) info.gpus.push_back(std::move(*gpu));
  }
  if (info.gpus.empty()) info.gpu_unavailable_reason = failure;
  return info;
}

nlohmann::json to_json(const SystemInfo& info) {
  const HostInfo& host = info.host;
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuInfo& gpu : info.gpus) {
    gpus.push_back({
        {"index", gpu.index},
        {"name", gpu.name},
        {"compute_capability_major", gpu.compute_capability_major},
        {"compute_capability_minor", gpu.compute_capability_minor},
        {"sm_count", gpu.sm_count},
        {"total_memory_bytes", gpu.total_memory_bytes},
        {"pci_bus_id", gpu.pci_bus_id},
        {"pcie_link_current", link_json(gpu.link_current)},
        {"pcie_link_max", link_json(gpu.link_max)},
        {"pcie_link_max_gbps", pcie_link_gbps(gpu.link_max)},
        {"copy_engines", gpu.copy_engines},
        {"numa_node", gpu.numa_node},
        {"can_map_host_memory", gpu.can_map_host_memory},
        {"unified_addressing", gpu.unified_addressing},
        {"pageable_memory_access", gpu.pageable_memory_access},
        {"memory_bus_width_bits", gpu.memory_bus_width_bits},
    });
  }
  return {
      {"host",
       {
           {"hostname", host.hostname},
           {"cpu_model", host.cpu_model},
           {"logical_cores", host.logical_cores},
           {"memory_total_bytes", host.memory_total_bytes},
           {"memory_available_bytes", host.memory_available_bytes},
           {"numa_nodes", host.numa_nodes},
           {"kernel", host.kernel},
           {"transparent_hugepages", host.transparent_hugepages},
           {"numa_balancing", host.numa_balancing},
       }},
      {"gpus", std::move(gpus)},
      {"driver_version", info.driver_version},
      {"runtime_version", info.runtime_version},
      {"driver_version_string", version_string(info.driver_version)},
      {"runtime_version_string", version_string(info.runtime_version)},
      {"gpu_usable", info.gpu_usable()},
      {"gpu_unavailable_reason", info.gpu_unavailable_reason},
  };
}

namespace {

// The lower-case alphanumeric words of `text` joined by '-', leaving out the words in
// `drop` and everything from the first '@' on ("... CPU @ 2.00GHz"); at most
// `max_chars` (whole words only).
std::string slug_words(std::string_view text, std::initializer_list<std::string_view> drop, std::size_t max_chars) {
  std::string out, word;
  const auto flush = [&] {
    const bool dropped = std::find(drop.begin(), drop.end(), word) != drop.end();
    if (!word.empty() && !dropped && out.size() + word.size() + 1 <= max_chars) out += (out.empty() ? "" : "-") + word;
    word.clear();
  };
  for (const char ch : text.substr(0, text.find('@'))) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else {
      flush();  // "Intel(R)": "intel", then "r"
    }
  }
  flush();
  return out;
}

}  // namespace

std::string bracketed_choice(std::string_view sysfs_modes) {
  const auto open = sysfs_modes.find('[');
  const auto close = sysfs_modes.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return "";
  return std::string(sysfs_modes.substr(open + 1, close - open - 1));
}

std::string machine_slug(std::string_view gpu_name, std::string_view cpu_model) {
  const std::string gpu = slug_words(gpu_name, {"nvidia"}, 32);
  // "Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz", "AMD EPYC 7B13 64-Core Processor"
  const std::string cpu = slug_words(cpu_model, {"r", "tm", "cpu", "processor"}, 32);
  return (gpu.empty() ? std::string("no-gpu") : gpu) + "_" + (cpu.empty() ? std::string("cpu") : cpu);
}

int pcie_generation_from_speed(std::string_view sysfs_speed) {
  const std::string_view text = trim(sysfs_speed);
  double gts = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), gts);
  if (ec != std::errc() || end == text.data()) return 0;
  // Only a bare number or "<number> GT/s ..." is a speed; "16abc" is not.
  const std::string_view rest = trim(text.substr(static_cast<std::size_t>(end - text.data())));
  if (!rest.empty() && !rest.starts_with("GT/s")) return 0;

  struct Rate {
    double gts;
    int generation;
  };
  constexpr std::array<Rate, 6> kRates{{{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}}};
  for (const Rate& rate : kRates) {
    if (std::fabs(gts - rate.gts) < 1e-6) return rate.generation;
  }
  return 0;
}

int pcie_width_from_sysfs(std::string_view sysfs_width) {
  std::string_view text = trim(sysfs_width);
  if (!text.empty() && (text.front() == 'x' || text.front() == 'X')) text.remove_prefix(1);
  // from_chars would take a '-' sign; a width is never negative.
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return 0;
  int width = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), width);
  if (ec != std::errc() || end != text.data() + text.size()) return 0;
  return width <= kMaxPcieWidth ? width : 0;
}

double pcie_link_gbps(PcieLink link) {
  double lane_gbps = 0.0;  // GB/s per lane, one direction, after encoding
  switch (link.generation) {
    case 1:
      lane_gbps = 2.5 * 8.0 / 10.0 / 8.0;
      break;
    case 2:
      lane_gbps = 5.0 * 8.0 / 10.0 / 8.0;
      break;
    case 3:
      lane_gbps = 8.0 * 128.0 / 130.0 / 8.0;
      break;
    case 4:
      lane_gbps = 16.0 * 128.0 / 130.0 / 8.0;
      break;
    case 5:
      lane_gbps = 32.0 * 128.0 / 130.0 / 8.0;
      break;
    // Gen6 is PAM4 with 256-byte FLITs carrying 242 bytes of payload.
    case 6:
      lane_gbps = 64.0 * 242.0 / 256.0 / 8.0;
      break;
    default:
      return 0.0;
  }
  return link.width > 0 ? lane_gbps * link.width : 0.0;
}

std::string sysfs_bus_id(std::string_view cuda_bus_id) {
  std::string id(trim(cuda_bus_id));
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // "00000000:3b:00.0" → "0000:3b:00.0"; a domain that needs the upper digits stays.
  const auto colon = id.find(':');
  if (colon == 8 && id.starts_with("0000") && id.find_first_not_of("0123456789abcdef") == colon) {
    id.erase(0, 4);
  }
  return id;
}

PcieLink read_pcie_link(const std::string& sysfs_root, const std::string& bus_id, bool current) {
  PcieLink link;
  if (bus_id.empty()) return link;
  try {
    const auto dir = pci_device_dir(sysfs_root, bus_id);
    const char* prefix = current ? "current_link_" : "max_link_";
    if (const auto speed = read_file(dir / (std::string(prefix) + "speed")))
      link.generation = pcie_generation_from_speed(*speed);
    if (const auto width = read_file(dir / (std::string(prefix) + "width"))) link.width = pcie_width_from_sysfs(*width);
  } catch (...) {
    return PcieLink{};
  }
  return link;
}

int read_numa_node(const std::string& sysfs_root, const std::string& bus_id) {
  if (bus_id.empty()) return -1;
  try {
    const auto contents = read_file(pci_device_dir(sysfs_root, bus_id) / "numa_node");
    if (!contents) return -1;
    const std::string_view text = trim(*contents);
    int node = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), node);
    if (ec != std::errc() || end != text.data() + text.size() || node < -1) return -1;
    return node;
  } catch (...) {
    return -1;
  }
}

int numa_node_of_address(const void* address) noexcept {
  if (address == nullptr) return -1;
  // The page must already have been touched (written): for an untouched page the
  // kernel faults in the shared zero page and reports its node, not where the data
  // will actually live.
  int node = -1;
  const long rc = syscall(SYS_get_mempolicy, &node, nullptr, 0UL, const_cast<void*>(address), kMpolFNode | kMpolFAddr);
  // Fails with ENOSYS on kernels without NUMA and EPERM under some seccomp profiles.
  return rc == 0 ? node : -1;
}

}  // namespace hdbench::system
