// NUMA discovery on a fake sysfs with several nodes, and binding on this machine.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/numa.hpp"

namespace hdbench::numa {
namespace {

class NumaFakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("hdbench-numa-" + std::to_string(getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void add_node(int id, const std::string& cpulist, const std::string& distance, std::uint64_t mem_kib) {
    const auto dir = root_ / "devices/system/node" / ("node" + std::to_string(id));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "cpulist") << cpulist << "\n";
    std::ofstream(dir / "distance") << distance << "\n";
    std::ofstream(dir / "meminfo") << "Node " << id << " MemTotal:       " << mem_kib << " kB\nNode " << id
                                   << " MemFree:        1 kB\n";
  }
  std::filesystem::path root_;
};

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list(""), std::vector<int>{});
  EXPECT_EQ(parse_cpu_list("x,2"), std::vector<int>{2});
}

TEST_F(NumaFakeSysfs, ReadsEveryNodeWithItsCpusAndMemory) {
  add_node(1, "4-7", "20 10 20 20", 2048);
  add_node(0, "0-3", "10 20 30 20", 1024);
  add_node(2, "8", "30 20 10 20", 512);
  add_node(3, "9", "20 20 20 10", 512);
  std::filesystem::create_directories(root_ / "devices/system/node/possible_not_a_node");
  const std::vector<Node> nodes = read_nodes(root_.string());
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].id, 0);
  EXPECT_EQ(nodes[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(nodes[0].memory_bytes, 1024u * 1024u);
  EXPECT_EQ(nodes[1].cpus, (std::vector<int>{4, 5, 6, 7}));
  // The far node is the one at the largest distance in node 0's row: node 2 (30).
  EXPECT_EQ(far_node(nodes, 0, root_.string()), 2);
  EXPECT_EQ(far_node_skip_reason(nodes), "");
}

TEST_F(NumaFakeSysfs, WithoutADistanceTableTheFarNodeIsAnotherNode) {
  add_node(0, "0", "", 1);
  add_node(1, "1", "", 1);
  std::filesystem::remove(root_ / "devices/system/node/node1/distance");
  std::filesystem::remove(root_ / "devices/system/node/node0/distance");
  EXPECT_EQ(far_node(read_nodes(root_.string()), 1, root_.string()), 0);
}

TEST_F(NumaFakeSysfs, OneNodeHasNoFarNodeAndSaysWhy) {
  add_node(0, "0-1", "10", 1024);
  const auto nodes = read_nodes(root_.string());
  EXPECT_EQ(far_node(nodes, 0, root_.string()), std::nullopt);
  EXPECT_NE(far_node_skip_reason(nodes).find("one NUMA node"), std::string::npos);
  EXPECT_NE(far_node_skip_reason({}).find("one NUMA node"), std::string::npos);
}

TEST(NumaThisMachine, HasAtLeastOneNodeWithCpus) {
  const auto nodes = read_nodes();
  if (nodes.empty()) GTEST_SKIP() << "kernel without NUMA support in sysfs";
  EXPECT_FALSE(nodes.front().cpus.empty());
}

// Four pages no one has touched yet (anonymous, so the first touch places them).
struct FreshPages {
  std::size_t bytes = 4 * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  FreshPages() = default;
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;
  ~FreshPages() {
    if (data != MAP_FAILED) munmap(data, bytes);
  }
};

TEST(NumaThisMachine, BindingToTheFirstNodeLandsThereAsReadBack) {
  std::string reason;
  if (!binding_available(&reason)) GTEST_SKIP() << reason;
  const auto nodes = read_nodes();
  ASSERT_FALSE(nodes.empty());
  const FreshPages pages;
  ASSERT_NE(pages.data, MAP_FAILED);
  const Placement placement = bind_and_touch(pages.data, pages.bytes, nodes.front().id);
  if (placement.first_page == -1) GTEST_SKIP() << "get_mempolicy cannot read the node here (seccomp?)";
  EXPECT_TRUE(placement.landed()) << placement.first_page << " " << placement.last_page;
}

TEST(NumaThisMachine, PagesTouchedUnderAPreferredNodeScopeLandThereAsReadBack) {
  std::string reason;
  if (!binding_available(&reason)) GTEST_SKIP() << reason;
  const auto nodes = read_nodes();
  ASSERT_FALSE(nodes.empty());
  const FreshPages pages;
  ASSERT_NE(pages.data, MAP_FAILED);
  {
    const PreferredNodeScope scope(nodes.front().id);
    EXPECT_TRUE(scope.active());
    std::memset(pages.data, 1, pages.bytes);  // the first touch allocates the pages
  }
  const Placement placement = read_back(pages.data, pages.bytes, nodes.front().id);
  EXPECT_EQ(placement.requested, nodes.front().id);
  if (placement.first_page == -1) GTEST_SKIP() << "get_mempolicy cannot read the node here (seccomp?)";
  EXPECT_TRUE(placement.landed()) << placement.first_page << " " << placement.last_page;
}

TEST(NumaThisMachine, AScopeForNoNodeDoesNothing) {
  const PreferredNodeScope none(-1);
  EXPECT_FALSE(none.active());
  const PreferredNodeScope absent(1 << 20);  // no such node
  EXPECT_FALSE(absent.active());
  EXPECT_EQ(read_back(nullptr, 0, 3).first_page, -1);
}

}  // namespace
}  // namespace hdbench::numa
