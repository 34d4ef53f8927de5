// Suite::add_gpu registers one copy per selected device (--hdbench_devices), named as
// before with one device and "/gpu:N" with several; add_gpu_once registers once.
// Registration needs no GPU: a SystemInfo with fake GPUs stands in for a machine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capture_runs.hpp"
#include "core/report.hpp"
#include "core/suite.hpp"

namespace hdbench {
namespace {

system::SystemInfo machine_with_gpus(int count) {
  system::SystemInfo info;
  for (int i = 0; i < count; ++i) {
    system::GpuInfo gpu;
    gpu.index = i;
    gpu.name = "fake";
    gpu.numa_node = i;
    info.gpus.push_back(gpu);
  }
  return info;  // no unavailable reason: usable
}

void nothing(benchmark::State&) {}

TEST(SuiteDevices, OneSelectedDeviceKeepsTheNameAndRecordsTheDevice) {
  Options options;
  options.device = 1;
  const system::SystemInfo info = machine_with_gpus(2);
  Suite suite(options, info);
  EXPECT_EQ(suite.devices(), std::vector<int>{1});  // --hdbench_device until set_devices
  EXPECT_EQ(suite.current_device(), 1);
  ASSERT_NE(suite.current_gpu(), nullptr);
  EXPECT_EQ(suite.current_gpu()->index, 1);
  EXPECT_EQ(suite.add_gpu("suite_devices/one", {{"family", "test"}}, nothing).copies().size(), 1u);
  EXPECT_EQ(suite.params().names(), std::vector<std::string>{"suite_devices/one"});
  EXPECT_EQ((*suite.params().find("suite_devices/one"))["device"], 1);
}

TEST(SuiteDevices, SeveralSelectedDevicesRegisterACopyEachNamedByItsGpu) {
  Options options;
  const system::SystemInfo info = machine_with_gpus(3);
  Suite suite(options, info);
  suite.set_devices({0, 2});
  EXPECT_EQ(suite.device_name("x", 2), "x/gpu:2");
  const GpuCopies copies = suite.add_gpu("suite_devices/two", {{"family", "test"}, {"bytes", 4}}, nothing);
  EXPECT_EQ(copies.copies().size(), 2u);
  EXPECT_EQ(suite.params().names(), (std::vector<std::string>{"suite_devices/two/gpu:0", "suite_devices/two/gpu:2"}));
  EXPECT_EQ((*suite.params().find("suite_devices/two/gpu:0"))["device"], 0);
  EXPECT_EQ((*suite.params().find("suite_devices/two/gpu:2"))["device"], 2);
  EXPECT_EQ((*suite.params().find("suite_devices/two/gpu:2"))["bytes"], 4);
  EXPECT_TRUE(suite.skipped_names().empty());
  EXPECT_EQ(suite.current_device(), 0);  // outside a benchmark: the first selected
}

TEST(SuiteDevices, MultiDeviceBenchmarksOptOutAndRegisterOnce) {
  Options options;
  const system::SystemInfo info = machine_with_gpus(2);
  Suite suite(options, info);
  suite.set_devices({0, 1});
  EXPECT_EQ(suite.add_gpu_once("suite_devices/all", {{"family", "test"}, {"devices", {0, 1}}}, nothing).copies().size(),
            1u);
  EXPECT_EQ(suite.params().names(), std::vector<std::string>{"suite_devices/all"});
  EXPECT_FALSE(suite.params().find("suite_devices/all")->contains("device"));
}

TEST(SuiteDevices, WithoutAGpuEachDeviceIsSkippedWithTheReason) {
  Options options;
  system::SystemInfo info;
  info.gpu_unavailable_reason = "no CUDA driver (test)";
  Suite suite(options, info);
  suite.set_devices({0, 1});
  // Chained settings are harmless when nothing was registered to run.
  EXPECT_TRUE(suite.add_gpu("suite_devices/none", {{"family", "test"}}, nothing)->Iterations(1)->copies().empty());
  EXPECT_TRUE(
      suite.add_gpu_once("suite_devices/none_once", {{"family", "test"}}, nothing)->Iterations(1)->copies().empty());
  EXPECT_EQ(suite.skipped_names(), (std::vector<std::string>{"suite_devices/none/gpu:0", "suite_devices/none/gpu:1",
                                                             "suite_devices/none_once"}));
  EXPECT_EQ(suite.current_gpu(), nullptr);
  testing::CaptureRuns capture;
  benchmark::RunSpecifiedBenchmarks(&capture, "^suite_devices/none/");
  ASSERT_EQ(capture.runs.size(), 2u);
  for (const auto& run : capture.runs) {
    EXPECT_TRUE(run.error_occurred);
    EXPECT_EQ(run.error_message, std::string(kSkippedPrefix) + "no CUDA driver (test)");
  }
}

TEST(SuiteDevices, ADeviceTheMachineLacksIsSkippedSayingSo) {
  Options options;
  const system::SystemInfo info = machine_with_gpus(1);
  Suite suite(options, info);
  EXPECT_EQ(suite.add_gpu_on(3, "suite_devices/missing", {{"family", "test"}}, nothing), nullptr);
  EXPECT_EQ(suite.skipped_names(), std::vector<std::string>{"suite_devices/missing"});
  EXPECT_EQ((*suite.params().find("suite_devices/missing"))["device"], 3);
}

TEST(SuiteDevices, NoDeviceIsRejected) {
  Options options;
  const system::SystemInfo info;
  Suite suite(options, info);
  EXPECT_THROW(suite.set_devices({}), std::invalid_argument);
}

}  // namespace
}  // namespace hdbench
