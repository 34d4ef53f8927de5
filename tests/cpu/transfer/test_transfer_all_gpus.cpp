// The all-GPU directions (all_to_host, host_to_all) and the NUMA axis of the transfer
// family, without a GPU: parsing and presets, the planned names and params on a fake
// machine of one and two GPUs, and the skip reasons of the far placement (this
// machine's node count, and a fake sysfs of two nodes).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "option_test_support.hpp"
#include "parsed_flags.hpp"
#include "transfer/all_gpu_cases.hpp"
#include "transfer/all_gpu_copy.hpp"
#include "transfer/transfer_numa.hpp"

namespace hdbench {
namespace {

using namespace hdbench::testing;  // NOLINT: option helpers

Parsed parse(const std::vector<std::string>& args) {
  OptionLimits limits;
  limits.hardware_threads = 4;
  return parse_flags(args, limits, 1);
}

system::SystemInfo machine_with_gpus(const std::vector<int>& numa_nodes) {
  system::SystemInfo info;
  for (std::size_t i = 0; i < numa_nodes.size(); ++i) {
    system::GpuInfo gpu;
    gpu.index = static_cast<int>(i);
    gpu.numa_node = numa_nodes[i];
    info.gpus.push_back(gpu);
  }
  return info;
}

NumaHost one_node() {
  NumaHost host;
  host.nodes = {numa::Node{0, {0, 1}, 0}};
  return host;
}

TEST(AllGpuDirections, ParseAndNameThemselves) {
  const Parsed o = parse({"--hdbench_directions=all_to_host,host_to_all"});
  EXPECT_EQ(o.transfer.directions, (std::vector<Direction>{Direction::all_to_host, Direction::host_to_all}));
  EXPECT_EQ(std::string(to_string(Direction::all_to_host)), "all_to_host");
  EXPECT_EQ(per_gpu_direction(Direction::all_to_host), Direction::d2h);
  EXPECT_EQ(per_gpu_direction(Direction::host_to_all), Direction::h2d);
  EXPECT_TRUE(is_one_way(Direction::h2d));
  EXPECT_FALSE(is_one_way(Direction::all_to_host));
  EXPECT_FALSE(is_one_way(Direction::bidir));
  const std::string message = usage_error_of([] { parse({"--hdbench_directions=all"}); });
  EXPECT_TRUE(contains(message, "--hdbench_directions")) << message;
  EXPECT_TRUE(contains(message, "host_to_all")) << message;
}

TEST(AllGpuDirections, DefaultRunsOneSizeFullAndGivenSizesRunEvery) {
  const Parsed standard = parse({});
  EXPECT_NE(std::find(standard.transfer.directions.begin(), standard.transfer.directions.end(), Direction::all_to_host),
            standard.transfer.directions.end());
  EXPECT_EQ(standard.transfer.all_gpu_sizes, std::vector<std::size_t>{256 * kMiB});
  EXPECT_EQ(standard.json["all_gpu_sizes_bytes"], nlohmann::json::array({256 * kMiB}));
  const Parsed full = parse({"--hdbench_preset=full"});
  EXPECT_EQ(full.transfer.all_gpu_sizes, full.transfer.sizes);
  const Parsed given = parse({"--hdbench_sizes=1M,4M"});
  EXPECT_EQ(given.transfer.all_gpu_sizes, (std::vector<std::size_t>{kMiB, 4 * kMiB}));
  const Parsed quick = parse({"--hdbench_preset=quick"});
  EXPECT_EQ(quick.transfer.directions, (std::vector<Direction>{Direction::h2d, Direction::d2h, Direction::bidir}));
  const Parsed asked = parse({"--hdbench_preset=quick", "--hdbench_directions=host_to_all"});
  EXPECT_EQ(asked.transfer.directions, std::vector<Direction>{Direction::host_to_all});
}

TEST(NumaAxis, DefaultsToNearAndParsesFar) {
  EXPECT_EQ(parse({}).transfer.numa, std::vector<NumaPlacement>{NumaPlacement::near});
  EXPECT_EQ(parse({}).json["numa"], nlohmann::json::array({"near"}));
  EXPECT_EQ(parse({"--hdbench_numa=near,far"}).transfer.numa,
            (std::vector<NumaPlacement>{NumaPlacement::near, NumaPlacement::far}));
  for (const char* bad : {"--hdbench_numa=", "--hdbench_numa=remote", "--hdbench_numa=Near"}) {
    const std::string message = usage_error_of([&] { parse({bad}); });
    EXPECT_TRUE(contains(message, "--hdbench_numa")) << bad << ": " << message;
  }
  std::vector<CaseId> ids;
  for_each_case(
      "transfer", {}, [&](CaseId& id, NumaPlacement) { ids.push_back(id); },
      numa_case_axis({NumaPlacement::near, NumaPlacement::far}));
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0].name(), "transfer");  // near: the name from before the axis
  EXPECT_EQ(ids[0].params()["numa"], "near");
  EXPECT_EQ(ids[1].name(), "transfer/numa:far");
  EXPECT_EQ(ids[1].params()["numa"], "far");
}

