// The pieces of the GPU step below GpuMlp: GpuGemm against a host reference; the
// shared-memory bias-gradient kernel, which the step runs only when cuBLASLt refuses
// the fused BGRADB epilogue (the H100 never did), so it is launched directly here and
// compute-sanitizer's racecheck sees its shared-memory reduction on every run; and the
// optimizers' vector kernels against their scalar kernels, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "gpu_test_support.hpp"
#include "mlp/cublaslt.hpp"
#include "mlp/mlp_gpu.hpp"
#include "mlp/mlp_model.hpp"
#include "mlp_kernels.hpp"

namespace hdbench {
namespace {

double max_abs(const std::vector<float>& values) {
  double m = 0.0;
  for (float v : values) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

TEST(MlpGpu, GemmMatchesAHostReference) {
  SKIP_WITHOUT_GPU();
  struct Size {
    int m, n, k;
  };
  for (MlpDtype dtype : {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}) {
    for (Size size : {Size{37, 50, 64}, Size{256, 192, 320}}) {
      SCOPED_TRACE(std::string(to_string(dtype)) + " " + std::to_string(size.m) + "x" + std::to_string(size.n) + "x" +
                   std::to_string(size.k));
      Stream stream;
      GpuGemm gemm(size.m, size.n, size.k, dtype, stream.get());
      EXPECT_DOUBLE_EQ(gemm.flops(), 2.0 * size.m * size.n * size.k);
      // The plan timed the algorithms cuBLASLt ran and kept the fastest, whose D is
      // checked below.
      const std::vector<double> timed = gemm.algorithm_microseconds();
      ASSERT_FALSE(timed.empty()) << gemm.describe_algorithm();
      EXPECT_LE(timed.size(), static_cast<std::size_t>(lt::kTimeCandidates.candidates));
      ASSERT_LT(gemm.kept_algorithm_index(), timed.size());
      EXPECT_EQ(timed[gemm.kept_algorithm_index()], *std::min_element(timed.begin(), timed.end()))
          << gemm.describe_algorithm();
      gemm.run();
      const std::vector<float> a = gemm.a_values();
      const std::vector<float> b = gemm.b_values();
      const std::vector<float> d = gemm.d_values();
      ASSERT_EQ(d.size(), static_cast<std::size_t>(size.m) * size.n);
      EXPECT_GT(max_abs(a), 0.5);  // random operands, not zeros
      EXPECT_GT(max_abs(b), 0.5);
      // Each element against Σ|a·b|: the scale its rounding errors grow with.
      const double rel = dtype == MlpDtype::fp32 ? 1e-5 : dtype == MlpDtype::tf32 ? 2e-3 : 1e-2;
      std::size_t bad = 0;
      for (int i = 0; i < size.m; ++i) {
        for (int j = 0; j < size.n; ++j) {
          double sum = 0.0;
          double magnitude = 0.0;
          for (int p = 0; p < size.k; ++p) {
            const double term = static_cast<double>(a[static_cast<std::size_t>(i) * size.k + p]) *
                                b[static_cast<std::size_t>(p) * size.n + j];
            sum += term;
            magnitude += std::abs(term);
          }
          const float got = d[static_cast<std::size_t>(i) * size.n + j];
          if (!(std::abs(got - sum) <= rel * magnitude) && bad++ == 0)
            ADD_FAILURE() << "D[" << i << "][" << j << "] = " << got << ", reference " << sum << " (Σ|a·b| "
                          << magnitude << ")";
        }
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

// db[c] = Σ_r dy[r][c] for every column, none beyond: shapes with one row, rows that
// are not a multiple of the block's 16 row-strides, widths below, at and across the
// 32-column blocks. The output is poisoned with NaN first (an unwritten column fails)
// and guarded by sentinels past the end (a column written beyond the width fails).
TEST(MlpKernelsGpu, BiasGradientSumsEachColumnOverTheRows) {
  SKIP_WITHOUT_GPU();
  struct Shape {
    int rows, width;
  };
  constexpr int kGuard = 40;
  constexpr float kSentinel = -12345.0f;
  for (bool bf16 : {false, true}) {
    for (Shape shape : {Shape{1, 10}, Shape{37, 64}, Shape{128, 100}, Shape{5, 33}, Shape{300, 32}}) {
      SCOPED_TRACE(std::string(bf16 ? "bf16 " : "fp32 ") + std::to_string(shape.rows) + "x" +
                   std::to_string(shape.width));
      const auto count = static_cast<std::size_t>(shape.rows) * static_cast<std::size_t>(shape.width);
      std::mt19937 rng(static_cast<std::uint32_t>(shape.rows * 131 + shape.width));
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      std::vector<float> dy(count);
      std::vector<__nv_bfloat16> dy_bf16(count);
      for (std::size_t i = 0; i < count; ++i) {
        dy[i] = value(rng);
        dy_bf16[i] = __float2bfloat16(dy[i]);
        if (bf16) dy[i] = __bfloat162float(dy_bf16[i]);  // the reference sums what the kernel reads
      }
      Stream stream;
      DeviceBuffer device_dy(count * (bf16 ? sizeof(__nv_bfloat16) : sizeof(float)));
      upload_bytes(device_dy.data(), bf16 ? static_cast<const void*>(dy_bf16.data()) : dy.data(), device_dy.size());
      std::vector<float> db(static_cast<std::size_t>(shape.width + kGuard), kSentinel);
      std::fill_n(db.begin(), shape.width, std::numeric_limits<float>::quiet_NaN());
      DeviceBuffer device_db(db.size() * sizeof(float));
      upload_bytes(device_db.data(), db.data(), device_db.size());
      if (bf16) {
        kernels::bias_gradient(device_dy.as<const __nv_bfloat16>(), device_db.as<float>(), shape.rows, shape.width,
                               stream.get());
      } else {
        kernels::bias_gradient(device_dy.as<const float>(), device_db.as<float>(), shape.rows, shape.width,
                               stream.get());
      }
      stream.synchronize();
      HDBENCH_CUDA_CHECK(cudaMemcpy(db.data(), device_db.data(), device_db.size(), cudaMemcpyDeviceToHost));
      for (int c = 0; c < shape.width; ++c) {
        double sum = 0.0;
        double magnitude = 0.0;
        for (int r = 0; r < shape.rows; ++r) {
          const double v = dy[static_cast<std::size_t>(r) * shape.width + c];
          sum += v;
          magnitude += std::abs(v);
        }
        // fp32 partial sums over at most 300 terms: a few ulps of Σ|dy|.
        EXPECT_LE(std::abs(db[c] - sum), 1e-5 * magnitude + 1e-30) << "column " << c << ": " << db[c] << " vs " << sum;
      }
      for (int c = shape.width; c < shape.width + kGuard; ++c) EXPECT_EQ(db[c], kSentinel) << "past the end: " << c;
    }
  }
}

// The optimizers' vector kernels (four elements a thread) against their scalar kernels,
// which run when the arrays are one float off 16-byte alignment: the same values in,
// the same bits out after three steps, at counts around the vector width (every tail
// length), with and without the bf16 copy. Elements past the count hold a sentinel
// that must survive (a tail written too far fails).
struct OptimizerArrays {
  static constexpr std::size_t kGuard = 8;
  std::size_t offset;
  std::size_t count;
  DeviceBuffer parameters, gradients, first, second, copy;
  DeviceBuffer adam_state{sizeof(kernels::AdamStepState)};

  OptimizerArrays(std::size_t offset_, std::size_t count_, const std::vector<std::vector<float>>& values)
      : offset(offset_),
        count(count_),
        parameters(floats()),
        gradients(floats()),
        first(floats()),
        second(floats()),
        copy((offset + count + kGuard) * sizeof(__nv_bfloat16)) {
    DeviceBuffer* arrays[] = {&parameters, &gradients, &first, &second};
    for (std::size_t a = 0; a < 4; ++a) {
      std::vector<float> padded(offset + count + kGuard, -777.0f);
      std::copy(values[a].begin(), values[a].end(), padded.begin() + static_cast<std::ptrdiff_t>(offset));
      upload_bytes(arrays[a]->data(), padded.data(), arrays[a]->size());
    }
    fill_device_bytes(copy.data(), 0xff, copy.size());
    fill_device_bytes(adam_state.data(), 0, adam_state.size());
  }
  std::size_t floats() const { return (offset + count + kGuard) * sizeof(float); }
  float* at(DeviceBuffer& buffer) { return buffer.as<float>() + offset; }
  __nv_bfloat16* copy_at(bool with_copy) { return with_copy ? copy.as<__nv_bfloat16>() + offset : nullptr; }

  // Every array from `offset` on, the guard included, as bytes.
  std::vector<unsigned char> bytes(DeviceBuffer& buffer, std::size_t element) const {
    std::vector<unsigned char> out((count + kGuard) * element);
    HDBENCH_CUDA_CHECK(cudaMemcpy(out.data(), static_cast<const unsigned char*>(buffer.data()) + offset * element,
                                  out.size(), cudaMemcpyDeviceToHost));
    return out;
  }
};

TEST(MlpKernelsGpu, OptimizerVectorKernelsEqualTheScalarOnesBitForBit) {
  SKIP_WITHOUT_GPU();
  const OptimizerConfig sgd = default_optimizer(OptimizerKind::sgd);
  const OptimizerConfig adam = default_optimizer(OptimizerKind::adam);
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam}) {
    for (bool with_copy : {false, true}) {
      for (std::size_t count : {1, 3, 4, 5, 7, 8, 1000, 4096 * 37 + 5}) {
        SCOPED_TRACE(std::string(to_string(kind)) + (with_copy ? " with bf16 copy" : "") + " count " +
                     std::to_string(count));
        std::mt19937 rng(static_cast<std::uint32_t>(count));
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        std::vector<std::vector<float>> values(4, std::vector<float>(count));
        for (std::size_t i = 0; i < count; ++i) {
          for (int a = 0; a < 3; ++a) values[a][i] = value(rng);
          values[3][i] = std::abs(value(rng));  // Adam's second moment is never negative
        }
        Stream stream;
        OptimizerArrays vector(0, count, values);
        OptimizerArrays scalar(1, count, values);
        for (int step = 0; step < 3; ++step) {
          for (OptimizerArrays* arrays : {&vector, &scalar}) {
            if (kind == OptimizerKind::sgd) {
              kernels::sgd_momentum_update(arrays->at(arrays->parameters), arrays->at(arrays->gradients),
                                           arrays->at(arrays->first), arrays->copy_at(with_copy), count,
                                           sgd.learning_rate, sgd.momentum, stream.get());
            } else {
              auto* state = arrays->adam_state.as<kernels::AdamStepState>();
              kernels::advance_adam_step(state, adam.learning_rate, adam.beta1, adam.beta2, stream.get());
              kernels::adam_update(arrays->at(arrays->parameters), arrays->at(arrays->gradients),
                                   arrays->at(arrays->first), arrays->at(arrays->second), arrays->copy_at(with_copy),
                                   count, adam.beta1, adam.beta2, adam.epsilon, state, stream.get());
            }
          }
        }
        stream.synchronize();
        const auto same = [&](DeviceBuffer OptimizerArrays::*array, std::size_t element, const char* name) {
          const std::vector<unsigned char> a = vector.bytes(vector.*array, element);
          const std::vector<unsigned char> b = scalar.bytes(scalar.*array, element);
          const auto differ = std::mismatch(a.begin(), a.end(), b.begin());
          EXPECT_TRUE(differ.first == a.end())
              << name << " differ from element " << (differ.first - a.begin()) / static_cast<std::ptrdiff_t>(element);
        };
        same(&OptimizerArrays::parameters, 4, "parameters");
        same(&OptimizerArrays::first, 4, "first moments (velocity)");
        same(&OptimizerArrays::second, 4, "second moments");
        same(&OptimizerArrays::copy, 2, "bf16 copies");
        // The update did run: the parameters moved, and the guard past the count did not.
        std::vector<float> moved(count + OptimizerArrays::kGuard);
        const std::vector<unsigned char> raw = vector.bytes(vector.parameters, 4);
        std::memcpy(moved.data(), raw.data(), raw.size());
        EXPECT_NE(moved[0], values[0][0]);
        for (std::size_t i = count; i < moved.size(); ++i) EXPECT_EQ(moved[i], -777.0f) << "guard " << i;
      }
    }
  }
}

}  // namespace
}  // namespace hdbench
