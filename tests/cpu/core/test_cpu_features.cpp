// Instruction sets and the theoretical fp32 peak, from hand-written cpuinfo texts.
#include <gtest/gtest.h>

#include <string>

#include "core/cpu_features.hpp"

namespace hdbench {
namespace {

// Two sockets x two cores x two hyperthreads: eight logical CPUs, four physical cores.
std::string xeon_cpuinfo(const std::string& flags) {
  std::string text;
  int processor = 0;
  for (int socket = 0; socket < 2; ++socket) {
    for (int core = 0; core < 2; ++core) {
      for (int thread = 0; thread < 2; ++thread) {
        text += "processor\t: " + std::to_string(processor++) + "\nvendor_id\t: GenuineIntel\n" +
                "physical id\t: " + std::to_string(socket) + "\ncore id\t\t: " + std::to_string(core) +
                "\ncpu MHz\t\t: 2100.000\nflags\t\t: " + flags + "\n\n";
      }
    }
  }
  return text;
}

TEST(CpuFeatures, Avx512PeakIsCoresTimesSixtyFourFlopsTimesTheMaxClock) {
  const CpuFeatures cpu =
      parse_cpu_features(xeon_cpuinfo("fpu sse2 avx avx2 fma avx512f avx512bw amx_tile"), 3'000'000);
  EXPECT_EQ(cpu.logical_cpus, 8);
  EXPECT_EQ(cpu.physical_cores, 4);
  EXPECT_TRUE(cpu.avx512f && cpu.amx_tile && cpu.fma);
  EXPECT_EQ(cpu.level(), VectorLevel::avx512);
  EXPECT_EQ(cpu.fp32_flops_per_cycle(), 64);
  EXPECT_DOUBLE_EQ(cpu.clock_ghz, 3.0);
  EXPECT_EQ(cpu.clock_source, "cpufreq cpuinfo_max_freq");
  EXPECT_DOUBLE_EQ(cpu.fp32_peak_gflops(), 4 * 64 * 3.0);  // 768 GFLOP/s
}

TEST(CpuFeatures, WithoutCpufreqTheCurrentClockIsUsedAndSaidSo) {
  const CpuFeatures cpu = parse_cpu_features(xeon_cpuinfo("sse2 avx avx2 fma"), 0);
  EXPECT_EQ(cpu.level(), VectorLevel::avx2_fma);
  EXPECT_DOUBLE_EQ(cpu.clock_ghz, 2.1);
  EXPECT_NE(cpu.clock_source.find("current"), std::string::npos);
  EXPECT_DOUBLE_EQ(cpu.fp32_peak_gflops(), 4 * 32 * 2.1);
}

TEST(CpuFeatures, FlagsAreWholeWords) {
  // "avx512f" alone is not "avx", "avx2" needs "fma" for the FMA level.
  const CpuFeatures cpu = parse_cpu_features("processor : 0\nflags : sse2 avx2 avx512fx\n", 0);
  EXPECT_FALSE(cpu.avx);
  EXPECT_FALSE(cpu.avx512f);
  EXPECT_EQ(cpu.level(), VectorLevel::sse);
  EXPECT_EQ(cpu.physical_cores, 1);               // no core ids: one per logical CPU
  EXPECT_DOUBLE_EQ(cpu.fp32_peak_gflops(), 0.0);  // no clock: no peak claimed
}

TEST(CpuFeatures, ThisMachineIsReadAndReported) {
  const CpuFeatures cpu = discover_cpu_features();
  EXPECT_GE(cpu.logical_cpus, 1);
  const nlohmann::json j = to_json(cpu);
  for (const char* key : {"instruction_sets", "vector_level", "physical_cores", "clock_GHz", "clock_source",
                          "fp32_nominal_peak_GFLOP/s", "peak_assumes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

}  // namespace
}  // namespace hdbench
