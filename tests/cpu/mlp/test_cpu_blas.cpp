// Which OpenBLAS core the CPU step runs on: the decision, without re-executing.
#include <gtest/gtest.h>

#include "mlp/cpu_blas.hpp"

namespace hdbench {
namespace {

CpuFeatures cpu_with(bool avx512, const char* vendor = "GenuineIntel") {
  CpuFeatures cpu;
  cpu.vendor = vendor;
  cpu.avx = cpu.avx2 = cpu.fma = true;
  cpu.avx512f = avx512;
  return cpu;
}

TEST(CpuBlas, AnOlderCoreThanTheCpuAllowsIsReplacedByTheBest) {
  // The H100 host: OpenBLAS 0.3.21 did not know the Xeon and fell back to Prescott.
  EXPECT_EQ(blas_core_to_use("auto", "Prescott", cpu_with(true)), "SkylakeX");
  EXPECT_EQ(blas_core_to_use("auto", "Nehalem", cpu_with(false)), "Haswell");
  EXPECT_EQ(blas_core_to_use("auto", "Prescott", cpu_with(false, "AuthenticAMD")), "Zen");
}

TEST(CpuBlas, AMatchingOrNewerCoreIsKept) {
  EXPECT_EQ(blas_core_to_use("auto", "SkylakeX", cpu_with(true)), std::nullopt);
  EXPECT_EQ(blas_core_to_use("auto", "Zen", cpu_with(false, "AuthenticAMD")), std::nullopt);
  EXPECT_EQ(blas_core_to_use("auto", "Haswell", cpu_with(false)), std::nullopt);
}

TEST(CpuBlas, KeepAndANamedCoreOverrideTheChoice) {
  EXPECT_EQ(blas_core_to_use("keep", "Prescott", cpu_with(true)), std::nullopt);
  EXPECT_EQ(blas_core_to_use("Haswell", "SkylakeX", cpu_with(true)), "Haswell");
  EXPECT_EQ(blas_core_to_use("haswell", "Haswell", cpu_with(true)), std::nullopt);  // already in use
}

TEST(CpuBlas, CoreLevels) {
  EXPECT_EQ(openblas_core_level("SkylakeX"), VectorLevel::avx512);
  EXPECT_EQ(openblas_core_level("ZEN"), VectorLevel::avx2_fma);
  EXPECT_EQ(openblas_core_level("Prescott"), VectorLevel::sse);
  EXPECT_EQ(openblas_core_level("SomethingNew"), VectorLevel::sse);
}

TEST(CpuBlas, TheLoadedLibraryNamesItsCore) {
  EXPECT_FALSE(openblas_core_name().empty());
  EXPECT_NE(openblas_build_config().find("OpenBLAS"), std::string::npos);
}

}  // namespace
}  // namespace hdbench
