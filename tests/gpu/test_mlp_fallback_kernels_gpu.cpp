// The fallback kernels a plan may keep instead of a fused cuBLASLt epilogue, launched
// directly against host references: the vectorised ReLU gradient (16-byte body, scalar
// tail, and the scalar kernel for misaligned pointers), the bias gradient with its rows
// split into chunks and a padded leading dimension, and the softmax cross-entropy on
// padded logits (the padding masked: the same loss and gradient as unpadded, zeros in
// the gradient's padding); and hdbench's kernel for the output layer's input gradient with
// the ReLU gradient, in place of a GEMM (mlp_narrow_kernels.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "gpu_test_support.hpp"
#include "mlp_kernels.hpp"
#include "mlp_narrow_kernels.hpp"

namespace hdbench {
namespace {

template <typename T>
std::vector<T> download(const DeviceBuffer& buffer, std::size_t count, std::size_t offset = 0) {
  std::vector<T> host(count);
  HDBENCH_CUDA_CHECK(cudaMemcpy(host.data(), static_cast<const T*>(buffer.data()) + offset, count * sizeof(T),
                                cudaMemcpyDeviceToHost));
  return host;
}

template <typename T>
DeviceBuffer upload(const std::vector<T>& host) {
  DeviceBuffer buffer(host.size() * sizeof(T));
  upload_bytes(buffer.data(), host.data(), buffer.size());
  return buffer;
}

float widen(float v) { return v; }
float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
T narrow(float v) {
  if constexpr (sizeof(T) == 2) {
    return __float2bfloat16(v);
  } else {
    return v;
  }
}

// Counts around the vector width (tails of every length), at offsets that keep or
// break 16-byte alignment.
template <typename T>
void check_relu_gradient() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (std::size_t count : {1, 7, 8, 9, 15, 16, 17, 1000, 4096 * 37 + 5}) {
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("count " + std::to_string(count) + " offset " + std::to_string(offset));
      std::vector<T> dy(count + offset);
      std::vector<T> activation(count + offset);
      for (std::size_t i = 0; i < dy.size(); ++i) {
        dy[i] = narrow<T>(value(rng));
        // Post-ReLU activations: zeros (a third), positives; a negative zero too.
        const float a = value(rng);
        activation[i] = narrow<T>(i % 97 == 0 ? -0.0f : (a < -0.33f ? 0.0f : std::abs(a)));
      }
      DeviceBuffer device_dy = upload(dy);
      const DeviceBuffer device_activation = upload(activation);
      Stream stream;
      kernels::relu_gradient(static_cast<T*>(device_dy.data()) + offset,
                             static_cast<const T*>(device_activation.data()) + offset, count, stream.get());
      stream.synchronize();
      const std::vector<T> got = download<T>(device_dy, dy.size());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < dy.size(); ++i) {
        const float expected = i < offset || widen(activation[i]) > 0.0f ? widen(dy[i]) : 0.0f;
        if (widen(got[i]) != expected && bad++ == 0)
          ADD_FAILURE() << "[" << i << "]: " << widen(got[i]) << ", expected " << expected;
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

TEST(MlpFallbackKernelsGpu, ReluGradientKeepsDyWhereTheActivationIsPositive) {
  SKIP_WITHOUT_GPU();
  check_relu_gradient<float>();
  check_relu_gradient<__nv_bfloat16>();
}

// The output layer's shapes (10 classes at ld 10 and 16, 1 and 16 outputs) over batches
// with row-block tails, against a float64 host reference. dy's padding columns and the
// rows beyond `rows` hold NaN, and dx starts as NaN: a read of the padding, or an
// element left unwritten, fails.
template <typename T>
void check_narrow_input_gradient() {
  struct Shape {
    int rows, outputs, ldy, inputs;
  };
  for (Shape s : {Shape{37, 10, 16, 32}, Shape{128, 10, 10, 64}, Shape{1000, 10, 16, 4096}, Shape{17, 1, 1, 4},
                  Shape{33, 16, 16, 1028}}) {
    SCOPED_TRACE(std::to_string(s.rows) + " rows, " + std::to_string(s.outputs) + " outputs at ld " +
                 std::to_string(s.ldy) + ", " + std::to_string(s.inputs) + " inputs");
    std::mt19937 rng(static_cast<std::uint32_t>(s.rows * 31 + s.inputs));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const auto rows = static_cast<std::size_t>(s.rows);
    const auto inputs = static_cast<std::size_t>(s.inputs);
    std::vector<T> w(static_cast<std::size_t>(s.outputs) * inputs);
    for (T& v : w) v = narrow<T>(value(rng));
    std::vector<T> dy((rows + 1) * s.ldy);  // one NaN row past the end
    for (std::size_t i = 0; i < dy.size(); ++i)
      dy[i] = narrow<T>(i / s.ldy < rows && static_cast<int>(i % s.ldy) < s.outputs ? value(rng) : std::nanf(""));
    std::vector<T> activation(rows * inputs);
    for (std::size_t i = 0; i < activation.size(); ++i) {
      const float a = value(rng);
      activation[i] = narrow<T>(i % 89 == 0 ? -0.0f : (a < -0.33f ? 0.0f : std::abs(a)));
    }
    const DeviceBuffer device_w = upload(w);
    const DeviceBuffer device_dy = upload(dy);
    const DeviceBuffer device_activation = upload(activation);
    DeviceBuffer dx(rows * inputs * sizeof(T));
    fill_device_bytes(dx.data(), 0xFF, dx.size());
    ASSERT_TRUE(kernels::narrow_input_gradient_supported(s.outputs, s.inputs, dx.data(), device_activation.data()));
    Stream stream;
    kernels::narrow_input_gradient(static_cast<const T*>(device_w.data()), static_cast<const T*>(device_dy.data()),
                                   s.ldy, static_cast<const T*>(device_activation.data()), static_cast<T*>(dx.data()),
                                   s.rows, s.outputs, s.inputs, stream.get());
    stream.synchronize();
    const std::vector<T> got = download<T>(dx, rows * inputs);
    // fp32 sums of 16 terms; bf16 adds the one rounding of the result (2^-8 relative).
    const double relative = sizeof(T) == 2 ? 1.0 / 256 : 4e-6;
    std::size_t bad = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < inputs; ++i) {
        double sum = 0.0;
        double magnitude = 0.0;
        for (int k = 0; k < s.outputs; ++k) {
          const double term = static_cast<double>(widen(dy[r * s.ldy + k])) * widen(w[k * inputs + i]);
          sum += term;
          magnitude += std::abs(term);
        }
        const double expected = widen(activation[r * inputs + i]) > 0.0f ? sum : 0.0;
        const float g = widen(got[r * inputs + i]);
        if (!(std::abs(g - expected) <= relative * magnitude + 1e-30) && bad++ == 0)
          ADD_FAILURE() << "[" << r << "][" << i << "]: " << g << ", expected " << expected;
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

// The tf32 weight gradient's transposed input: every element lands where it should, at
// sizes that leave partial tiles on both sides and with rows wider than their data, and
// nothing beyond dst's rows is written.
TEST(MlpFallbackKernelsGpu, TransposeMovesEveryElementAcrossPartialTiles) {
  SKIP_WITHOUT_GPU();
  constexpr float kUntouched = -7.0f;
  for (const auto& [rows, cols, src_ld, dst_ld] :
       {std::array{1, 1, 1, 1}, std::array{37, 784, 784, 37}, std::array{33, 31, 40, 35}, std::array{128, 64, 64, 128},
        std::array{1000, 3, 5, 1003}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " src_ld " + std::to_string(src_ld) + " dst_ld " +
                 std::to_string(dst_ld));
    std::vector<float> src(static_cast<std::size_t>(rows) * src_ld);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 65521) + 0.5f;
    const DeviceBuffer device_src = upload(src);
    DeviceBuffer device_dst = upload(std::vector<float>(static_cast<std::size_t>(cols) * dst_ld, kUntouched));
    Stream stream;
    kernels::transpose(static_cast<const float*>(device_src.data()), rows, cols, src_ld,
                       static_cast<float*>(device_dst.data()), dst_ld, stream.get());
    stream.synchronize();
    const std::vector<float> got = download<float>(device_dst, static_cast<std::size_t>(cols) * dst_ld);
    std::size_t bad = 0;
    for (int c = 0; c < cols; ++c) {
      for (int r = 0; r < dst_ld; ++r) {
        const float expected = r < rows ? src[static_cast<std::size_t>(r) * src_ld + c] : kUntouched;
        const float value = got[static_cast<std::size_t>(c) * dst_ld + r];
        if (value != expected && bad++ == 0)
          ADD_FAILURE() << "dst[" << c << "][" << r << "] " << value << ", expected " << expected;
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST(MlpFallbackKernelsGpu, NarrowInputGradientIsTheGemmWithTheReluGradient) {
  SKIP_WITHOUT_GPU();
  check_narrow_input_gradient<float>();
  check_narrow_input_gradient<__nv_bfloat16>();
}

// Split (8192 rows of 10 and 32) and unsplit shapes, padded leading dimensions; the
// padding columns hold NaN, so a column read beyond the width fails.
template <typename T>
void check_bias_gradient() {
  struct Shape {
    int rows, width, ld;
  };
  for (Shape s : {Shape{8192, 10, 16}, Shape{8192, 10, 10}, Shape{8192, 32, 32}, Shape{1000, 10, 16}, Shape{129, 3, 8},
                  Shape{37, 64, 64}, Shape{8192, 4096, 4096}}) {
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.width) + " ld " + std::to_string(s.ld) + " chunks " +
                 std::to_string(kernels::bias_gradient_row_chunks(s.rows, s.width)));
    std::mt19937 rng(static_cast<std::uint32_t>(s.rows + s.width));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<T> dy(static_cast<std::size_t>(s.rows) * s.ld);
    for (std::size_t i = 0; i < dy.size(); ++i)
      dy[i] = narrow<T>(static_cast<int>(i % s.ld) < s.width ? value(rng) : std::nanf(""));
    const DeviceBuffer device_dy = upload(dy);
    DeviceBuffer db(static_cast<std::size_t>(s.width) * sizeof(float));
    fill_device_bytes(db.data(), 0xFF, db.size());
    const std::size_t capacity = kernels::bias_gradient_partials_needed(s.width);
    DeviceBuffer partials(std::max<std::size_t>(capacity, 1) * sizeof(float));
    Stream stream;
    kernels::bias_gradient(static_cast<const T*>(device_dy.data()), s.ld, db.as<float>(), s.rows, s.width,
                           partials.as<float>(), capacity, stream.get());
    stream.synchronize();
    const std::vector<float> got = download<float>(db, static_cast<std::size_t>(s.width));
    for (int c = 0; c < s.width; ++c) {
      double sum = 0.0;
      double magnitude = 0.0;
      for (int r = 0; r < s.rows; ++r) {
        const double v = widen(dy[static_cast<std::size_t>(r) * s.ld + c]);
        sum += v;
        magnitude += std::abs(v);
      }
      EXPECT_LE(std::abs(got[c] - sum), 1e-5 * magnitude + 1e-30) << "column " << c << ": " << got[c] << " vs " << sum;
    }
  }
}

TEST(MlpFallbackKernelsGpu, BiasGradientSplitAcrossRowsSumsEachColumn) {
  SKIP_WITHOUT_GPU();
  check_bias_gradient<float>();
  check_bias_gradient<__nv_bfloat16>();
}

// The same logits stored at ld = classes and at a padded ld with NaN in the padding:
// the loss, the correct count and the gradient agree exactly, and the padded
// gradient's padding is zero.
template <typename G>
void check_padded_softmax() {
  constexpr int kBatch = 300;
  constexpr int kClasses = 10;
  constexpr int kLd = 16;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  std::uniform_int_distribution<int> label(0, kClasses - 1);
  std::vector<float> logits(kBatch * kClasses);
  std::vector<float> padded(kBatch * kLd, std::nanf(""));
  std::vector<std::int32_t> labels(kBatch);
  for (int r = 0; r < kBatch; ++r) {
    labels[r] = label(rng);
    for (int c = 0; c < kClasses; ++c) padded[r * kLd + c] = logits[r * kClasses + c] = value(rng);
  }
  const DeviceBuffer device_logits = upload(logits);
  const DeviceBuffer device_padded = upload(padded);
  const DeviceBuffer device_labels = upload(labels);
  DeviceBuffer dlogits(kBatch * kClasses * sizeof(G));
  DeviceBuffer dpadded(kBatch * kLd * sizeof(G));
  fill_device_bytes(dpadded.data(), 0xFF, dpadded.size());
  DeviceBuffer loss(kBatch * sizeof(float)), padded_loss(kBatch * sizeof(float));
  DeviceBuffer correct(kBatch * sizeof(int)), padded_correct(kBatch * sizeof(int));
  Stream stream;
  kernels::softmax_cross_entropy(device_logits.as<const float>(), device_labels.as<const std::int32_t>(), kBatch,
                                 kClasses, dlogits.as<G>(), loss.as<float>(), correct.as<int>(), stream.get());
  kernels::softmax_cross_entropy(device_padded.as<const float>(), device_labels.as<const std::int32_t>(), kBatch,
                                 kClasses, kLd, dpadded.as<G>(), padded_loss.as<float>(), padded_correct.as<int>(),
                                 stream.get());
  stream.synchronize();
  EXPECT_EQ(download<float>(loss, kBatch), download<float>(padded_loss, kBatch));
  EXPECT_EQ(download<int>(correct, kBatch), download<int>(padded_correct, kBatch));
  const std::vector<G> g = download<G>(dlogits, kBatch * kClasses);
  const std::vector<G> gp = download<G>(dpadded, kBatch * kLd);
  std::size_t bad = 0;
  for (int r = 0; r < kBatch; ++r) {
    for (int c = 0; c < kLd; ++c) {
      const float expected = c < kClasses ? widen(g[r * kClasses + c]) : 0.0f;
      if (widen(gp[r * kLd + c]) != expected && bad++ == 0)
        ADD_FAILURE() << "row " << r << " column " << c << ": " << widen(gp[r * kLd + c]) << ", expected " << expected;
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(MlpFallbackKernelsGpu, PaddedLogitsGiveTheUnpaddedLossAndZeroGradientPadding) {
  SKIP_WITHOUT_GPU();
  check_padded_softmax<float>();
  check_padded_softmax<__nv_bfloat16>();
}

}  // namespace
}  // namespace hdbench
