// The narrow layers' GEMM kernels against a plain double-precision GEMM, each instruction
// set this CPU runs (AVX-512 and AVX2 on an AVX-512 CPU), over shapes that cross every
// tile and block edge (AVX-512: rows 12/8/4/1, output rows 8/4/2/1, columns 48/16 and
// masked tails, reduction blocks of 256 and 128; AVX2: rows 6/4/2/1 and 16-output
// halves, output rows 6/4/2/1, columns 16/8 and masked tails, blocks of 128).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "mlp/narrow_gemm.hpp"

namespace hdbench {
namespace {

// The kernels' instruction sets this CPU runs; the tests skip, with the reason, on one
// that runs none (the step keeps OpenBLAS there).
std::vector<NarrowGemmIsa> supported_isas() {
  std::vector<NarrowGemmIsa> isas;
  for (NarrowGemmIsa isa : {NarrowGemmIsa::avx2, NarrowGemmIsa::avx512})
    if (narrow_gemm_supports(isa)) isas.push_back(isa);
  return isas;
}
#define SKIP_WITHOUT_NARROW_KERNELS()                                                           \
  do {                                                                                          \
    if (supported_isas().empty())                                                               \
      GTEST_SKIP() << "neither AVX-512 nor AVX2 with FMA on this CPU: the step keeps OpenBLAS"; \
  } while (0)

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// |got - want| <= 1e-5 · (sum of |terms|): the float rounding of a k-term dot product.
::testing::AssertionResult near(double got, double want, double magnitude) {
  if (std::abs(got - want) <= 1e-5 * magnitude + 1e-30) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got << " vs " << want << " (terms' magnitude " << magnitude << ")";
}

TEST(NarrowGemm, PackTransposesAndPadsWithZeros) {
  const int outputs = 3, k = 5;
  const std::vector<float> w = random_floats(outputs * k, 1);
  std::vector<float> packed(k * kNarrowPackedWidth, -1.0f);
  pack_narrow_weights(w.data(), outputs, k, 1, 4, packed.data());  // columns 1..3 only
  for (int j = 0; j < k; ++j) {
    for (int i = 0; i < kNarrowPackedWidth; ++i) {
      const float want = j < 1 || j >= 4 ? -1.0f : i < outputs ? w[i * k + j] : 0.0f;
      EXPECT_EQ(packed[j * kNarrowPackedWidth + i], want) << j << " " << i;
    }
  }
}

TEST(NarrowGemm, PackTransposesEveryShapeExactly) {
  for (const int outputs : {1, 7, 16, 17, 32}) {
    for (const int k : {1, 15, 16, 33, 100}) {
      SCOPED_TRACE(testing::Message() << "outputs " << outputs << " k " << k);
      const int ldw = k + 2;
      const std::vector<float> w = random_floats(static_cast<std::size_t>(outputs) * ldw, 6);
      std::vector<float> packed(static_cast<std::size_t>(k) * kNarrowPackedWidth, -1.0f);
      pack_narrow_weights(w.data(), outputs, ldw, 0, k, packed.data());
      for (int j = 0; j < k; ++j)
        for (int i = 0; i < kNarrowPackedWidth; ++i)
          ASSERT_EQ(packed[j * kNarrowPackedWidth + i], i < outputs ? w[i * ldw + j] : 0.0f) << j << " " << i;
    }
  }
}

TEST(NarrowGemm, ForwardMatchesAPlainGemm) {
  SKIP_WITHOUT_NARROW_KERNELS();
  for (NarrowGemmIsa isa : supported_isas())
    for (const int m : {1, 3, 4, 6, 7, 12, 13, 25, 37}) {
      for (const int outputs : {1, 8, 9, 10, 16, 17, 24, 25, 32}) {
        for (const int k : {1, 15, 64, 128, 129, 256, 257, 600}) {
          SCOPED_TRACE(testing::Message() << to_string(isa) << " m " << m << " outputs " << outputs << " k " << k);
          const int lda = k + 3, ldc = outputs + 2;  // strides wider than the rows
          const std::vector<float> a = random_floats(static_cast<std::size_t>(m) * lda, 2);
          const std::vector<float> w = random_floats(static_cast<std::size_t>(outputs) * k, 3);
          std::vector<float> packed(static_cast<std::size_t>(k) * kNarrowPackedWidth);
          pack_narrow_weights(w.data(), outputs, k, 0, k, packed.data());
          std::vector<float> c(static_cast<std::size_t>(m) * ldc, 7.0f);
          narrow_forward(m, outputs, k, a.data(), lda, packed.data(), c.data(), ldc, isa);
          for (int r = 0; r < m; ++r) {
            for (int i = 0; i < ldc; ++i) {
              if (i >= outputs) {  // past the outputs: untouched
                ASSERT_EQ(c[r * ldc + i], 7.0f);
                continue;
              }
              double want = 0, magnitude = 0;
              for (int p = 0; p < k; ++p) {
                want += static_cast<double>(a[r * lda + p]) * w[i * k + p];
                magnitude += std::abs(static_cast<double>(a[r * lda + p]) * w[i * k + p]);
              }
              ASSERT_TRUE(near(c[r * ldc + i], want, magnitude)) << "row " << r << " output " << i;
            }
          }
        }
      }
    }
}

TEST(NarrowGemm, WeightGradientMatchesAPlainGemm) {
  SKIP_WITHOUT_NARROW_KERNELS();
  for (NarrowGemmIsa isa : supported_isas())
    for (const int outputs : {1, 3, 6, 7, 10, 15, 32}) {
      for (const int n : {1, 7, 8, 9, 16, 17, 24, 47, 48, 49, 100}) {
        for (const int k : {1, 127, 128, 129, 300}) {
          SCOPED_TRACE(testing::Message() << to_string(isa) << " outputs " << outputs << " n " << n << " k " << k);
          const int ldg = outputs + 1, ldx = n + 5, ldc = n + 2;
          const std::vector<float> g = random_floats(static_cast<std::size_t>(k) * ldg, 4);
          const std::vector<float> x = random_floats(static_cast<std::size_t>(k) * ldx, 5);
          std::vector<float> c(static_cast<std::size_t>(outputs) * ldc, 7.0f);
          narrow_weight_gradient(outputs, n, k, g.data(), ldg, x.data(), ldx, c.data(), ldc, isa);
          for (int i = 0; i < outputs; ++i) {
            for (int j = 0; j < ldc; ++j) {
              if (j >= n) {
                ASSERT_EQ(c[i * ldc + j], 7.0f);
                continue;
              }
              double want = 0, magnitude = 0;
              for (int r = 0; r < k; ++r) {
                want += static_cast<double>(g[r * ldg + i]) * x[r * ldx + j];
                magnitude += std::abs(static_cast<double>(g[r * ldg + i]) * x[r * ldx + j]);
              }
              ASSERT_TRUE(near(c[i * ldc + j], want, magnitude)) << "output " << i << " column " << j;
            }
          }
        }
      }
    }
}

TEST(NarrowGemm, RefusesMoreThan32OutputsAndInstructionsTheCpuLacks) {
  SKIP_WITHOUT_NARROW_KERNELS();
  std::vector<float> buffer(64 * 64);
  EXPECT_THROW(narrow_forward(1, 33, 1, buffer.data(), 1, buffer.data(), buffer.data(), 33), std::invalid_argument);
  EXPECT_THROW(narrow_weight_gradient(33, 1, 1, buffer.data(), 33, buffer.data(), 1, buffer.data(), 1),
               std::invalid_argument);
  EXPECT_THROW(narrow_forward(1, 1, 1, buffer.data(), 1, buffer.data(), buffer.data(), 1, NarrowGemmIsa::none),
               std::invalid_argument);
  if (!narrow_gemm_supports(NarrowGemmIsa::avx512)) {
    EXPECT_THROW(
        narrow_weight_gradient(1, 1, 1, buffer.data(), 1, buffer.data(), 1, buffer.data(), 1, NarrowGemmIsa::avx512),
        std::invalid_argument);
  }
}

// The widest set is what the step uses, and the ones below it are supported too.
TEST(NarrowGemm, TheWidestInstructionSetIsTheDefault) {
  const NarrowGemmIsa widest = narrow_gemm_isa();
  EXPECT_EQ(narrow_gemm_available(), widest != NarrowGemmIsa::none);
  EXPECT_FALSE(narrow_gemm_supports(NarrowGemmIsa::none));
  EXPECT_EQ(narrow_gemm_supports(NarrowGemmIsa::avx2), widest != NarrowGemmIsa::none);
  EXPECT_EQ(narrow_gemm_supports(widest), widest != NarrowGemmIsa::none);
  EXPECT_STREQ(to_string(NarrowGemmIsa::avx2), "avx2");
}

}  // namespace
}  // namespace hdbench
