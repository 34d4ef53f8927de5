#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/system.hpp"

namespace {

namespace fs = std::filesystem;
using hdbench::system::PcieLink;

TEST(PcieGenerationFromSpeed, ParsesSysfsSpellings) {
  struct Case {
    std::string_view text;
    int generation;
  };
  const std::vector<Case> cases = {
      {"2.5 GT/s PCIe\n", 1}, {"2.5 GT/s", 1},       {"5.0 GT/s PCIe", 2},  {"5 GT/s", 2},
      {"8 GT/s", 3},          {"8.0 GT/s PCIe", 3},  {"16.0 GT/s PCIe", 4}, {"16.0 GT/s PCIe\n", 4},
      {"32.0 GT/s PCIe", 5},  {"64.0 GT/s PCIe", 6}, {"  16 GT/s", 4},      {"16", 4},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(hdbench::system::pcie_generation_from_speed(c.text), c.generation) << '"' << c.text << '"';
  }
}

TEST(PcieGenerationFromSpeed, UnknownOrGarbageIsZero) {
  for (std::string_view text : {"", "\n", "Unknown", "Unknown speed", "GT/s", "4 GT/s", "-16 GT/s", "16abc",
                                "128.0 GT/s PCIe", "0 GT/s", "nan GT/s"}) {
    EXPECT_EQ(hdbench::system::pcie_generation_from_speed(text), 0) << '"' << text << '"';
  }
}

TEST(PcieWidthFromSysfs, ParsesSysfsSpellings) {
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("16"), 16);
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("16\n"), 16);
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("x16"), 16);
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("x16\n"), 16);
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("8"), 8);
  EXPECT_EQ(hdbench::system::pcie_width_from_sysfs("1"), 1);
}

TEST(PcieWidthFromSysfs, GarbageIsZero) {
  for (std::string_view text : {"", "0", "x", "-16", "x-16", "16x", "sixteen", "1 6", "255", "99999999999999999999"}) {
    EXPECT_EQ(hdbench::system::pcie_width_from_sysfs(text), 0) << '"' << text << '"';
  }
}

TEST(PcieLinkGbps, MatchesEncodedLineRates) {
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({1, 1}), 0.25, 1e-9);
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({2, 1}), 0.5, 1e-9);
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({3, 16}), 15.75, 0.01);
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({4, 16}), 31.5, 0.05);
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({5, 16}), 63.0, 0.1);
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({6, 16}), 121.0, 0.01);
  // Lanes add up linearly.
  EXPECT_NEAR(hdbench::system::pcie_link_gbps({4, 8}) * 2, hdbench::system::pcie_link_gbps({4, 16}), 1e-9);
}

TEST(PcieLinkGbps, UnknownLinkIsZero) {
  EXPECT_EQ(hdbench::system::pcie_link_gbps({}), 0.0);
  EXPECT_EQ(hdbench::system::pcie_link_gbps({0, 16}), 0.0);
  EXPECT_EQ(hdbench::system::pcie_link_gbps({7, 16}), 0.0);
  EXPECT_EQ(hdbench::system::pcie_link_gbps({5, 0}), 0.0);
  EXPECT_EQ(hdbench::system::pcie_link_gbps({5, -4}), 0.0);
}

