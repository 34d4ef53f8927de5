// The GPU conditions log: throttle reasons, the per-family readings and the warnings,
// from fake readings; and the path without NVML, which records why.
#include <gtest/gtest.h>

#include <map>
#include <string>
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

}  // namespace
}  // namespace hdbench
