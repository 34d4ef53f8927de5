// GPU tests of the all-GPU copies (all_to_host, host_to_all) on every GPU the machine
// has (one, on the machines this project is lent): the gated concurrent copy and each
// GPU alone give positive times, the copies verify, and a corrupted destination is
// caught naming the GPU. Skip with the reason when no GPU is usable.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/numa.hpp"
#include "gpu_test_support.hpp"
#include "transfer/all_gpu_copy.hpp"

namespace hdbench {
namespace {

using testing_support::machine;

constexpr std::uint64_t kSeed = 0xa11c0de5ULL;

std::vector<int> every_gpu() {
  std::vector<int> devices;
  for (std::size_t i = 0; i < machine().gpus.size(); ++i) devices.push_back(static_cast<int>(i));
  return devices;
}

class AllGpuCopyMoves : public ::testing::TestWithParam<Direction> {};

TEST_P(AllGpuCopyMoves, EveryGpuCopiesBehindItsGateAndVerifies) {
  SKIP_WITHOUT_GPU();
  const std::vector<int> devices = every_gpu();
  const std::size_t bytes = (std::size_t{4} << 20) + 13;  // not a multiple of the pattern word
  AllGpuCopy copy(devices, GetParam(), bytes, kSeed, 5000.0, std::vector<int>(devices.size(), -1));
  ASSERT_EQ(copy.size(), devices.size());
  EXPECT_FALSE(copy.verify().empty());  // zeroed destinations fail before any copy
  for (std::size_t i = 0; i < copy.size(); ++i) {
    const std::vector<double> alone = copy.alone_seconds(i, 2);
    ASSERT_EQ(alone.size(), 2u);
    for (double s : alone) EXPECT_GT(s, 0.0);
  }
  const AllGpuSample sample = copy.run_together();
  ASSERT_EQ(sample.seconds.size(), devices.size());
  for (double s : sample.seconds) EXPECT_GT(s, 0.0);
  EXPECT_GT(sample.sum_gbps(bytes), 0.0);
  EXPECT_EQ(copy.verify(), "");
  int current = -1;
  HDBENCH_CUDA_CHECK(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);  // the current device is left as it was
}

INSTANTIATE_TEST_SUITE_P(BothWays, AllGpuCopyMoves, ::testing::Values(Direction::all_to_host, Direction::host_to_all),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(AllGpuCopy, ACorruptedHostDestinationIsAnErrorNamingTheGpu) {
  SKIP_WITHOUT_GPU();
  const std::size_t bytes = std::size_t{1} << 20;
  AllGpuCopy copy({0}, Direction::all_to_host, bytes, kSeed, 5000.0, {-1});
  copy.run_together();
  ASSERT_EQ(copy.verify(), "");
  static_cast<unsigned char*>(copy.host(0).data())[bytes / 2] ^= 0xff;
  const std::string problem = copy.verify();
  EXPECT_NE(problem.find("GPU 0"), std::string::npos) << problem;
}

TEST(AllGpuCopy, HostBuffersPlacedOnTheGpusNodeReadBackThere) {
  SKIP_WITHOUT_GPU();
  std::string reason;
  if (!numa::binding_available(&reason)) GTEST_SKIP() << reason;
  const auto nodes = numa::read_nodes();
  if (nodes.empty()) GTEST_SKIP() << "kernel without NUMA support in sysfs";
  const int gpu_node = machine().gpus.front().numa_node;
  const int node = gpu_node >= 0 ? gpu_node : nodes.front().id;
  const std::size_t bytes = std::size_t{8} << 20;
  AllGpuCopy copy({0}, Direction::host_to_all, bytes, kSeed, 5000.0, {node});
  const numa::Placement placement = numa::read_back(copy.host(0).data(), bytes, node);
  if (placement.first_page < 0) GTEST_SKIP() << "the node of pinned pages cannot be read back here";
  // Preferred, not bound: a node with under 8 MiB free would fall back, which no test host is.
  EXPECT_TRUE(placement.landed()) << "pages landed on node " << placement.first_page << ", not " << node
                                  << " (is that node's memory full? numactl -H)";
}

}  // namespace
}  // namespace hdbench
