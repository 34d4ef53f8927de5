// What machine a run happened on: host, GPUs, PCIe links, NUMA, driver and runtime.
// Discovery never throws for a missing GPU: it records the exact reason instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench::system {

// A PCIe link; 0 means "not known" (no sysfs entry, virtual device, …).
struct PcieLink {
  int generation = 0;
  int width = 0;
};

struct GpuInfo {
  int index = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  std::size_t total_memory_bytes = 0;
  std::string pci_bus_id;  // as sysfs spells it: "0000:3b:00.0"
  PcieLink link_current;
  PcieLink link_max;
  int copy_engines = 0;  // cudaDeviceProp::asyncEngineCount
  int numa_node = -1;    // -1: unknown or not a NUMA machine
  bool can_map_host_memory = false;
  bool unified_addressing = false;
  bool pageable_memory_access = false;  // HMM/ATS: GPU may read pageable memory
  int memory_bus_width_bits = 0;
};

struct HostInfo {
  std::string hostname;
  std::string cpu_model;
  int logical_cores = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_available_bytes = 0;
  int numa_nodes = 0;
  std::string kernel;  // uname -r
  // Conditions that move pageable figures (the driver stages pageable copies through
  // its own pinned buffers, page by page): the transparent-huge-page mode ("always",
  // "madvise", "never"; pageable buffers get 4 KiB pages unless "always") and whether
  // the kernel migrates pages between NUMA nodes on its own (1), which adds page faults
  // to a run at random. Empty / -1 when not readable.
  std::string transparent_hugepages;
  int numa_balancing = -1;
};

// The bracketed choice of a sysfs mode file: "always [madvise] never" -> "madvise";
// "" when none is bracketed.
std::string bracketed_choice(std::string_view sysfs_modes);

struct SystemInfo {
  HostInfo host;
  std::vector<GpuInfo> gpus;
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000; 0 without a driver
  int runtime_version = 0;  // cudaRuntimeGetVersion
  // Empty when at least one GPU is usable; otherwise why not, e.g.
  // "no CUDA driver: cudaGetDeviceCount returned cudaErrorInsufficientDriver (…)".
  std::string gpu_unavailable_reason;

  bool gpu_usable() const noexcept { return gpu_unavailable_reason.empty() && !gpus.empty(); }
};

SystemInfo discover();

// Read fresh from /proc/meminfo (cheap; no CUDA): for validating options before
// discovery and for checking that a benchmark's buffers fit right before it runs.
// 0 when unknown.
std::uint64_t host_memory_total_bytes();
std::uint64_t host_memory_available_bytes();
nlohmann::json to_json(const SystemInfo& info);

// --- Pure helpers, exposed for tests -------------------------------------------

// The machine in a file name, by what a reader knows it by (its GPU and CPU, not a
// host name such as `vm`): "h100-80gb-hbm3_amd-epyc-7b13", "no-gpu_intel-xeon".
std::string machine_slug(std::string_view gpu_name, std::string_view cpu_model);

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" → 4, 3, 1; unknown strings → 0.
int pcie_generation_from_speed(std::string_view sysfs_speed);
// "16", "x16\n" → 16; "0", garbage → 0.
int pcie_width_from_sysfs(std::string_view sysfs_width);
// Theoretical one-direction data rate of a link in GB/s (1e9 B/s), after line
// encoding (8b/10b for Gen1–2, 128b/130b for Gen3–5, FLIT for Gen6); 0 if unknown.
double pcie_link_gbps(PcieLink link);
// CUDA spells bus ids "0000:3B:00.0" (sometimes with an 8-digit domain); sysfs
// spells them "0000:3b:00.0". Returns the sysfs spelling.
std::string sysfs_bus_id(std::string_view cuda_bus_id);
// Reads current_link_* (current = true) or max_link_* from
// <sysfs_root>/bus/pci/devices/<bus_id>/; {0,0} when absent.
PcieLink read_pcie_link(const std::string& sysfs_root, const std::string& bus_id, bool current);
// Reads <sysfs_root>/bus/pci/devices/<bus_id>/numa_node; -1 when absent.
int read_numa_node(const std::string& sysfs_root, const std::string& bus_id);
// NUMA node the page holding `address` lives on (get_mempolicy); -1 if unknown.
int numa_node_of_address(const void* address) noexcept;

}  // namespace hdbench::system