TEST(NumaAxis, NearIsTheGpusNodeOrTheOnlyNodeOrLeftToTheOs) {
  const NumaHost host = one_node();
  EXPECT_EQ(numa_target(NumaPlacement::near, 0, host.nodes, "").node, 0);
  EXPECT_EQ(numa_target(NumaPlacement::near, -1, host.nodes, "").node, 0);  // one node: that one
  const std::vector<numa::Node> two = {numa::Node{0, {0}, 0}, numa::Node{1, {1}, 0}};
  EXPECT_EQ(numa_target(NumaPlacement::near, -1, two, "").node, -1);  // unknown: the OS decides
  EXPECT_EQ(numa_target(NumaPlacement::near, 1, two, "").node, 1);
  const NumaTarget unbound = numa_target(NumaPlacement::near, 1, two, "built without libnuma");
  EXPECT_EQ(unbound.node, -1);
  EXPECT_EQ(unbound.skip_reason, "");  // near still runs, unplaced
}

TEST(NumaAxis, FarIsSkippedWithTheReasonOnOneNodeOrAnUnknownGpuNode) {
  const NumaTarget one = numa_target(NumaPlacement::far, 0, one_node().nodes, "");
  EXPECT_TRUE(contains(one.skip_reason, "one NUMA node")) << one.skip_reason;
  EXPECT_TRUE(contains(numa_target(NumaPlacement::far, -1, {}, "").skip_reason, "one NUMA node"));
  const std::vector<numa::Node> two = {numa::Node{0, {0}, 0}, numa::Node{1, {1}, 0}};
  EXPECT_TRUE(contains(numa_target(NumaPlacement::far, -1, two, "", "/nonexistent").skip_reason, "unknown"));
  EXPECT_TRUE(contains(numa_target(NumaPlacement::far, 0, two, "built without libnuma", "/nonexistent").skip_reason,
                       "libnuma"));
  EXPECT_EQ(numa_target(NumaPlacement::far, 0, two, "", "/nonexistent").node, 1);
}

TEST(NumaAxis, OnThisMachineFarRunsOnlyWithSeveralNodes) {
  const NumaHost host = NumaHost::discover();
  const NumaTarget far = gpu_numa_target(NumaPlacement::far, system::SystemInfo{}, 0, host);
  if (host.nodes.size() < 2) {
    EXPECT_TRUE(contains(far.skip_reason, "one NUMA node")) << far.skip_reason;
  } else {
    EXPECT_TRUE(contains(far.skip_reason, "unknown")) << far.skip_reason;  // no GPU: its node is unknown
  }
}

class NumaTwoNodeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("hdbench-allgpu-" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
    for (int id : {0, 1}) {
      const auto dir = root_ / "devices/system/node" / ("node" + std::to_string(id));
      std::filesystem::create_directories(dir);
      std::ofstream(dir / "cpulist") << id << "\n";
      std::ofstream(dir / "distance") << (id == 0 ? "10 21" : "21 10") << "\n";
    }
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(NumaTwoNodeSysfs, FarIsTheOtherSocketForEachGpu) {
  NumaHost host;
  host.nodes = numa::read_nodes(root_.string());
  host.sysfs_root = root_.string();
  const system::SystemInfo info = machine_with_gpus({0, 1});
  TransferOptions t =
      parse({"--hdbench_directions=all_to_host", "--hdbench_numa=near,far", "--hdbench_sizes=64M"}).transfer;
  const auto cases = plan_all_gpu_cases(t, {HostMemoryKind::pinned}, {0, 1}, info, host);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "transfer/all_to_host/pinned/copy/64MiB");
  EXPECT_EQ(cases[0].numa_nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(cases[1].name, "transfer/all_to_host/pinned/copy/64MiB/numa:far");
  EXPECT_EQ(cases[1].numa_nodes, (std::vector<int>{1, 0}));
  EXPECT_EQ(cases[1].skip_reason, "");
  EXPECT_EQ(cases[1].params["numa_node_requested"], nlohmann::json::array({1, 0}));
}

TEST(AllGpuCases, NameTheDevicesInParamsWithOneGpuOrSeveral) {
  const TransferOptions t = parse({"--hdbench_directions=all_to_host,host_to_all,h2d"}).transfer;
  const auto one = plan_all_gpu_cases(t, {HostMemoryKind::pinned}, {0}, machine_with_gpus({-1}), one_node());
  ASSERT_EQ(one.size(), 2u);  // default preset: one size per direction, h2d is not an all-GPU direction
  EXPECT_EQ(one[0].name, "transfer/all_to_host/pinned/copy/256MiB");
  EXPECT_EQ(one[1].name, "transfer/host_to_all/pinned/copy/256MiB");
  EXPECT_EQ(one[0].params["devices"], nlohmann::json::array({0}));
  EXPECT_EQ(one[0].params["device_count"], 1);
  EXPECT_EQ(one[0].params["variant"], "concurrent");
  EXPECT_EQ(one[0].params["numa"], "near");
  EXPECT_EQ(one[0].skip_reason, "");
  const auto two =
      plan_all_gpu_cases(t, {HostMemoryKind::pinned}, {1, 3}, machine_with_gpus({-1, -1, -1, -1}), one_node());
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].params["devices"], nlohmann::json::array({1, 3}));
  EXPECT_EQ(two[0].devices, (std::vector<int>{1, 3}));
  EXPECT_EQ(two[0].numa_nodes, (std::vector<int>{0, 0}));  // one node: near is that node
}

TEST(AllGpuCases, FarOnOneNodeIsSkippedNamingTheGpu) {
  const TransferOptions t = parse({"--hdbench_directions=host_to_all", "--hdbench_numa=far"}).transfer;
  const auto cases = plan_all_gpu_cases(t, {HostMemoryKind::pinned}, {0}, machine_with_gpus({0}), one_node());
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_TRUE(contains(cases[0].skip_reason, "GPU 0: one NUMA node")) << cases[0].skip_reason;
}

TEST(AllGpuCases, NeedPinnedMemoryAndTheCopyEngine) {
  const TransferOptions t = parse({"--hdbench_directions=all_to_host"}).transfer;
  EXPECT_TRUE(plan_all_gpu_cases(t, {HostMemoryKind::pageable}, {0}, machine_with_gpus({0}), one_node()).empty());
  const TransferOptions sm = parse({"--hdbench_directions=all_to_host", "--hdbench_engines=sm"}).transfer;
  EXPECT_TRUE(plan_all_gpu_cases(sm, {HostMemoryKind::pinned}, {0}, machine_with_gpus({0}), one_node()).empty());
}

// Refused in the constructor, before any CUDA call: runs without a GPU.
TEST(AllGpuCopy, RejectsOneWayDirectionsAndMismatchedNodes) {
  const auto refusal = [](Direction d, const std::vector<int>& nodes) {
    try {
      AllGpuCopy({0}, d, 1024, 7, 5000.0, nodes);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("taken");
  };
  EXPECT_EQ(refusal(Direction::h2d, {-1}), "AllGpuCopy: direction is all_to_host or host_to_all");
  EXPECT_EQ(refusal(Direction::all_to_host, {}), "AllGpuCopy: one NUMA node per device");
}

}  // namespace
}  // namespace hdbench