TEST(SysfsBusId, NormalisesCudaSpelling) {
  EXPECT_EQ(hdbench::system::sysfs_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(hdbench::system::sysfs_bus_id("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(hdbench::system::sysfs_bus_id("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(hdbench::system::sysfs_bus_id("00000001:C1:00.0"), "0001:c1:00.0");
  // A domain that really needs more than four digits (VMD) must not be cut.
  EXPECT_EQ(hdbench::system::sysfs_bus_id("10000:01:00.0"), "10000:01:00.0");
  EXPECT_EQ(hdbench::system::sysfs_bus_id("0001ABCD:01:00.0"), "0001abcd:01:00.0");
  EXPECT_EQ(hdbench::system::sysfs_bus_id(""), "");
}

// A private /sys lookalike, removed when the test ends.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / (std::string("hdbench_sysfs_") + info->name() + "_" + std::to_string(getpid()) +
                                         "_" + std::to_string(counter++));
    fs::remove_all(root_);
    ASSERT_TRUE(fs::create_directories(root_));
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  void write(const std::string& bus_id, const std::string& file, const std::string& contents) {
    const fs::path dir = root_ / "bus" / "pci" / "devices" / bus_id;
    fs::create_directories(dir);
    std::ofstream(dir / file) << contents;
  }

  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST_F(FakeSysfs, ReadsCurrentAndMaxLink) {
  const std::string bus = "0000:3b:00.0";
  write(bus, "current_link_speed", "16.0 GT/s PCIe\n");
  write(bus, "current_link_width", "8\n");
  write(bus, "max_link_speed", "32.0 GT/s PCIe\n");
  write(bus, "max_link_width", "16\n");

  const PcieLink current = hdbench::system::read_pcie_link(root(), bus, true);
  EXPECT_EQ(current.generation, 4);
  EXPECT_EQ(current.width, 8);
  const PcieLink max = hdbench::system::read_pcie_link(root(), bus, false);
  EXPECT_EQ(max.generation, 5);
  EXPECT_EQ(max.width, 16);
}

TEST_F(FakeSysfs, MissingFilesGiveZeros) {
  const std::string bus = "0000:3b:00.0";
  write(bus, "current_link_speed", "8.0 GT/s PCIe\n");  // width missing
  write(bus, "max_link_width", "16\n");                 // speed missing

  const PcieLink current = hdbench::system::read_pcie_link(root(), bus, true);
  EXPECT_EQ(current.generation, 3);
  EXPECT_EQ(current.width, 0);
  const PcieLink max = hdbench::system::read_pcie_link(root(), bus, false);
  EXPECT_EQ(max.generation, 0);
  EXPECT_EQ(max.width, 16);

  const PcieLink absent = hdbench::system::read_pcie_link(root(), "0000:99:00.0", true);
  EXPECT_EQ(absent.generation, 0);
  EXPECT_EQ(absent.width, 0);
  const PcieLink no_root = hdbench::system::read_pcie_link(root() + "/nonexistent", bus, false);
  EXPECT_EQ(no_root.generation, 0);
  EXPECT_EQ(no_root.width, 0);
  EXPECT_EQ(hdbench::system::read_pcie_link(root(), "", true).width, 0);
}

TEST_F(FakeSysfs, UnknownSpeedGivesZeroGeneration) {
  const std::string bus = "0000:01:00.0";
  write(bus, "current_link_speed", "Unknown\n");
  write(bus, "current_link_width", "0\n");
  const PcieLink link = hdbench::system::read_pcie_link(root(), bus, true);
  EXPECT_EQ(link.generation, 0);
  EXPECT_EQ(link.width, 0);
}

TEST_F(FakeSysfs, ReadsNumaNode) {
  write("0000:3b:00.0", "numa_node", "1\n");
  write("0000:5e:00.0", "numa_node", "-1\n");
  write("0000:86:00.0", "numa_node", "garbage\n");
  write("0000:af:00.0", "max_link_width", "16\n");  // device without numa_node

  EXPECT_EQ(hdbench::system::read_numa_node(root(), "0000:3b:00.0"), 1);
  EXPECT_EQ(hdbench::system::read_numa_node(root(), "0000:5e:00.0"), -1);
  EXPECT_EQ(hdbench::system::read_numa_node(root(), "0000:86:00.0"), -1);
  EXPECT_EQ(hdbench::system::read_numa_node(root(), "0000:af:00.0"), -1);
  EXPECT_EQ(hdbench::system::read_numa_node(root(), "0000:d8:00.0"), -1);
  EXPECT_EQ(hdbench::system::read_numa_node(root(), ""), -1);
}

TEST(Discover, FillsHostFields) {
  const hdbench::system::SystemInfo info = hdbench::system::discover();
  EXPECT_FALSE(info.host.hostname.empty());
  EXPECT_FALSE(info.host.cpu_model.empty());
  EXPECT_GT(info.host.logical_cores, 0);
  EXPECT_GT(info.host.memory_total_bytes, 0u);
  EXPECT_GT(info.host.memory_available_bytes, 0u);
  EXPECT_LE(info.host.memory_available_bytes, info.host.memory_total_bytes);
  EXPECT_GE(info.host.numa_nodes, 1);
  EXPECT_FALSE(info.host.kernel.empty());
  EXPECT_GT(info.runtime_version, 0);
}

// Holds with and without a GPU: either GPUs are described or the reason is given.
TEST(Discover, GpusOrReason) {
  const hdbench::system::SystemInfo info = hdbench::system::discover();
  if (info.gpu_usable()) {
    ASSERT_FALSE(info.gpus.empty());
    EXPECT_TRUE(info.gpu_unavailable_reason.empty());
    EXPECT_GT(info.driver_version, 0);
    for (const auto& gpu : info.gpus) {
      EXPECT_FALSE(gpu.name.empty());
      EXPECT_GT(gpu.compute_capability_major, 0);
      EXPECT_GT(gpu.sm_count, 0);
      EXPECT_GT(gpu.total_memory_bytes, 0u);
      EXPECT_EQ(gpu.pci_bus_id, hdbench::system::sysfs_bus_id(gpu.pci_bus_id));
    }
  } else {
    EXPECT_FALSE(info.gpu_unavailable_reason.empty());
    // Every failure names what CUDA said, except "visible but zero devices".
    const std::string& reason = info.gpu_unavailable_reason;
    const bool names_error = reason.find("cudaError") != std::string::npos;
    const bool zero_devices = reason.starts_with("no CUDA device visible");
    EXPECT_TRUE(names_error || zero_devices) << reason;
    if (info.driver_version == 0) {
      EXPECT_TRUE(reason.starts_with("no CUDA driver: ")) << reason;
      EXPECT_NE(reason.find("cudaErrorInsufficientDriver"), std::string::npos) << reason;
    }
  }
}

TEST(ToJson, HasAllKeys) {
  hdbench::system::SystemInfo info = hdbench::system::discover();
  // A synthetic GPU so the per-GPU keys are checked on GPU-less machines too.
  hdbench::system::GpuInfo gpu;
  gpu.name = "Fake GPU";
  gpu.pci_bus_id = "0000:3b:00.0";
  gpu.link_current = {4, 16};
  gpu.link_max = {5, 16};
  info.gpus.push_back(gpu);
  info.driver_version = 13000;
  info.runtime_version = 12040;

  const nlohmann::json json = hdbench::system::to_json(info);
  for (const char* key : {"host", "gpus", "driver_version", "runtime_version", "driver_version_string",
                          "runtime_version_string", "gpu_usable", "gpu_unavailable_reason"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["driver_version"], 13000);
  EXPECT_EQ(json["driver_version_string"], "13.0");
  EXPECT_EQ(json["runtime_version_string"], "12.4");
  EXPECT_EQ(json["gpu_usable"], info.gpu_usable());
  EXPECT_EQ(json["gpu_unavailable_reason"], info.gpu_unavailable_reason);

  for (const char* key : {"hostname", "cpu_model", "logical_cores", "memory_total_bytes", "memory_available_bytes",
                          "numa_nodes", "kernel"}) {
    EXPECT_TRUE(json["host"].contains(key)) << key;
  }
  EXPECT_EQ(json["host"]["logical_cores"], info.host.logical_cores);

  ASSERT_TRUE(json["gpus"].is_array());
  const nlohmann::json& fake = json["gpus"].back();
  for (const char* key :
       {"index", "name", "compute_capability_major", "compute_capability_minor", "sm_count", "total_memory_bytes",
        "pci_bus_id", "pcie_link_current", "pcie_link_max", "pcie_link_max_gbps", "copy_engines", "numa_node",
        "can_map_host_memory", "unified_addressing", "pageable_memory_access", "memory_bus_width_bits"}) {
    EXPECT_TRUE(fake.contains(key)) << key;
  }
  EXPECT_EQ(fake["name"], "Fake GPU");
  EXPECT_EQ(fake["pcie_link_current"]["generation"], 4);
  EXPECT_EQ(fake["pcie_link_max"]["generation"], 5);
  EXPECT_EQ(fake["pcie_link_max"]["width"], 16);
  EXPECT_NEAR(fake["pcie_link_max_gbps"].get<double>(), 63.0, 0.1);
  EXPECT_EQ(fake["numa_node"], -1);
}

TEST(ToJson, MissingDriverVersionString) {
  hdbench::system::SystemInfo info;
  const nlohmann::json json = hdbench::system::to_json(info);
  EXPECT_EQ(json["driver_version"], 0);
  EXPECT_EQ(json["driver_version_string"], "none");
  EXPECT_FALSE(json["gpu_usable"].get<bool>());
  EXPECT_TRUE(json["gpus"].is_array());
  EXPECT_TRUE(json["gpus"].empty());
}

TEST(NumaNodeOfAddress, TouchedHeapPage) {
  constexpr std::size_t kBytes = 1 << 20;
  auto buffer = std::make_unique<char[]>(kBytes);
  buffer[0] = 1;  // the page must be faulted in for its node to mean anything
  const int node = hdbench::system::numa_node_of_address(buffer.get());
  EXPECT_GE(node, -1);

  // Ask the kernel directly so -1 is accepted only where the syscall is really refused
  // (seccomp, a kernel without NUMA), not as a silent failure of the helper.
  int expected = -1;
  errno = 0;
  const long rc = syscall(SYS_get_mempolicy, &expected, nullptr, 0UL, buffer.get(), 3UL);
  if (rc == 0) {
    EXPECT_GE(node, 0);
    EXPECT_EQ(node, expected);
    if (fs::exists("/sys/devices/system/node")) {
      EXPECT_TRUE(fs::exists("/sys/devices/system/node/node" + std::to_string(node))) << node;
    }
  } else {
    EXPECT_EQ(node, -1) << "get_mempolicy failed with errno " << errno;
  }
}

TEST(NumaNodeOfAddress, NullIsUnknown) { EXPECT_EQ(hdbench::system::numa_node_of_address(nullptr), -1); }

}  // namespace

namespace hdbench::system {
namespace {

TEST(HostConditions, ReadTheBracketedModeOfASysfsFile) {
  EXPECT_EQ(bracketed_choice("always [madvise] never\n"), "madvise");
  EXPECT_EQ(bracketed_choice("[always] madvise never"), "always");
  EXPECT_EQ(bracketed_choice("always madvise never"), "");
  EXPECT_EQ(bracketed_choice(""), "");
  EXPECT_EQ(bracketed_choice("] ["), "");
}

TEST(MachineSlug, NamesTheMachineByItsGpuAndCpuNotItsHost) {
  EXPECT_EQ(machine_slug("NVIDIA H100 80GB HBM3", "Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz"),
            "h100-80gb-hbm3_intel-xeon-platinum-8480");
  EXPECT_EQ(machine_slug("", "AMD EPYC 7B13 64-Core Processor"), "no-gpu_amd-epyc-7b13-64-core");
  EXPECT_EQ(machine_slug("NVIDIA H200", ""), "h200_cpu");
  // Only what a file name can carry, and not without end.
  const std::string long_name = machine_slug("NVIDIA A100-SXM4-80GB/ weird \"name\"", std::string(200, 'x'));
  for (char ch : long_name)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') << long_name;
  EXPECT_LE(long_name.size(), 70u);
}

}  // namespace
}  // namespace hdbench::system
