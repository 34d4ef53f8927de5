// The GPU conditions log: throttle reasons, the per-family readings, the busy readings
// and the warnings, from fake readings; and the path without NVML, which records why.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/gpu_conditions.hpp"

namespace hdbench {
namespace {

TEST(GpuConditions, ThrottleReasonsAreNamed) {
  EXPECT_TRUE(throttle_reason_names(0).empty());
  EXPECT_EQ(throttle_reason_names(throttle::kGpuIdle), (std::vector<std::string>{"gpu_idle"}));
  EXPECT_EQ(throttle_reason_names(throttle::kSwPowerCap | throttle::kHwThermalSlowdown),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(throttle_reason_names(0x1000), (std::vector<std::string>{"0x1000"}));  // a bit newer than hdbench
}

TEST(GpuConditions, IdleAloneIsNotThrottling) {
  EXPECT_FALSE(throttled(0));
  EXPECT_FALSE(throttled(throttle::kGpuIdle));
  EXPECT_TRUE(throttled(throttle::kGpuIdle | throttle::kSwPowerCap));
  EXPECT_TRUE(throttled(throttle::kHwSlowdown));
}

GpuSample fake(unsigned sm, std::uint64_t reasons) {
  GpuSample s;
  s.sm_clock_mhz = sm;
  s.sm_clock_max_mhz = 1980;
  s.memory_clock_mhz = 2619;
  s.power_w = 350.5;
  s.power_limit_w = 700.0;
  s.temperature_c = 61;
  s.throttle_reasons = reasons;
  return s;
}

TEST(GpuConditions, EachFamilyIsReadAtItsStartAndEnd) {
  std::vector<GpuSample> readings = {fake(1980, throttle::kGpuIdle), fake(1755, throttle::kSwPowerCap), fake(1980, 0),
                                     fake(1410, throttle::kHwThermalSlowdown)};
  std::size_t next = 0;
  GpuConditionsLog log([&] { return readings.at(next++); }, "");
  log.on_benchmark("transfer");
  log.on_benchmark("transfer");  // the same family: no reading
  log.on_benchmark("mlp");
  log.finish();
  const nlohmann::json j = log.to_json();
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["family"], "transfer");
  EXPECT_EQ(j[0]["when"], "start");
  EXPECT_EQ(j[1]["when"], "end");
  EXPECT_EQ(j[2]["family"], "mlp");
  EXPECT_EQ(j[3]["when"], "end");
  EXPECT_EQ(j[1]["sm_clock_MHz"], 1755);
  EXPECT_EQ(j[1]["power_limit_W"], 700.0);
  EXPECT_EQ(j[1]["temperature_C"], 61);
  EXPECT_EQ(j[1]["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));

  const std::vector<std::string> warnings = gpu_throttle_warnings(j);
  ASSERT_EQ(warnings.size(), 2u);  // the idle reading does not warn
  EXPECT_EQ(warnings[0], "transfer (end): clocks throttled: sw_power_cap (SM 1755 MHz of 1980)");
  EXPECT_EQ(warnings[1], "mlp (end): clocks throttled: hw_thermal_slowdown (SM 1410 MHz of 1980)");
}

TEST(GpuConditions, EachGpuIsReadForItsOwnBenchmarks) {
  std::vector<int> read;  // which sampler each reading came from
  std::map<int, GpuSampler> samplers;
  for (int device : {0, 1}) {
    samplers[device] = [&read, device] {
      read.push_back(device);
      return fake(device == 0 ? 1980 : 1410, device == 0 ? 0 : throttle::kHwThermalSlowdown);
    };
  }
  GpuConditionsLog log(std::move(samplers), "");
  // The family's benchmarks alternate GPUs: each GPU read at its first and at the family's end.
  for (int device : {0, 1, 0, 1}) log.on_benchmark("transfer", device);
  log.on_benchmark("loader", -1);  // a host benchmark: the first GPU's conditions
  log.finish();
  EXPECT_EQ(read, (std::vector<int>{0, 1, 0, 1, 0, 0}));
  const nlohmann::json j = log.to_json();
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[1]["family"], "transfer");
  EXPECT_EQ(j[1]["when"], "start");
  EXPECT_EQ(j[1]["device"], 1);
  EXPECT_EQ(j[3]["when"], "end");
  EXPECT_EQ(j[4]["family"], "loader");
  EXPECT_EQ(j[4]["device"], 0);
  const std::vector<std::string> warnings = gpu_throttle_warnings(j);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "transfer (start, GPU 1): clocks throttled: hw_thermal_slowdown (SM 1410 MHz of 1980)");
}

TEST(GpuConditions, AFieldNvmlCannotReadIsLeftOut) {
  const nlohmann::json j = to_json(GpuSample{});
  EXPECT_TRUE(j.empty());
}

TEST(GpuConditions, WithoutNvmlTheReasonIsRecorded) {
  std::string reason;
  const GpuSampler sampler = make_nvml_sampler("", 0, reason, "libhdbench-no-such-nvml.so.1");
  EXPECT_FALSE(sampler);
  EXPECT_NE(reason.find("libhdbench-no-such-nvml.so.1"), std::string::npos) << reason;
  GpuConditionsLog log(sampler, reason);
  log.on_benchmark("mlp");
  log.finish();
  const nlohmann::json j = log.to_json();
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["unavailable"], reason);
  EXPECT_TRUE(gpu_throttle_warnings(j).empty());
}

// A sampler for the busy readings: the run's own readings (start, end: the test's thread)
// read an idle GPU at 1980 MHz; the poller's alternate 1980 MHz unthrottled and 1650 MHz
// at the power cap, or read idle when `idle` is set. Counts the poller's readings.
struct BusyFake {
  std::thread::id run_thread = std::this_thread::get_id();
  std::atomic<int> polled{0};
  std::atomic<bool> idle{false};
  GpuSampler sampler() {
    return [this] {
      if (std::this_thread::get_id() == run_thread) return fake(1980, throttle::kGpuIdle);
      const int n = polled++;
      if (idle) return fake(1980, throttle::kGpuIdle);
      return n % 2 ? fake(1650, throttle::kSwPowerCap) : fake(1980, 0);
    };
  }
  // Waits (at most 10 s: a test, not a benchmark) until the poller has read `n` more times.
  void wait_for(int n) {
    const int until = polled + n;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (polled < until && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_GE(polled.load(), until) << "the poller did not read";
  }
};

TEST(GpuConditions, ABusyGpuIsReadWhileItsBenchmarkRuns) {
  BusyFake gpu;
  GpuConditionsLog log(gpu.sampler(), "", std::chrono::milliseconds(1));
  log.on_benchmark("mlp", -1, "mlp/step/gpu/large");
  gpu.wait_for(4);
  log.on_benchmark("mlp", -1, "mlp/step/gpu/small");
  gpu.wait_for(4);
  log.finish();
  const int polled = gpu.polled;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(gpu.polled.load(), polled) << "finish() stops the poller";
  const nlohmann::json j = log.to_json();
  ASSERT_EQ(j.size(), 4u);  // mlp's start and end, then one busy reading a benchmark
  EXPECT_EQ(j[1]["when"], "end");
  int busy_samples = 0;
  for (int i : {2, 3}) {
    EXPECT_EQ(j[i]["when"], "busy");
    EXPECT_EQ(j[i]["family"], "mlp");
    EXPECT_GE(j[i]["busy_samples"].get<int>(), 1);
    busy_samples += j[i]["busy_samples"].get<int>();
    EXPECT_FALSE(j[i].contains("device"));  // one unnamed GPU
  }
  EXPECT_EQ(j[2]["benchmark"], "mlp/step/gpu/large");
  EXPECT_EQ(j[3]["benchmark"], "mlp/step/gpu/small");
  EXPECT_EQ(busy_samples, polled);  // every reading of a busy GPU is kept, under the benchmark it was asked for
  // Four readings at least alternate 1980 and 1650 MHz: the lowest, the mean between, the power cap seen.
  EXPECT_EQ(j[2]["sm_clock_MHz"], 1650);
  EXPECT_GT(j[2]["sm_clock_mean_MHz"].get<double>(), 1650.0);
  EXPECT_LT(j[2]["sm_clock_mean_MHz"].get<double>(), 1980.0);
  EXPECT_EQ(j[2]["sm_clock_max_MHz"], 1980);
  EXPECT_EQ(j[2]["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_EQ(j[2]["power_W"], 350.5);
  const std::vector<std::string> warnings = gpu_throttle_warnings(j);
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0], "mlp (busy in mlp/step/gpu/large): clocks throttled: sw_power_cap (SM 1650 MHz of 1980)");
}

TEST(GpuConditions, AnIdleGpuLeavesNoBusyReading) {
  BusyFake gpu;
  gpu.idle = true;
  GpuConditionsLog log(gpu.sampler(), "", std::chrono::milliseconds(1));
  log.on_benchmark("mlp", -1, "mlp/step/cpu/small");  // a CPU benchmark: the GPU waits
  gpu.wait_for(3);
  log.finish();
  const nlohmann::json j = log.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["when"], "start");
  EXPECT_EQ(j[1]["when"], "end");
}

TEST(GpuConditions, WithoutABusyIntervalNothingPolls) {
  BusyFake gpu;
  {
    GpuConditionsLog log(gpu.sampler(), "");
    log.on_benchmark("mlp", -1, "mlp/step/gpu/large");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }  // destroyed without finish(): no thread left behind either
  EXPECT_EQ(gpu.polled.load(), 0);
}

}  // namespace
}  // namespace hdbench
